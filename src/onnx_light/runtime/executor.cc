// The executor: runs a session's plan on a frame of its own, so that any number of
// threads may run one session at once.
#include <algorithm>
#include <cstring>

#include "compute.h"
#include "onnx_light/runtime/session.h"
#include "onnx_light/runtime/thread_pool.h"
#include "passes/pass_manager.h"
#include "plan.h"

namespace onnx_light {

Result<const KernelBase*> KernelSlot::Get(const KernelDef& def, const KernelInfo& info) {
  const KernelBase* k = ready_.load(std::memory_order_acquire);
  if (k != nullptr) return k;
  std::lock_guard<std::mutex> lock(create_mu_);
  if (owner_ == nullptr) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(owner_, def.create(info));
    if (owner_ == nullptr) {
      return Status(StatusCode::kInternal, info.Describe() + ": the kernel factory returned null");
    }
    ready_.store(owner_.get(), std::memory_order_release);
  }
  return owner_.get();
}

RuntimeSession::FramePool::~FramePool() {
  // The session is going away: no run can hold or return a frame now.
  for (std::atomic<Frame*>& slot : slots_)
    delete slot.load(std::memory_order_acquire);
}

std::unique_ptr<RuntimeSession::Frame> RuntimeSession::FramePool::Take() {
  for (std::atomic<Frame*>& slot : slots_) {
    if (slot.load(std::memory_order_relaxed) == nullptr) continue;
    if (Frame* f = slot.exchange(nullptr, std::memory_order_acquire)) {
      return std::unique_ptr<Frame>(f);
    }
  }
  return nullptr;
}

void RuntimeSession::FramePool::Give(std::unique_ptr<Frame> frame) {
  for (std::atomic<Frame*>& slot : slots_) {
    Frame* expected = nullptr;
    if (slot.compare_exchange_strong(expected, frame.get(), std::memory_order_release)) {
      frame.release();
      return;
    }
  }
}  // more frames than slots: this one is freed

RuntimeSession::MemoryPatternStats RuntimeSession::memory_pattern_stats() const {
  MemoryPatternStats stats;
  std::vector<std::unique_ptr<Frame>> idle;
  while (std::unique_ptr<Frame> f = frames_->Take())
    idle.push_back(std::move(f));
  for (std::unique_ptr<Frame>& f : idle) {
    if (f->memory && f->memory->planned()) {
      ++stats.planned_frames;
      stats.arena_bytes = std::max(stats.arena_bytes, f->memory->arena_bytes());
      stats.placed_values = std::max(stats.placed_values, f->memory->placed_values());
    }
    frames_->Give(std::move(f));
  }
  return stats;
}

namespace {

// A bool is the byte 0 or 1: any other byte read as a bool is undefined behaviour in every
// kernel, so a feed that carries one (a C caller's buffer, a numpy view of other bytes) is
// refused. Model data is normalised where it is read (tensor_proto.cc).
Status CheckBoolBytes(const Tensor& t, const std::string& name) {
  if (t.dtype() != DataType::kBool || t.num_elements() == 0) return Status::Ok();
  const auto* begin = static_cast<const uint8_t*>(t.raw_data());
  const uint8_t* end = begin + t.num_elements();
  const uint8_t* bad = std::find_if(begin, end, [](uint8_t b) { return b > 1; });
  if (bad == end) return Status::Ok();
  return Status(StatusCode::kInvalidArgument, "input '" + name + "': bool element " +
                                                  std::to_string(bad - begin) + " is the byte " +
                                                  std::to_string(*bad) + "; a bool must be 0 or 1");
}

std::string JoinNames(const std::vector<ValueMeta>& values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + values[i].name;
  return s;
}

// A profile event for a node about to run: its name, op type and input shapes.
ProfileEvent NodeEvent(const Graph::Node& node, const KernelContext& ctx) {
  ProfileEvent e;
  const std::string& op = node.proto->op_type.get();
  const std::string& domain = node.proto->domain.get();
  e.name = node.proto->name.get().empty() ? op : node.proto->name.get();
  e.op_type = domain.empty() || domain == "ai.onnx" ? op : domain + ":" + op;
  e.thread = Profiler::ThreadNumber();
  for (size_t i = 0; i < ctx.input_count(); ++i) {
    if (i) e.input_shapes += ", ";
    const Tensor* t = ctx.input(i);
    if (t == nullptr) continue;
    e.input_shapes += DataTypeName(t->dtype());
    e.input_shapes += t->shape().ToString();
  }
  return e;
}

// A recorded run: which outputs of `node` are views into one of its inputs (Reshape,
// Identity, Split...), so that the memory plan keeps the source's bytes while they live.
void RecordViews(const Graph::Node& node, const std::vector<Value>& values, MemoryPattern* memory) {
  for (int out : node.outputs) {
    if (out < 0) continue;
    const Tensor& t = values[static_cast<size_t>(out)].tensor;
    if (!t.is_defined() || t.byte_size() == 0) continue;
    const auto* p = static_cast<const char*>(t.raw_data());
    for (int in : node.inputs) {
      if (in < 0) continue;
      const Tensor& s = values[static_cast<size_t>(in)].tensor;
      if (!s.is_defined() || s.byte_size() == 0) continue;
      const auto* lo = static_cast<const char*>(s.raw_data());
      if (p >= lo && p < lo + s.byte_size()) {
        memory->RecordAlias(out, in);
        break;
      }
    }
  }
}

}  // namespace

