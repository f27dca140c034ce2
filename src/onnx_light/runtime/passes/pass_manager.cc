#include "pass_manager.h"

#include "../plan.h"

namespace onnx_light::passes {

const std::vector<GraphPass>& AllGraphPasses() {
  static const std::vector<GraphPass> passes = {
      {"eliminate_identities", GraphOptimizationLevel::kBasic, &EliminateIdentities},
      {"eliminate_dead_nodes", GraphOptimizationLevel::kBasic, &EliminateDeadNodes},
  };
  return passes;
}

std::vector<std::pair<std::string, size_t>> RunGraphPasses(Plan& plan,
                                                           GraphOptimizationLevel level) {
  std::vector<std::pair<std::string, size_t>> report;
  for (const GraphPass& pass : AllGraphPasses()) {
    if (static_cast<int>(level) < static_cast<int>(pass.level)) continue;
    report.emplace_back(pass.name, pass.apply(plan));
  }
  return report;
}

std::vector<char> NeededNodes(const Plan& plan, const std::vector<int>& wanted) {
  std::vector<char> needed(plan.nodes.size(), 0);
  std::vector<int> todo(wanted.begin(), wanted.end());
  while (!todo.empty()) {
    const int v = todo.back();
    todo.pop_back();
    const int p = plan.producer[static_cast<size_t>(v)];
    if (p < 0 || needed[static_cast<size_t>(p)]) continue;
    needed[static_cast<size_t>(p)] = 1;
    for (int in : plan.nodes[static_cast<size_t>(p)].inputs) {
      if (in >= 0) todo.push_back(in);
    }
  }
  return needed;
}

void RenumberProducers(Plan& plan) {
  for (int& p : plan.producer) {
    if (p >= 0) p = -1;
  }
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    for (int v : plan.nodes[i].outputs) {
      if (v >= 0) plan.producer[static_cast<size_t>(v)] = static_cast<int>(i);
    }
  }
}

}  // namespace onnx_light::passes
