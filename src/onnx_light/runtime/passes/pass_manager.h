// Passes: rewrites of the session's graph, grouped by optimization level as ONNX Runtime
// groups its graph transformers. They work on the plan's graph (nodes with their kernels
// matched, values typed and numbered; plan.h) after the model was validated and before
// value lifetimes are decided, so a pass never hides an invalid model and every rewrite
// is checked by the same planner. Constant folding runs first (session.cc).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "onnx_light/core/status.h"
#include "onnx_light/runtime/session.h"

namespace onnx_light::passes {

using Plan = RuntimeSession::Plan;

struct GraphPass {
  const char* name;
  GraphOptimizationLevel level;  // runs at this level and above
  // Rewrites the plan's graph; returns how many nodes it removed.
  size_t (*apply)(Plan& plan);
};

// Every pass, in the order they run.
const std::vector<GraphPass>& AllGraphPasses();

// Runs the passes of `level` (and below); returns the nodes each removed, by pass name.
std::vector<std::pair<std::string, size_t>> RunGraphPasses(Plan& plan,
                                                           GraphOptimizationLevel level);

// Recomputes plan.producer from plan.nodes after nodes were removed.
void RenumberProducers(Plan& plan);

// Which nodes (1 = needed) the values `wanted` depend on, through any chain of nodes
// (subgraph reads are a node's implicit inputs).
std::vector<char> NeededNodes(const Plan& plan, const std::vector<int>& wanted);

// The passes (pass_<name>.cc).
size_t EliminateIdentities(Plan& plan);
size_t EliminateDeadNodes(Plan& plan);

}  // namespace onnx_light::passes
