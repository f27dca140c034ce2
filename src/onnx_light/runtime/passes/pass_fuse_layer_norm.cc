// The layer normalization exporters emit before LayerNormalization existed (opset < 17),
// over the last axis, becomes one onnx_light:LayerNormalization node:
//   m = ReduceMean(x, last axis); d = x - m; v = ReduceMean(d^2, last axis)
//   y = d / Sqrt(v + eps) [* gamma] [+ beta]
// d^2 as Pow(d, 2) or Mul(d, d); eps a constant scalar; gamma and beta 1-D constants.
// Every intermediate value must be private to the pattern (d is read by exactly its square
// and the Div), float32 throughout.
// The RMS form (T5, LLaMA) becomes one onnx_light:RMSNormalization node:
//   v = ReduceMean(x^2, last axis); s = Sqrt(v + eps)
//   y = x / s, or x * (1 / s), or x * Reciprocal(s)  [* gamma]
#include <algorithm>

#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

class LayerNormMatcher {
 public:
  explicit LayerNormMatcher(const Graph& graph) : g_(graph), p_(graph) {}

  struct Match {
    int x = -1, gamma = -1, beta = -1, output = -1;
    float epsilon = 0;
    bool rms = false;
    std::vector<size_t> nodes;  // the pattern's nodes, the first ReduceMean first
  };

  // The pattern starting at node `first` (a ReduceMean of x), if it is all there.
  bool At(size_t first, Match* m) const {
    const Graph::Node& mean = g_.nodes[first];
    if (!IsOnnxOp(*mean.proto, "ReduceMean") || mean.inputs.empty() || !p_.Float(mean.inputs[0]) ||
        !LastAxisKeepDims(mean)) {
      return false;
    }
    m->x = mean.inputs[0];
    m->nodes = {first};
    const int mu = p_.Out(first);
    // d = x - mu
    size_t sub;
    if (!p_.SingleReader(mu, &sub) || !IsOnnxOp(*g_.nodes[sub].proto, "Sub") ||
        g_.nodes[sub].inputs != std::vector<int>{m->x, mu}) {
      return false;
    }
    const int d = p_.Out(sub);
    // d's two reading nodes: its square (Mul(d, d) reads it twice) and the Div.
    if (d < 0) return false;
    std::vector<size_t> dr = p_.Consumers(d);
    dr.erase(std::unique(dr.begin(), dr.end()), dr.end());
    if (dr.size() != 2) return false;
    size_t sq = dr[0], div = dr[1];
    if (IsOnnxOp(*g_.nodes[sq].proto, "Div")) std::swap(sq, div);
    const int reads = IsOnnxOp(*g_.nodes[sq].proto, "Mul") ? 3 : 2;
    if (p_.Readers(d) != reads || !Square(sq, d) || !IsOnnxOp(*g_.nodes[div].proto, "Div") ||
        g_.nodes[div].inputs.size() != 2 || g_.nodes[div].inputs[0] != d) {
      return false;
    }
    // v = ReduceMean(d^2) over the same axis
    size_t var;
    if (!p_.SingleReader(p_.Out(sq), &var) || !IsOnnxOp(*g_.nodes[var].proto, "ReduceMean") ||
        !LastAxisKeepDims(g_.nodes[var])) {
      return false;
    }
    // s = Sqrt(v + eps)
    size_t add_eps, sqrt;
    if (!p_.SingleReader(p_.Out(var), &add_eps) || !IsOnnxOp(*g_.nodes[add_eps].proto, "Add") ||
        !p_.ScalarOperand(add_eps, p_.Out(var), &m->epsilon) ||
        !p_.SingleReader(p_.Out(add_eps), &sqrt) || !IsOnnxOp(*g_.nodes[sqrt].proto, "Sqrt") ||
        g_.nodes[div].inputs[1] != p_.Out(sqrt) || !p_.Private(p_.Out(sqrt))) {
      return false;
    }
    m->nodes.insert(m->nodes.end(), {sub, sq, var, add_eps, sqrt, div});
    m->output = p_.Out(div);
    // Optional affine: * gamma, then + beta.
    size_t next;
    if (p_.SingleReader(m->output, &next) && IsOnnxOp(*g_.nodes[next].proto, "Mul") &&
        p_.VectorOperand(next, m->output, &m->gamma)) {
      m->nodes.push_back(next);
      m->output = p_.Out(next);
      if (p_.SingleReader(m->output, &next) && IsOnnxOp(*g_.nodes[next].proto, "Add") &&
          p_.VectorOperand(next, m->output, &m->beta)) {
        m->nodes.push_back(next);
        m->output = p_.Out(next);
      }
    }
    return m->output >= 0;
  }

