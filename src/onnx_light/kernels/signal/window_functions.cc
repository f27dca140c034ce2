// The window functions HannWindow, HammingWindow and BlackmanWindow, as the ONNX reference
// defines them.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/saturate.h"
#include "signal/output_datatype.h"

namespace onnx_light::kernels {
namespace {

constexpr double kPi = 3.14159265358979323846;

enum class Win { kHann, kHamming, kBlackman };

// The window functions: size samples, periodic (N = size) or symmetric (N = size - 1).
template <Win kWin>
class Window : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Window>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->periodic_, GetFlag(info, "periodic", true));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor* size_t_ = ctx.input(0);
    ONNX_LIGHT_RETURN_IF(size_t_->num_elements() != 1, kInvalidArgument, "size must be a scalar");
    const int64_t size = IndexValues(*size_t_)[0];
    ONNX_LIGHT_RETURN_IF(size < 0, kInvalidArgument,
                         "size must be >= 0, got " + std::to_string(size));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {size}));
    const double n1 = static_cast<double>(periodic_ ? size : size - 1);
    DispatchNumeric(y->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        T* out = y->mutable_data<T>();
        for (int64_t i = 0; i < size; ++i) {
          const double t = 2 * kPi * static_cast<double>(i) / n1;
          double v;
          if constexpr (kWin == Win::kHann) {
            v = 0.5 - 0.5 * std::cos(t);
          } else if constexpr (kWin == Win::kHamming) {
            v = 25.0 / 46.0 - (21.0 / 46.0) * std::cos(t);
          } else {
            v = 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2 * t);
          }
          // A symmetric window of size 1 is 0/0: NaN, as in the ONNX reference and ORT; an
          // integer output takes it as 0 (a NaN cast to an integer is undefined).
          out[i] = FromDouble<T>(v);
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool periodic_ = true;
};

template <Win kWin>
Status RegisterWindow(KernelRegistry& r, const char* op) {
  KernelDef def = Def(op, 17, {{"T1", {0}, {}, IndexTypes()}, {"T2", {}, {0}, NumericTypes()}},
                      FactoryOf<Window<kWin>>());
  def.output_types = &OutputDatatype;
  return r.Register(std::move(def));
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, HannWindow) {
  return RegisterWindow<Win::kHann>(r, "HannWindow");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, HammingWindow) {
  return RegisterWindow<Win::kHamming>(r, "HammingWindow");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, BlackmanWindow) {
  return RegisterWindow<Win::kBlackman>(r, "BlackmanWindow");
}

}  // namespace onnx_light::kernels
