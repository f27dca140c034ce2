// The executor's steps (executor.h).
#include "executor.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "compute.h"
#include "node_frame.h"
#include "onnx_light/platform/target_clones.h"
#include "onnx_light/runtime/thread_pool.h"
#include "passes/pass_manager.h"

namespace onnx_light {
namespace {

// A run's value v: what the frame holds, else the plan's constant of that index (an
// initializer, a folded value), read in place rather than copied into every run.
const Value& ValueOf(const Plan& plan, const Frame& frame, int v) {
  const Value& x = frame.values[static_cast<size_t>(v)];
  return x.has_value() ? x : plan.graph.constants[static_cast<size_t>(v)];
}

// A bool is the byte 0 or 1: any other byte read as a bool is undefined behaviour in every
// kernel, so a feed that carries one (a C caller's buffer, a numpy view of other bytes) is
// refused. Model data is normalised where it is read (tensor_proto.cc).
// The OR of n bytes, in the widest vectors the CPU has (one clone per target, chosen when
// the library loads): at the baseline's 16 bytes a step, checking two [256,1024] bool feeds
// took as long as ORT's whole And over them.
ONNX_LIGHT_VECTOR_CLONES uint8_t OrBytes(const uint8_t* __restrict p, size_t n) {
  uint8_t any = 0;
  for (size_t i = 0; i < n; ++i)
    any |= p[i];
  return any;
}

Status CheckBoolBytes(const Tensor& t, const std::string& name) {
  if (t.dtype() != DataType::kBool || t.num_elements() == 0) return Status::Ok();
  const auto* begin = static_cast<const uint8_t*>(t.raw_data());
  const uint8_t* end = begin + t.num_elements();
  // The OR of every byte first, the position only when one is bad.
  if (OrBytes(begin, static_cast<size_t>(t.num_elements())) <= 1) return Status::Ok();
  const uint8_t* bad = std::find_if(begin, end, [](uint8_t b) { return b > 1; });
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

Status CheckSequence(const ValueMeta& meta, const TensorSequence& sequence) {
  for (const Tensor& t : sequence) {
    if (t.dtype() != meta.type) {
      return Status(StatusCode::kTypeMismatch,
                    "input '" + meta.name + "': expected a sequence of " + DataTypeName(meta.type) +
                        ", got an element of " + DataTypeName(t.dtype()));
    }
    ONNX_LIGHT_RETURN_IF_ERROR(CheckBoolBytes(t, meta.name));
  }
  return Status::Ok();
}

// A map fed for `meta`: 1-D keys (int64 or string, the declared key type, each once) and
// 1-D values of the value type, as many as keys.
Status CheckMap(const ValueMeta& meta, const TensorMap& map, const std::string& where) {
  const Tensor& k = map.keys;
  const Tensor& v = map.values;
  if (k.dtype() != DataType::kInt64 && k.dtype() != DataType::kString) {
    return Status(StatusCode::kTypeMismatch,
                  where + ": map keys must be int64 or string, got " + DataTypeName(k.dtype()));
  }
  if (meta.key_type != DataType::kUndefined && k.dtype() != meta.key_type) {
    return Status(StatusCode::kTypeMismatch, where + ": expected " + DataTypeName(meta.key_type) +
                                                 " map keys, got " + DataTypeName(k.dtype()));
  }
  if (v.dtype() != meta.type) {
    return Status(StatusCode::kTypeMismatch, where + ": expected " + DataTypeName(meta.type) +
                                                 " map values, got " + DataTypeName(v.dtype()));
  }
  if (k.shape().rank() != 1 || v.shape().rank() != 1 || k.shape()[0] != v.shape()[0]) {
    return Status(StatusCode::kInvalidArgument,
                  where + ": a map's keys and values must be 1-D and of one length, got " +
                      k.shape().ToString() + " and " + v.shape().ToString());
  }
  ONNX_LIGHT_RETURN_IF_ERROR(CheckBoolBytes(v, meta.name));
  bool unique = true;
  if (const int64_t* ik = k.data<int64_t>()) {
    std::unordered_set<int64_t> seen(ik, ik + k.num_elements());
    unique = static_cast<int64_t>(seen.size()) == k.num_elements();
  } else if (const std::string* sk = k.data<std::string>()) {
    std::unordered_set<std::string_view> seen(sk, sk + k.num_elements());
    unique = static_cast<int64_t>(seen.size()) == k.num_elements();
  }
  if (!unique) {
    return Status(StatusCode::kInvalidArgument, where + ": a map key appears more than once");
  }
  return Status::Ok();
}

Status CheckTensor(const ValueMeta& meta, const Tensor& t, const ShapeLimits& limits) {
  if (t.dtype() != meta.type) {
    return Status(StatusCode::kTypeMismatch, "input '" + meta.name + "': expected " +
                                                 DataTypeName(meta.type) + ", got " +
                                                 DataTypeName(t.dtype()));
  }
  ONNX_LIGHT_RETURN_IF_ERROR(CheckBoolBytes(t, meta.name));
  if (t.shape().rank() > limits.max_rank) {
    return Status(StatusCode::kOutOfRange,
                  "input '" + meta.name + "': rank " + std::to_string(t.shape().rank()) +
                      " exceeds the limit of " + std::to_string(limits.max_rank));
  }
  if (!meta.has_shape) return Status::Ok();
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
  return Status::Ok();
}

// A profile event for a node about to run: its name, op type and input shapes.
ProfileEvent NodeEvent(const Graph::Node& node, const std::vector<const Value*>& inputs) {
  ProfileEvent e;
  const std::string& op = node.proto->op_type.get();
  const std::string& domain = node.proto->domain.get();
  e.name = node.proto->name.get().empty() ? op : node.proto->name.get();
  e.op_type = domain.empty() || domain == "ai.onnx" ? op : domain + ":" + op;
  e.thread = Profiler::ThreadNumber();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i) e.input_shapes += ", ";
    const Tensor* t = inputs[i] != nullptr ? inputs[i]->tensor_or_null() : nullptr;
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

// Node n's outputs, as its kernel left them, into the run's values: each checked against
// what the plan says it is (kind and element type).
Status StoreOutputs(const Plan& plan, const Graph::Node& node, Frame& frame) {
  const Graph& g = plan.graph;
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    const int v = node.outputs[o];
    if (v < 0) continue;
    Value& got = frame.node_outputs[o];
    const ValueKind kind = g.kinds[static_cast<size_t>(v)];
    if (kind == ValueKind::kOptional && !got.has_value()) {
      frame.values[static_cast<size_t>(v)] = Value();  // an empty optional
      continue;
    }
    const ValueKind want = kind == ValueKind::kOptional ? ValueKind::kTensor : kind;
    if (got.kind() != want) {
      return Status(StatusCode::kInternal, "output " + std::to_string(o) + " is a " +
                                               ValueKindName(got.kind()) + ", expected a " +
                                               ValueKindName(want));
    }
    if (!got.is_container() && got.tensor.dtype() != g.value_types[static_cast<size_t>(v)]) {
      return Status(StatusCode::kInternal, "output " + std::to_string(o) + " is " +
                                               DataTypeName(got.tensor.dtype()) + ", expected " +
                                               DataTypeName(g.value_types[static_cast<size_t>(v)]));
    }
    frame.values[static_cast<size_t>(v)] = std::move(got);
  }
  return Status::Ok();
}

// Runs node n: its kernel (created by the first run that gets here), its inputs and
// outputs in vectors the frame keeps (no allocation per node), its outputs stored.
Status RunNode(const Plan& plan, const RunEnv& env, size_t n, Frame& frame,
               std::vector<ProfileEvent>* events) {
  const Graph::Node& node = plan.graph.nodes[n];
  const int64_t node_start = env.profiler ? env.profiler->Now() : 0;
  ONNX_LIGHT_ASSIGN_OR_RETURN(const KernelBase* kernel,
                              plan.kernels[n]->Get(*node.def, *node.info));
  std::vector<const Value*>& in = frame.node_inputs;
  in.clear();
  for (int v : node.inputs)
    in.push_back(v >= 0 ? &ValueOf(plan, frame, v) : nullptr);
  std::vector<Value>& out = frame.node_outputs;
  out.clear();
  out.resize(node.outputs.size());
  const NodeFrame lent{&frame.states[n],
                       &frame.scratch,
                       &frame.buffers,
                       env.control,
                       frame.ledger.NodeCharges(node.outputs.size()),
                       frame.memory.get(),
                       &node.outputs};
  const SessionOptions& options = *plan.options;
  KernelContext ctx(node.info.get(), in, &out, env.pool, &options.shape_limits,
                    options.max_tensor_bytes, &lent);
  if (events != nullptr) events->push_back(NodeEvent(node, in));
  Status s = ComputeNode(*kernel, ctx);
  frame.ledger.Settle(node.outputs);  // the charges move to the values (an unused output's: back)
  if (events != nullptr) {
    events->back().start_ns = node_start;
    events->back().duration_ns = env.profiler->Now() - node_start;
  }
  ONNX_LIGHT_RETURN_IF_ERROR(s);
  return StoreOutputs(plan, node, frame);
}

}  // namespace

Status CheckInput(const ValueMeta& meta, const Value& value, const ShapeLimits& limits) {
  if (value.none) {
    if (!meta.is_optional()) {
      return Status(StatusCode::kTypeMismatch,
                    "input '" + meta.name + "': only an optional input can be fed none");
    }
    return Status::Ok();
  }
  const ValueKind want = meta.is_optional() ? ValueKind::kTensor : meta.kind;
  if (value.kind() != want) {
    return Status(StatusCode::kTypeMismatch,
                  "input '" + meta.name + "': expected a " +
                      (want == ValueKind::kSequence ? "sequence of tensors" : ValueKindName(want)) +
                      ", got a " + ValueKindName(value.kind()));
  }
  // (The maps' "input 'x'" is made only for them: a Loop's body checks its inputs on every
  // iteration.)
  switch (want) {
    case ValueKind::kSequence:
      return CheckSequence(meta, *value.sequence);
    case ValueKind::kMap:
      return CheckMap(meta, *value.map, "input '" + meta.name + "'");
    case ValueKind::kMapSequence:
      for (size_t i = 0; i < value.maps->size(); ++i)
        ONNX_LIGHT_RETURN_IF_ERROR(CheckMap(meta, (*value.maps)[i],
                                            "input '" + meta.name + "', map " + std::to_string(i)));
      return Status::Ok();
    default:
      return CheckTensor(meta, value.tensor, limits);
  }
}

Status BindFeeds(const Plan& plan, const std::vector<NamedValue>& feeds, Frame& frame,
                 std::vector<bool>* fed) {
  const Graph& g = plan.graph;
  const std::vector<ValueMeta>& inputs = g.input_meta;
  fed->assign(inputs.size(), false);
  for (const NamedValue& feed : feeds) {
    size_t k = 0;
    while (k < inputs.size() && inputs[k].name != feed.first)
      ++k;
    if (k == inputs.size()) {
      return Status(
          StatusCode::kInvalidArgument,
          "unknown input '" + feed.first + "' (the model's inputs: " + JoinNames(inputs) + ")");
    }
    if ((*fed)[k]) {
      return Status(StatusCode::kInvalidArgument, "input '" + feed.first + "' is fed twice");
    }
    (*fed)[k] = true;
    ONNX_LIGHT_RETURN_IF_ERROR(CheckInput(inputs[k], feed.second, plan.options->shape_limits));
    if (feed.second.none) continue;  // the value stays an empty Tensor: none
    Value& slot = frame.values[static_cast<size_t>(g.input_values[k])];
    slot = feed.second;
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!(*fed)[k] && !g.input_has_default[k] && !inputs[k].is_optional()) {
      return Status(StatusCode::kInvalidArgument, "missing input '" + inputs[k].name + "'");
    }
  }
  return Status::Ok();
}

