// If, Loop and Scan: subgraphs run as nested RuntimeSessions built once at the first run. Values
// the branches read from the enclosing graph arrive as the node's extra (implicit) inputs, in
// SubgraphFreeNames order, and are fed to the branch by name.
//
// A branch sees the enclosing session's kernel registry (custom kernels included), opset
// imports (ai.onnx at the node's opset) and options. Limit: its inputs and outputs are
// tensors (sequences are refused as NOT_IMPLEMENTED).
#include <algorithm>
#include <cstdint>

#include "common/kernel_util.h"
#include "onnx_light/runtime/session.h"
#include "onnx_light/runtime/subgraph.h"
#include "onnx_light/runtime/tensor_proto.h"

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
// (a Loop body's iteration number, condition and carried values). With `info`, enclosing
// values known before any run become the branch's initializers instead of feeds, so the
// branch folds constants and fuses with them (as ONNX Runtime's subgraphs see outer
// initializers).
Result<Branch> MakeBranch(const SubgraphScope* scope, const onnx::GraphProto& graph, int opset,
                          const std::vector<std::string>& node_free, size_t first_implicit,
                          const std::vector<DataType>& input_types, const std::string& where,
                          const std::vector<DataType>& own_types = {},
                          const KernelInfo* info = nullptr) {
  Branch b;
  onnx::ModelProto model;
  model.ir_version.set(8);
  onnx::OperatorSetIdProto* op = model.opset_import.Add();
  op->domain.set("");
  op->version.set(opset);
  // The enclosing session's other imports, registry and limits.
  SessionOptions options;
  if (scope != nullptr) {
    options = *scope->options;
    // The enclosing session's file outputs are its own: a branch writes no optimized
    // model, and records its nodes into the enclosing session's profiler (if any).
    options.optimized_model_path.clear();
    options.enable_profiling = false;
    for (const onnx::OperatorSetIdProto& o : scope->model->opset_import) {
      if (!NormalizeDomain(o.domain.get()).empty()) *model.opset_import.Add() = o;
    }
  }
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
    if (const Tensor* c = info != nullptr ? info->constant_input(pos) : nullptr) {
      Result<onnx::TensorProto> init = TensorToProto(*c, name);
      if (init.ok()) {
        g->initializer.push_back(std::move(*init));
        continue;
      }
    }
    onnx::ValueInfoProto* vi = g->input.Add();
    vi->name.set(name);
    vi->type.mutable_get()->tensor_type.mutable_get()->elem_type.set(
        static_cast<int32_t>(input_types[pos]));
    b.feeds.push_back(name);
    b.inputs.push_back(pos);
  }
  Result<std::unique_ptr<RuntimeSession>> s = RuntimeSession::Create(std::move(model), options);
  if (!s.ok()) return s.status().WithContext(where + ": branch '" + graph.name.get() + "'");
  b.session = std::move(*s);
  return b;
}

