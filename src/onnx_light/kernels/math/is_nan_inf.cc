// IsNaN and IsInf: the float classes, as bool.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// IsNaN, and IsInf with detect_positive / detect_negative.
template <bool kNan>
class FloatClass : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<FloatClass>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->pos_, GetFlag(info, "detect_positive", true));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->neg_, GetFlag(info, "detect_negative", true));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    bool* out = y->mutable_data<bool>();
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_integral_v<T>) {
        for (int64_t i = 0; i < x.num_elements(); ++i) {
          const auto v = static_cast<double>(x.data<T>()[i]);
          out[i] = kNan ? std::isnan(v) : (std::isinf(v) && (v > 0 ? pos_ : neg_));
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool pos_ = true, neg_ = true;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, IsNaN) {
  return r.Register(Def("IsNaN", 9,
                        {{"T1", {0}, {}, FloatTypes()}, {"T2", {}, {0}, {DataType::kBool}}},
                        FactoryOf<FloatClass<true>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, IsInf) {
  return r.Register(Def("IsInf", 10,
                        {{"T1", {0}, {}, FloatTypes()}, {"T2", {}, {0}, {DataType::kBool}}},
                        FactoryOf<FloatClass<false>>()));
}

}  // namespace onnx_light::kernels
