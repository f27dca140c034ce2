// The two GELU forms exporters write out node by node become one onnx_light:Gelu (float32):
//   exact (BERT, PyTorch nn.GELU):  e = Erf(x / sqrt(2))           (or x * (1 / sqrt(2)))
//   tanh (GPT-2, T5 "gelu_new"):    e = Tanh(sqrt(2/pi) * (x + 0.044715 * x^3))
//                                   (x^3 as Pow(x, 3), or x * x * x)
// then y = 0.5 * x * (1 + e), with the products in any of the orders seen:
//   Mul(Mul(x, 1 + e), 0.5), Mul(Mul(x, 0.5), 1 + e), Mul(x, Mul(1 + e, 0.5)).
// Constants are float32 scalars, compared at float32 precision with a margin of 1e-6
// relative; every intermediate value is private to the pattern.
#include <cmath>

#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

class GeluMatcher {
 public:
  explicit GeluMatcher(const Graph& graph) : g_(graph), p_(graph) {}

  struct Match {
    int x = -1;
    bool tanh = false;
    std::vector<size_t> nodes;  // the last one is the final Mul
  };

  // The pattern around the Erf or Tanh node `center`, if it is all there.
  bool At(size_t center, Match* m) const {
    const Graph::Node& c = g_.nodes[center];
    m->tanh = IsOnnxOp(*c.proto, "Tanh");
    if ((!m->tanh && !IsOnnxOp(*c.proto, "Erf")) || c.inputs.size() != 1) return false;
    m->nodes = {center};
    if (!(m->tanh ? TanhInput(c.inputs[0], m) : ErfInput(c.inputs[0], m))) return false;
    // 1 + e
    size_t add;
    int k;
    if (!BinaryReader(p_.Out(center), "Add", &add, &k) || !Is(k, 1.0f)) return false;
    m->nodes.push_back(add);
    const int a = p_.Out(add);
    // The three orders of 0.5 * x * a.
    size_t mul1, mul2;
    int other;
    if (BinaryReader(a, "Mul", &mul1, &other)) {
      m->nodes.push_back(mul1);
      if (other == m->x) {  // Mul(x, a) then Mul(., 0.5)
        if (!BinaryReader(p_.Out(mul1), "Mul", &mul2, &k) || !Is(k, 0.5f)) return false;
        m->nodes.push_back(mul2);
        return true;
      }
      if (Is(other, 0.5f)) {  // Mul(a, 0.5) then Mul(x, .)
        if (!BinaryReader(p_.Out(mul1), "Mul", &mul2, &k) || k != m->x) return false;
        m->nodes.push_back(mul2);
        return true;
      }
      // Mul(Mul(x, 0.5), a): `other` is the half of x, read by this Mul only.
      size_t p;
      if (!p_.MadeBy(other, "Mul", &p)) return false;
      const Graph::Node& h = g_.nodes[p];
      if (!Binary(h) || !((h.inputs[0] == m->x && Is(h.inputs[1], 0.5f)) ||
                          (h.inputs[1] == m->x && Is(h.inputs[0], 0.5f)))) {
        return false;
      }
      m->nodes.insert(m->nodes.end() - 1, p);
      return true;
    }
    return false;
  }

 private:
  // e = Erf(d): d = Div(x, sqrt 2) or Mul(x, 1/sqrt 2).
  bool ErfInput(int d, Match* m) const {
    int x;
    size_t n;
    if (p_.MadeBy(d, "Div", &n) && Operands(n, &x, 1.41421356237f, /*divisor=*/true)) {
    } else if (!(p_.MadeBy(d, "Mul", &n) && Operands(n, &x, 0.70710678118f, false))) {
      return false;
    }
    m->x = x;
    m->nodes.push_back(n);
    return true;
  }

