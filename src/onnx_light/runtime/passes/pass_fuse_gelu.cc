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
  explicit GeluMatcher(const Graph& graph)
      : g_(graph), readers_(ReaderCounts(graph)), consumers_(Consumers(graph)) {}

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
    if (!Only(Out(center), "Add", &add, &k) || !Is(k, 1.0f)) return false;
    m->nodes.push_back(add);
    const int a = Out(add);
    // The three orders of 0.5 * x * a.
    size_t mul1, mul2;
    int other;
    if (Only(a, "Mul", &mul1, &other)) {
      m->nodes.push_back(mul1);
      if (other == m->x) {  // Mul(x, a) then Mul(., 0.5)
        if (!Only(Out(mul1), "Mul", &mul2, &k) || !Is(k, 0.5f)) return false;
        m->nodes.push_back(mul2);
        return true;
      }
      if (Is(other, 0.5f)) {  // Mul(a, 0.5) then Mul(x, .)
        if (!Only(Out(mul1), "Mul", &mul2, &k) || k != m->x) return false;
        m->nodes.push_back(mul2);
        return true;
      }
      // Mul(Mul(x, 0.5), a): `other` is the half of x, read by this Mul only.
      const int p = Producer(other);
      if (p < 0 || !Private(other) || !IsOnnxOp(*g_.nodes[static_cast<size_t>(p)].proto, "Mul"))
        return false;
      const Graph::Node& h = g_.nodes[static_cast<size_t>(p)];
      if (!Binary(h) || !((h.inputs[0] == m->x && Is(h.inputs[1], 0.5f)) ||
                          (h.inputs[1] == m->x && Is(h.inputs[0], 0.5f)))) {
        return false;
      }
      m->nodes.insert(m->nodes.end() - 1, static_cast<size_t>(p));
      return true;
    }
    return false;
  }

 private:
  // e = Erf(d): d = Div(x, sqrt 2) or Mul(x, 1/sqrt 2).
  bool ErfInput(int d, Match* m) const {
    int x;
    size_t n;
    if (Made(d, "Div", &n) && Operands(n, &x, 1.41421356237f, /*divisor=*/true)) {
    } else if (!(Made(d, "Mul", &n) && Operands(n, &x, 0.70710678118f, false))) {
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
    if (!Made(t, "Mul", &scale) || !Operands(scale, &s, 0.79788456080f, false)) return false;
    if (!Made(s, "Add", &add) || !Binary(g_.nodes[add])) return false;
    const Graph::Node& an = g_.nodes[add];
    for (int side = 0; side < 2; ++side) {
      const int x = an.inputs[static_cast<size_t>(side)];
      const int q = an.inputs[static_cast<size_t>(1 - side)];
      int c;
      if (!Made(q, "Mul", &mul) || !Operands(mul, &c, 0.044715f, false)) continue;
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
    if (Made(c, "Pow", node)) {
      const Graph::Node& p = g_.nodes[*node];
      if (!Binary(p) || p.inputs[0] != x || !Is(p.inputs[1], 3.0f)) return false;
      cube_nodes_ = {*node};
      return true;
    }
    if (!Made(c, "Mul", node) || !Binary(g_.nodes[*node])) return false;
    const Graph::Node& outer = g_.nodes[*node];
    const int sq = outer.inputs[0] == x ? outer.inputs[1] : outer.inputs[0];
    if ((outer.inputs[0] != x && outer.inputs[1] != x) || sq == x) return false;
    size_t inner;
    if (!Made(sq, "Mul", &inner)) return false;
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

  // v is private and made by an `op` node; *n is that node.
  bool Made(int v, const char* op, size_t* n) const {
    const int p = Producer(v);
    if (p < 0 || !Private(v) || !IsOnnxOp(*g_.nodes[static_cast<size_t>(p)].proto, op))
      return false;
    *n = static_cast<size_t>(p);
    return true;
  }

  // v's only reader is an `op` node with two inputs; *other is its other input.
  bool Only(int v, const char* op, size_t* n, int* other) const {
    if (v < 0 || !Private(v) || consumers_[static_cast<size_t>(v)].size() != 1) return false;
    *n = consumers_[static_cast<size_t>(v)][0];
    const Graph::Node& nd = g_.nodes[*n];
    if (!IsOnnxOp(*nd.proto, op) || !Binary(nd) || nd.inputs[0] == nd.inputs[1]) return false;
    *other = nd.inputs[0] == v ? nd.inputs[1] : nd.inputs[0];
    return true;
  }

  bool Binary(const Graph::Node& n) const {
    return n.inputs.size() == 2 && n.outputs.size() == 1 && n.outputs[0] >= 0 &&
           g_.value_types[static_cast<size_t>(n.outputs[0])] == DataType::kFloat;
  }
  bool Is(int v, float k) const {
    float c;
    return ScalarConstant(g_, v, &c) && std::fabs(c - k) <= 1e-6f * std::fabs(k);
  }
  bool Private(int v) const { return readers_[static_cast<size_t>(v)] == 1; }
  int Producer(int v) const { return v < 0 ? -1 : g_.producer[static_cast<size_t>(v)]; }
  int Out(size_t n) const {
    const Graph::Node& nd = g_.nodes[n];
    return nd.outputs.size() == 1 ? nd.outputs[0] : -1;
  }

  const Graph& g_;
  std::vector<int> readers_;
  std::vector<std::vector<size_t>> consumers_;
  mutable std::vector<size_t> cube_nodes_;
};

}  // namespace

size_t FuseGelu(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "Erf") && !HasOnnxOp(graph, "Tanh")) return 0;
  const GeluMatcher match(graph);
  std::vector<char> removed(graph.nodes.size(), 0);
  size_t count = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    GeluMatcher::Match m;
    if (!match.At(i, &m) || graph.value_types[static_cast<size_t>(m.x)] != DataType::kFloat)
      continue;
    bool free = true;
    for (size_t n : m.nodes)
      free = free && !removed[n];
    if (!free) continue;
    // The Gelu takes the final Mul's place (x is computed before every node of the pattern).
    Graph::Node& last = graph.nodes[m.nodes.back()];
    onnx::NodeProto proto;
    proto.name.set(last.proto->name.get() + "_gelu");
    proto.domain.set("onnx_light");
    proto.op_type.set("Gelu");
    proto.input.push_back(graph.value_names[static_cast<size_t>(m.x)]);
    proto.output.push_back(graph.value_names[static_cast<size_t>(last.outputs[0])]);
    proto.attribute.push_back(StringAttribute("approximate", m.tanh ? "tanh" : "none"));
    if (!ReplaceNode(graph, ctx, last, std::move(proto), {m.x}).ok()) continue;
    for (size_t k = 0; k + 1 < m.nodes.size(); ++k)
      removed[m.nodes[k]] = 1;
    count += m.nodes.size() - 1;
  }
  if (count > 0) RemoveNodes(graph, removed);
  return count;
}

}  // namespace onnx_light::passes