// Subgraph outputs are tensors only (a node's outputs have one kind, fixed by its kernel).
Status NoSequenceOutputs(const std::vector<ValueMeta>& outs, const char* op) {
  for (const ValueMeta& m : outs) {
    if (m.is_sequence()) {
      return Status(StatusCode::kNotImplemented, std::string(op) +
                                                     ": a subgraph output that is a sequence ('" +
                                                     m.name + "') is not supported");
    }
  }
  return Status::Ok();
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
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->then_, MakeBranch(info.scope(), *then_g, info.opset(), free,
                                                     first, types, info.Describe(), {}, &info));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->else_, MakeBranch(info.scope(), *else_g, info.opset(), free,
                                                     first, types, info.Describe(), {}, &info));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor* cond = ctx.input(0);
    if (cond == nullptr || cond->dtype() != DataType::kBool || cond->num_elements() != 1) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": cond must be a bool tensor of one element");
    }
    const Branch& b = cond->data<bool>()[0] ? then_ : else_;
    std::vector<NamedTensor> feeds;
    for (size_t i = 0; i < b.feeds.size(); ++i)
      feeds.emplace_back(b.feeds[i], *ctx.input(b.inputs[i]));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Tensor> outs,
                                b.session->RunUnder(feeds, ctx.run_control()));
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
                     std::vector<DataType>* out, const SubgraphScope* scope) {
  const onnx::GraphProto* then_g = BranchGraph(node, "then_branch");
  if (then_g == nullptr) {
    return Status(StatusCode::kInvalidModel, "If: then_branch graph is required");
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(Branch b, MakeBranch(scope, *then_g, opset, SubgraphFreeNames(node),
                                                   node.input.size(), in, "If"));
  const std::vector<ValueMeta>& outs = b.session->outputs();
  ONNX_LIGHT_RETURN_IF_ERROR(NoSequenceOutputs(outs, "If"));
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
        k->body_, MakeBranch(info.scope(), *body, info.opset(), SubgraphFreeNames(info.node()),
                             explicit_inputs, types, info.Describe(), own, &info));
    for (const onnx::ValueInfoProto& vi : body->input)
      k->names_.push_back(vi.name.get());
    k->carried_ = explicit_inputs - 2;
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
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
    // The iterations' scan outputs, held until they are stacked, count against the budget.
    BudgetHold held(ctx.run_control() != nullptr ? ctx.run_control()->budget : nullptr);
    for (int64_t it = 0; it < trips && cond; ++it) {
      // A body of no nodes never checks: a Loop of INT64_MAX trips stops here when asked.
      ONNX_LIGHT_RETURN_IF_ERROR(ctx.CheckRun());
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
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Tensor> outs,
                                  body_.session->RunUnder(feeds, ctx.run_control()));
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
      for (size_t k = 0; k < n_scan; ++k) {
        ONNX_LIGHT_RETURN_IF_ERROR(
            held.Add(outs[1 + carried_ + k].byte_size(), ctx.info().Describe() + ": scan output " +
                                                             std::to_string(k) + " of iteration " +
                                                             std::to_string(it)));
        scans[k].push_back(std::move(outs[1 + carried_ + k]));
      }
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
                       std::vector<DataType>* out, const SubgraphScope* scope) {
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
      Branch b, MakeBranch(scope, *body, opset, SubgraphFreeNames(node), n, in, "Loop", own));
  const std::vector<ValueMeta>& outs = b.session->outputs();
  ONNX_LIGHT_RETURN_IF_ERROR(NoSequenceOutputs(outs, "Loop"));
  for (size_t i = 0; i < out->size() && 1 + i < outs.size(); ++i)
    (*out)[i] = i < n - 2 ? in[2 + i] : outs[1 + i].type;
  return Status::Ok();
}

