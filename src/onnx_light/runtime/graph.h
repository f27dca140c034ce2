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
#include "onnx_light/runtime/session_options.h"
#include "onnx_light/runtime/subgraph.h"
#include "onnx_light/runtime/value.h"

namespace onnx_light {

struct Graph {
  struct Node {
    const onnx::NodeProto* proto = nullptr;
    const KernelDef* def = nullptr;
    std::unique_ptr<KernelInfo> info;
    std::vector<int> inputs;   // value index, -1 for an absent optional input
    std::vector<int> outputs;  // value index, -1 for an unused optional output
    // The node's graph attributes, built with it when its kernel runs them (the same
    // objects its KernelInfo hands the kernel); compiled with the plan.
    NodeSubgraphs subgraphs;
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
  std::vector<ValueMeta> input_meta;           // graph inputs as a session shows them
  std::vector<ValueMeta> output_meta;          // graph outputs, likewise
  std::vector<Node> nodes;                     // topological order
  std::deque<onnx::NodeProto> owned_protos;    // nodes made by passes (stable addresses)
};

// Builds the graph of `model` with the session's kernels and options: validates the model
// (opsets, single assignment, every read produced, no cycles, declared types) and every
// node against its op, and matches each node's kernel. The graph attributes of nodes
// whose kernels run them are built too, recursively (Graph::Node::subgraphs).
Status BuildGraph(const onnx::ModelProto& model, const SessionOptions& options, Graph* built);

// The graph as a standard ONNX model (what runs: folded values as initializers, nodes in
// their planned order, `onnx_light` imported when a node of that domain is in it).
Result<onnx::ModelProto> GraphToModel(const Graph& graph, const onnx::ModelProto& source);

// Whether a node carries graphs (If, Loop, Scan and other control flow).
bool HasSubgraph(const onnx::NodeProto& node);

}  // namespace onnx_light
