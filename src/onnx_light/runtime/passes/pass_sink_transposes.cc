// Transposes sink through element-wise ops until they meet their inverse, and both go (the
// idea of ONNX Runtime's transpose optimizer, for the layout converters leave behind).
// A model converted from an NHWC framework wraps every Conv in Transpose(0,3,1,2) ...
// Transpose(0,2,3,1) with the bias, batch-norm arithmetic and activation in between, in
// NHWC; once the transposes are gone those ops meet the Conv and fold into it.
//
// A Transpose T (perm P) of x moves past its readers when each reader is
//   - a Transpose: it reads x with the composed perm, and goes when that is the identity;
//   - an element-wise op whose other inputs are constants (permuted here, after being
//     unsqueezed to T's rank) or Transposes with the same perm: it reads x (and their
//     inputs) and a new Transpose with perm P follows it.
// and moving it does not add Transposes: the readers that need one after them are no more
// than the Transposes that go. Repeated until nothing moves; each move takes a Transpose
// further down the (topological) node order, so it ends.
#include <algorithm>
#include <string>

#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

// Ops whose output element i depends on input element i only (broadcast aside), so they
// commute with a Transpose of all their tensor inputs. Clip's bounds are scalars.
bool ElementWise(const onnx::NodeProto& p) {
  if (!NormalizeDomain(p.domain.get()).empty()) return false;
  static const char* const kOps[] = {"Abs",         "Acos",      "Acosh",
                                     "Add",         "And",       "Asin",
                                     "Asinh",       "Atan",      "Atanh",
                                     "Cast",        "Ceil",      "Celu",
                                     "Clip",        "Cos",       "Cosh",
                                     "Div",         "Elu",       "Equal",
                                     "Erf",         "Exp",       "Floor",
                                     "Gelu",        "Greater",   "GreaterOrEqual",
                                     "HardSigmoid", "HardSwish", "IsInf",
                                     "IsNaN",       "LeakyRelu", "Less",
                                     "LessOrEqual", "Log",       "Max",
                                     "Min",         "Mish",      "Mod",
                                     "Mul",         "Neg",       "Not",
                                     "Or",          "Pow",       "PRelu",
                                     "Reciprocal",  "Relu",      "Round",
                                     "Selu",        "Sigmoid",   "Sign",
                                     "Sin",         "Sinh",      "Softplus",
                                     "Softsign",    "Sqrt",      "Sub",
                                     "Tan",         "Tanh",      "ThresholdedRelu",
                                     "Where",       "Xor"};
  const std::string& op = p.op_type.get();
  return std::any_of(std::begin(kOps), std::end(kOps), [&](const char* k) { return op == k; });
}

bool IsTranspose(const Graph::Node& n) {
  return IsOnnxOp(*n.proto, "Transpose") && n.inputs.size() == 1 && n.inputs[0] >= 0 &&
         n.outputs.size() == 1 && n.outputs[0] >= 0;
}

// The perm attribute (empty when absent: the reversal, whose rank is not known here).
// Empty too when it is no permutation of 0..n-1 (a repeated or out-of-range axis): such a
// Transpose is left in place, for its kernel to refuse, and never composed with another.
std::vector<int64_t> PermOf(const Graph::Node& n) {
  Result<std::vector<int64_t>> p = n.info->GetInts("perm");
  if (!p.ok()) return {};
  std::vector<bool> seen(p->size(), false);
  for (int64_t axis : *p) {
    if (axis < 0 || axis >= static_cast<int64_t>(p->size()) || seen[static_cast<size_t>(axis)]) {
      return {};
    }
    seen[static_cast<size_t>(axis)] = true;
  }
  return *p;
}

class Sinker {
 public:
  Sinker(Graph& graph, const PassContext& ctx) : g_(graph), ctx_(ctx) {}

