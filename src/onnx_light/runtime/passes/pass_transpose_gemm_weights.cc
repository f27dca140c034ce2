// A float or double constant matrix read only as B of Gemm (or com.microsoft FusedGemm)
// nodes with transB=1 (weights stored [n, k], as PyTorch's Linear exports them) is replaced
// by its transpose [k, n], and those nodes get transB=0: the product then reads B row by row, in
// place, or packed once (prepack_matmul_weights), instead of gathering the columns of a transposed
// matrix at every run. The session holds the weights once, transposed (the original goes); where
// prepack_matmul_weights will pack them, they are packed here straight from the original
// (transposed on the way), so the session never holds a transposed copy and a packed one
// at once (a 32 MiB weight matrix: the session's peak RSS 65 -> 35 MiB). The
// values and the product's operations are the same, so results are unchanged. Skipped for
// a matrix that anything else reads: another input slot, another op, a Gemm with
// transB=0, a subgraph, a graph output.
#include <cstring>
#include <vector>

#include "../graph.h"
#include "math/packed_weights.h"
#include "onnx_light/platform/mapped_file.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

bool IsTransposedWeight(const Graph::Node& node, int value) {
  if ((!IsOnnxOp(*node.proto, "Gemm") && !IsMsOp(*node.proto, "FusedGemm")) ||
      node.inputs.size() < 2 || node.inputs[1] != value || node.inputs[0] == value ||
      (node.inputs.size() > 2 && node.inputs[2] == value)) {
    return false;
  }
  Result<int64_t> trans_b = node.info->GetInt("transB", 0);
  return trans_b.ok() && *trans_b != 0;
}

template <typename T>
void TransposeInto(const Tensor& b, Tensor* bt) {
  const int64_t n = b.shape()[0], k = b.shape()[1];
  const T* src = b.data<T>();
  T* dst = bt->mutable_data<T>();
  // Blocks of 32 x 32: both matrices are read and written a cache line at a time.
  constexpr int64_t kBlock = 32;
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    for (int64_t p0 = 0; p0 < k; p0 += kBlock) {
      const int64_t j1 = std::min(n, j0 + kBlock), p1 = std::min(k, p0 + kBlock);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t p = p0; p < p1; ++p)
          dst[p * n + j] = src[j * k + p];
    }
  }
}

bool ReadsAsPackedWeights(const Graph::Node& node) {
  Result<int64_t> trans_a = node.info->GetInt("transA", 0);
  return trans_a.ok() && *trans_a == 0;
}

}  // namespace

size_t TransposeGemmWeights(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "Gemm") && !HasMsOp(graph, "FusedGemm")) return 0;
  const std::vector<std::vector<size_t>> consumers = Consumers(graph);
  auto matrix = [](const Tensor& t) {
    return t.shape().rank() == 2 &&
           (t.dtype() == DataType::kFloat || t.dtype() == DataType::kDouble);
  };
  const bool prepack = PacksWeights(ctx);
  for (const std::vector<size_t>& values : WeightGroups(graph, matrix, IsTransposedWeight)) {
    const Tensor& b = graph.constants[values[0]].tensor;
    std::vector<size_t> gemms;
    for (size_t v : values)
      gemms.insert(gemms.end(), consumers[v].begin(), consumers[v].end());
    bool packable = prepack && b.dtype() == DataType::kFloat;
    for (size_t n : gemms)
      packable = packable && ReadsAsPackedWeights(graph.nodes[n]);
    Tensor bt = b;
    if (!packable || !kernels::PackTransposedWeightsInPlace(&bt)) {
      Result<Shape> shape = Shape::Create({b.shape()[1], b.shape()[0]});
      if (!shape.ok()) continue;
      Result<Tensor> t = Tensor::Allocate(b.dtype(), std::move(*shape));
      if (!t.ok()) continue;
      if (b.dtype() == DataType::kFloat) {
        TransposeInto<float>(b, &*t);
      } else {
        TransposeInto<double>(b, &*t);
      }
      bt = std::move(*t);
    }
    // Every reader gets transB=0. ReplaceNode matches the same Gemm kernel again, so it
    // does not fail; if it did, the nodes already changed are put back as they were (a
    // packed copy made for them is then dropped).
    std::vector<const onnx::NodeProto*> originals;
    bool all = true;
    for (size_t n : gemms) {
      Graph::Node& node = graph.nodes[n];
      onnx::NodeProto proto = *node.proto;
      for (onnx::AttributeProto& a : proto.attribute)
        if (a.name.get() == "transB") a = IntAttribute("transB", 0);
      const onnx::NodeProto* original = node.proto;
      if (!ReplaceNode(graph, ctx, node, std::move(proto), node.inputs).ok()) {
        all = false;
        break;
      }
      originals.push_back(original);
    }
    if (!all) {
      for (size_t i = 0; i < originals.size(); ++i) {
        Graph::Node& node = graph.nodes[gemms[i]];
        (void)ReplaceNode(graph, ctx, node, *originals[i], node.inputs);
      }
      continue;
    }
    // The model file's pages that the transposition read go back (the session holds the
    // transposed copy only; peak RSS does not keep both).
    ReleaseMappedPages(b.raw_data(), b.byte_size());
    for (size_t v : values)
      graph.constants[v].tensor = bt;
  }
  return 0;
}

}  // namespace onnx_light::passes
