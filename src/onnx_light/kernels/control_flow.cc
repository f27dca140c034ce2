// If and Loop: subgraphs run as nested RuntimeSessions built once at the first run. Values the
// branches read from the enclosing graph arrive as the node's extra (implicit) inputs, in
// SubgraphFreeNames order, and are fed to the branch by name.
//
// Limits: a branch may use ai.onnx ops only (at the node's opset) and the built-in
// kernels; its outputs are tensors (no sequences or optionals).
#include <algorithm>
#include <cstdint>

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
// `own_types` fill the element types of the graph's own inputs where it leaves them out
// (a Loop body's iteration number, condition and carried values).
Result<Branch> MakeBranch(const onnx::GraphProto& graph, int opset,
                          const std::vector<std::string>& node_free, size_t first_implicit,
                          const std::vector<DataType>& input_types, const std::string& where,
                          const std::vector<DataType>& own_types = {}) {
  Branch b;
  onnx::ModelProto model;
  model.ir_version.set(8);
  onnx::OperatorSetIdProto* op = model.opset_import.Add();
  op->domain.set("");
  op->version.set(opset);
  onnx::GraphProto* g = model.graph.mutable_get();
  *g = graph;
  for (size_t k = 0; k < g->input.size() && k < own_types.size(); ++k) {
    onnx::TypeProto_Tensor* tt = g->input[k].type.mutable_get()->tensor_type.mutable_get();
    if (!tt->elem_type.has() || tt->elem_type.get() == 0) {
      tt->elem_type.set(static_cast<int32_t>(own_types[k]));
    }
  }
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

// Loop: runs the body while the trip count (M) and the condition allow; carried values
// pass from one iteration to the next, scan outputs are stacked along a new first axis.
// With neither M nor cond the loop would never end, so that form is refused.
class Loop : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Loop>();
    const onnx::GraphProto* body = BranchGraph(info.node(), "body");
    if (body == nullptr) {
      return Status(StatusCode::kInvalidModel, info.Describe() + ": the body graph is required");
    }
    const size_t explicit_inputs = info.node().input.size();
    if (explicit_inputs < 2 || body->input.size() != explicit_inputs ||
        body->output.size() < explicit_inputs - 1) {
      return Status(StatusCode::kInvalidModel,
                    info.Describe() +
                        ": the body must take (iteration, cond, carried...) and "
                        "return (cond, carried..., scans...)");
    }
    std::vector<DataType> types, own = {DataType::kInt64, DataType::kBool};
    for (size_t i = 0; i < info.input_count(); ++i)
      types.push_back(info.input_type(i));
    for (size_t i = 2; i < explicit_inputs; ++i)
      own.push_back(info.input_type(i));
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        k->body_, MakeBranch(*body, info.opset(), SubgraphFreeNames(info.node()), explicit_inputs,
                             types, info.Describe(), own));
    for (const onnx::ValueInfoProto& vi : body->input)
      k->names_.push_back(vi.name.get());
    k->carried_ = explicit_inputs - 2;
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) override {
    const Tensor* m = ctx.input(0);
    const Tensor* c = ctx.input(1);
    if (m == nullptr && c == nullptr) {
      return Status(
          StatusCode::kInvalidArgument,
          ctx.info().Describe() + ": neither M nor cond is given: the loop would not end");
    }
    if ((m != nullptr && (m->dtype() != DataType::kInt64 || m->num_elements() != 1)) ||
        (c != nullptr && (c->dtype() != DataType::kBool || c->num_elements() != 1))) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": M must be one int64 and cond one bool");
    }
    const int64_t trips = m != nullptr ? m->data<int64_t>()[0] : INT64_MAX;
    bool cond = c != nullptr ? c->data<bool>()[0] : true;
    std::vector<Tensor> carried;
    for (size_t i = 0; i < carried_; ++i)
      carried.push_back(*ctx.input(2 + i));
    const size_t n_scan = ctx.output_count() - carried_;
    std::vector<std::vector<Tensor>> scans(n_scan);
    for (int64_t it = 0; it < trips && cond; ++it) {
      std::vector<NamedTensor> feeds;
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor iter, Tensor::Allocate(DataType::kInt64, Shape()));
      iter.mutable_data<int64_t>()[0] = it;
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor cin, Tensor::Allocate(DataType::kBool, Shape()));
      cin.mutable_data<bool>()[0] = cond;
      feeds.emplace_back(names_[0], std::move(iter));
      feeds.emplace_back(names_[1], std::move(cin));
      for (size_t i = 0; i < carried_; ++i)
        feeds.emplace_back(names_[2 + i], carried[i]);
      for (size_t i = 0; i < body_.feeds.size(); ++i)
        feeds.emplace_back(body_.feeds[i], *ctx.input(body_.inputs[i]));
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Tensor> outs, body_.session->Run(feeds, {}));
      if (outs.size() != 1 + carried_ + n_scan) {
        return Status(StatusCode::kInvalidModel,
                      ctx.info().Describe() + ": the body returned " + std::to_string(outs.size()) +
                          " outputs, expected " + std::to_string(1 + carried_ + n_scan));
      }
      if (outs[0].dtype() != DataType::kBool || outs[0].num_elements() != 1) {
        return Status(StatusCode::kInvalidArgument,
                      ctx.info().Describe() + ": the body's condition is " +
                          DataTypeName(outs[0].dtype()) + " " + outs[0].shape().ToString() +
                          ", expected one bool");
      }
      cond = outs[0].data<bool>()[0];
      for (size_t i = 0; i < carried_; ++i)
        carried[i] = std::move(outs[1 + i]);
      for (size_t k = 0; k < n_scan; ++k)
        scans[k].push_back(std::move(outs[1 + carried_ + k]));
    }
    for (size_t i = 0; i < carried_; ++i)
      ONNX_LIGHT_RETURN_IF_ERROR(ctx.SetOutput(i, std::move(carried[i])));
    for (size_t k = 0; k < n_scan; ++k)
      ONNX_LIGHT_RETURN_IF_ERROR(Stack(ctx, carried_ + k, scans[k]));
    return Status::Ok();
  }

 private:
  // Scan output: the per-iteration tensors (all of one shape) stacked on a new axis 0.
  static Status Stack(KernelContext& ctx, size_t out, const std::vector<Tensor>& parts) {
    std::vector<int64_t> dims = {static_cast<int64_t>(parts.size())};
    if (!parts.empty()) {
      const Shape& first = parts[0].shape();
      for (const Tensor& t : parts) {
        if (t.shape() != first) {
          return Status(StatusCode::kInvalidArgument, ctx.info().Describe() + ": scan output " +
                                                          std::to_string(out) +
                                                          " changes shape between iterations");
        }
      }
      dims.insert(dims.end(), first.dims().begin(), first.dims().end());
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(out, dims));
    const size_t item = ItemSize(y->dtype());
    int64_t j = 0;
    for (const Tensor& t : parts) {
      for (int64_t e = 0; e < t.num_elements(); ++e)
        CopyElement(t, e, y, j++, item);
    }
    return Status::Ok();
  }

  Branch body_;
  std::vector<std::string> names_;  // the body's own inputs
  size_t carried_ = 0;
};

