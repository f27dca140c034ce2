// The tail that dynamic quantization (onnxruntime.quantization.quantize_dynamic) puts after
// every MatMulInteger, scaling the int32 products back to float32:
//   p = MatMulInteger(A, B, a_zp, b_zp); f = Cast(p, to=FLOAT); y = Mul(f, s)
// becomes one onnx_light:MatMulIntegerToFloat(A, B, a_zp, b_zp, s) that writes y directly
// (ONNX Runtime's MatMulIntegerToFloat does the same). B must be a constant matrix (the
// weights, so y has rank >= 1) and s one value or one per column of B, known from its
// form: a constant of rank <= 1, or a Mul of such constants and DynamicQuantizeLinear
// scales (scalars by definition). p and f must be private to the pattern.
#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

class Matcher {
 public:
  explicit Matcher(const Graph& graph) : g_(graph), p_(graph) {}

  // The Cast and Mul after MatMulInteger node i, and the scale s; false if not there.
  bool At(size_t i, size_t* cast, size_t* mul, int* scale) const {
    const Graph::Node& mm = g_.nodes[i];
    if (!IsOnnxOp(*mm.proto, "MatMulInteger") || mm.inputs.size() < 2 || mm.outputs.size() != 1 ||
        mm.outputs[0] < 0) {
      return false;
    }
    const Tensor* b = ConstantOf(g_, mm.inputs[1]);
    if (b == nullptr || b->shape().rank() != 2) return false;
    const int64_t n = b->shape()[1];
    int c = -1;
    if (!Next(mm.outputs[0], "Cast", cast, &c)) return false;
    const Graph::Node& cn = g_.nodes[*cast];
    if (g_.value_types[static_cast<size_t>(c)] != DataType::kFloat) return false;
    int y = -1;
    if (!Next(c, "Mul", mul, &y) || cn.inputs.size() != 1) return false;
    const Graph::Node& mn = g_.nodes[*mul];
    if (mn.inputs.size() != 2 || mn.inputs[0] == mn.inputs[1]) return false;
    *scale = mn.inputs[0] == c ? mn.inputs[1] : mn.inputs[0];
    return g_.value_types[static_cast<size_t>(*scale)] == DataType::kFloat &&
           ScaleLike(*scale, n, 2);
  }

 private:
  // The one node reading v, if it is `op` with one output (its value in *out).
  bool Next(int v, const char* op, size_t* node, int* out) const {
    if (!p_.SingleReader(v, node) || !p_.Is(*node, op)) return false;
    *out = p_.Out(*node);
    return *out >= 0;
  }

  // Whether v is one value or one per column (n), of rank <= 1, by its form.
  bool ScaleLike(int v, int64_t n, int depth) const {
    if (const Tensor* t = ConstantOf(g_, v)) {
      return t->shape().rank() <= 1 && (t->num_elements() == 1 || t->num_elements() == n);
    }
    const int p = g_.producer[static_cast<size_t>(v)];
    if (p < 0) return false;
    const Graph::Node& pn = g_.nodes[static_cast<size_t>(p)];
    if (IsOnnxOp(*pn.proto, "DynamicQuantizeLinear")) {
      return pn.outputs.size() > 1 && pn.outputs[1] == v;  // y_scale: a scalar
    }
    if (depth == 0 || !IsOnnxOp(*pn.proto, "Mul") || pn.inputs.size() != 2) return false;
    // A product of two such values is one too, unless both are per-column (then it is
    // still [N]); rank stays <= 1 either way.
    return ScaleLike(pn.inputs[0], n, depth - 1) && ScaleLike(pn.inputs[1], n, depth - 1);
  }

  const Graph& g_;
  const Pattern p_;
};

}  // namespace

size_t FuseMatMulIntegerScale(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "MatMulInteger")) return 0;
  const Matcher match(graph);
  Fusions fusions(graph, ctx);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    size_t cast = 0, mul = 0;
    int scale = -1;
    if (!match.At(i, &cast, &mul, &scale) || !fusions.Free({i, cast, mul})) continue;
    // The fused node takes the Mul's place, where the scale and MatMulInteger's inputs
    // are all computed.
    const Graph::Node& mm = graph.nodes[i];
    std::vector<int> inputs = mm.inputs;
    inputs.resize(4, -1);
    inputs.push_back(scale);
    const std::vector<int> outputs = graph.nodes[mul].outputs;
    onnx::NodeProto proto = NodeProtoOf(graph, mm.proto->name.get(), "onnx_light",
                                        "MatMulIntegerToFloat", inputs, outputs);
    proto.attribute = mm.proto->attribute;
    fusions.Replace(mul, std::move(proto), inputs, outputs, {i, cast, mul});
  }
  return fusions.Finish();
}

}  // namespace onnx_light::passes