// A frame for the length of one run: taken from the pool (or made), cleared of the run's
// values and given back at the end.
class RuntimeSession::FrameLease {
 public:
  FrameLease(FramePool* pool, const Plan& plan, const SessionOptions& options) : pool_(pool) {
    frame_ = pool_->Take();
    if (frame_ == nullptr) {
      frame_ = std::make_unique<Frame>();
      frame_->states.resize(plan.nodes.size());
      if (options.buffer_cache_bytes > 0) {
        frame_->buffers = std::make_shared<BufferPool>(options.buffer_cache_bytes);
      }
      if (options.enable_mem_pattern) {
        frame_->memory = std::make_unique<MemoryPattern>(&plan.producer, &plan.last_use,
                                                         static_cast<int>(plan.nodes.size()));
      }
    }
  }
  ~FrameLease() {
    frame_->values.clear();
    if (frame_->memory) frame_->memory->EndRun(complete_);
    pool_->Give(std::move(frame_));
  }
  // The run got through its nodes, all of them when `all`: its record may become a
  // memory plan.
  void set_complete_if(bool all) { complete_ = all; }
  FrameLease(const FrameLease&) = delete;
  FrameLease& operator=(const FrameLease&) = delete;
  Frame& frame() { return *frame_; }

 private:
  FramePool* pool_;
  std::unique_ptr<Frame> frame_;
  bool complete_ = false;
};

Status BudgetHold::Add(uint64_t bytes, const std::string& what) {
  if (budget_ != nullptr) {
    uint64_t held = 0;
    if (!budget_->Fits(bytes, &held)) {
      return Status(StatusCode::kResourceExhausted,
                    what + " needs " + std::to_string(bytes) + " bytes more; the run holds " +
                        std::to_string(held) + " and its memory budget is " +
                        std::to_string(budget_->limit) + " bytes");
    }
    budget_->used.fetch_add(bytes, std::memory_order_relaxed);
  }
  bytes_ += bytes;
  return Status::Ok();
}

Status RunControl::Check() const {
  if (terminate != nullptr && terminate->load(std::memory_order_relaxed)) {
    return Status(StatusCode::kCancelled, "the run was cancelled (RunOptions::Terminate)");
  }
  if (deadline != std::chrono::steady_clock::time_point::max() &&
      std::chrono::steady_clock::now() >= deadline) {
    return Status(StatusCode::kDeadlineExceeded, "the run passed its RunOptions timeout");
  }
  return Status::Ok();
}

RunControl RunOptions::Control() const {
  RunControl c;
  c.terminate = &terminate_;
  if (timeout.count() > 0) {
    const auto now = std::chrono::steady_clock::now();
    // A timeout past the clock's range is no limit (now + timeout would wrap around).
    if (timeout < std::chrono::steady_clock::time_point::max() - now) c.deadline = now + timeout;
  }
  return c;
}

namespace {

std::vector<NamedValue> AsValues(const std::vector<NamedTensor>& feeds) {
  std::vector<NamedValue> values;
  values.reserve(feeds.size());
  for (const NamedTensor& f : feeds)
    values.push_back({f.first, Value{f.second, nullptr}});
  return values;
}

Result<std::vector<Tensor>> AsTensors(std::vector<Value> outs) {
  std::vector<Tensor> tensors;
  tensors.reserve(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].is_sequence() || outs[i].none) {
      return Status(StatusCode::kInvalidArgument,
                    std::string("an output is ") +
                        (outs[i].none ? "an empty optional" : "a sequence") +
                        ": use RunValues for this model");
    }
    tensors.push_back(std::move(outs[i].tensor));
  }
  return tensors;
}

}  // namespace

