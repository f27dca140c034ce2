// If: runs the then- or else-branch, compiled with the session (runtime/subgraph.h). The
// branches read values of enclosing graphs as the node's implicit inputs; they take no
// inputs of their own. Limit: their outputs are tensors.
#include "common/kernel_util.h"
#include "controlflow/subgraph_outputs.h"
#include "onnx_light/runtime/subgraph.h"

namespace onnx_light::kernels {
namespace {

class If : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<If>();
    k->then_ = info.subgraph("then_branch");
    k->else_ = info.subgraph("else_branch");
    ONNX_LIGHT_RETURN_IF(k->then_ == nullptr || k->else_ == nullptr, kInvalidModel,
                         "then_branch and else_branch graphs are required");
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor* cond = ctx.input(0);
    ONNX_LIGHT_RETURN_IF(
        cond == nullptr || cond->dtype() != DataType::kBool || cond->num_elements() != 1,
        kInvalidArgument, "cond must be a bool tensor of one element");
    const Subgraph& branch = cond->data<bool>()[0] ? *then_ : *else_;
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Value> values, branch.Run(ctx, {}));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Tensor> outs, TensorOutputs(std::move(values)));
    ONNX_LIGHT_RETURN_IF(outs.size() != ctx.output_count(), kInvalidModel,
                         "the branch has " + std::to_string(outs.size()) + " outputs, the node " +
                             std::to_string(ctx.output_count()));
    for (size_t i = 0; i < outs.size(); ++i) {
      ONNX_LIGHT_RETURN_IF(outs[i].dtype() != ctx.info().output_type(i), kTypeMismatch,
                           "branch output " + std::to_string(i) + " is " +
                               DataTypeName(outs[i].dtype()) + ", expected " +
                               DataTypeName(ctx.info().output_type(i)));
      ONNX_LIGHT_RETURN_IF_ERROR(ctx.SetOutput(i, std::move(outs[i])));
    }
    return Status::Ok();
  }

 private:
  const Subgraph* then_ = nullptr;
  const Subgraph* else_ = nullptr;
};

// Output types: what the then-branch, built with the node, computes.
Status IfOutputTypes(const onnx::NodeProto&, int, const std::vector<DataType>&,
                     std::vector<DataType>* out, const NodeSubgraphs& subgraphs) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(const Subgraph* then_g, RequiredSubgraph(subgraphs, "then_branch"));
  ONNX_LIGHT_RETURN_IF_ERROR(NoSequenceOutputs(*then_g));
  const std::vector<ValueMeta>& outs = then_g->outputs();
  for (size_t i = 0; i < outs.size() && i < out->size(); ++i)
    (*out)[i] = outs[i].type;
  return Status::Ok();
}

// The branches take no inputs of their own: nothing to type.
Status IfBranchInputTypes(const onnx::NodeProto&, int, const std::string&,
                          const std::vector<DataType>&, std::vector<DataType>*) {
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, If) {
  KernelDef def = Def("If", 1, {{"B", {0}, {}, {DataType::kBool}}}, FactoryOf<If>());
  def.output_types = &IfOutputTypes;
  def.subgraph_input_types = &IfBranchInputTypes;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
