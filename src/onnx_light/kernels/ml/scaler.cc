// ai.onnx.ml Scaler: Y = (X - offset) * scale as float, per feature (the last dimension)
// or one value for all; what skl2onnx writes for StandardScaler, MinMaxScaler, ...
#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

class Scaler : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Scaler>();
    if (info.HasAttribute("scale")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->scale_, info.GetFloats("scale"));
    }
    if (info.HasAttribute("offset")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->offset_, info.GetFloats("offset"));
    }
    if (k->scale_.empty()) k->scale_ = {1.0f};
    if (k->offset_.empty()) k->offset_ = {0.0f};
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF(x.shape().rank() == 0, kInvalidArgument,
                         "X must have a feature dimension");
    const int64_t c = x.shape()[x.shape().rank() - 1];
    for (const auto* v : {&scale_, &offset_}) {
      ONNX_LIGHT_RETURN_IF(v->size() != 1 && static_cast<int64_t>(v->size()) != c, kInvalidArgument,
                           (v == &scale_ ? "scale" : "offset") + std::string(" has ") +
                               std::to_string(v->size()) + " values; X has " + std::to_string(c) +
                               " features (give 1 or " + std::to_string(c) + ")");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    std::vector<float> buf;
    const float* in = MlFloats(x, buf);
    float* out = y->mutable_data<float>();
    const int64_t rows = c > 0 ? x.num_elements() / c : 0;
    // One value per feature (broadcast when one is given), then rows of plain loops.
    std::vector<float> scale(static_cast<size_t>(c)), offset(static_cast<size_t>(c));
    for (int64_t f = 0; f < c; ++f) {
      scale[static_cast<size_t>(f)] = scale_[scale_.size() > 1 ? static_cast<size_t>(f) : 0];
      offset[static_cast<size_t>(f)] = offset_[offset_.size() > 1 ? static_cast<size_t>(f) : 0];
    }
    for (int64_t r = 0; r < rows; ++r, in += c, out += c) {
      for (int64_t f = 0; f < c; ++f)
        out[f] = (in[f] - offset[static_cast<size_t>(f)]) * scale[static_cast<size_t>(f)];
    }
    return Status::Ok();
  }

 private:
  std::vector<float> scale_, offset_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, Scaler) {
  return r.Register(MlDef("Scaler", 1, kMaxOpset,
                          {{"T", {0}, {}, MlNumericTypes()}, {"Y", {}, {0}, {DataType::kFloat}}},
                          FactoryOf<Scaler>()));
}

}  // namespace onnx_light::kernels
