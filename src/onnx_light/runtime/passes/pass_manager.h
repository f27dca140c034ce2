// Passes: rewrites of the session's graph, grouped by optimization level as ONNX Runtime
// groups its graph transformers (basic: removals; extended: fusions). They work on the plan's graph
// (nodes with their kernels matched, values typed and numbered; plan.h) after the model was
// validated and before value lifetimes are decided, so a pass never hides an invalid model and
// every rewrite is checked by the same planner. Constant folding runs first (session.cc).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../plan.h"
#include "onnx_light/core/status.h"
#include "onnx_light/runtime/session.h"

namespace onnx_light::passes {

using Plan = RuntimeSession::Plan;

// What a pass may use besides the plan: the session's kernels (to match a node it makes)
// and the scope its kernels are created in.
struct PassContext {
  const KernelRegistry* registry = nullptr;
  const SubgraphScope* scope = nullptr;
};

struct GraphPass {
  const char* name;
  GraphOptimizationLevel level;  // runs at this level and above
  // Rewrites the plan's graph; returns how many nodes it removed.
  size_t (*apply)(Plan& plan, const PassContext& ctx);
};

// Every pass, in the order they run.
const std::vector<GraphPass>& AllGraphPasses();

// Runs the passes of `level` (and below); returns the nodes each removed, by pass name.
std::vector<std::pair<std::string, size_t>> RunGraphPasses(Plan& plan, GraphOptimizationLevel level,
                                                           const PassContext& ctx);

// Recomputes plan.producer from plan.nodes after nodes were removed.
void RenumberProducers(Plan& plan);

// Which nodes (1 = needed) the values `wanted` depend on, through any chain of nodes
// (subgraph reads are a node's implicit inputs).
std::vector<char> NeededNodes(const Plan& plan, const std::vector<int>& wanted);

// How many times each value is read: by nodes (subgraph reads included) and as a graph
// output (counted once more, so a graph output never looks private to one reader).
std::vector<int> ReaderCounts(const Plan& plan);

// Whether node n is the ai.onnx op `op`; whether the plan has one.
bool IsOnnxOp(const onnx::NodeProto& n, const char* op);
bool HasOnnxOp(const Plan& plan, const char* op);

// Drops the nodes marked in `removed` (by index) and renumbers producers.
void RemoveNodes(Plan& plan, const std::vector<char>& removed);

// A constant value made by a pass (a folded weight); returns its index.
int AddConstant(Plan& plan, const std::string& name, Tensor value);

// Gives node `n` a new definition: `proto` (kept in the plan), its inputs (value indices,
// -1 for absent) and outputs as they are, a kernel matched anew from the registry and a
// fresh kernel slot. Fails, changing nothing, when no kernel takes it.
Status ReplaceNode(Plan& plan, const PassContext& ctx, Plan::Node& n, onnx::NodeProto proto,
                   std::vector<int> inputs);

// The constant behind value v (an initializer, a Constant node or a folded value that no
// feed can replace), or null.
const Tensor* ConstantOf(const Plan& plan, int v);

// The output channels M of an ai.onnx Conv whose weights are a float32 constant of rank 3
// or more and whose bias, if any, is a float32 constant of M values; -1 otherwise.
int64_t FoldableConvChannels(const Plan& plan, const Plan::Node& conv);
// Folds a per-channel map into such a Conv (the weight and bias folds of BatchNormalization
// and of Mul/Add by constants): W'[c] = W[c] * scale[c] (scale empty: W as it is) and
// b'[c] = bias(c, b[c]) (b[c] = 0 without a bias); the Conv then produces `output`.
// Returns false, leaving the node as it was, when no kernel takes the rewritten node.
bool FoldIntoConv(Plan& plan, const PassContext& ctx, Plan::Node& conv, int output,
                  const std::vector<float>& scale,
                  const std::function<float(int64_t, float)>& bias);

// The passes (pass_<name>.cc).
size_t EliminateIdentities(Plan& plan, const PassContext& ctx);
size_t EliminateDeadNodes(Plan& plan, const PassContext& ctx);
size_t FoldBatchNormIntoConv(Plan& plan, const PassContext& ctx);
size_t FoldAffineIntoConv(Plan& plan, const PassContext& ctx);
size_t FuseConvActivation(Plan& plan, const PassContext& ctx);

}  // namespace onnx_light::passes
