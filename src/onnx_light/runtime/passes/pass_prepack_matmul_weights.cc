// A float32 constant matrix read only as the weights (B) of MatMul nodes (or of Gemm and
// com.microsoft FusedGemm nodes without transA and transB: transpose_gemm_weights makes most of
// them so; or of com.microsoft Attention's projection) is replaced by its packed form
// (kernels/math/packed_weights.h), on the CPUs where the packed product runs: the session then
// holds the weights once, packed, whether they were an initializer read in place from the mapped
// file, a misaligned one copied out of it, or a folded value (dequantized int8 weights). Skipped
// when the session writes its optimized model (optimized_model_path needs the weights as they are),
// and for a matrix that anything else reads: another input slot, another op, a subgraph, a graph
// output.
#include <algorithm>
#include <vector>

#include "../graph.h"
#include "math/packed_weights.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

// Node reads `value` as its B, row-major: MatMul, or Gemm (or FusedGemm) without transA and
// transB (the packed product reads A row-major too).
bool ReadsAsWeights(const Graph::Node& node, int value) {
  if (node.inputs.size() < 2 || node.inputs[1] != value || node.inputs[0] == value) return false;
  if (IsOnnxOp(*node.proto, "MatMul")) return node.inputs.size() == 2;
  // com.microsoft Attention's projection weights [D_in, D_q + D_k + D_v], read by no other
  // of its inputs.
  if (IsMsOp(*node.proto, "Attention")) {
    return std::count(node.inputs.begin(), node.inputs.end(), value) == 1;
  }
  if ((!IsOnnxOp(*node.proto, "Gemm") && !IsMsOp(*node.proto, "FusedGemm")) ||
      (node.inputs.size() > 2 && node.inputs[2] == value))
    return false;
  Result<int64_t> trans_a = node.info->GetInt("transA", 0);
  Result<int64_t> trans_b = node.info->GetInt("transB", 0);
  return trans_a.ok() && trans_b.ok() && *trans_a == 0 && *trans_b == 0;
}

}  // namespace

bool PacksWeights(const PassContext& ctx) {
  return !PassDisabled(ctx, "prepack_matmul_weights") &&
         (ctx.options == nullptr || ctx.options->optimized_model_path.empty());
}

size_t PrepackMatMulWeights(Graph& graph, const PassContext& ctx) {
  if ((!HasOnnxOp(graph, "MatMul") && !HasOnnxOp(graph, "Gemm") && !HasMsOp(graph, "FusedGemm") &&
       !HasMsOp(graph, "Attention")) ||
      !PacksWeights(ctx)) {
    return 0;
  }
  auto any = [](const Tensor&) { return true; };
  for (const std::vector<size_t>& values : WeightGroups(graph, any, ReadsAsWeights)) {
    Tensor packed = graph.constants[values[0]].tensor;
    if (!kernels::PackWeightsInPlace(&packed)) continue;
    for (size_t v : values)
      graph.constants[v].tensor = packed;
  }
  return 0;
}

}  // namespace onnx_light::passes
