// A float32 MatMul whose A or B is a Transpose swapping only the last two axes, and a Mul
// of its product by a one-value constant, become one com.microsoft:FusedMatMul (transA /
// transB, alpha), as ONNX Runtime's MatMul-Transpose and MatMul-scale fusions do:
// attention written out, Q @ Transpose(K_all) * 1/sqrt(d), no longer copies the whole
// key cache into its transpose at every decoder step (the product reads it with strides).
// The Transpose (and the product, for the Mul) must be read by nothing else. The product
// and the scaling are the same floating-point operations as before.
#include <string>
#include <vector>

#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

// Node t is a Transpose whose perm swaps the last two of its axes and keeps the others.
bool SwapsLastTwo(const Graph::Node& t) {
  Result<std::vector<int64_t>> perm = t.info->GetInts("perm");
  if (!perm.ok() || perm->size() < 2) return false;
  const size_t r = perm->size();
  for (size_t i = 0; i + 2 < r; ++i)
    if ((*perm)[i] != static_cast<int64_t>(i)) return false;
  return (*perm)[r - 2] == static_cast<int64_t>(r - 1) &&
         (*perm)[r - 1] == static_cast<int64_t>(r - 2);
}

}  // namespace

size_t FuseMatMulTranspose(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "MatMul") || !HasOnnxOp(graph, "Transpose")) return 0;
  const Pattern p(graph);
  Fusions fusions(graph, ctx);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Graph::Node& mm = graph.nodes[i];
    if (!p.Is(i, "MatMul") || mm.inputs.size() != 2 || mm.inputs[0] == mm.inputs[1] ||
        !p.Float(mm.inputs[0]) || !p.Float(mm.inputs[1]) || p.Out(i) < 0) {
      continue;
    }
    std::vector<size_t> group = {i};
    std::vector<int> inputs = mm.inputs;
    bool trans[2] = {false, false};
    for (int s = 0; s < 2; ++s) {
      size_t t = 0;
      if (p.MadeBy(mm.inputs[static_cast<size_t>(s)], "Transpose", &t) &&
          graph.nodes[t].inputs.size() == 1 && SwapsLastTwo(graph.nodes[t])) {
        trans[s] = true;
        inputs[static_cast<size_t>(s)] = graph.nodes[t].inputs[0];
        group.push_back(t);
      }
    }
    if (!trans[0] && !trans[1]) continue;
    // Then a Mul by one constant value: alpha.
    float alpha = 1.0f;
    size_t at = i;
    int out = p.Out(i);
    size_t mul = 0;
    int other = -1;
    // (a constant of rank <= 1: one of higher rank could raise the product's rank)
    const Tensor* k = nullptr;
    if (p.SingleReader(out, "Mul", &mul, &other) && p.ScalarOperand(mul, out, &alpha) &&
        (k = ConstantOf(graph, other)) != nullptr && k->shape().rank() <= 1 && p.Out(mul) >= 0 &&
        p.Float(p.Out(mul))) {
      group.push_back(mul);
      at = mul;
      out = p.Out(mul);
    } else {
      alpha = 1.0f;
    }
    if (!fusions.Free(group)) continue;
    onnx::NodeProto proto =
        NodeProtoOf(graph, mm.proto->name.get(), "com.microsoft", "FusedMatMul", inputs, {out});
    proto.attribute.push_back(IntAttribute("transA", trans[0] ? 1 : 0));
    proto.attribute.push_back(IntAttribute("transB", trans[1] ? 1 : 0));
    proto.attribute.push_back(FloatAttribute("alpha", alpha));
    fusions.Replace(at, std::move(proto), inputs, {out}, group);
  }
  return fusions.Finish();
}

}  // namespace onnx_light::passes
