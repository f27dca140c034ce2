// Mod with numpy broadcasting: Python % for integers (fmod=0), C fmod for floats and fmod=1.
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// Mod: integers take the divisor's sign (Python %) unless fmod=1 (C fmod, the dividend's
// sign); floats require fmod=1. Integer division by zero is an error.
template <typename T>
T IntMod(T a, T b, bool fmod) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return 0;  // also INT_MIN % -1, which would trap
  }
  T r = static_cast<T>(a % b);
  if constexpr (std::is_signed_v<T>) {
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
  }
  return r;
}

class Mod : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Mod>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->fmod_, GetFlag(info, "fmod", false));
    const DataType t = info.input_type(0);
    ONNX_LIGHT_RETURN_IF(!k->fmod_ && (t == DataType::kFloat || t == DataType::kDouble ||
                                       t == DataType::kFloat16 || t == DataType::kBFloat16),
                         kInvalidModel, "fmod must be 1 for floating-point inputs");
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(1);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(a.shape(), b.shape()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    Status status = Status::Ok();
    const bool fmod = fmod_;
    DispatchNumeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        for (int64_t i = 0; i < b.num_elements(); ++i) {
          if (b.data<T>()[i] == T(0)) {
            status = Status(StatusCode::kInvalidArgument, "integer division by zero");
            return;
          }
        }
        BroadcastApply(a.data<T>(), a.shape(), b.data<T>(), b.shape(), y->mutable_data<T>(), dims,
                       ctx.thread_pool(), [fmod](T u, T v) { return IntMod(u, v, fmod); });
      } else if constexpr (!std::is_same_v<T, bool>) {
        using C = typename ComputeType<T>::type;
        BroadcastApply(a.data<T>(), a.shape(), b.data<T>(), b.shape(), y->mutable_data<T>(), dims,
                       ctx.thread_pool(), [](T u, T v) {
                         return static_cast<T>(std::fmod(static_cast<C>(u), static_cast<C>(v)));
                       });
      }
    });
    return status;
  }

 private:
  bool fmod_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Mod) {
  return r.Register(Def("Mod", 10, {{"T", {0, 1}, {0}, NumericTypes()}}, FactoryOf<Mod>()));
}

}  // namespace onnx_light::kernels
