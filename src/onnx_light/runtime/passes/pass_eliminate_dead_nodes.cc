// Nodes whose outputs no graph output depends on (through any chain of nodes, subgraph
// reads included: they are the node's implicit inputs) never run: they are removed.
#include <algorithm>

#include "../graph.h"
#include "pass_manager.h"

namespace onnx_light::passes {

size_t EliminateDeadNodes(Graph& graph, const PassContext&) {
  const std::vector<char> live = NeededNodes(graph, graph.output_values);
  if (std::find(live.begin(), live.end(), 0) == live.end()) return 0;  // all needed
  std::vector<Graph::Node> kept;
  size_t removed = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (live[i]) {
      kept.push_back(std::move(graph.nodes[i]));
    } else {
      ++removed;
    }
  }
  graph.nodes = std::move(kept);
  RenumberProducers(graph);
  return removed;
}

}  // namespace onnx_light::passes
