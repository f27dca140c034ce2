// Passes: rewrites of the session's graph, grouped by optimization level as ONNX Runtime
// groups its graph transformers (basic: constant folding and removals; extended: fusions).
// They work on the runtime graph (graph.h: nodes with their kernels matched, values typed
// and numbered) after the model was validated and before the plan decides kernels and
// lifetimes, so a pass never hides an invalid model and every rewritten node is matched
// again. Constant folding runs first. One pass per file, pass_<name>.cc; what passes share
// is in pattern.h (reading the graph), rewrite.h (changing it) and conv_fold.h.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "../graph.h"
#include "onnx_light/core/status.h"
#include "onnx_light/runtime/session_options.h"
#include "pattern.h"
#include "rewrite.h"

namespace onnx_light::passes {

struct GraphPass {
  const char* name;
  GraphOptimizationLevel level;  // runs at this level and above
  // Rewrites the graph; returns how many nodes it removed.
  size_t (*apply)(Graph& graph, const PassContext& ctx);
};

// Every pass, in the order they run.
const std::vector<GraphPass>& AllGraphPasses();

// Runs the passes of `level` (and below), then drops the constants nothing reads any more;
// returns the nodes each pass removed, by pass name.
std::vector<std::pair<const char*, size_t>> RunGraphPasses(Graph& graph,
                                                           GraphOptimizationLevel level,
                                                           const PassContext& ctx);

// Whether SessionOptions::disabled_passes names the pass.
bool PassDisabled(const PassContext& ctx, const char* name);
// Whether prepack_matmul_weights packs constant weights in this session: not disabled by
// name, and no optimized model written (that needs the weights as they are). Another pass
// may pack for it (transpose_gemm_weights, straight from a transposed original).
bool PacksWeights(const PassContext& ctx);

// An error naming the first of `names` that is no pass (SessionOptions::disabled_passes).
Status CheckPassNames(const std::vector<std::string>& names);

// The passes (pass_<name>.cc), in the order they run.
size_t QdqToInteger(Graph& graph, const PassContext& ctx);
size_t HalfInFloat(Graph& graph, const PassContext& ctx);
size_t FoldConstants(Graph& graph, const PassContext& ctx);
size_t EliminateIdentities(Graph& graph, const PassContext& ctx);
size_t SinkTransposes(Graph& graph, const PassContext& ctx);
size_t EliminateDeadNodes(Graph& graph, const PassContext& ctx);
size_t FoldBatchNormIntoConv(Graph& graph, const PassContext& ctx);
size_t FoldAffineIntoConv(Graph& graph, const PassContext& ctx);
size_t FuseConvActivation(Graph& graph, const PassContext& ctx);
size_t FuseConvResidual(Graph& graph, const PassContext& ctx);
size_t FuseConvAffine(Graph& graph, const PassContext& ctx);
size_t FuseLayerNorm(Graph& graph, const PassContext& ctx);
size_t FuseMatMulIntegerScale(Graph& graph, const PassContext& ctx);
size_t FuseMatMulTranspose(Graph& graph, const PassContext& ctx);
size_t FuseGelu(Graph& graph, const PassContext& ctx);
size_t FuseElementwiseChain(Graph& graph, const PassContext& ctx);
size_t NhwcQuantized(Graph& graph, const PassContext& ctx);
size_t TransposeGemmWeights(Graph& graph, const PassContext& ctx);
size_t PrepackMatMulWeights(Graph& graph, const PassContext& ctx);

}  // namespace onnx_light::passes
