// ai.onnx.ml Normalizer: each row of X (rank 1 or 2) divided by its MAX (largest value),
// L1 (sum of |x|) or L2 (Euclidean) norm, as float; a row whose norm is 0 is copied.
#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

enum class Norm { kMax, kL1, kL2 };

class Normalizer : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Normalizer>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string norm, info.GetString("norm", "MAX"));
    ONNX_LIGHT_RETURN_IF_ERROR(MlCheckChoice("norm", norm, {"MAX", "L1", "L2"}));
    k->norm_ = norm == "MAX" ? Norm::kMax : norm == "L1" ? Norm::kL1 : Norm::kL2;
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto rc, MlRows(x));
    const int64_t rows = rc.first, cols = rc.second;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    std::vector<float> buf;
    const float* in = MlFloats(x, buf);
    float* out = y->mutable_data<float>();
    for (int64_t r = 0; r < rows; ++r, in += cols, out += cols) {
      float norm = 0.0f;
      if (norm_ == Norm::kMax) {
        norm = std::numeric_limits<float>::lowest();
        for (int64_t c = 0; c < cols; ++c)
          norm = std::max(norm, in[c]);
      } else {
        for (int64_t c = 0; c < cols; ++c)
          norm += norm_ == Norm::kL1 ? std::fabs(in[c]) : in[c] * in[c];
        if (norm_ == Norm::kL2) norm = std::sqrt(norm);
      }
      const bool keep = norm == 0.0f || cols == 0;
      for (int64_t c = 0; c < cols; ++c)
        out[c] = keep ? in[c] : in[c] / norm;
    }
    return Status::Ok();
  }

 private:
  Norm norm_ = Norm::kMax;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, Normalizer) {
  return r.Register(MlDef("Normalizer", 1, kMaxOpset,
                          {{"T", {0}, {}, MlNumericTypes()}, {"Y", {}, {0}, {DataType::kFloat}}},
                          FactoryOf<Normalizer>()));
}

}  // namespace onnx_light::kernels
