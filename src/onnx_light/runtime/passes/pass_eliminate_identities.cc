// Identity, Dropout at inference (its mask unused), and Cast or CastLike to the type the
// input already has (converters emit chains of them) pass their input through: their
// readers read the input instead and the node goes. Kept when the output is a graph
// output or is read inside a subgraph (names must stay).
#include <algorithm>

#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

bool PassesThrough(const Graph& graph, const Graph::Node& n) {
  const onnx::NodeProto& node = *n.proto;
  if (!NormalizeDomain(node.domain.get()).empty()) return false;
  const std::string& op = node.op_type.get();
  if (op == "Identity") return node.input.size() == 1 && node.output.size() == 1;
  if (op == "Cast" || op == "CastLike") {
    return !n.inputs.empty() && n.inputs[0] >= 0 && n.outputs.size() == 1 && n.outputs[0] >= 0 &&
           graph.value_types[static_cast<size_t>(n.inputs[0])] ==
               graph.value_types[static_cast<size_t>(n.outputs[0])];
  }
  if (op != "Dropout" || node.input.empty() || node.output.empty()) return false;
  // training_mode given (an input), or is_test = 0 before opset 7: keep the node.
  if (node.input.size() >= 3 && !node.input[2].empty()) return false;
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "is_test" && a.i.get() == 0) return false;
  }
  return true;
}

}  // namespace

size_t EliminateIdentities(Graph& graph, const PassContext&) {
  if (std::none_of(graph.nodes.begin(), graph.nodes.end(),
                   [&graph](const Graph::Node& n) { return PassesThrough(graph, n); })) {
    return 0;
  }
  std::vector<bool> read(graph.value_names.size(), false);
  for (const Graph::Node& n : graph.nodes) {
    for (int v : n.inputs) {
      if (v >= 0) read[static_cast<size_t>(v)] = true;
    }
  }
  std::vector<bool> is_output(graph.value_names.size(), false);  // or read by a subgraph
  for (int v : graph.output_values)
    is_output[static_cast<size_t>(v)] = true;
  for (const Graph::Node& n : graph.nodes) {
    for (size_t i = n.proto->input.size(); i < n.inputs.size(); ++i) {
      if (n.inputs[i] >= 0) is_output[static_cast<size_t>(n.inputs[i])] = true;
    }
  }
  std::vector<int> alias(graph.value_names.size());
  for (size_t v = 0; v < alias.size(); ++v)
    alias[v] = static_cast<int>(v);
  std::vector<Graph::Node> kept;
  size_t removed = 0;
  for (Graph::Node& n : graph.nodes) {
    const int out = n.outputs.empty() ? -1 : n.outputs[0];
    const int in = n.inputs.empty() ? -1 : n.inputs[0];
    const bool mask_read =
        n.outputs.size() > 1 && n.outputs[1] >= 0 && read[static_cast<size_t>(n.outputs[1])];
    if (PassesThrough(graph, n) && !mask_read && out >= 0 && in >= 0 &&
        !is_output[static_cast<size_t>(out)] &&
        graph.kinds[static_cast<size_t>(out)] == graph.kinds[static_cast<size_t>(in)]) {
      alias[static_cast<size_t>(out)] = alias[static_cast<size_t>(in)];
      ++removed;
      continue;
    }
    for (int& v : n.inputs) {
      if (v >= 0) v = alias[static_cast<size_t>(v)];
    }
    kept.push_back(std::move(n));
  }
  graph.nodes = std::move(kept);
  RenumberProducers(graph);
  return removed;
}

}  // namespace onnx_light::passes
