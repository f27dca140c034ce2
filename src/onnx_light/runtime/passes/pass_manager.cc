// The pass manager: every pass in the order it runs, by level, and the names
// SessionOptions::disabled_passes may give.
#include "pass_manager.h"

#include <algorithm>

namespace onnx_light::passes {

const std::vector<GraphPass>& AllGraphPasses() {
  static const std::vector<GraphPass> passes = {
      // First, before constant folding would turn the weights' DequantizeLinear nodes into
      // float constants and hide the QDQ groups (ORT's folding skips them for the same
      // reason).
      {"qdq_to_integer", GraphOptimizationLevel::kExtended, &QdqToInteger},
      // Before constant folding, which then widens the half weights it casts, once.
      {"half_in_float", GraphOptimizationLevel::kBasic, &HalfInFloat},
      {"constant_folding", GraphOptimizationLevel::kBasic, &FoldConstants},
      {"eliminate_identities", GraphOptimizationLevel::kBasic, &EliminateIdentities},
      {"sink_transposes", GraphOptimizationLevel::kBasic, &SinkTransposes},
      {"eliminate_dead_nodes", GraphOptimizationLevel::kBasic, &EliminateDeadNodes},
      {"fold_batch_norm_into_conv", GraphOptimizationLevel::kExtended, &FoldBatchNormIntoConv},
      {"fold_affine_into_conv", GraphOptimizationLevel::kExtended, &FoldAffineIntoConv},
      {"fuse_conv_activation", GraphOptimizationLevel::kExtended, &FuseConvActivation},
      {"fuse_conv_residual", GraphOptimizationLevel::kExtended, &FuseConvResidual},
      {"fuse_conv_affine", GraphOptimizationLevel::kExtended, &FuseConvAffine},
      {"fuse_layer_norm", GraphOptimizationLevel::kExtended, &FuseLayerNorm},
      {"fuse_matmul_integer_scale", GraphOptimizationLevel::kExtended, &FuseMatMulIntegerScale},
      {"fuse_matmul_transpose", GraphOptimizationLevel::kExtended, &FuseMatMulTranspose},
      {"fuse_gelu", GraphOptimizationLevel::kExtended, &FuseGelu},
      {"fuse_elementwise_chain", GraphOptimizationLevel::kExtended, &FuseElementwiseChain},
      {"nhwc_quantized", GraphOptimizationLevel::kAll, &NhwcQuantized},
      {"transpose_gemm_weights", GraphOptimizationLevel::kExtended, &TransposeGemmWeights},
      {"prepack_matmul_weights", GraphOptimizationLevel::kExtended, &PrepackMatMulWeights},
  };
  return passes;
}

std::vector<std::pair<const char*, size_t>> RunGraphPasses(Graph& graph,
                                                           GraphOptimizationLevel level,
                                                           const PassContext& ctx) {
  std::vector<std::pair<const char*, size_t>> report;
  report.reserve(AllGraphPasses().size());
  for (const GraphPass& pass : AllGraphPasses()) {
    if (static_cast<int>(level) < static_cast<int>(pass.level)) continue;
    if (PassDisabled(ctx, pass.name)) continue;
    report.emplace_back(pass.name, pass.apply(graph, ctx));
  }
  DropUnreadConstants(graph);
  return report;
}

bool PassDisabled(const PassContext& ctx, const char* name) {
  if (ctx.options == nullptr) return false;
  const std::vector<std::string>& disabled = ctx.options->disabled_passes;
  return std::find(disabled.begin(), disabled.end(), name) != disabled.end();
}

Status CheckPassNames(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    bool known = false;
    std::string all;
    for (const GraphPass& pass : AllGraphPasses()) {
      known = known || name == pass.name;
      all += (all.empty() ? "" : ", ") + std::string(pass.name);
    }
    if (!known) {
      return Status(StatusCode::kInvalidArgument,
                    "disabled_passes: no pass is named '" + name + "' (the passes: " + all + ")");
    }
  }
  return Status::Ok();
}

}  // namespace onnx_light::passes
