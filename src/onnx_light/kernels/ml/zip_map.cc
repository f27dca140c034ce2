// ai.onnx.ml ZipMap: each row of X (a classifier's scores, [N, C] or [C]) as a map from the
// class labels (classlabels_strings or classlabels_int64s, C of them) to the row's scores:
// a sequence of N maps, which Python receives as a list of {label: score} dicts, as from
// ONNX Runtime. The rows are copied once into one buffer that the N maps' value tensors
// view, and the labels once per run into keys that the maps share.
#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

class ZipMap : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ZipMap>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->strings_, MlStringsOrEmpty(info, "classlabels_strings"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->ints_, MlIntsOrEmpty(info, "classlabels_int64s"));
    if (k->strings_.empty() == k->ints_.empty()) {
      return Status(StatusCode::kInvalidModel,
                    "exactly one of classlabels_strings and classlabels_int64s must be given");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF(x.shape().rank() == 0 || x.shape().rank() > 2, kInvalidArgument,
                         "X must be [N, C] or [C], got " + x.shape().ToString());
    const bool strings = !strings_.empty();
    const int64_t labels = static_cast<int64_t>(strings ? strings_.size() : ints_.size());
    const int64_t rows = x.shape().rank() == 1 ? 1 : x.shape()[0];
    const int64_t cols = x.shape().dims().back();
    ONNX_LIGHT_RETURN_IF(cols != labels, kInvalidArgument,
                         "X has " + std::to_string(cols) + " scores per row but the node has " +
                             std::to_string(labels) + " class labels");
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        Tensor keys,
        ctx.AllocateTemporary(strings ? DataType::kString : DataType::kInt64, {labels}));
    if (strings) {
      std::copy(strings_.begin(), strings_.end(), keys.mutable_data<std::string>());
    } else {
      std::copy(ints_.begin(), ints_.end(), keys.mutable_data<int64_t>());
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor all, ctx.AllocateTemporary(DataType::kFloat, {rows, cols}));
    std::copy(x.data<float>(), x.data<float>() + rows * cols, all.mutable_data<float>());
    auto keep = std::make_shared<const Tensor>(std::move(all));
    const float* base = keep->data<float>();
    auto maps = std::make_shared<MapSequence>();
    maps->reserve(static_cast<size_t>(rows));
    const size_t row_bytes = static_cast<size_t>(cols) * sizeof(float);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape row_shape, Shape::Create({cols}));
    for (int64_t r = 0; r < rows; ++r) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor row, Tensor::Borrow(DataType::kFloat, row_shape,
                                                             base + r * cols, row_bytes, keep));
      maps->push_back(TensorMap{keys, std::move(row)});
    }
    Value out;
    out.maps = std::move(maps);
    return ctx.SetOutputValue(0, std::move(out));
  }

 private:
  std::vector<std::string> strings_;
  std::vector<int64_t> ints_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, ZipMap) {
  KernelDef def =
      MlDef("ZipMap", 1, kMaxOpset, {{"T", {0}, {0}, {DataType::kFloat}}}, FactoryOf<ZipMap>());
  def.map_sequence_outputs = {0};
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
