// Changing a graph in a pass: new values and constants, nodes made or redefined (and
// matched to a kernel again), the fusion helper that replaces a group of nodes by one,
// and the bookkeeping after nodes go.
#pragma once

#include <cstddef>
#include <string>
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

// Drops the nodes marked in `removed` (by index) and renumbers producers.
void RemoveNodes(Graph& graph, const std::vector<char>& removed);

// Recomputes graph.producer from graph.nodes after nodes were removed.
void RenumberProducers(Graph& graph);

// Drops the constants nothing reads any more (weights a fold replaced, Constant nodes'
// values that were folded away): their memory goes, and pages of the model file that a
// fold read are given back (madvise), so peak RSS does not count both forms.
void DropUnreadConstants(Graph& graph);

// A constant value made by a pass (a folded weight); returns its index.
int AddConstant(Graph& graph, const std::string& name, Tensor value);
// A value made by a pass (a new node's output), named `name` or a unique variant of it;
// returns its index.
int AddValue(Graph& graph, const std::string& name, DataType type, ValueKind kind);

// A node made by a pass: `proto` (kept in the graph) with its inputs and outputs as value
// indices, matched from the registry at `opset` (ai.onnx) or at 1 (onnx_light).
Result<Graph::Node> MakeNode(Graph& graph, const PassContext& ctx, onnx::NodeProto proto,
                             std::vector<int> inputs, std::vector<int> outputs, int opset);

// Gives node `n` a new definition: `proto` (kept in the graph), its inputs (value indices,
// -1 for absent) and outputs as they are, and a kernel matched anew from the registry.
// Fails, changing nothing, when no kernel takes it.
Status ReplaceNode(Graph& graph, const PassContext& ctx, Graph::Node& n, onnx::NodeProto proto,
                   std::vector<int> inputs);

// A node proto for a pass: `name`, `domain`:`op`, its inputs and outputs by value index
// (-1: an absent optional one).
onnx::NodeProto NodeProtoOf(const Graph& graph, const std::string& name, const char* domain,
                            const char* op, const std::vector<int>& inputs,
                            const std::vector<int>& outputs);

// Attributes of the nodes passes make.
onnx::AttributeProto FloatAttribute(const char* name, float value);
onnx::AttributeProto FloatsAttribute(const char* name, std::vector<float> values);
onnx::AttributeProto IntAttribute(const char* name, int64_t value);
onnx::AttributeProto IntsAttribute(const char* name, std::vector<int64_t> values);
onnx::AttributeProto StringAttribute(const char* name, const std::string& value);
onnx::AttributeProto StringsAttribute(const char* name, std::vector<std::string> values);

// One pass's fusions: each replaces a group of nodes (a matched pattern) by one fused node
// that takes the place of one of them; the others go together when the pass is done, so
// node indices stay valid while the pass walks the graph.
class Fusions {
 public:
  Fusions(Graph& graph, const PassContext& ctx)
      : graph_(graph), ctx_(ctx), removed_(graph.nodes.size(), 0) {}

  // None of `group` went to an earlier fusion of this pass.
  bool Free(const std::vector<size_t>& group) const;
  bool Taken(size_t n) const { return removed_[n] != 0; }
  // Node `at` (of `group`, or one more node) becomes `proto` reading `inputs` and
  // producing `outputs`, matched to a kernel anew; the rest of `group` goes. False, and
  // nothing changes, when no kernel takes the fused node. Place the fused node where every
  // input it reads is computed: a pattern's last node, usually.
  bool Replace(size_t at, onnx::NodeProto proto, std::vector<int> inputs, std::vector<int> outputs,
               const std::vector<size_t>& group);
  // Removes what the fusions absorbed; returns how many nodes went.
  size_t Finish();

 private:
  Graph& graph_;
  const PassContext& ctx_;
  std::vector<char> removed_;
  size_t count_ = 0;
};

// Runs `node`'s kernel once on `inputs` (one per input slot, null for an absent one): its
// outputs, or the kernel's error. Constant folding runs every node it folds this way.
Result<std::vector<Value>> RunNodeOnce(const Graph::Node& node,
                                       const std::vector<const Value*>& inputs,
                                       const SessionOptions& options);

}  // namespace onnx_light::passes
