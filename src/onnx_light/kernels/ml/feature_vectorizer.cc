// ai.onnx.ml FeatureVectorizer: the inputs' features side by side as one float [N, sum of
// inputdimensions]: input i ([N, ...] or one row [C]) gives inputdimensions[i] columns, its
// values in order, cut to that count or padded with zeros.
#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

class FeatureVectorizer : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<FeatureVectorizer>();
    if (info.HasAttribute("inputdimensions")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->dims_, info.GetInts("inputdimensions"));
    }
    if (k->dims_.size() != info.input_count()) {
      return Status(StatusCode::kInvalidModel,
                    "inputdimensions has " + std::to_string(k->dims_.size()) + " values for " +
                        std::to_string(info.input_count()) + " inputs");
    }
    for (int64_t d : k->dims_) {
      if (d < 0 || d > INT32_MAX || k->total_ + d > INT32_MAX) {
        return Status(StatusCode::kInvalidModel,
                      "inputdimensions holds a count outside [0, 2^31) (or they sum past it)");
      }
      k->total_ += d;
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    int64_t rows = -1;
    for (size_t i = 0; i < ctx.input_count(); ++i) {
      const Tensor& x = *ctx.input(i);
      ONNX_LIGHT_RETURN_IF(x.shape().rank() == 0, kInvalidArgument,
                           "input " + std::to_string(i) + " is a scalar; give [N, C] or [C]");
      const std::vector<DataType> numeric = MlNumericTypes();
      ONNX_LIGHT_RETURN_IF(std::find(numeric.begin(), numeric.end(), x.dtype()) == numeric.end(),
                           kTypeMismatch,
                           "input " + std::to_string(i) + " is " + DataTypeName(x.dtype()) +
                               "; the inputs must be float, double, int64 or int32");
      const int64_t n = x.shape().rank() == 1 ? 1 : x.shape()[0];
      ONNX_LIGHT_RETURN_IF(rows >= 0 && n != rows, kInvalidArgument,
                           "input " + std::to_string(i) + " has " + std::to_string(n) +
                               " rows, input 0 has " + std::to_string(rows));
      rows = n;
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {rows, total_}));
    float* out = y->mutable_data<float>();
    std::fill(out, out + rows * total_, 0.0f);
    int64_t col = 0;
    std::vector<float> buf;
    for (size_t i = 0; i < ctx.input_count(); ++i) {
      const Tensor& x = *ctx.input(i);
      const float* in = MlFloats(x, buf);
      const int64_t stride = rows == 0 ? 0 : x.num_elements() / rows;
      const int64_t take = std::min(stride, dims_[i]);
      for (int64_t r = 0; r < rows; ++r)
        std::copy(in + r * stride, in + r * stride + take, out + r * total_ + col);
      col += dims_[i];
    }
    return Status::Ok();
  }

 private:
  std::vector<int64_t> dims_;
  int64_t total_ = 0;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, FeatureVectorizer) {
  // Each input may have its own numeric type (checked when it runs).
  return r.Register(MlDef("FeatureVectorizer", 1, kMaxOpset, {{"Y", {}, {0}, {DataType::kFloat}}},
                          FactoryOf<FeatureVectorizer>(), {1, -1}));
}

}  // namespace onnx_light::kernels