void PickMemoryPlan(const std::vector<int>& values, const std::vector<bool>& fed, Frame& frame) {
  MemoryPattern* memory = frame.memory.get();
  if (memory == nullptr) return;
  // The input-shape signature: each value's rank and dimensions; -1 not fed, -2 a
  // sequence, -3 none, -5 and its size a map, -6 maps.
  std::vector<int64_t>& signature = frame.signature;
  signature.clear();
  for (size_t k = 0; k < values.size(); ++k) {
    const Value& in = frame.values[static_cast<size_t>(values[k])];
    if (!fed[k]) {
      signature.push_back(-1);
    } else if (in.is_map()) {
      signature.push_back(-5);
      signature.push_back(in.map->keys.num_elements());
    } else if (in.is_container()) {
      signature.push_back(in.is_sequence() ? -2 : -6);
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
  if (!was_planned && memory->planned() && frame.buffers) {
    frame.buffers->Trim();
#ifdef __GLIBC__
    // ...and what the allocator keeps of them goes back to the system before the arena is
    // made (glibc raises its mmap threshold as large blocks are freed and keeps them in its
    // heap: an LSTM tagger's planned run peaked 18 MiB above its recording run).
    malloc_trim(0);
#endif
  }
}

Status RunNodes(const Plan& plan, const RunEnv& env, const std::vector<char>& needed,
                Frame& frame) {
  std::vector<ProfileEvent> events;
  std::vector<ProfileEvent>* recorded = env.profiler != nullptr ? &events : nullptr;
  const int64_t run_start = env.profiler ? env.profiler->Now() : 0;
  const Graph& g = plan.graph;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!needed.empty() && !needed[n]) continue;
    if (env.control != nullptr) ONNX_LIGHT_RETURN_IF_ERROR(env.control->Check());
    Status s = RunNode(plan, env, n, frame, recorded);
    if (!s.ok()) return s.WithContext(g.nodes[n].info->Describe());
    if (frame.memory && frame.memory->recording()) {
      RecordViews(g.nodes[n], frame.values, frame.memory.get());
    }
    for (int v : plan.release[n]) {
      frame.values[static_cast<size_t>(v)] = Value();
      frame.ledger.Release(v);
    }
  }
  if (env.profiler == nullptr) return Status::Ok();
  if (env.run_event) {
    ProfileEvent run;
    run.category = ProfileEvent::Category::kSession;
    run.name = "model_run";
    run.start_ns = run_start;
    run.duration_ns = env.profiler->Now() - run_start;
    run.thread = Profiler::ThreadNumber();
    events.push_back(std::move(run));
  }
  env.profiler->Add(std::move(events));
  return Status::Ok();
}

