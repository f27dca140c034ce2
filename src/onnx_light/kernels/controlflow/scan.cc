// Scan (opset 9+; opset 8's batched form too): the body runs once per position along the
// scan inputs' axes, state values carry from one step to the next, and the body's scan
// outputs are stacked along their output axes (reversed for direction 1). Opset 8 has a
// leading batch axis on every input and an optional sequence_lens, which must be absent
// or all full length (shorter sequences are refused). The body is compiled with the
// session (runtime/subgraph.h); it takes (state..., scan slices...) and returns
// (state..., scan outputs...). Limit: its outputs are tensors.
#include <cstdint>

#include "common/kernel_util.h"
#include "controlflow/subgraph_outputs.h"
#include "onnx_light/runtime/subgraph.h"

namespace onnx_light::kernels {
namespace {

// Slice t of x along `axis` (a copy without that axis).
// Entry t of x along `axis`. Where the entries are contiguous (every axis before it of
// size 1: a sequence scanned along its first axis) and `keep` holds x, a read-only view
// that `keep` keeps alive: no copy and no allocation per step.
Result<Tensor> Slice(const Tensor& x, int64_t axis, int64_t t,
                     const std::shared_ptr<const void>& keep = nullptr) {
  std::vector<int64_t> dims = x.shape().dims();
  ONNX_LIGHT_RETURN_IF(axis < 0 || axis >= static_cast<int64_t>(dims.size()), kInvalidArgument,
                       "scan axis out of range for " + x.shape().ToString());
  const int64_t len = dims[static_cast<size_t>(axis)];
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (static_cast<int64_t>(d) < axis) outer *= dims[d];
    if (static_cast<int64_t>(d) > axis) inner *= dims[d];
  }
  dims.erase(dims.begin() + axis);
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims));
  const size_t item = ItemSize(x.dtype());
  if (outer == 1 && keep != nullptr && x.dtype() != DataType::kString) {
    const size_t bytes = static_cast<size_t>(inner) * item;
    return Tensor::Borrow(x.dtype(), std::move(shape),
                          static_cast<const char*>(x.raw_data()) + static_cast<size_t>(t) * bytes,
                          bytes, keep);
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor s, Tensor::Allocate(x.dtype(), std::move(shape)));
  for (int64_t o = 0; o < outer; ++o)  // runs of `inner` contiguous elements
    CopyElements(x, (o * len + t) * inner, &s, o * inner, item, inner);
  return s;
}

// A scan output stacked along a new `axis` (reversed if asked), filled step by step:
// allocated at its first step (that step's shape with len inserted at axis), each step's
// tensor copied into its slot, so the step's own tensor goes back to the body's buffer
// pool at once (collecting every step's tensor to stack them at the end kept all of them
// alive: a fresh block every step). Also the opset-8 form's stacking of batch entries.
class StackedOutput {
 public:
  StackedOutput(size_t out, int64_t axis, bool reverse, int64_t len)
      : out_(out), axis_(axis), reverse_(reverse), len_(len) {}

  Status Place(KernelContext& ctx, const Tensor& part, int64_t t) {
    if (!y_.is_defined())
      ONNX_LIGHT_RETURN_IF_ERROR(Allocate(ctx, part.shape().dims(), part.dtype()));
    ONNX_LIGHT_RETURN_IF(part.shape().dims() != slice_ || part.dtype() != y_.dtype(),
                         kInvalidArgument,
                         "scan output " + std::to_string(out_) + " changes shape between steps");
    const int64_t p = reverse_ ? len_ - 1 - t : t;
    const int64_t runs = inner_ == 0 ? 0 : part.num_elements() / inner_;
    const size_t item = ItemSize(part.dtype());
    for (int64_t o = 0; o < runs; ++o)  // runs of `inner` contiguous elements
      CopyElements(part, o * inner_, &y_, (o * len_ + p) * inner_, item, inner_);
    return Status::Ok();
  }

  // The stacked output (no steps: [len] of the node's output type).
  Result<Tensor> Take(KernelContext& ctx) {
    if (!y_.is_defined())
      ONNX_LIGHT_RETURN_IF_ERROR(Allocate(ctx, {}, ctx.info().output_type(out_)));
    return std::move(y_);
  }

 private:
  // The output: a step's shape `slice` with len inserted at the axis.
  Status Allocate(KernelContext& ctx, std::vector<int64_t> slice, DataType type) {
    slice_ = std::move(slice);
    const auto rank = static_cast<int64_t>(slice_.size()) + 1;
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axis_, rank));
    std::vector<int64_t> dims = slice_;
    dims.insert(dims.begin() + a, len_);
    inner_ = 1;
    for (size_t d = static_cast<size_t>(a); d < slice_.size(); ++d)
      inner_ *= slice_[d];
    ONNX_LIGHT_ASSIGN_OR_RETURN(y_, ctx.AllocateTemporary(type, dims));
    return Status::Ok();
  }

  size_t out_;
  int64_t axis_;
  bool reverse_;
  int64_t len_, inner_ = 0;
  std::vector<int64_t> slice_;
  Tensor y_;
};

