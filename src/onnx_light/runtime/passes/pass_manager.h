// Passes: rewrites of the session's graph, grouped by optimization level as ONNX Runtime
// groups its graph transformers (basic: constant folding and removals; extended: fusions).
// They work on the runtime graph (graph.h: nodes with their kernels matched, values typed
// and numbered) after the model was validated and before the plan decides kernels and
// lifetimes, so a pass never hides an invalid model and every rewritten node is matched
// again. Constant folding runs first.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../graph.h"
#include "onnx_light/core/status.h"
#include "onnx_light/runtime/session_options.h"

namespace onnx_light::passes {

// What a pass may use besides the graph: the session's kernels (to match a node it makes)
// and the session's options (limits, switches).
struct PassContext {
  const KernelRegistry* registry = nullptr;
  const SessionOptions* options = nullptr;
};

struct GraphPass {
  const char* name;
  GraphOptimizationLevel level;  // runs at this level and above
  // Rewrites the graph; returns how many nodes it removed.
  size_t (*apply)(Graph& graph, const PassContext& ctx);
};

// Every pass, in the order they run.
const std::vector<GraphPass>& AllGraphPasses();

// Runs the passes of `level` (and below); returns the nodes each removed, by pass name.
std::vector<std::pair<const char*, size_t>> RunGraphPasses(Graph& graph,
                                                           GraphOptimizationLevel level,
                                                           const PassContext& ctx);

// An error naming the first of `names` that is no pass (SessionOptions::disabled_passes).
Status CheckPassNames(const std::vector<std::string>& names);

// Drops the constants nothing reads any more (weights a fold replaced, Constant nodes'
// values that were folded away): their memory goes, and pages of the model file that a
// fold read are given back (madvise), so peak RSS does not count both forms.
void DropUnreadConstants(Graph& graph);

// Recomputes graph.producer from graph.nodes after nodes were removed.
void RenumberProducers(Graph& graph);

// Which nodes (1 = needed) the values `wanted` depend on, through any chain of nodes
// (subgraph reads are a node's implicit inputs).
std::vector<char> NeededNodes(const Graph& graph, const std::vector<int>& wanted);

// How many times each value is read: by nodes (subgraph reads included) and as a graph
// output (counted once more, so a graph output never looks private to one reader).
std::vector<int> ReaderCounts(const Graph& graph);

// The nodes reading each value, by value index (a node once per input it reads it as).
std::vector<std::vector<size_t>> Consumers(const Graph& graph);

// Whether node n is the ai.onnx op `op`; whether the graph has one.
bool IsOnnxOp(const onnx::NodeProto& n, const char* op);
bool HasOnnxOp(const Graph& graph, const char* op);

// Drops the nodes marked in `removed` (by index) and renumbers producers.
void RemoveNodes(Graph& graph, const std::vector<char>& removed);

// A constant value made by a pass (a folded weight); returns its index.
int AddConstant(Graph& graph, const std::string& name, Tensor value);
// A value made by a pass (a new node's output), named `name` or a unique variant of it;
// returns its index.
int AddValue(Graph& graph, const std::string& name, DataType type, ValueKind kind);

// A node made by a pass: `proto` (kept in the graph) with its inputs and outputs as value
// indices, matched from the registry at `opset` (ai.onnx) or at 1 (onnx_light).
Result<Graph::Node> MakeNode(Graph& graph, const PassContext& ctx, onnx::NodeProto proto,
                             std::vector<int> inputs, std::vector<int> outputs, int opset);

// Attributes of the nodes passes make.
onnx::AttributeProto FloatAttribute(const char* name, float value);
onnx::AttributeProto FloatsAttribute(const char* name, std::vector<float> values);
onnx::AttributeProto IntAttribute(const char* name, int64_t value);
onnx::AttributeProto IntsAttribute(const char* name, std::vector<int64_t> values);
onnx::AttributeProto StringAttribute(const char* name, const std::string& value);
onnx::AttributeProto StringsAttribute(const char* name, std::vector<std::string> values);

// Gives node `n` a new definition: `proto` (kept in the graph), its inputs (value indices,
// -1 for absent) and outputs as they are, and a kernel matched anew from the registry.
// Fails, changing nothing, when no kernel takes it.
Status ReplaceNode(Graph& graph, const PassContext& ctx, Graph::Node& n, onnx::NodeProto proto,
                   std::vector<int> inputs);

// Runs `node`'s kernel once on `inputs` (one per input slot, null for an absent one): its
// outputs, or the kernel's error. Constant folding runs every node it folds this way.
Result<std::vector<Value>> RunNodeOnce(const Graph::Node& node,
                                       const std::vector<const Value*>& inputs,
                                       const SessionOptions& options);

// The value of v when it is a one-element float32 constant (false otherwise).
bool ScalarConstant(const Graph& graph, int v, float* out);

// The constant behind value v (an initializer, a Constant node or a folded value that no
// feed can replace), or null.
const Tensor* ConstantOf(const Graph& graph, int v);

// The output channels M of an ai.onnx Conv whose weights are a float32 constant of rank 3
// or more and whose bias, if any, is a float32 constant of M values; -1 otherwise.
int64_t FoldableConvChannels(const Graph& graph, const Graph::Node& conv);
// Folds a per-channel map into such a Conv (the weight and bias folds of BatchNormalization
// and of Mul/Add by constants): W'[c] = W[c] * scale[c] (scale empty: W as it is) and
// b'[c] = bias(c, b[c]) (b[c] = 0 without a bias); the Conv then produces `output`.
// Returns false, leaving the node as it was, when no kernel takes the rewritten node.
bool FoldIntoConv(Graph& graph, const PassContext& ctx, Graph::Node& conv, int output,
                  const std::vector<float>& scale,
                  const std::function<float(int64_t, float)>& bias);

// The passes (pass_<name>.cc).
size_t FoldConstants(Graph& graph, const PassContext& ctx);
size_t EliminateIdentities(Graph& graph, const PassContext& ctx);
size_t SinkTransposes(Graph& graph, const PassContext& ctx);
size_t EliminateDeadNodes(Graph& graph, const PassContext& ctx);
size_t FoldBatchNormIntoConv(Graph& graph, const PassContext& ctx);
size_t FoldAffineIntoConv(Graph& graph, const PassContext& ctx);
size_t FuseConvActivation(Graph& graph, const PassContext& ctx);
size_t FuseConvResidual(Graph& graph, const PassContext& ctx);
size_t FuseConvAffine(Graph& graph, const PassContext& ctx);
size_t FuseLayerNorm(Graph& graph, const PassContext& ctx);
size_t FuseMatMulIntegerScale(Graph& graph, const PassContext& ctx);
size_t FuseGelu(Graph& graph, const PassContext& ctx);
size_t FuseElementwiseChain(Graph& graph, const PassContext& ctx);
size_t PrepackMatMulWeights(Graph& graph, const PassContext& ctx);

}  // namespace onnx_light::passes