Result<std::vector<Value>> CollectOutputs(const Plan& plan, const std::vector<int>& wanted,
                                          Frame& frame, bool share_within_frame) {
  const Graph& g = plan.graph;
  std::vector<Value> results;
  // Whether every holder of t's storage is a value of this frame (cleared when the run
  // ends) or an output already collected: then nothing else can see or change it.
  auto frame_only = [&](const Tensor& t) {
    long holders = 0;
    for (const Value& v : frame.values)
      holders += v.tensor.storage_key() == t.storage_key();
    for (const Value& v : results)
      holders += v.tensor.storage_key() == t.storage_key();
    return holders == t.storage_holders();
  };
  auto own = [&](const Tensor& t) -> Result<Tensor> {
    if (!t.is_owning()) return t.Clone();
    if (t.shares_storage() && !(share_within_frame && frame_only(t))) return t.Clone();
    return t;
  };
  results.reserve(wanted.size());
  for (int v : wanted) {
    const ValueKind kind = g.kinds[static_cast<size_t>(v)];
    const Value& value = ValueOf(plan, frame, v);
    Value out;
    if (kind == ValueKind::kSequence) {
      // A sequence only this frame holds hands over the tensors that it alone holds
      // (a node made them; the frame is cleared when the run ends); views and tensors
      // shared with anything else (an input, an initializer, another value) are copied.
      const bool frame_sequence = value.sequence.use_count() == 1;
      auto copy = std::make_shared<TensorSequence>();
      copy->reserve(value.sequence->size());
      for (const Tensor& t : *value.sequence) {
        if (frame_sequence && t.is_owning() && !t.shares_storage()) {
          copy->push_back(t);
          continue;
        }
        ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor c, t.Clone());
        copy->push_back(std::move(c));
      }
      out.sequence = std::move(copy);
    } else if ((kind == ValueKind::kMap || kind == ValueKind::kMapSequence) &&
               g.producer[static_cast<size_t>(v)] >= 0) {
      // Maps a node made are immutable (const tensors behind a shared pointer, their
      // memory kept by them): the caller shares them, no copy.
      out.map = value.map;
      out.maps = value.maps;
    } else if (kind == ValueKind::kMap || kind == ValueKind::kMapSequence) {
      // A fed map returned as an output may view the feeder's memory: copied.
      auto copy = [](const TensorMap& m) -> Result<TensorMap> {
        ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor keys, m.keys.Clone());
        ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor values, m.values.Clone());
        return TensorMap{std::move(keys), std::move(values)};
      };
      if (value.map) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(TensorMap m, copy(*value.map));
        out.map = std::make_shared<const TensorMap>(std::move(m));
      } else {
        auto maps = std::make_shared<MapSequence>();
        for (const TensorMap& m : *value.maps) {
          ONNX_LIGHT_ASSIGN_OR_RETURN(TensorMap c, copy(m));
          maps->push_back(std::move(c));
        }
        out.maps = std::move(maps);
      }
    } else if (kind == ValueKind::kOptional && !value.has_value()) {
      out.none = true;
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(out.tensor, own(value.tensor));
    }
    results.push_back(std::move(out));
  }
  return results;
}

