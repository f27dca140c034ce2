// Nodes whose outputs no graph output depends on (through any chain of nodes, subgraph
// reads included: they are the node's implicit inputs) never run: they are removed.
#include <algorithm>

#include "../plan.h"
#include "pass_manager.h"

namespace onnx_light::passes {

size_t EliminateDeadNodes(Plan& plan, const PassContext&) {
  const std::vector<char> live = NeededNodes(plan, plan.output_values);
  if (std::find(live.begin(), live.end(), 0) == live.end()) return 0;  // all needed
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