Result<std::vector<Tensor>> RuntimeSession::Run(const std::vector<NamedTensor>& feeds,
                                                const std::vector<std::string>& output_names,
                                                const RunOptions* run_options) const {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Value> outs,
                              RunValues(AsValues(feeds), output_names, run_options));
  return AsTensors(std::move(outs));
}

Result<std::vector<Tensor>> RuntimeSession::RunUnder(const std::vector<NamedTensor>& feeds,
                                                     const RunControl* control) const {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Value> outs,
                              RunValuesUnder(AsValues(feeds), {}, control));
  return AsTensors(std::move(outs));
}

Result<std::vector<Value>> RuntimeSession::RunValues(const std::vector<NamedValue>& feeds,
                                                     const std::vector<std::string>& output_names,
                                                     const RunOptions* run_options) const {
  // Without options or a budget, nothing to check between nodes.
  if (run_options == nullptr && options_.memory_budget_bytes == 0) {
    return RunValuesUnder(feeds, output_names, nullptr);
  }
  RunControl control = run_options != nullptr ? run_options->Control() : RunControl{};
  RunBudget budget;
  budget.limit = options_.memory_budget_bytes;
  if (budget.limit > 0) control.budget = &budget;
  return RunValuesUnder(feeds, output_names, &control);
}