// Carried outputs have their inputs' types; scan outputs what the body computes.
Status LoopOutputTypes(const onnx::NodeProto& node, int opset, const std::vector<DataType>& in,
                       std::vector<DataType>* out) {
  const onnx::GraphProto* body = BranchGraph(node, "body");
  if (body == nullptr) return Status(StatusCode::kInvalidModel, "Loop: the body graph is required");
  const size_t n = node.input.size();
  if (n < 2 || body->input.size() != n) {
    return Status(StatusCode::kInvalidModel,
                  "Loop: the body must take (iteration, cond, carried...)");
  }
  std::vector<DataType> own = {DataType::kInt64, DataType::kBool};
  for (size_t i = 2; i < n; ++i)
    own.push_back(in[i]);
  ONNX_LIGHT_ASSIGN_OR_RETURN(
      Branch b, MakeBranch(*body, opset, SubgraphFreeNames(node), n, in, "Loop", own));
  const std::vector<ValueMeta>& outs = b.session->outputs();
  for (size_t i = 0; i < out->size() && 1 + i < outs.size(); ++i)
    (*out)[i] = i < n - 2 ? in[2 + i] : outs[1 + i].type;
  return Status::Ok();
}

}  // namespace

Status RegisterKernel_ai_onnx_If(KernelRegistry& r) {
  KernelDef def = Def("If", 1, {{"B", {0}, {}, {DataType::kBool}}}, FactoryOf<If>());
  def.output_types = &IfOutputTypes;
  return r.Register(std::move(def));
}

Status RegisterKernel_ai_onnx_Loop(KernelRegistry& r) {
  KernelDef def =
      Def("Loop", 1, {{"I", {0}, {}, {DataType::kInt64}}, {"B", {1}, {}, {DataType::kBool}}},
          FactoryOf<Loop>());
  def.output_types = &LoopOutputTypes;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