// Scan (opset 9+; opset 8's batched form too): the body runs once per position along the
// scan inputs' axes, state values carry from one step to the next, and the body's scan
// outputs are stacked along their output axes (reversed for direction 1). Opset 8 has a
// leading batch axis on every input and an optional sequence_lens, which must be absent
// or all full length (shorter sequences are refused).
class Scan : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Scan>();
    const std::string where = info.Describe();
    const onnx::GraphProto* body = BranchGraph(info.node(), "body");
    if (body == nullptr) {
      return Status(StatusCode::kInvalidModel, where + ": the body graph is required");
    }
    k->legacy_ = info.opset() < 9;
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->m_, info.GetInt("num_scan_inputs"));
    const size_t first = k->legacy_ ? 1 : 0;  // opset 8: sequence_lens comes first
    const size_t explicit_inputs = info.node().input.size();
    if (k->m_ < 1 || explicit_inputs < first + static_cast<size_t>(k->m_)) {
      return Status(StatusCode::kInvalidModel,
                    where + ": num_scan_inputs must be between 1 and the number of inputs");
    }
    k->n_ = explicit_inputs - first - static_cast<size_t>(k->m_);
    if (body->input.size() != k->n_ + static_cast<size_t>(k->m_) || body->output.size() < k->n_) {
      return Status(StatusCode::kInvalidModel,
                    where +
                        ": the body must take (state..., scan slices...) and return "
                        "(state..., scan outputs...)");
    }
    k->k_ = body->output.size() - k->n_;
    auto read = [&](const char* name, size_t count, std::vector<int64_t>* v) -> Status {
      if (info.HasAttribute(name)) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(*v, info.GetInts(name));
        if (v->size() != count) {
          return Status(StatusCode::kInvalidModel,
                        where + ": " + name + " needs " + std::to_string(count) + " entries");
        }
      } else {
        v->assign(count, 0);
      }
      return Status::Ok();
    };
    const auto m = static_cast<size_t>(k->m_);
    ONNX_LIGHT_RETURN_IF_ERROR(
        read(k->legacy_ ? "directions" : "scan_input_directions", m, &k->in_dirs_));
    if (!k->legacy_) {
      ONNX_LIGHT_RETURN_IF_ERROR(read("scan_input_axes", m, &k->in_axes_));
      ONNX_LIGHT_RETURN_IF_ERROR(read("scan_output_axes", k->k_, &k->out_axes_));
      ONNX_LIGHT_RETURN_IF_ERROR(read("scan_output_directions", k->k_, &k->out_dirs_));
    } else {
      k->in_axes_.assign(m, 0);
      k->out_axes_.assign(k->k_, 0);
      k->out_dirs_.assign(k->k_, 0);
    }
    std::vector<DataType> types, own;
    for (size_t i = 0; i < info.input_count(); ++i)
      types.push_back(info.input_type(i));
    for (size_t i = first; i < explicit_inputs; ++i)
      own.push_back(info.input_type(i));
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        k->body_, MakeBranch(info.scope(), *body, info.opset(), SubgraphFreeNames(info.node()),
                             explicit_inputs, types, where, own, &info));
    for (const onnx::ValueInfoProto& vi : body->input)
      k->names_.push_back(vi.name.get());
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const std::string where = ctx.info().Describe();
    const size_t first = legacy_ ? 1 : 0;
    const auto m = static_cast<size_t>(m_);
    if (!legacy_) {
      std::vector<Tensor> state, scan;
      for (size_t i = 0; i < n_; ++i)
        state.push_back(*ctx.input(first + i));
      for (size_t j = 0; j < m; ++j)
        scan.push_back(*ctx.input(first + n_ + j));
      std::vector<Tensor> outs;
      ONNX_LIGHT_RETURN_IF_ERROR(RunOne(ctx, state, scan, in_axes_, &outs));
      ONNX_LIGHT_RETURN_IF_ERROR(OutputCount(ctx, outs));
      for (size_t i = 0; i < outs.size(); ++i)
        ONNX_LIGHT_RETURN_IF_ERROR(ctx.SetOutput(i, std::move(outs[i])));
      return Status::Ok();
    }
    // Opset 8: every input has a batch axis 0; run each batch entry on its own.
    const Tensor* lens = ctx.input(0);
    const Tensor& s0 = *ctx.input(first + n_);
    if (s0.shape().rank() < 2) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": opset-8 scan inputs need [batch, sequence, ...]");
    }
    const int64_t batch = s0.shape()[0], seq = s0.shape()[1];
    if (lens != nullptr) {
      for (int64_t v : IndexValues(*lens)) {
        if (v != seq) {
          return Status(StatusCode::kNotImplemented,
                        where + ": sequence_lens shorter than the sequence (" + std::to_string(v) +
                            " of " + std::to_string(seq) + ") is not supported");
        }
      }
    }
    std::vector<std::vector<Tensor>> per_batch;
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Tensor> state, scan;
      for (size_t i = 0; i < n_ + m; ++i) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, Slice(*ctx.input(first + i), 0, b, where));
        (i < n_ ? state : scan).push_back(std::move(t));
      }
      std::vector<Tensor> outs;
      ONNX_LIGHT_RETURN_IF_ERROR(RunOne(ctx, state, scan, in_axes_, &outs));
      ONNX_LIGHT_RETURN_IF_ERROR(OutputCount(ctx, outs));
      per_batch.push_back(std::move(outs));
    }
    for (size_t o = 0; o < ctx.output_count(); ++o) {
      std::vector<Tensor> parts;
      for (auto& outs : per_batch)
        parts.push_back(std::move(outs[o]));
      ONNX_LIGHT_RETURN_IF_ERROR(StackAlong(ctx, o, parts, 0, false));
    }
    return Status::Ok();
  }

 private:
  // Slice t of x along `axis` (a copy without that axis).
  static Result<Tensor> Slice(const Tensor& x, int64_t axis, int64_t t, const std::string& where) {
    std::vector<int64_t> dims = x.shape().dims();
    if (axis < 0 || axis >= static_cast<int64_t>(dims.size())) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": scan axis out of range for " + x.shape().ToString());
    }
    const int64_t len = dims[static_cast<size_t>(axis)];
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (static_cast<int64_t>(d) < axis) outer *= dims[d];
      if (static_cast<int64_t>(d) > axis) inner *= dims[d];
    }
    dims.erase(dims.begin() + axis);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor s, Tensor::Allocate(x.dtype(), std::move(shape)));
    const size_t item = ItemSize(x.dtype());
    int64_t j = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        CopyElement(x, (o * len + t) * inner + i, &s, j++, item);
    return s;
  }

  // One unbatched scan: outs = final states, then the stacked scan outputs.
  // The body's results are the node's outputs, one for one.
  static Status OutputCount(const KernelContext& ctx, const std::vector<Tensor>& outs) {
    if (outs.size() == ctx.output_count()) return Status::Ok();
    return Status(StatusCode::kInvalidModel,
                  ctx.info().Describe() + ": the body gives " + std::to_string(outs.size()) +
                      " results, the node has " + std::to_string(ctx.output_count()) + " outputs");
  }

  Status RunOne(KernelContext& ctx, std::vector<Tensor> state, const std::vector<Tensor>& scan,
                const std::vector<int64_t>& axes, std::vector<Tensor>* outs) const {
    const std::string where = ctx.info().Describe();
    int64_t len = -1;
    std::vector<int64_t> ax(scan.size());
    for (size_t j = 0; j < scan.size(); ++j) {
      const auto rank = static_cast<int64_t>(scan[j].shape().rank());
      ONNX_LIGHT_ASSIGN_OR_RETURN(ax[j], NormalizeAxis(axes[j], rank, ctx.info()));
      const int64_t l = scan[j].shape()[static_cast<size_t>(ax[j])];
      if (len >= 0 && l != len) {
        return Status(StatusCode::kInvalidArgument,
                      where + ": scan inputs have different lengths (" + std::to_string(len) +
                          " and " + std::to_string(l) + ")");
      }
      len = l;
    }
    std::vector<std::vector<Tensor>> scan_out(k_);
    BudgetHold held(ctx.run_control() != nullptr ? ctx.run_control()->budget : nullptr);
    for (int64_t t = 0; t < len; ++t) {
      ONNX_LIGHT_RETURN_IF_ERROR(ctx.CheckRun());
      std::vector<NamedTensor> feeds;
      for (size_t i = 0; i < n_; ++i)
        feeds.emplace_back(names_[i], state[i]);
      for (size_t j = 0; j < scan.size(); ++j) {
        const int64_t at = in_dirs_[j] != 0 ? len - 1 - t : t;
        ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor sl, Slice(scan[j], ax[j], at, where));
        feeds.emplace_back(names_[n_ + j], std::move(sl));
      }
      for (size_t i = 0; i < body_.feeds.size(); ++i)
        feeds.emplace_back(body_.feeds[i], *ctx.input(body_.inputs[i]));
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Tensor> res,
                                  body_.session->RunUnder(feeds, ctx.run_control()));
      if (res.size() != n_ + k_) {
        return Status(StatusCode::kInvalidModel,
                      where + ": the body returned " + std::to_string(res.size()) + " outputs");
      }
      for (size_t i = 0; i < n_; ++i)
        state[i] = std::move(res[i]);
      for (size_t q = 0; q < k_; ++q) {
        ONNX_LIGHT_RETURN_IF_ERROR(held.Add(
            res[n_ + q].byte_size(),
            where + ": scan output " + std::to_string(q) + " of step " + std::to_string(t)));
        scan_out[q].push_back(std::move(res[n_ + q]));
      }
    }
    outs->clear();
    for (Tensor& s : state)
      outs->push_back(std::move(s));
    for (size_t q = 0; q < k_; ++q) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(
          Tensor t, Stacked(ctx, n_ + q, scan_out[q], out_axes_[q], out_dirs_[q] != 0, len));
      outs->push_back(std::move(t));
    }
    return Status::Ok();
  }

  // The per-step tensors (one shape) stacked along a new `axis` (reversed if asked).
  static Result<Tensor> Stacked(KernelContext& ctx, size_t out, const std::vector<Tensor>& parts,
                                int64_t axis, bool reverse, int64_t len) {
    const std::string where = ctx.info().Describe();
    std::vector<int64_t> slice;
    if (!parts.empty()) slice = parts[0].shape().dims();
    for (const Tensor& t : parts) {
      if (t.shape().dims() != slice) {
        return Status(StatusCode::kInvalidArgument, where + ": scan output " + std::to_string(out) +
                                                        " changes shape between steps");
      }
    }
    const auto rank = static_cast<int64_t>(slice.size()) + 1;
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axis, rank, ctx.info()));
    std::vector<int64_t> dims = slice;
    dims.insert(dims.begin() + a, len);
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(a); d < slice.size(); ++d)
      inner *= slice[d];
    const DataType type = parts.empty() ? ctx.info().output_type(out) : parts[0].dtype();
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateTemporary(type, dims));
    const size_t item = ItemSize(type);
    for (int64_t t = 0; t < static_cast<int64_t>(parts.size()); ++t) {
      const int64_t p = reverse ? len - 1 - t : t;
      const Tensor& part = parts[static_cast<size_t>(t)];
      for (int64_t e = 0; e < part.num_elements(); ++e) {
        const int64_t o = inner == 0 ? 0 : e / inner, i = inner == 0 ? 0 : e % inner;
        CopyElement(part, e, &y, (o * len + p) * inner + i, item);
      }
    }
    return y;
  }

  static Status StackAlong(KernelContext& ctx, size_t out, const std::vector<Tensor>& parts,
                           int64_t axis, bool reverse) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        Tensor t, Stacked(ctx, out, parts, axis, reverse, static_cast<int64_t>(parts.size())));
    return ctx.SetOutput(out, std::move(t));
  }

  Branch body_;
  std::vector<std::string> names_;
  bool legacy_ = false;
  int64_t m_ = 0;
  size_t n_ = 0, k_ = 0;
  std::vector<int64_t> in_axes_, in_dirs_, out_axes_, out_dirs_;
};