Result<std::vector<Value>> RuntimeSession::RunValuesUnder(
    const std::vector<NamedValue>& feeds, const std::vector<std::string>& output_names,
    const RunControl* control) const {
  // No lock: the plan is read-only, kernels are const, and everything this run writes is
  // in its own frame (borrowed from the pool, returned when the run ends).
  const Plan& plan = *plan_;
  FrameLease lease(frames_.get(), plan, options_);
  Frame& frame = lease.frame();
  // The run's values; an unset one falls back to the plan's constant of that index (an
  // initializer, a folded value), read in place rather than copied into every run.
  std::vector<Value>& values = frame.values;
  values.resize(plan.constants.size());
  auto value = [&](int v) -> const Value& {
    const Value& x = values[static_cast<size_t>(v)];
    return x.has_value() ? x : plan.constants[static_cast<size_t>(v)];
  };
  auto kind = [&](int v) { return plan.kinds[static_cast<size_t>(v)]; };
  // The memory budget: bytes each value charged, given back when it is released, and all
  // of what is left when the run ends, however it ends.
  RunBudget* const budget = control != nullptr ? control->budget : nullptr;
  std::vector<uint64_t>& charged = frame.charged;
  if (budget != nullptr) charged.assign(plan.value_names.size(), 0);
  struct GiveBack {
    RunBudget* budget;
    std::vector<uint64_t>* charged;
    ~GiveBack() {
      if (budget == nullptr) return;
      for (uint64_t& c : *charged) {
        budget->used.fetch_sub(c, std::memory_order_relaxed);
        c = 0;
      }
    }
  } give_back{budget, &charged};

  std::vector<bool> fed(inputs_.size(), false);
  for (const NamedValue& feed : feeds) {
    size_t k = 0;
    while (k < inputs_.size() && inputs_[k].name != feed.first)
      ++k;
    if (k == inputs_.size()) {
      return Status(
          StatusCode::kInvalidArgument,
          "unknown input '" + feed.first + "' (the model's inputs: " + JoinNames(inputs_) + ")");
    }
    if (fed[k]) {
      return Status(StatusCode::kInvalidArgument, "input '" + feed.first + "' is fed twice");
    }
    fed[k] = true;
    const ValueMeta& meta = inputs_[k];
    if (feed.second.none) {
      if (!meta.is_optional()) {
        return Status(StatusCode::kTypeMismatch,
                      "input '" + meta.name + "': only an optional input can be fed none");
      }
      continue;  // the value stays an empty Tensor: none
    }
    if (feed.second.is_sequence() != meta.is_sequence()) {
      return Status(StatusCode::kTypeMismatch,
                    "input '" + meta.name + "': expected a " +
                        (meta.is_sequence() ? "sequence of tensors" : "tensor") + ", got a " +
                        (feed.second.is_sequence() ? "sequence" : "tensor"));
    }
    if (meta.is_sequence()) {
      for (const Tensor& t : *feed.second.sequence) {
        if (t.dtype() != meta.type) {
          return Status(StatusCode::kTypeMismatch,
                        "input '" + meta.name + "': expected a sequence of " +
                            DataTypeName(meta.type) + ", got an element of " +
                            DataTypeName(t.dtype()));
        }
        ONNX_LIGHT_RETURN_IF_ERROR(CheckBoolBytes(t, meta.name));
      }
      values[static_cast<size_t>(plan.input_values[k])].sequence = feed.second.sequence;
      continue;
    }
    const Tensor& t = feed.second.tensor;
    if (t.dtype() != meta.type) {
      return Status(StatusCode::kTypeMismatch, "input '" + meta.name + "': expected " +
                                                   DataTypeName(meta.type) + ", got " +
                                                   DataTypeName(t.dtype()));
    }
    ONNX_LIGHT_RETURN_IF_ERROR(CheckBoolBytes(t, meta.name));
    if (t.shape().rank() > options_.shape_limits.max_rank) {
      return Status(StatusCode::kOutOfRange,
                    "input '" + meta.name + "': rank " + std::to_string(t.shape().rank()) +
                        " exceeds the limit of " + std::to_string(options_.shape_limits.max_rank));
    }
    if (meta.has_shape) {
      if (t.shape().rank() != meta.dims.size()) {
        return Status(StatusCode::kInvalidArgument, "input '" + meta.name + "': expected rank " +
                                                        std::to_string(meta.dims.size()) +
                                                        ", got shape " + t.shape().ToString());
      }
      for (size_t d = 0; d < meta.dims.size(); ++d) {
        if (meta.dims[d] >= 0 && meta.dims[d] != t.shape()[d]) {
          return Status(StatusCode::kInvalidArgument,
                        "input '" + meta.name + "': dimension " + std::to_string(d) + " must be " +
                            std::to_string(meta.dims[d]) + ", got shape " + t.shape().ToString());
        }
      }
    }
    values[static_cast<size_t>(plan.input_values[k])].tensor = t;
  }
  for (size_t k = 0; k < inputs_.size(); ++k) {
    if (!fed[k] && !plan.input_has_default[k] && !inputs_[k].is_optional()) {
      return Status(StatusCode::kInvalidArgument, "missing input '" + inputs_[k].name + "'");
    }
  }

  if (MemoryPattern* memory = frame.memory.get()) {
    // The input-shape signature: each input's rank and dimensions; -1 not fed, -2 a
    // sequence, -3 none.
    std::vector<int64_t>& signature = frame.signature;
    signature.clear();
    for (size_t k = 0; k < inputs_.size(); ++k) {
      const Value& in = values[static_cast<size_t>(plan.input_values[k])];
      if (!fed[k]) {
        signature.push_back(-1);
      } else if (in.is_sequence()) {
        signature.push_back(-2);
      } else if (!in.tensor.is_defined()) {
        signature.push_back(-3);
      } else {
        signature.push_back(static_cast<int64_t>(in.tensor.shape().rank()));
        for (size_t d = 0; d < in.tensor.shape().rank(); ++d)
          signature.push_back(in.tensor.shape()[d]);
      }
    }
    const bool was_planned = memory->planned();
    memory->BeginRun(signature);
    // A plan was just made: the blocks the pool kept from the recorded run are not needed.
    if (!was_planned && memory->planned() && frame.buffers) frame.buffers->Trim();
  }

  std::vector<int> wanted;
  if (output_names.empty()) {
    wanted = plan.output_values;
  } else {
    for (const std::string& name : output_names) {
      size_t k = 0;
      while (k < outputs_.size() && outputs_[k].name != name)
        ++k;
      if (k == outputs_.size()) {
        return Status(
            StatusCode::kInvalidArgument,
            "unknown output '" + name + "' (the model's outputs: " + JoinNames(outputs_) + ")");
      }
      wanted.push_back(plan.output_values[k]);
    }
  }
  // Only the nodes the requested outputs depend on run (all of them when every output is
  // asked for).
  std::vector<char> needed;
  if (!output_names.empty()) needed = passes::NeededNodes(plan, wanted);

  Profiler* const profiler = options_.profiler.get();
  std::vector<ProfileEvent> events;
  const int64_t run_start = profiler ? profiler->Now() : 0;
  for (size_t n = 0; n < plan.nodes.size(); ++n) {
    if (!needed.empty() && !needed[n]) continue;
    if (control != nullptr) ONNX_LIGHT_RETURN_IF_ERROR(control->Check());
    const Graph::Node& node = plan.nodes[n];
    const int64_t node_start = profiler ? profiler->Now() : 0;
    ONNX_LIGHT_ASSIGN_OR_RETURN(const KernelBase* kernel,
                                plan.kernels[n]->Get(*node.def, *node.info));
    // The node's inputs and outputs, in vectors the frame keeps (no allocation per node).
    std::vector<const Value*>& in = frame.node_inputs;
    in.clear();
    for (int v : node.inputs)
      in.push_back(v >= 0 ? &value(v) : nullptr);
    std::vector<Value>& out = frame.node_outputs;
    out.clear();
    out.resize(node.outputs.size());
    KernelContext ctx(node.info.get(), in, &out, pool_.get(), &options_.shape_limits,
                      options_.max_tensor_bytes, &frame.buffers);
    ctx.SetStateSlot(&frame.states[n]);
    ctx.SetScratchSlot(&frame.scratch);
    ctx.SetMemoryPattern(frame.memory.get(), &node.outputs);
    ctx.SetRunControl(control);
    if (budget != nullptr) {
      frame.node_charged.assign(node.outputs.size(), 0);
      ctx.SetChargedSlot(&frame.node_charged);
    }
    if (profiler) events.push_back(NodeEvent(node, ctx));
    Status s = ComputeNode(*kernel, ctx);
    if (budget != nullptr) {  // the charges move to the values (an unused output's: back)
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        const int v = node.outputs[o];
        if (v >= 0) {
          charged[static_cast<size_t>(v)] += frame.node_charged[o];
        } else {
          budget->used.fetch_sub(frame.node_charged[o], std::memory_order_relaxed);
        }
      }
    }
    if (profiler) {
      events.back().start_ns = node_start;
      events.back().duration_ns = profiler->Now() - node_start;
    }
    if (!s.ok()) {
      const std::string where = node.info->Describe();
      return s.message().rfind(where, 0) == 0 ? s : s.WithContext(where);
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      const int v = node.outputs[o];
      if (v < 0) continue;
      Value& got = out[o];
      if (kind(v) == ValueKind::kOptional && !got.has_value()) {
        values[static_cast<size_t>(v)] = Value();  // an empty optional
        continue;
      }
      if ((kind(v) == ValueKind::kSequence) != got.is_sequence()) {
        return Status(StatusCode::kInternal,
                      node.info->Describe() + ": output " + std::to_string(o) +
                          (kind(v) == ValueKind::kSequence ? " was not set to a sequence"
                                                           : " is a sequence, expected a tensor"));
      }
      if (!got.is_sequence() && got.tensor.dtype() != plan.value_types[static_cast<size_t>(v)]) {
        return Status(StatusCode::kInternal,
                      node.info->Describe() + ": output " + std::to_string(o) + " is " +
                          DataTypeName(got.tensor.dtype()) + ", expected " +
                          DataTypeName(plan.value_types[static_cast<size_t>(v)]));
      }
      values[static_cast<size_t>(v)] = std::move(got);
    }
    if (frame.memory && frame.memory->recording()) RecordViews(node, values, frame.memory.get());
    for (int v : plan.release[n]) {
      values[static_cast<size_t>(v)] = Value();
      if (budget != nullptr) {
        budget->used.fetch_sub(charged[static_cast<size_t>(v)], std::memory_order_relaxed);
        charged[static_cast<size_t>(v)] = 0;
      }
    }
  }
  lease.set_complete_if(needed.empty());

  if (profiler && !options_.enable_profiling) {
    profiler->Add(std::move(events));  // a subgraph's nodes: no run event of its own
  } else if (profiler) {
    ProfileEvent run;
    run.category = ProfileEvent::Category::kSession;
    run.name = "model_run";
    run.start_ns = run_start;
    run.duration_ns = profiler->Now() - run_start;
    run.thread = Profiler::ThreadNumber();
    events.push_back(std::move(run));
    profiler->Add(std::move(events));
  }

  // Views of feeds or of the model, and storage shared with the session's constants or
  // with other values, are copied: outputs belong to the caller alone.
  auto own = [](const Tensor& t) -> Result<Tensor> {
    if (!t.is_owning() || t.shares_storage()) return t.Clone();
    return t;
  };
  std::vector<Value> results;
  results.reserve(wanted.size());
  for (int v : wanted) {
    Value out;
    if (kind(v) == ValueKind::kSequence) {
      auto copy = std::make_shared<TensorSequence>();
      for (const Tensor& t : *values[static_cast<size_t>(v)].sequence) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor c, t.Clone());
        copy->push_back(std::move(c));
      }
      out.sequence = std::move(copy);
    } else if (kind(v) == ValueKind::kOptional && !value(v).has_value()) {
      out.none = true;
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(out.tensor, own(value(v).tensor));
    }
    results.push_back(std::move(out));
  }
  return results;  // the lease clears the frame's values and returns it
}

}  // namespace onnx_light
