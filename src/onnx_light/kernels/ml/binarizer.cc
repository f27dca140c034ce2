// ai.onnx.ml Binarizer: Y = 1 where X > threshold, else 0, in X's type (NaN gives 0).
#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

class Binarizer : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Binarizer>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->threshold_, info.GetFloat("threshold", 0.0f));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t n = x.num_elements();
    MlDispatch(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<T>();
      T* out = y->mutable_data<T>();
      // Compared in double: an int64 beyond 2^24 is not rounded to a float first.
      const double t = threshold_;
      for (int64_t i = 0; i < n; ++i)
        out[i] = static_cast<T>(static_cast<double>(in[i]) > t ? 1.0f : 0.0f);
    });
    return Status::Ok();
  }

 private:
  float threshold_ = 0.0f;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, Binarizer) {
  return r.Register(MlDef("Binarizer", 1, kMaxOpset, {{"T", {0}, {0}, MlNumericTypes()}},
                          FactoryOf<Binarizer>()));
}

}  // namespace onnx_light::kernels