// States keep their input types; scan outputs have what the body computes.
Status ScanOutputTypes(const onnx::NodeProto& node, int opset, const std::vector<DataType>& in,
                       std::vector<DataType>* out, const SubgraphScope* scope) {
  const onnx::GraphProto* body = BranchGraph(node, "body");
  if (body == nullptr) return Status(StatusCode::kInvalidModel, "Scan: the body graph is required");
  const size_t first = opset < 9 ? 1 : 0;
  const size_t n = node.input.size();
  if (n < first || body->input.size() != n - first) {
    return Status(StatusCode::kInvalidModel, "Scan: the body's inputs do not match the node's");
  }
  std::vector<DataType> own(in.begin() + static_cast<std::ptrdiff_t>(first),
                            in.begin() + static_cast<std::ptrdiff_t>(n));
  ONNX_LIGHT_ASSIGN_OR_RETURN(
      Branch b, MakeBranch(scope, *body, opset, SubgraphFreeNames(node), n, in, "Scan", own));
  const std::vector<ValueMeta>& outs = b.session->outputs();
  ONNX_LIGHT_RETURN_IF_ERROR(NoSequenceOutputs(outs, "Scan"));
  for (size_t i = 0; i < out->size() && i < outs.size(); ++i)
    (*out)[i] = outs[i].type;
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

namespace onnx_light::kernels {

Status RegisterKernel_ai_onnx_Scan(KernelRegistry& r) {
  KernelDef def = Def("Scan", 8, {}, FactoryOf<Scan>());
  def.output_types = &ScanOutputTypes;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
