// If: runs one of two subgraphs, each as a nested RuntimeSession built once at the first
// run. Values the branches read from the enclosing graph arrive as the node's extra
// (implicit) inputs, in SubgraphFreeNames order, and are fed to the branch by name.
//
// Limits: a branch may use ai.onnx ops only (at the node's opset) and the built-in
// kernels; its outputs are tensors (no sequences or optionals).
#include <algorithm>

#include "kernel_util.h"
#include "onnx_light/runtime/session.h"
#include "onnx_light/runtime/subgraph.h"

namespace onnx_light::kernels {
namespace {

// A runnable copy of `graph` whose enclosing-scope reads become graph inputs with the
// types the node's implicit inputs have.
struct Branch {
  std::unique_ptr<RuntimeSession> session;
  std::vector<std::string> feeds;  // enclosing-scope names this branch reads
  std::vector<size_t> inputs;      // their positions among the node's inputs
};

// `input_types` are the node's input types (explicit, then implicit from `first_implicit`).
Result<Branch> MakeBranch(const onnx::GraphProto& graph, int opset,
                          const std::vector<std::string>& node_free, size_t first_implicit,
                          const std::vector<DataType>& input_types, const std::string& where) {
  Branch b;
  onnx::ModelProto model;
  model.ir_version.set(8);
  onnx::OperatorSetIdProto* op = model.opset_import.Add();
  op->domain.set("");
  op->version.set(opset);
  onnx::GraphProto* g = model.graph.mutable_get();
  *g = graph;
  for (const std::string& name : GraphFreeNames(graph)) {
    auto it = std::lower_bound(node_free.begin(), node_free.end(), name);
    const size_t pos = first_implicit + static_cast<size_t>(it - node_free.begin());
    if (it == node_free.end() || *it != name || pos >= input_types.size()) {
      return Status(StatusCode::kInternal, where + ": branch reads unknown '" + name + "'");
    }
    onnx::ValueInfoProto* vi = g->input.Add();
    vi->name.set(name);
    vi->type.mutable_get()->tensor_type.mutable_get()->elem_type.set(
        static_cast<int32_t>(input_types[pos]));
    b.feeds.push_back(name);
    b.inputs.push_back(pos);
  }
  Result<std::unique_ptr<RuntimeSession>> s = RuntimeSession::Create(std::move(model));
  if (!s.ok()) return s.status().WithContext(where + ": branch '" + graph.name.get() + "'");
  b.session = std::move(*s);
  return b;
}

const onnx::GraphProto* BranchGraph(const onnx::NodeProto& node, const char* name) {
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == name && a.g.has()) return &a.g.get();
  }
  return nullptr;
}

class If : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<If>();
    const onnx::GraphProto* then_g = BranchGraph(info.node(), "then_branch");
    const onnx::GraphProto* else_g = BranchGraph(info.node(), "else_branch");
    if (then_g == nullptr || else_g == nullptr) {
      return Status(StatusCode::kInvalidModel,
                    info.Describe() + ": then_branch and else_branch graphs are required");
    }
    const std::vector<std::string> free = SubgraphFreeNames(info.node());
    const size_t first = info.node().input.size();
    std::vector<DataType> types;
    for (size_t i = 0; i < info.input_count(); ++i)
      types.push_back(info.input_type(i));
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        k->then_, MakeBranch(*then_g, info.opset(), free, first, types, info.Describe()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        k->else_, MakeBranch(*else_g, info.opset(), free, first, types, info.Describe()));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) override {
    const Tensor* cond = ctx.input(0);
    if (cond == nullptr || cond->dtype() != DataType::kBool || cond->num_elements() != 1) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": cond must be a bool tensor of one element");
    }
    Branch& b = cond->data<bool>()[0] ? then_ : else_;
    std::vector<NamedTensor> feeds;
    for (size_t i = 0; i < b.feeds.size(); ++i)
      feeds.emplace_back(b.feeds[i], *ctx.input(b.inputs[i]));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Tensor> outs, b.session->Run(feeds, {}));
    if (outs.size() != ctx.output_count()) {
      return Status(StatusCode::kInvalidModel,
                    ctx.info().Describe() + ": the branch has " + std::to_string(outs.size()) +
                        " outputs, the node " + std::to_string(ctx.output_count()));
    }
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i].dtype() != ctx.info().output_type(i)) {
        return Status(StatusCode::kTypeMismatch, ctx.info().Describe() + ": branch output " +
                                                     std::to_string(i) + " is " +
                                                     DataTypeName(outs[i].dtype()) + ", expected " +
                                                     DataTypeName(ctx.info().output_type(i)));
      }
      ONNX_LIGHT_RETURN_IF_ERROR(ctx.SetOutput(i, std::move(outs[i])));
    }
    return Status::Ok();
  }

 private:
  Branch then_, else_;
};

// Output types: what the then-branch computes (built once here to find out; the kernel
// builds its own at the first run).
Status IfOutputTypes(const onnx::NodeProto& node, int opset, const std::vector<DataType>& in,
                     std::vector<DataType>* out) {
  const onnx::GraphProto* then_g = BranchGraph(node, "then_branch");
  if (then_g == nullptr) {
    return Status(StatusCode::kInvalidModel, "If: then_branch graph is required");
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(
      Branch b, MakeBranch(*then_g, opset, SubgraphFreeNames(node), node.input.size(), in, "If"));
  const std::vector<ValueMeta>& outs = b.session->outputs();
  for (size_t i = 0; i < outs.size() && i < out->size(); ++i)
    (*out)[i] = outs[i].type;
  return Status::Ok();
}

}  // namespace

Status RegisterKernel_ai_onnx_If(KernelRegistry& r) {
  KernelDef def = Def("If", 1, {{"B", {0}, {}, {DataType::kBool}}}, FactoryOf<If>());
  def.output_types = &IfOutputTypes;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