  // The RMS pattern at node `first` (a ReduceMean of x^2), if it is all there.
  bool RmsAt(size_t first, Match* m) const {
    const Graph::Node& mean = g_.nodes[first];
    if (!IsOnnxOp(*mean.proto, "ReduceMean") || mean.inputs.empty() || !p_.Float(mean.inputs[0]) ||
        !LastAxisKeepDims(mean) || !p_.Private(mean.inputs[0])) {
      return false;
    }
    const int sq_v = mean.inputs[0];
    const int sq = g_.producer[static_cast<size_t>(sq_v)];
    if (sq < 0) return false;
    const Graph::Node& sqn = g_.nodes[static_cast<size_t>(sq)];
    if (sqn.inputs.empty() || !Square(static_cast<size_t>(sq), sqn.inputs[0])) return false;
    m->x = sqn.inputs[0];
    m->rms = true;
    m->nodes = {first, static_cast<size_t>(sq)};
    size_t add_eps, sqrt, next;
    if (!p_.SingleReader(p_.Out(first), &add_eps) || !IsOnnxOp(*g_.nodes[add_eps].proto, "Add") ||
        !p_.ScalarOperand(add_eps, p_.Out(first), &m->epsilon) ||
        !p_.SingleReader(p_.Out(add_eps), &sqrt) || !IsOnnxOp(*g_.nodes[sqrt].proto, "Sqrt") ||
        !p_.SingleReader(p_.Out(sqrt), &next)) {
      return false;
    }
    m->nodes.insert(m->nodes.end(), {add_eps, sqrt, next});
    const Graph::Node& nn = g_.nodes[next];
    const int s = p_.Out(sqrt);
    if (IsOnnxOp(*nn.proto, "Div") && nn.inputs.size() == 2 && nn.inputs[1] == s &&
        nn.inputs[0] == m->x) {
      m->output = p_.Out(next);  // x / s
    } else {
      float one = 0;
      const bool reciprocal =
          (IsOnnxOp(*nn.proto, "Reciprocal") && nn.inputs.size() == 1) ||
          (IsOnnxOp(*nn.proto, "Div") && nn.inputs.size() == 2 && nn.inputs[1] == s &&
           ScalarConstant(g_, nn.inputs[0], &one) && one == 1.0f);
      size_t mul;
      if (!reciprocal || !p_.SingleReader(p_.Out(next), &mul) ||
          !IsOnnxOp(*g_.nodes[mul].proto, "Mul") || g_.nodes[mul].inputs.size() != 2 ||
          (g_.nodes[mul].inputs[0] != m->x && g_.nodes[mul].inputs[1] != m->x)) {
        return false;
      }
      m->nodes.push_back(mul);
      m->output = p_.Out(mul);
    }
    size_t scale;
    if (p_.SingleReader(m->output, &scale) && IsOnnxOp(*g_.nodes[scale].proto, "Mul") &&
        p_.VectorOperand(scale, m->output, &m->gamma)) {
      m->nodes.push_back(scale);
      m->output = p_.Out(scale);
    }
    return m->output >= 0;
  }

 private:
  // ReduceMean over the last axis only, keepdims on (axes as attribute or constant input).
  bool LastAxisKeepDims(const Graph::Node& n) const {
    std::vector<int64_t> axes;
    int64_t keepdims = 1;
    for (const onnx::AttributeProto& a : n.proto->attribute) {
      if (a.name.get() == "axes") axes.assign(a.ints.begin(), a.ints.end());
      if (a.name.get() == "keepdims") keepdims = a.i.get();
    }
    if (n.inputs.size() > 1 && n.inputs[1] >= 0) {
      const Tensor* t = ConstantOf(g_, n.inputs[1]);
      if (t == nullptr || t->dtype() != DataType::kInt64) return false;
      axes.assign(t->data<int64_t>(), t->data<int64_t>() + t->num_elements());
    }
    // Axis -1 is always the last; a positive axis needs the rank, which the graph does
    // not record: only -1 is taken.
    return keepdims == 1 && axes.size() == 1 && axes[0] == -1 && n.outputs.size() == 1;
  }
  // d^2: Pow(d, 2) or Mul(d, d).
  bool Square(size_t n, int d) const {
    const Graph::Node& node = g_.nodes[n];
    if (IsOnnxOp(*node.proto, "Mul")) return node.inputs == std::vector<int>{d, d};
    float e = 0;
    return IsOnnxOp(*node.proto, "Pow") && node.inputs.size() == 2 && node.inputs[0] == d &&
           ScalarConstant(g_, node.inputs[1], &e) && e == 2.0f;
  }
  const Graph& g_;
  const Pattern p_;
};

}  // namespace

size_t FuseLayerNorm(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "ReduceMean")) return 0;
  Fusions fusions(graph, ctx);
  const LayerNormMatcher match(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    LayerNormMatcher::Match m;
    if (fusions.Taken(i) || !(match.At(i, &m) || match.RmsAt(i, &m)) || !fusions.Free(m.nodes)) {
      continue;
    }
    std::vector<int> inputs = {m.x};
    if (m.gamma < 0) {  // no scale in the pattern: ones
      Result<Shape> shape = Shape::Create({1});
      Result<Tensor> ones = Tensor::Allocate(DataType::kFloat, *shape);
      if (!ones.ok()) continue;
      ones->mutable_data<float>()[0] = 1.0f;
      m.gamma = AddConstant(graph, graph.value_names[static_cast<size_t>(m.x)] + "_ln_scale",
                            std::move(*ones));
    }
    inputs.push_back(m.gamma);
    if (m.beta >= 0) inputs.push_back(m.beta);
    onnx::NodeProto proto =
        NodeProtoOf(graph, graph.nodes[i].proto->name.get(), "onnx_light",
                    m.rms ? "RMSNormalization" : "LayerNormalization", inputs, {m.output});
    proto.attribute.push_back(IntAttribute("axis", -1));
    proto.attribute.push_back(FloatAttribute("epsilon", m.epsilon));
    // The fused node takes the first ReduceMean's place: x is computed by then, and the
    // scale and shift are constants.
    fusions.Replace(i, std::move(proto), inputs, {m.output}, m.nodes);
  }
  return fusions.Finish();
}

}  // namespace onnx_light::passes