  // Moves one Transpose; false when none can move.
  bool Step() {
    Index();
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (IsTranspose(g_.nodes[i]) && TrySink(i)) return true;
    }
    return false;
  }

 private:
  void Index() {
    readers_.assign(g_.value_names.size(), {});
    pinned_.assign(g_.value_names.size(), 0);
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Graph::Node& n = g_.nodes[i];
      for (size_t k = 0; k < n.inputs.size(); ++k) {
        const int v = n.inputs[k];
        if (v < 0) continue;
        std::vector<size_t>& r = readers_[static_cast<size_t>(v)];
        if (r.empty() || r.back() != i) r.push_back(i);
        if (k >= n.proto->input.size()) pinned_[static_cast<size_t>(v)] = 1;  // subgraph read
      }
    }
    for (int v : g_.output_values)
      pinned_[static_cast<size_t>(v)] = 1;
  }

  // For reader r of y = Transpose(x, perm): whether it is an element-wise op that can take
  // the Transpose after it; counts the Transposes its other inputs free.
  bool Sinkable(const Graph::Node& r, int y, const std::vector<int64_t>& perm,
                size_t* freed) const {
    if (!ElementWise(*r.proto) || r.outputs.size() != 1 || r.outputs[0] < 0 ||
        r.inputs.size() != r.proto->input.size() ||
        g_.kinds[static_cast<size_t>(r.outputs[0])] != ValueKind::kTensor) {
      return false;
    }
    const bool clip = IsOnnxOp(*r.proto, "Clip");
    for (size_t k = 0; k < r.inputs.size(); ++k) {
      const int v = r.inputs[k];
      if (v < 0 || v == y || (clip && k > 0)) continue;
      if (const Tensor* c = ConstantOf(g_, v)) {
        if (c->shape().rank() > perm.size() || c->dtype() == DataType::kString ||
            DataTypeBitWidth(c->dtype()) % 8 != 0) {
          return false;
        }
        continue;
      }
      const int p = g_.producer[static_cast<size_t>(v)];
      if (p < 0 || !IsTranspose(g_.nodes[static_cast<size_t>(p)]) ||
          PermOf(g_.nodes[static_cast<size_t>(p)]) != perm) {
        return false;
      }
      if (!pinned_[static_cast<size_t>(v)] && readers_[static_cast<size_t>(v)].size() == 1) {
        ++*freed;
      }
    }
    return true;
  }

  bool TrySink(size_t t) {
    const Graph::Node& tn = g_.nodes[t];
    const int x = tn.inputs[0], y = tn.outputs[0];
    const std::vector<int64_t> perm = PermOf(tn);
    std::vector<int64_t> inverse(perm.size(), -1);
    for (size_t i = 0; i < perm.size(); ++i) {
      if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(perm.size()) ||
          inverse[static_cast<size_t>(perm[i])] >= 0) {
        return false;
      }
      inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    }
    const std::vector<size_t> all = readers_[static_cast<size_t>(y)];
    if (perm.empty() || all.empty()) return false;
    // Transpose readers read x with the composed perm (and go when it is the identity),
    // unless the identity would have to produce a graph output; element-wise readers take
    // T after them only when every reader can and no Transpose is added.
    std::vector<size_t> readers;
    bool blocked = pinned_[static_cast<size_t>(y)];
    size_t freed = 1, added = 0;  // T itself goes
    for (size_t r : all) {
      const Graph::Node& rn = g_.nodes[r];
      if (IsTranspose(rn) && PermOf(rn).size() == perm.size()) {
        const bool cancels = Composed(perm, PermOf(rn)).empty();
        if (cancels && pinned_[static_cast<size_t>(rn.outputs[0])]) {
          blocked = true;
          continue;
        }
        readers.push_back(r);
        if (cancels) ++freed;
        continue;
      }
      if (!blocked && Sinkable(rn, y, perm, &freed)) {
        readers.push_back(r);
        ++added;
        continue;
      }
      blocked = true;
    }
    if (blocked || added > freed) {  // only the Transpose readers move; T stays
      readers.erase(std::remove_if(readers.begin(), readers.end(),
                                   [&](size_t r) { return !IsTranspose(g_.nodes[r]); }),
                    readers.end());
    }
    if (readers.empty()) return ProduceDirectly(t);
    // The rewrites: nodes after which a new Transpose goes, values read in place of others.
    // A reader whose rewrite fails (no kernel: not expected) stays as it was, and so does T.
    std::vector<std::pair<size_t, Graph::Node>> inserts;
    std::vector<int> alias(g_.value_names.size(), -1);
    const int opset = tn.info->opset();
    const onnx::NodeProto t_proto = *tn.proto;
    bool keep_t = readers.size() < all.size() || pinned_[static_cast<size_t>(y)];
    for (size_t r : readers) {
      Graph::Node& rn = g_.nodes[r];
      if (IsTranspose(rn)) {
        const std::vector<int64_t> c = Composed(perm, PermOf(rn));
        if (c.empty()) {
          alias[static_cast<size_t>(rn.outputs[0])] = x;
          continue;
        }
        onnx::NodeProto proto = *rn.proto;
        SetInput(&proto, 0, x);
        SetPerm(&proto, c);
        keep_t = keep_t || !ReplaceNode(g_, ctx_, rn, std::move(proto), {x}).ok();
        continue;
      }
      if (!SinkInto(rn, x, y, inverse, t_proto, opset, &inserts, r)) keep_t = true;
    }
    alias.resize(g_.value_names.size(), -1);  // the values made above alias nothing
    // Rebuild the node list: T goes (its readers now read x or their own inputs), each new
    // Transpose follows its op, readers of a cancelled pair read x.
    std::vector<Graph::Node> nodes;
    nodes.reserve(g_.nodes.size() + inserts.size());
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      Graph::Node& n = g_.nodes[i];
      if ((i == t && !keep_t) || (IsTranspose(n) && alias[static_cast<size_t>(n.outputs[0])] >= 0))
        continue;
      for (int& v : n.inputs) {
        if (v >= 0 && alias[static_cast<size_t>(v)] >= 0) v = alias[static_cast<size_t>(v)];
      }
      nodes.push_back(std::move(n));
      for (auto& [after, node] : inserts) {
        if (after == i) nodes.push_back(std::move(node));
      }
    }
    g_.nodes = std::move(nodes);
    RenumberProducers(g_);
    return true;
  }

  // T's one reader is its inverse, which makes a graph output o: the node that makes x
  // (x read by T only) makes o instead, and both Transposes go.
  bool ProduceDirectly(size_t t) {
    const Graph::Node& tn = g_.nodes[t];
    const int x = tn.inputs[0], y = tn.outputs[0];
    const std::vector<size_t>& ry = readers_[static_cast<size_t>(y)];
    const int p = g_.producer[static_cast<size_t>(x)];
    if (ry.size() != 1 || pinned_[static_cast<size_t>(y)] || p < 0 ||
        pinned_[static_cast<size_t>(x)] || readers_[static_cast<size_t>(x)].size() != 1) {
      return false;
    }
    const size_t r = ry[0];
    const Graph::Node& rn = g_.nodes[r];
    if (!IsTranspose(rn) || PermOf(rn).size() != PermOf(tn).size() ||
        !Composed(PermOf(tn), PermOf(rn)).empty() || rn.inputs[0] != y) {
      return false;
    }
    const int o = rn.outputs[0];
    Graph::Node& pn = g_.nodes[static_cast<size_t>(p)];
    if (pn.outputs.size() > pn.proto->output.size()) return false;
    onnx::NodeProto proto = *pn.proto;
    std::vector<int> outputs = pn.outputs;
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (outputs[k] != x) continue;
      outputs[k] = o;
      proto.output[k] = g_.value_names[static_cast<size_t>(o)];
    }
    const std::vector<int> old = pn.outputs;
    pn.outputs = outputs;
    if (!ReplaceNode(g_, ctx_, pn, std::move(proto), pn.inputs).ok()) {
      pn.outputs = old;
      return false;
    }
    std::vector<char> removed(g_.nodes.size(), 0);
    removed[t] = removed[r] = 1;
    RemoveNodes(g_, removed);
    return true;
  }

  // Reader rn of y = Transpose(x, P) reads x (constants permuted by `inverse`, other
  // Transposes' inputs) and produces a new value, which a new Transpose (a copy of t_proto)
  // turns into rn's old output; the new node is queued in `inserts` to follow node r.
  bool SinkInto(Graph::Node& rn, int x, int y, const std::vector<int64_t>& inverse,
                const onnx::NodeProto& t_proto, int opset,
                std::vector<std::pair<size_t, Graph::Node>>* inserts, size_t r) {
    std::vector<int> inputs = rn.inputs;
    onnx::NodeProto proto = *rn.proto;
    const bool clip = IsOnnxOp(proto, "Clip");
    for (size_t k = 0; k < inputs.size(); ++k) {
      int& v = inputs[k];
      if (v < 0 || (clip && k > 0)) continue;
      if (v == y) {
        v = x;
      } else if (ConstantOf(g_, v) != nullptr) {
        v = PermutedConstant(v, inverse, t_proto, opset);
        if (v < 0) return false;
      } else {
        v = g_.nodes[static_cast<size_t>(g_.producer[static_cast<size_t>(v)])].inputs[0];
      }
      SetInput(&proto, k, v);
    }
    const int z = rn.outputs[0];
    const int z2 = AddValue(g_, g_.value_names[static_cast<size_t>(z)] + "_untransposed",
                            g_.value_types[static_cast<size_t>(z)], ValueKind::kTensor);
    onnx::NodeProto tp = t_proto;
    tp.name.set(tp.name.get() + "_sunk");
    tp.input.clear();
    tp.input.push_back(g_.value_names[static_cast<size_t>(z2)]);
    tp.output.clear();
    tp.output.push_back(g_.value_names[static_cast<size_t>(z)]);
    Result<Graph::Node> moved = MakeNode(g_, ctx_, std::move(tp), {z2}, {z}, opset);
    if (!moved.ok()) return false;
    proto.output.clear();
    proto.output.push_back(g_.value_names[static_cast<size_t>(z2)]);
    rn.outputs = {z2};
    if (!ReplaceNode(g_, ctx_, rn, std::move(proto), inputs).ok()) {
      rn.outputs = {z};
      return false;
    }
    inserts->emplace_back(r, std::move(*moved));
    return true;
  }

  // Constant v unsqueezed to rank inverse.size() and transposed by `inverse` (so that
  // op(Transpose(x, P), c) == Transpose(op(x, c'), P)), computed by the Transpose kernel
  // itself; the new constant's index, or -1.
  int PermutedConstant(int v, const std::vector<int64_t>& inverse, const onnx::NodeProto& t_proto,
                       int opset) {
    const Tensor& c = *ConstantOf(g_, v);
    if (ctx_.options == nullptr) return -1;
    std::vector<int64_t> dims(inverse.size() - c.shape().rank(), 1);
    dims.insert(dims.end(), c.shape().dims().begin(), c.shape().dims().end());
    Result<Shape> shape = Shape::Create(dims);
    if (!shape.ok()) return -1;
    Result<Tensor> lifted = c.Reshaped(std::move(*shape));
    if (!lifted.ok()) return -1;
    const int out = AddValue(g_, g_.value_names[static_cast<size_t>(v)] + "_transposed", c.dtype(),
                             ValueKind::kTensor);
    onnx::NodeProto tp = t_proto;
    tp.input.clear();
    tp.input.push_back(g_.value_names[static_cast<size_t>(v)]);
    tp.output.clear();
    tp.output.push_back(g_.value_names[static_cast<size_t>(out)]);
    SetPerm(&tp, inverse);
    Result<Graph::Node> node = MakeNode(g_, ctx_, std::move(tp), {v}, {out}, opset);
    if (!node.ok()) return -1;
    const Value in{std::move(*lifted), nullptr};
    Result<std::vector<Value>> run = RunNodeOnce(*node, {&in}, *ctx_.options);
    if (!run.ok() || run->empty()) return -1;
    g_.constants[static_cast<size_t>(out)] = std::move((*run)[0]);
    return out;
  }

  // Transpose(Transpose(x, a), b) as one perm; empty when it is the identity.
  static std::vector<int64_t> Composed(const std::vector<int64_t>& a,
                                       const std::vector<int64_t>& b) {
    std::vector<int64_t> c(b.size());
    bool identity = true;
    for (size_t i = 0; i < b.size(); ++i) {
      c[i] = a[static_cast<size_t>(b[i])];
      identity = identity && c[i] == static_cast<int64_t>(i);
    }
    return identity ? std::vector<int64_t>() : c;
  }

  void SetInput(onnx::NodeProto* p, size_t k, int v) const {
    p->input[k] = g_.value_names[static_cast<size_t>(v)];
  }

  static void SetPerm(onnx::NodeProto* p, const std::vector<int64_t>& perm) {
    for (onnx::AttributeProto& a : p->attribute) {
      if (a.name.get() == "perm") a.ints = perm;
    }
  }

  Graph& g_;
  const PassContext& ctx_;
  std::vector<std::vector<size_t>> readers_;  // by value: reading nodes, each once
  std::vector<char> pinned_;                  // graph outputs and subgraph reads
};

}  // namespace

size_t SinkTransposes(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "Transpose")) return 0;
  const size_t before = graph.nodes.size();
  Sinker sinker(graph, ctx);
  for (size_t steps = 0; steps < 16 * before + 16 && sinker.Step(); ++steps) {
  }
  return before > graph.nodes.size() ? before - graph.nodes.size() : 0;
}

}  // namespace onnx_light::passes