// The body's results are the node's outputs, one for one.
Status OutputCount(const KernelContext& ctx, const std::vector<Tensor>& outs) {
  ONNX_LIGHT_RETURN_IF(outs.size() != ctx.output_count(), kInvalidModel,
                       "the body gives " + std::to_string(outs.size()) + " results, the node has " +
                           std::to_string(ctx.output_count()) + " outputs");
  return Status::Ok();
}

class Scan : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Scan>();
    k->body_ = info.subgraph("body");
    ONNX_LIGHT_RETURN_IF(k->body_ == nullptr, kInvalidModel, "the body graph is required");
    k->legacy_ = info.opset() < 9;
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->m_, info.GetInt("num_scan_inputs"));
    const size_t first = k->legacy_ ? 1 : 0;  // opset 8: sequence_lens comes first
    const size_t explicit_inputs = info.node().input.size();
    ONNX_LIGHT_RETURN_IF(k->m_ < 1 || explicit_inputs < first + static_cast<size_t>(k->m_),
                         kInvalidModel,
                         "num_scan_inputs must be between 1 and the number of inputs");
    k->n_ = explicit_inputs - first - static_cast<size_t>(k->m_);
    const size_t body_outputs = k->body_->outputs().size();
    ONNX_LIGHT_RETURN_IF(
        k->body_->inputs().size() != k->n_ + static_cast<size_t>(k->m_) || body_outputs < k->n_,
        kInvalidModel,
        "the body must take (state..., scan slices...) and return (state..., scan outputs...)");
    k->k_ = body_outputs - k->n_;
    auto read = [&](const char* name, size_t count, std::vector<int64_t>* v) -> Status {
      if (!info.HasAttribute(name)) {
        v->assign(count, 0);
        return Status::Ok();
      }
      ONNX_LIGHT_ASSIGN_OR_RETURN(*v, info.GetInts(name));
      ONNX_LIGHT_RETURN_IF(v->size() != count, kInvalidModel,
                           std::string(name) + " needs " + std::to_string(count) + " entries");
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
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const size_t first = legacy_ ? 1 : 0;
    const auto m = static_cast<size_t>(m_);
    if (!legacy_) {
      std::vector<Tensor> state, scan;
      for (size_t i = 0; i < n_; ++i)
        state.push_back(*ctx.input(first + i));
      for (size_t j = 0; j < m; ++j)
        scan.push_back(*ctx.input(first + n_ + j));
      std::vector<Tensor> outs;
      ONNX_LIGHT_RETURN_IF_ERROR(RunOne(ctx, state, scan, &outs));
      ONNX_LIGHT_RETURN_IF_ERROR(OutputCount(ctx, outs));
      for (size_t i = 0; i < outs.size(); ++i)
        ONNX_LIGHT_RETURN_IF_ERROR(ctx.SetOutput(i, std::move(outs[i])));
      return Status::Ok();
    }
    // Opset 8: every input has a batch axis 0; run each batch entry on its own.
    const Tensor* lens = ctx.input(0);
    const Tensor& s0 = *ctx.input(first + n_);
    ONNX_LIGHT_RETURN_IF(s0.shape().rank() < 2, kInvalidArgument,
                         "opset-8 scan inputs need [batch, sequence, ...]");
    const int64_t batch = s0.shape()[0], seq = s0.shape()[1];
    if (lens != nullptr) {
      for (int64_t v : IndexValues(*lens)) {
        ONNX_LIGHT_RETURN_IF(v != seq, kNotImplemented,
                             "sequence_lens shorter than the sequence (" + std::to_string(v) +
                                 " of " + std::to_string(seq) + ") is not supported");
      }
    }
    std::vector<std::vector<Tensor>> per_batch;
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Tensor> state, scan;
      for (size_t i = 0; i < n_ + m; ++i) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, Slice(*ctx.input(first + i), 0, b));
        (i < n_ ? state : scan).push_back(std::move(t));
      }
      std::vector<Tensor> outs;
      ONNX_LIGHT_RETURN_IF_ERROR(RunOne(ctx, state, scan, &outs));
      ONNX_LIGHT_RETURN_IF_ERROR(OutputCount(ctx, outs));
      per_batch.push_back(std::move(outs));
    }
    for (size_t o = 0; o < ctx.output_count(); ++o) {
      StackedOutput stacked(o, 0, false, batch);
      for (int64_t b = 0; b < batch; ++b)
        ONNX_LIGHT_RETURN_IF_ERROR(stacked.Place(ctx, per_batch[static_cast<size_t>(b)][o], b));
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, stacked.Take(ctx));
      ONNX_LIGHT_RETURN_IF_ERROR(ctx.SetOutput(o, std::move(t)));
    }
    return Status::Ok();
  }

 private:
  // One unbatched scan: outs = final states, then the stacked scan outputs.
  Status RunOne(KernelContext& ctx, std::vector<Tensor> state, const std::vector<Tensor>& scan,
                std::vector<Tensor>* outs) const {
    int64_t len = -1;
    std::vector<int64_t> ax(scan.size());
    for (size_t j = 0; j < scan.size(); ++j) {
      const auto rank = static_cast<int64_t>(scan[j].shape().rank());
      ONNX_LIGHT_ASSIGN_OR_RETURN(ax[j], NormalizeAxis(in_axes_[j], rank));
      const int64_t l = scan[j].shape()[static_cast<size_t>(ax[j])];
      ONNX_LIGHT_RETURN_IF(len >= 0 && l != len, kInvalidArgument,
                           "scan inputs have different lengths (" + std::to_string(len) + " and " +
                               std::to_string(l) + ")");
      len = l;
    }
    std::vector<StackedOutput> scan_out;
    for (size_t q = 0; q < k_; ++q)
      scan_out.emplace_back(n_ + q, out_axes_[q], out_dirs_[q] != 0, len);
    // Each scan input kept alive for the views of its steps (one holder for all of them).
    std::vector<std::shared_ptr<const void>> keep;
    for (const Tensor& x : scan)
      keep.push_back(std::make_shared<const Tensor>(x));
    BudgetHold held(ctx.run_control() != nullptr ? ctx.run_control()->budget : nullptr);
    for (int64_t t = 0; t < len; ++t) {
      ONNX_LIGHT_RETURN_IF_ERROR(ctx.CheckRun());
      // The states move into the body (replaced by its outputs below): the body's frame holds
      // them alone, and no copy of their shapes is made.
      std::vector<Value> feeds;
      feeds.reserve(n_ + scan.size());
      for (size_t i = 0; i < n_; ++i)
        feeds.push_back(Value{std::move(state[i]), nullptr});
      for (size_t j = 0; j < scan.size(); ++j) {
        const int64_t at = in_dirs_[j] != 0 ? len - 1 - t : t;
        ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor sl, Slice(scan[j], ax[j], at, keep[j]));
        feeds.push_back(Value{std::move(sl), nullptr});
      }
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Value> values, body_->Run(ctx, std::move(feeds)));
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Tensor> res, TensorOutputs(std::move(values)));
      ONNX_LIGHT_RETURN_IF(res.size() != n_ + k_, kInvalidModel,
                           "the body returned " + std::to_string(res.size()) + " outputs");
      for (size_t i = 0; i < n_; ++i)
        state[i] = std::move(res[i]);
      for (size_t q = 0; q < k_; ++q) {
        ONNX_LIGHT_RETURN_IF_ERROR(held.AddNamed(res[n_ + q].byte_size(), [&] {
          return "scan output " + std::to_string(q) + " of step " + std::to_string(t);
        }));
        ONNX_LIGHT_RETURN_IF_ERROR(scan_out[q].Place(ctx, res[n_ + q], t));
      }
    }
    outs->clear();
    for (Tensor& s : state)
      outs->push_back(std::move(s));
    for (size_t q = 0; q < k_; ++q) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, scan_out[q].Take(ctx));
      outs->push_back(std::move(t));
    }
    return Status::Ok();
  }

  const Subgraph* body_ = nullptr;
  bool legacy_ = false;
  int64_t m_ = 0;
  size_t n_ = 0, k_ = 0;
  std::vector<int64_t> in_axes_, in_dirs_, out_axes_, out_dirs_;
};

