// Constant folding (basic level and above, unless SessionOptions::constant_folding is off):
// a node whose inputs are all constants (initializers that no graph input overrides,
// Constant nodes, nodes folded before it) runs once now and its outputs become constants,
// as ONNX Runtime's constant folding does. Control-flow nodes are never folded, and a node
// whose kernel fails on its constant inputs is left in place, to fail at run time with
// its usual error. Returns the nodes folded.
#include <algorithm>

#include "pass_manager.h"

namespace onnx_light::passes {

size_t FoldConstants(Graph& graph, const PassContext& pass) {
  const SessionOptions& options = *pass.options;
  if (!options.constant_folding) return 0;
  size_t folded = 0;
  std::vector<bool> fixed(graph.value_names.size(), false);
  for (size_t v = 0; v < fixed.size(); ++v)
    fixed[v] = graph.producer[v] < 0 && graph.constants[v].tensor.is_defined();
  for (int v : graph.input_values)
    fixed[static_cast<size_t>(v)] = false;  // a feed may replace its initializer
  if (std::find(fixed.begin(), fixed.end(), true) == fixed.end()) return 0;  // no constants
  // Readers left per value: a folded intermediate that no later node and no graph output
  // reads is released as soon as its last reader folds (dequantized weights: the Cast's
  // float copy goes once the Mul by the scale has its own), so folding's peak memory stays
  // near the largest step, not the sum of all of them.
  std::vector<int> readers = ReaderCounts(graph);
  std::vector<bool> made(graph.value_names.size(), false);  // produced by folding here
  std::vector<Graph::Node> kept;
  kept.reserve(graph.nodes.size());
  for (Graph::Node& node : graph.nodes) {
    bool foldable = !node.inputs.empty() && node.def->sequence_inputs.empty() &&
                    node.def->sequence_outputs.empty() && node.def->optional_inputs.empty() &&
                    node.def->optional_outputs.empty() && node.def->map_inputs.empty() &&
                    node.def->map_sequence_outputs.empty();
    for (int v : node.inputs)
      foldable = foldable && (v < 0 || fixed[static_cast<size_t>(v)]);
    foldable = foldable && !HasSubgraph(*node.proto);  // control flow stays
    if (foldable) {
      std::vector<const Value*> in;
      for (int v : node.inputs)
        in.push_back(v >= 0 ? &graph.constants[static_cast<size_t>(v)] : nullptr);
      Result<std::vector<Value>> run = RunNodeOnce(node, in, options);
      if (run.ok()) {
        std::vector<Value>& out = *run;
        bool ok = true;
        for (size_t o = 0; ok && o < node.outputs.size(); ++o) {
          const int v = node.outputs[o];
          ok = v < 0 || (!out[o].is_container() &&
                         out[o].tensor.dtype() == graph.value_types[static_cast<size_t>(v)]);
        }
        if (ok) {
          for (size_t o = 0; o < node.outputs.size(); ++o) {
            const int v = node.outputs[o];
            if (v < 0) continue;
            graph.constants[static_cast<size_t>(v)] = std::move(out[o]);
            graph.producer[static_cast<size_t>(v)] = -1;
            fixed[static_cast<size_t>(v)] = true;
            made[static_cast<size_t>(v)] = true;
          }
          for (int v : node.inputs) {
            if (v >= 0 && --readers[static_cast<size_t>(v)] == 0 && made[static_cast<size_t>(v)]) {
              graph.constants[static_cast<size_t>(v)] = Value();
            }
          }
          ++folded;
          continue;
        }
      }
    }
    kept.push_back(std::move(node));
  }
  graph.nodes = std::move(kept);
  RenumberProducers(graph);  // producers are positions in graph.nodes
  return folded;
}

}  // namespace onnx_light::passes
