// Kernels: KernelBase, what a kernel sees when it is created (KernelInfo) and when it runs
// (KernelContext), and the declaration that registers it (KernelDef).
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "onnx_light/core/data_type.h"
#include "onnx_light/core/status.h"
#include "onnx_light/core/tensor.h"
#include "onnx_light/onnx/onnx.h"
#include "onnx_light/runtime/run_control.h"
#include "onnx_light/runtime/subgraph.h"
#include "onnx_light/runtime/value.h"

namespace onnx_light {

class ThreadPool;
struct NodeFrame;

// The node a kernel is created for: attributes (typed getters), the element types
// resolved for its inputs and outputs at session creation, and its graph attributes
// compiled (for kernels that run them: If, Loop, Scan).
class KernelInfo {
 public:
  KernelInfo(const onnx::NodeProto* node, int opset, std::vector<DataType> input_types,
             std::vector<DataType> output_types, NodeSubgraphs subgraphs = {})
      : node_(node),
        opset_(opset),
        input_types_(std::move(input_types)),
        output_types_(std::move(output_types)),
        subgraphs_(std::move(subgraphs)) {}

  // The graph attribute `attr` compiled by the session (runtime/subgraph.h), or null when
  // the node has no such graph or its kernel does not declare that it runs subgraphs
  // (KernelDef::subgraph_input_types).
  const Subgraph* subgraph(const std::string& attr) const { return FindSubgraph(subgraphs_, attr); }

  const onnx::NodeProto& node() const noexcept { return *node_; }
  const std::string& name() const noexcept { return node_->name.get(); }
  const std::string& op_type() const noexcept { return node_->op_type.get(); }
  const std::string& domain() const noexcept { return node_->domain.get(); }
  // The opset version the model imports for the node's domain.
  int opset() const noexcept { return opset_; }
  size_t input_count() const noexcept { return input_types_.size(); }
  size_t output_count() const noexcept { return output_types_.size(); }
  // UNDEFINED for an absent optional input.
  DataType input_type(size_t i) const { return input_types_[i]; }
  DataType output_type(size_t i) const { return output_types_[i]; }

  bool HasAttribute(const std::string& attr) const { return Find(attr) != nullptr; }
  const onnx::AttributeProto* Find(const std::string& attr) const;

  // A missing attribute or one of another type is an error naming node and attribute.
  Result<float> GetFloat(const std::string& attr) const;
  Result<int64_t> GetInt(const std::string& attr) const;
  Result<std::string> GetString(const std::string& attr) const;
  Result<std::vector<int64_t>> GetInts(const std::string& attr) const;
  Result<std::vector<float>> GetFloats(const std::string& attr) const;
  Result<std::vector<std::string>> GetStrings(const std::string& attr) const;
  // With a default for an absent attribute; a present attribute of another type is still
  // an error.
  Result<float> GetFloat(const std::string& attr, float default_value) const;
  Result<int64_t> GetInt(const std::string& attr, int64_t default_value) const;
  Result<std::string> GetString(const std::string& attr, std::string default_value) const;

  // "node 'n0' (LeakyRelu, domain onnx_light)": the prefix of every error about the node.
  std::string Describe() const;

  // Input i's value when the session knows it before any run (an initializer no feed can
  // replace, a Constant node, a folded value), else null. Set by the session for every
  // node: the branches of nodes with subgraphs take those values as constants of their
  // own, and kernels may prepare constant weights once (a packed copy).
  const Tensor* constant_input(size_t i) const {
    return i < constants_.size() && constants_[i].dtype() != DataType::kUndefined ? &constants_[i]
                                                                                  : nullptr;
  }
  void set_constant_inputs(std::vector<Tensor> constants) { constants_ = std::move(constants); }

 private:
  Result<const onnx::AttributeProto*> Typed(const std::string& attr,
                                            onnx::AttributeType type) const;

