// Optional tensors: Optional, OptionalHasElement, OptionalGetElement. The session passes
// an empty optional as a null input and treats an unset optional output as empty.
// Optionals of sequences are not supported (refused when the session is created).
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// Optional(x): x wrapped, or an empty optional of the `type` attribute's element type.
class Optional : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Optional());
  }
  Status Compute(KernelContext& ctx) const override {
    if (const Tensor* x = ctx.input(0)) return ctx.SetOutput(0, *x);
    return Status::Ok();  // left unset: empty
  }
};

// OptionalHasElement: whether the optional holds a value (an absent input: false; a plain
// tensor, as opset 18 allows: true).
class OptionalHasElement : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new OptionalHasElement());
  }
  Status Compute(KernelContext& ctx) const override {
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {}));
    y->mutable_data<bool>()[0] = ctx.input(0) != nullptr;
    return Status::Ok();
  }
};

// OptionalGetElement: the optional's tensor (a plain tensor passes through); an empty
// optional is an error.
class OptionalGetElement : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new OptionalGetElement());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor* x = ctx.input(0);
    ONNX_LIGHT_RETURN_IF(x == nullptr, kInvalidArgument, "the optional input is empty");
    return ctx.SetOutput(0, *x);
  }
};

// Optional's element type: its input's, else the `type` attribute's tensor element type.
Status OptionalType(const onnx::NodeProto& node, int, const std::vector<DataType>& in,
                    std::vector<DataType>* out, const NodeSubgraphs&) {
  if (!in.empty() && in[0] != DataType::kUndefined) {
    (*out)[0] = in[0];
    return Status::Ok();
  }
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "type" && a.tp->tensor_type.has()) {
      ONNX_LIGHT_ASSIGN_OR_RETURN((*out)[0], DataTypeFromInt(a.tp->tensor_type->elem_type.get()));
      return Status::Ok();
    }
  }
  return Status(StatusCode::kNotImplemented,
                "Optional without an input needs a tensor `type` attribute (optionals of "
                "sequences are not supported)");
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Optional) {
  KernelDef def = Def("Optional", 15, {{"T", {0}, {0}, AllTensorTypes()}}, FactoryOf<Optional>());
  def.optional_outputs = {0};
  def.output_types = &OptionalType;
  return r.Register(std::move(def));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, OptionalHasElement) {
  KernelDef def = Def("OptionalHasElement", 15,
                      {{"O", {0}, {}, AllTensorTypes()}, {"B", {}, {0}, {DataType::kBool}}},
                      FactoryOf<OptionalHasElement>());
  def.optional_inputs = {0};
  return r.Register(std::move(def));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, OptionalGetElement) {
  KernelDef def = Def("OptionalGetElement", 15, {{"T", {0}, {0}, AllTensorTypes()}},
                      FactoryOf<OptionalGetElement>());
  def.optional_inputs = {0};
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
