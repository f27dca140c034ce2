// ai.onnx.ml SVMRegressor: Y[N, 1] = sum_j coefficients[j] K(x, support_vectors[j]) + rho[0]
// with n_supports support vectors (SVR, NuSVR), or <x, coefficients> + rho[0] without any
// (linear); one_class = 1 gives +1 / -1 by the sign (OneClassSVM); PROBIT post-transform.
#include "ml/svm.h"

namespace onnx_light::kernels {
namespace {

class SVMRegressor : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<SVMRegressor>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->params_, ReadSvmParams(info));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->coefficients_, info.GetFloats("coefficients"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<float> rho, info.GetFloats("rho"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->supports_, info.GetInt("n_supports", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->one_class_, GetFlag(info, "one_class", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->post_, MlPostTransform(info));
    if (info.HasAttribute("support_vectors")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->support_vectors_, info.GetFloats("support_vectors"));
    }
    if (rho.empty() || k->coefficients_.empty() || k->supports_ < 0) {
      return Status(StatusCode::kInvalidModel, "needs rho, coefficients and n_supports >= 0");
    }
    k->rho_ = rho[0];
    if (k->supports_ > 0) {
      const auto n = static_cast<size_t>(k->supports_);
      if (k->coefficients_.size() != n || k->support_vectors_.size() % n != 0 ||
          k->support_vectors_.empty()) {
        return Status(StatusCode::kInvalidModel,
                      std::to_string(n) + " support vectors need " + std::to_string(n) +
                          " coefficients and n * features support_vectors, got " +
                          std::to_string(k->coefficients_.size()) + " and " +
                          std::to_string(k->support_vectors_.size()));
      }
      k->features_ = static_cast<int64_t>(k->support_vectors_.size() / n);
    } else {
      k->params_.kernel = SvmKernel::kLinear;
      k->features_ = static_cast<int64_t>(k->coefficients_.size());
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto rc, SvmRows(x, features_));
    const int64_t rows = rc.first, cols = rc.second;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {rows, 1}));
    std::vector<float> buf;
    const float* in = MlFloats(x, buf);
    float* out = y->mutable_data<float>();
    if (supports_ == 0) {
      SvmKernelRows(params_, in, coefficients_.data(), rows, 1, cols, rho_, out, ctx.thread_pool());
    } else {
      std::vector<float> k(static_cast<size_t>(rows * supports_));
      SvmKernelRows(params_, in, support_vectors_.data(), rows, supports_, cols, 0.0f, k.data(),
                    ctx.thread_pool());
      for (int64_t r = 0; r < rows; ++r) {
        double sum = 0.0;
        for (int64_t j = 0; j < supports_; ++j)
          sum += static_cast<double>(coefficients_[static_cast<size_t>(j)]) * k[r * supports_ + j];
        out[r] = static_cast<float>(sum + rho_);
      }
    }
    for (int64_t r = 0; r < rows; ++r) {
      if (one_class_) out[r] = out[r] > 0 ? 1.0f : -1.0f;
      if (post_ == PostTransform::kProbit) out[r] = MlProbit(out[r]);
    }
    return Status::Ok();
  }

 private:
  SvmParams params_;
  std::vector<float> coefficients_, support_vectors_;
  float rho_ = 0.0f;
  int64_t supports_ = 0, features_ = 0;
  bool one_class_ = false;
  PostTransform post_ = PostTransform::kNone;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, SVMRegressor) {
  return r.Register(MlDef("SVMRegressor", 1, kMaxOpset,
                          {{"T", {0}, {}, MlNumericTypes()}, {"Y", {}, {0}, {DataType::kFloat}}},
                          FactoryOf<SVMRegressor>()));
}

}  // namespace onnx_light::kernels
