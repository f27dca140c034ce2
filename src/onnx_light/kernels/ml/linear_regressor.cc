// ai.onnx.ml LinearRegressor: Y[N, targets] = X W^T + intercepts (float), then the
// post-transform as ONNX Runtime applies it (with one target only PROBIT changes it).
#include "ml/linear.h"

namespace onnx_light::kernels {
namespace {

class LinearRegressor : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<LinearRegressor>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->targets_, info.GetInt("targets", 1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->coefficients_, info.GetFloats("coefficients"));
    if (info.HasAttribute("intercepts")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->intercepts_, info.GetFloats("intercepts"));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->post_, MlPostTransform(info));
    if (k->targets_ < 1 || k->coefficients_.empty() ||
        k->targets_ > static_cast<int64_t>(k->coefficients_.size()) ||
        (!k->intercepts_.empty() && static_cast<int64_t>(k->intercepts_.size()) != k->targets_)) {
      return Status(StatusCode::kInvalidModel,
                    "targets = " + std::to_string(k->targets_) + " with " +
                        std::to_string(k->coefficients_.size()) + " coefficients and " +
                        std::to_string(k->intercepts_.size()) + " intercepts");
    }
    k->transposed_ = MlTransposed(k->coefficients_, k->targets_);
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto rc, MlRows(x));
    const int64_t rows = rc.first, cols = rc.second;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {rows, targets_}));
    std::vector<float> buf;
    float* s = y->mutable_data<float>();
    ONNX_LIGHT_RETURN_IF_ERROR(MlAffine(MlFloats(x, buf), rows, cols, transposed_, intercepts_,
                                        targets_, s, ctx.thread_pool()));
    if (targets_ > 1) {
      MlTransformRows(s, rows, targets_, post_);
    } else if (post_ == PostTransform::kProbit) {
      for (int64_t r = 0; r < rows; ++r)
        s[r] = MlProbit(s[r]);
    }
    return Status::Ok();
  }

 private:
  int64_t targets_ = 1;
  std::vector<float> transposed_;  // W^T, for the GEMM
  std::vector<float> coefficients_, intercepts_;
  PostTransform post_ = PostTransform::kNone;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, LinearRegressor) {
  return r.Register(MlDef("LinearRegressor", 1, kMaxOpset,
                          {{"T", {0}, {}, MlNumericTypes()}, {"Y", {}, {0}, {DataType::kFloat}}},
                          FactoryOf<LinearRegressor>()));
}

}  // namespace onnx_light::kernels