// The body's inputs (states, then scan slices) have the node's inputs' element types
// (opset 8: after sequence_lens).
Status ScanBodyInputTypes(const onnx::NodeProto& node, int opset, const std::string& attribute,
                          const std::vector<DataType>& in, std::vector<DataType>* own) {
  if (attribute != "body") return Status::Ok();
  const size_t first = opset < 9 ? 1 : 0;
  const size_t n = node.input.size();
  ONNX_LIGHT_RETURN_IF(n < first || own->size() != n - first, kInvalidModel,
                       "the body's inputs do not match the node's");
  for (size_t i = first; i < n; ++i)
    (*own)[i - first] = in[i];
  return Status::Ok();
}

// Outputs: what the body computes (states keep their types through it).
Status ScanOutputTypes(const onnx::NodeProto&, int, const std::vector<DataType>&,
                       std::vector<DataType>* out, const NodeSubgraphs& subgraphs) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(const Subgraph* body, RequiredSubgraph(subgraphs, "body"));
  ONNX_LIGHT_RETURN_IF_ERROR(NoSequenceOutputs(*body));
  const std::vector<ValueMeta>& outs = body->outputs();
  for (size_t i = 0; i < out->size() && i < outs.size(); ++i)
    (*out)[i] = outs[i].type;
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Scan) {
  KernelDef def = Def("Scan", 8, {}, FactoryOf<Scan>());
  def.output_types = &ScanOutputTypes;
  def.subgraph_input_types = &ScanBodyInputTypes;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