  const onnx::NodeProto* node_;
  int opset_;
  std::vector<DataType> input_types_;
  std::vector<DataType> output_types_;
  NodeSubgraphs subgraphs_;
  std::vector<Tensor> constants_;
};

// Per-run state a kernel keeps between runs (scratch buffers, caches keyed by input
// shapes). The run's frame owns one per node; concurrent runs have different frames, so
// a kernel's Compute stays const and needs no lock. Derive from it and ask the context.
struct KernelState {
  virtual ~KernelState() = default;
};

// Everything a running kernel may touch: its inputs and outputs (Values: tensors,
// sequences, optionals, maps), the thread pool, per-run state and scratch memory.
class KernelContext {
 public:
  // `inputs`: one per node input, null for an absent optional one; `outputs`: one per node
  // output, filled by the kernel. Both stay the caller's and must outlive the context.
  // `frame`: what the running frame lends the node (runtime/node_frame.h: state, scratch,
  // buffer cache, run controls, budget, memory plan); null outside a run (constant
  // folding), where the context keeps its own state and scratch and checks nothing.
  KernelContext(const KernelInfo* info, const std::vector<const Value*>& inputs,
                std::vector<Value>* outputs, ThreadPool* pool, const ShapeLimits* limits,
                uint64_t max_tensor_bytes, const NodeFrame* frame = nullptr)
      : info_(info),
        inputs_(&inputs),
        outputs_(outputs),
        pool_(pool),
        limits_(limits),
        max_tensor_bytes_(max_tensor_bytes),
        frame_(frame) {}
  KernelContext(const KernelContext&) = delete;
  KernelContext& operator=(const KernelContext&) = delete;

  const KernelInfo& info() const noexcept { return *info_; }
  size_t input_count() const noexcept { return inputs_->size(); }
  // Input i as a value; null when absent.
  const Value* input_value(size_t i) const { return i < inputs_->size() ? (*inputs_)[i] : nullptr; }
  // Input i's tensor; null when absent, an empty optional or a sequence.
  const Tensor* input(size_t i) const {
    const Value* v = input_value(i);
    return v != nullptr ? v->tensor_or_null() : nullptr;
  }
  // Input i's sequence; null unless it is one.
  const TensorSequence* input_sequence(size_t i) const {
    const Value* v = input_value(i);
    return v != nullptr ? v->sequence.get() : nullptr;
  }
  // Input i's map; null unless it is one.
  const TensorMap* input_map(size_t i) const {
    const Value* v = input_value(i);
    return v != nullptr ? v->map.get() : nullptr;
  }
  size_t output_count() const noexcept { return outputs_->size(); }
  // Output i's tensor once allocated or set (null before, or for a sequence or a map).
  Tensor* mutable_output(size_t i) noexcept {
    return i < outputs_->size() && !(*outputs_)[i].is_container() &&
                   (*outputs_)[i].tensor.is_defined()
               ? &(*outputs_)[i].tensor
               : nullptr;
  }

  // Allocates output i with the type resolved at session creation (or `type`). The shape
  // is checked against the session's limits.
  Result<Tensor*> AllocateOutput(size_t i, const std::vector<int64_t>& dims);
  Result<Tensor*> AllocateOutput(size_t i, DataType type, const std::vector<int64_t>& dims);
  // Sets output i to an existing tensor (sharing its storage), e.g. for Identity.
  Status SetOutput(size_t i, Tensor tensor);
  // A tensor the kernel needs on the way to its outputs (a partial result, a stack of
  // per-iteration pieces): checked as an output is (the session's shape limits and
  // max_tensor_bytes, and room left in the run's memory budget) before it is allocated,
  // but not charged: it is gone when Compute returns.
  Result<Tensor> AllocateTemporary(DataType type, const std::vector<int64_t>& dims) const;

  ThreadPool* thread_pool() const noexcept { return pool_; }

  // Sets output i to a sequence (the positions a KernelDef lists in sequence_outputs).
  Status SetOutputSequence(size_t i, TensorSequence sequence);
  // Sets output i to any value (a tensor, a sequence, a map, maps or none).
  Status SetOutputValue(size_t i, Value value);

  // This node's state in the running frame, created (default-constructed) on first use
  // and kept for the frame's later runs. S derives from KernelState; a kernel always asks
  // for the same S.
  template <typename S>
  S& State() {
    std::unique_ptr<KernelState>& slot = StateSlot();
    if (!slot) slot = std::make_unique<S>();
    return static_cast<S&>(*slot);
  }

  // Scratch memory shared by every node of the running frame (one node runs at a time in
  // a frame): at least `floats` floats, 64-byte aligned, contents undefined, valid until
  // this node's Compute returns. It grows to the largest request and is kept for the
  // frame's later runs, so a model's scratch costs its largest node's, not the sum.
  float* Scratch(size_t floats);

  // The run's controls (null: none). Kernels that run subgraphs pass them on (Subgraph::Run
  // does), and check them between iterations (a Loop of many cheap steps stops at the next
  // one).
  const RunControl* run_control() const noexcept;
  Status CheckRun() const;

 private:
  std::unique_ptr<KernelState>& StateSlot();
  std::vector<float>& ScratchSlot();

