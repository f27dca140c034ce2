// Nodes whose outputs no graph output depends on (through any chain of nodes, subgraph
// reads included: they are the node's implicit inputs) never run: they are removed.
#include "../plan.h"
#include "pass_manager.h"

namespace onnx_light::passes {

size_t EliminateDeadNodes(Plan& plan) {
  std::vector<bool> live(plan.nodes.size(), false);
  std::vector<int> todo(plan.output_values.begin(), plan.output_values.end());
  while (!todo.empty()) {
    const int v = todo.back();
    todo.pop_back();
    const int p = plan.producer[static_cast<size_t>(v)];
    if (p < 0 || live[static_cast<size_t>(p)]) continue;
    live[static_cast<size_t>(p)] = true;
    for (int in : plan.nodes[static_cast<size_t>(p)].inputs) {
      if (in >= 0) todo.push_back(in);
    }
  }
  std::vector<Plan::Node> kept;
  size_t removed = 0;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    if (live[i]) {
      kept.push_back(std::move(plan.nodes[i]));
    } else {
      ++removed;
    }
  }
  plan.nodes = std::move(kept);
  RenumberProducers(plan);
  return removed;
}

}  // namespace onnx_light::passes
