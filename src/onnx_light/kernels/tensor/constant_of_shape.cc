// ConstantOfShape: a tensor of a given shape filled with one value.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/tensor_proto.h"

namespace onnx_light::kernels {
namespace {

class ConstantOfShape : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ConstantOfShape>();
    if (const onnx::AttributeProto* a = info.Find("value")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->value_, TensorFromProto(a->t.get()));
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->value_, Tensor::Allocate(DataType::kFloat, Shape()));
      k->value_.mutable_data<float>()[0] = 0.0f;
    }
    ONNX_LIGHT_RETURN_IF(k->value_.num_elements() != 1, kInvalidModel,
                         "value must hold one element");
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, Int64Values(ctx.input(0), "input"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, value_.dtype(), dims));
    const size_t item = ItemSize(value_.dtype());
    const int64_t n = y->num_elements();
    if (item == 0 || n == 0) {  // strings one by one
      for (int64_t j = 0; j < n; ++j)
        CopyElement(value_, 0, y, j, item);
      return Status::Ok();
    }
    // One element, then doubling copies: log2(n) memcpy calls.
    auto* out = static_cast<char*>(y->mutable_raw_data());
    std::memcpy(out, value_.raw_data(), item);
    for (int64_t done = 1; done < n;) {
      const int64_t step = std::min(done, n - done);
      std::memcpy(out + done * static_cast<int64_t>(item), out, static_cast<size_t>(step) * item);
      done += step;
    }
    return Status::Ok();
  }

 private:
  Tensor value_;
};

Status ConstantOfShapeType(const onnx::NodeProto& node, int, const std::vector<DataType>&,
                           std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = DataType::kFloat;
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "value") {
      ONNX_LIGHT_ASSIGN_OR_RETURN((*out)[0], DataTypeFromInt(a.t->data_type.get()));
    }
  }
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ConstantOfShape) {
  KernelDef def = Def("ConstantOfShape", 9, {{"T1", {0}, {}, {DataType::kInt64}}},
                      FactoryOf<ConstantOfShape>());
  def.output_types = &ConstantOfShapeType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