  const KernelInfo* info_;
  const std::vector<const Value*>* inputs_;
  std::vector<Value>* outputs_;
  ThreadPool* pool_;
  const ShapeLimits* limits_;
  uint64_t max_tensor_bytes_;
  const NodeFrame* frame_;
  std::unique_ptr<KernelState> own_state_;  // without a frame
  std::vector<float> own_scratch_;
};

// A kernel is created once per node and shared by every run of the session: Compute is
// const and may run on several threads at once. What a run needs beyond its inputs and
// outputs lives in the context (scratch through State<S>(), the thread pool).
class KernelBase {
 public:
  virtual ~KernelBase() = default;
  virtual Status Compute(KernelContext& context) const = 0;
};

// A type constraint with the argument positions it binds (ORT's kernel-type-string
// resolution without op schemas): every bound input and output has the same element type,
// one of `types`.
struct TypeConstraint {
  std::string name;  // "T"
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<DataType> types;
};

inline constexpr int kMaxOpset = INT_MAX;

using KernelFactory = std::function<Result<std::unique_ptr<KernelBase>>(const KernelInfo&)>;
// Resolves output types that the constraints leave open (e.g. Cast's `to`, an If branch's
// outputs). Fills `output_types` entries that are UNDEFINED. `opset` is the model's import
// for the node's domain; `input_types` include a subgraph's implicit inputs; `subgraphs`
// are the node's graph attributes as built for its kernel (their outputs are typed), empty
// unless the kernel declares subgraph_input_types.
using OutputTypeFn = std::function<Status(
    const onnx::NodeProto& node, int opset, const std::vector<DataType>& input_types,
    std::vector<DataType>* output_types, const NodeSubgraphs& subgraphs)>;

// For kernels that run their node's graph attributes (If, Loop, Scan): the element types of
// the graph `attribute`'s own inputs, in order, where the graph leaves them out (a Loop
// body's iteration number, condition and carried values); UNDEFINED keeps what the graph
// declares. `input_types` are the node's, implicit inputs included. Errors reject the node
// (a body that does not take what the op passes it).
using SubgraphInputTypesFn = std::function<Status(
    const onnx::NodeProto& node, int opset, const std::string& attribute,
    const std::vector<DataType>& input_types, std::vector<DataType>* graph_input_types)>;

// How many inputs and outputs a node of the kernel's op may have, and which may be empty
// (bit i: position i may be an empty name or left out). min_inputs < 0: unchecked; a
// max of -1: unbounded (variadic).
struct Arity {
  int min_inputs = -1;
  int max_inputs = -1;
  int min_outputs = 0;
  int max_outputs = -1;
  uint32_t optional_inputs = 0;
  uint32_t optional_outputs = 0;
};

// The name of an AttributeProto.AttributeType value ("INT", "FLOATS", ...).
const char* AttributeTypeName(int32_t type);

// One kernel: which nodes it runs (domain, op, opset range, types) and how to create it.
struct KernelDef {
  std::string domain;  // "" is ai.onnx
  std::string op_type;
  int since_version = 1;
  int end_version = kMaxOpset;  // inclusive
  std::vector<TypeConstraint> constraints;
  KernelFactory create;
  OutputTypeFn output_types;  // optional
  // Set by kernels that run their node's graph attributes: the session then builds each
  // graph attribute with the node (typed, checked), compiles it with the enclosing plan
  // (passes, constants from the enclosing graph) and hands it to the kernel
  // (KernelInfo::subgraph).
  SubgraphInputTypesFn subgraph_input_types;
  // Positions that take or produce a sequence of tensors instead of a tensor; the type
  // constraints then bind the sequence's element type.
  std::vector<int> sequence_inputs, sequence_outputs;
  // Positions that take a map, and outputs that are sequences of maps (ai.onnx.ml's
  // DictVectorizer and CastMap, ZipMap); the type constraints then bind the map's value
  // type, and the kernel checks the key type when it runs.
  std::vector<int> map_inputs, map_sequence_outputs;
  // Positions that take an optional tensor (a tensor is accepted too; an empty optional
  // arrives as a null input) and outputs that are optional (left unset: empty).
  std::vector<int> optional_inputs, optional_outputs;
  // From this opset on (0: never), input 0 may be a tensor or a sequence and output 0 is of
  // the kind input 0 is (Identity-14, whose schema takes both).
  int passes_kind_since = 0;
  // Inputs and outputs a node may have. ai.onnx kernels take it from the ONNX op schema of
  // the node's opset (op_schema.h); others leave it unset to mean "every position the
  // type constraints name, all required", or set it.
  Arity arity;
};

// "ai.onnx" and "" are the same domain.
std::string NormalizeDomain(const std::string& domain);

}  // namespace onnx_light
