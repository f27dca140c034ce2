// Graph: the runtime's graph, built from a ModelProto (never mutating it) and rewritten by
// the passes; then planned (plan.h). Nodes are in topological order with their kernels
// matched (spec 003's hash-free matching) and checked (arity, attribute and input types);
// values are numbered, typed and of a kind (tensor, sequence, optional); constants are
// initializers, Constant nodes and what folding computed.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "onnx_light/runtime/kernel.h"
#include "onnx_light/runtime/session.h"
#include "onnx_light/runtime/value.h"

namespace onnx_light {

struct Graph {
  struct Node {
    const onnx::NodeProto* proto = nullptr;
    const KernelDef* def = nullptr;
    std::unique_ptr<KernelInfo> info;
    std::vector<int> inputs;   // value index, -1 for an absent optional input
    std::vector<int> outputs;  // value index, -1 for an unused optional output
  };
  std::vector<std::string> value_names;
  std::vector<DataType> value_types;           // a sequence's element type
  std::vector<ValueKind> kinds;                // tensor, sequence or optional (none: empty)
  std::vector<int> producer;                   // node index, -1 for inputs and constants
  std::vector<Value> constants;                // by value index: tensors, or empty
  std::unordered_map<std::string, int> index;  // value name -> index
  std::vector<int> input_values;               // graph inputs, in order
  std::vector<bool> input_has_default;         // graph input that an initializer backs
  std::vector<int> output_values;              // graph outputs, in order
  std::vector<Node> nodes;                     // topological order
  std::deque<onnx::NodeProto> owned_protos;    // nodes made by passes (stable addresses)
};

// Builds the graph of `model` with the session's kernels and options: validates the model
// (opsets, single assignment, every read produced, no cycles, declared types) and every
// node against its op, and matches each node's kernel. `graph_inputs` and `graph_outputs`
// receive the inputs and outputs as the session shows them. `scope` is the session's, for
// the subgraph kernels.
Status BuildGraph(const onnx::ModelProto& model, const SessionOptions& options,
                  const SubgraphScope* scope, Graph* built, std::vector<ValueMeta>* graph_inputs,
                  std::vector<ValueMeta>* graph_outputs);

// The graph as a standard ONNX model (what runs: folded values as initializers, nodes in
// their planned order, `onnx_light` imported when a node of that domain is in it).
Result<onnx::ModelProto> GraphToModel(const Graph& graph, const onnx::ModelProto& source);

// Whether a node carries graphs (If, Loop, Scan and other control flow).
bool HasSubgraph(const onnx::NodeProto& node);

}  // namespace onnx_light