  // e = Tanh(t): t = Mul(Add(x, Mul(cube, 0.044715)), sqrt(2/pi)).
  bool TanhInput(int t, Match* m) const {
    size_t scale, add, mul, cube;
    int s;
    if (!p_.MadeBy(t, "Mul", &scale) || !Operands(scale, &s, 0.79788456080f, false)) return false;
    if (!p_.MadeBy(s, "Add", &add) || !Binary(g_.nodes[add])) return false;
    const Graph::Node& an = g_.nodes[add];
    for (int side = 0; side < 2; ++side) {
      const int x = an.inputs[static_cast<size_t>(side)];
      const int q = an.inputs[static_cast<size_t>(1 - side)];
      int c;
      if (!p_.MadeBy(q, "Mul", &mul) || !Operands(mul, &c, 0.044715f, false)) continue;
      if (!Cube(c, x, &cube)) continue;
      m->x = x;
      m->nodes.insert(m->nodes.end(), cube_nodes_.begin(), cube_nodes_.end());
      m->nodes.push_back(mul);
      m->nodes.push_back(add);
      m->nodes.push_back(scale);
      return true;
    }
    return false;
  }

  // c = x^3: Pow(x, 3), or Mul(x, Mul(x, x)) / Mul(Mul(x, x), x).
  bool Cube(int c, int x, size_t* node) const {
    cube_nodes_.clear();
    if (p_.MadeBy(c, "Pow", node)) {
      const Graph::Node& p = g_.nodes[*node];
      if (!Binary(p) || p.inputs[0] != x || !Is(p.inputs[1], 3.0f)) return false;
      cube_nodes_ = {*node};
      return true;
    }
    if (!p_.MadeBy(c, "Mul", node) || !Binary(g_.nodes[*node])) return false;
    const Graph::Node& outer = g_.nodes[*node];
    const int sq = outer.inputs[0] == x ? outer.inputs[1] : outer.inputs[0];
    if ((outer.inputs[0] != x && outer.inputs[1] != x) || sq == x) return false;
    size_t inner;
    if (!p_.MadeBy(sq, "Mul", &inner)) return false;
    const Graph::Node& in = g_.nodes[inner];
    if (!Binary(in) || in.inputs[0] != x || in.inputs[1] != x) return false;
    cube_nodes_ = {inner, *node};
    return true;
  }

  // Node n is Mul/Div of x and the constant k (for a Div, x / k only).
  bool Operands(size_t n, int* x, float k, bool divisor) const {
    const Graph::Node& nd = g_.nodes[n];
    if (!Binary(nd)) return false;
    if (Is(nd.inputs[1], k)) {
      *x = nd.inputs[0];
      return true;
    }
    if (!divisor && Is(nd.inputs[0], k)) {
      *x = nd.inputs[1];
      return true;
    }
    return false;
  }

  bool Binary(const Graph::Node& n) const {
    return n.inputs.size() == 2 && n.outputs.size() == 1 && n.outputs[0] >= 0 &&
           g_.value_types[static_cast<size_t>(n.outputs[0])] == DataType::kFloat;
  }
  // v's only reader is an `op` node with two inputs and a float32 output; *other is its
  // other input.
  bool BinaryReader(int v, const char* op, size_t* n, int* other) const {
    return p_.SingleReader(v, op, n, other) && Binary(g_.nodes[*n]);
  }
  // v is the float32 constant k (at float32 precision, within 1e-6 relative).
  bool Is(int v, float k) const { return p_.IsScalar(v, k, 1e-6f); }

  const Graph& g_;
  const Pattern p_;
  mutable std::vector<size_t> cube_nodes_;
};

}  // namespace

size_t FuseGelu(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "Erf") && !HasOnnxOp(graph, "Tanh")) return 0;
  const GeluMatcher match(graph);
  Fusions fusions(graph, ctx);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    GeluMatcher::Match m;
    if (!match.At(i, &m) || graph.value_types[static_cast<size_t>(m.x)] != DataType::kFloat ||
        !fusions.Free(m.nodes)) {
      continue;
    }
    // The Gelu takes the final Mul's place (x is computed before every node of the pattern).
    const size_t last = m.nodes.back();
    const std::vector<int> outputs = graph.nodes[last].outputs;
    onnx::NodeProto proto = NodeProtoOf(graph, graph.nodes[last].proto->name.get() + "_gelu",
                                        "onnx_light", "Gelu", {m.x}, outputs);
    proto.attribute.push_back(StringAttribute("approximate", m.tanh ? "tanh" : "none"));
    fusions.Replace(last, std::move(proto), {m.x}, outputs, m.nodes);
  }
  return fusions.Finish();
}

}  // namespace onnx_light::passes