namespace {

// The values of the outputs named (all, in graph order, when none is).
Result<std::vector<int>> SelectOutputs(const Graph& g, const std::vector<std::string>& names) {
  if (names.empty()) return g.output_values;
  std::vector<int> wanted;
  for (const std::string& name : names) {
    size_t k = 0;
    while (k < g.output_meta.size() && g.output_meta[k].name != name)
      ++k;
    if (k == g.output_meta.size()) {
      return Status(
          StatusCode::kInvalidArgument,
          "unknown output '" + name + "' (the model's outputs: " + JoinNames(g.output_meta) + ")");
    }
    wanted.push_back(g.output_values[k]);
  }
  return wanted;
}

}  // namespace

Result<std::vector<Value>> RunPlan(const Plan& plan, const std::vector<NamedValue>& feeds,
                                   const std::vector<std::string>& output_names,
                                   const RunEnv& env) {
  const Graph& g = plan.graph;
  // No lock: the plan is read-only, kernels are const, and everything this run writes is
  // in its own frame (borrowed from the pool, returned when the run ends).
  FrameLease lease(plan);
  Frame& frame = lease.frame();
  frame.values.resize(g.constants.size());
  frame.ledger.Begin(env.control != nullptr ? env.control->budget : nullptr, g.constants.size());
  std::vector<bool> fed;
  ONNX_LIGHT_RETURN_IF_ERROR(BindFeeds(plan, feeds, frame, &fed));
  PickMemoryPlan(g.input_values, fed, frame);
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int> wanted, SelectOutputs(g, output_names));
  // Only the nodes the requested outputs depend on run (all of them when every output is
  // asked for).
  std::vector<char> needed;
  if (!output_names.empty()) needed = passes::NeededNodes(g, wanted);
  ONNX_LIGHT_RETURN_IF_ERROR(RunNodes(plan, env, needed, frame));
  lease.set_complete_if(needed.empty());
  return CollectOutputs(plan, wanted, frame);  // the lease clears the frame and returns it
}

}  // namespace onnx_light
