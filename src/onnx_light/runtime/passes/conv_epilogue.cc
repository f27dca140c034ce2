// Matching a Conv's activation or residual epilogue (conv_epilogue.h).
#include "conv_epilogue.h"

#include <cmath>
#include <limits>

#include "onnx_light/runtime/kernel.h"
#include "pattern.h"
#include "rewrite.h"

namespace onnx_light::passes {

class ConvEpilogueMatcher::Impl {
 public:
  explicit Impl(const Graph& graph) : plan_(graph), p_(graph) {}

  // The activation after value x (a Conv's output), if the pattern is there and every
  // intermediate value is private to it.
  bool Match(int x, ConvEpilogue* f) const {
    const std::vector<size_t>& next = p_.Consumers(x);
    if (p_.Readers(x) == 1 && next.size() == 1) {
      return Single(next[0], f);
    }
    if (p_.Readers(x) == 2 && next.size() == 2) {
      return HardSwishChain(x, f) || SiluPair(x, f);
    }
    return false;
  }

  // A residual Add after value x (a Conv's output): x's only reader is Add(x, z) with z
  // another float32 value; then the activation after the Add, if one matches. f->absorbed
  // starts with the Add; f->output is what the fused node produces.
  bool Residual(int x, int* z, ConvEpilogue* f) const {
    const std::vector<size_t>& next = p_.Consumers(x);
    if (p_.Readers(x) != 1 || next.size() != 1) return false;
    const size_t add = next[0];
    const Graph::Node& a = node(add);
    if (!IsOnnxOp(*a.proto, "Add") || a.inputs.size() != 2 || a.inputs[0] == a.inputs[1] ||
        !p_.OneOutput(add)) {
      return false;
    }
    *z = a.inputs[0] == x ? a.inputs[1] : a.inputs[0];
    if (plan_.value_types[static_cast<size_t>(*z)] != DataType::kFloat ||
        plan_.kinds[static_cast<size_t>(*z)] != ValueKind::kTensor) {
      return false;
    }
    const int sum = out0(add);
    if (!Match(sum, f)) {
      *f = ConvEpilogue{};
      f->output = sum;
    }
    f->absorbed.insert(f->absorbed.begin(), add);
    return true;
  }

 private:
  const Graph::Node& node(size_t i) const { return plan_.nodes[i]; }
  int out0(size_t i) const { return node(i).outputs.empty() ? -1 : node(i).outputs[0]; }

  bool ClipBounds(size_t i, float* lo, float* hi) const {
    const Graph::Node& n = node(i);
    *lo = std::numeric_limits<float>::lowest();
    *hi = std::numeric_limits<float>::max();
    if (n.info->opset() < 11) {
      Result<float> a = n.info->GetFloat("min", *lo);
      Result<float> b = n.info->GetFloat("max", *hi);
      if (!a.ok() || !b.ok()) return false;
      *lo = *a;
      *hi = *b;
      return true;
    }
    if (n.inputs.size() > 1 && n.inputs[1] >= 0 && !ScalarConstant(plan_, n.inputs[1], lo))
      return false;
    if (n.inputs.size() > 2 && n.inputs[2] >= 0 && !ScalarConstant(plan_, n.inputs[2], hi))
      return false;
    return true;
  }

  bool Single(size_t i, ConvEpilogue* f) const {
    const Graph::Node& n = node(i);
    if (!p_.OneOutput(i)) return false;
    const onnx::NodeProto& p = *n.proto;
    f->absorbed = {i};
    f->output = out0(i);
    if (IsOnnxOp(p, "Relu") || IsOnnxOp(p, "Sigmoid") || IsOnnxOp(p, "Tanh") ||
        IsOnnxOp(p, "HardSwish")) {
      f->activation = p.op_type.get();
      return true;
    }
    if (IsOnnxOp(p, "LeakyRelu")) {
      Result<float> alpha = n.info->GetFloat("alpha", 0.01f);
      if (!alpha.ok()) return false;
      f->activation = "LeakyRelu";
      f->params = {*alpha};
      return true;
    }
    if (IsOnnxOp(p, "HardSigmoid")) {
      Result<float> alpha = n.info->GetFloat("alpha", 0.2f);
      Result<float> beta = n.info->GetFloat("beta", 0.5f);
      if (!alpha.ok() || !beta.ok()) return false;
      f->activation = "HardSigmoid";
      f->params = {*alpha, *beta};
      return true;
    }
    if (IsOnnxOp(p, "Clip")) {
      float lo, hi;
      if (!ClipBounds(i, &lo, &hi)) return false;
      if (lo == 0.0f && hi == std::numeric_limits<float>::max()) {
        f->activation = "Relu";
      } else {
        f->activation = "Clip";
        f->params = {lo, hi};
      }
      return true;
    }
    return false;
  }

  // Of x's two readers, the one that is `op` (and the other one).
  bool Split(int x, const char* op, size_t* a, size_t* other) const {
    const std::vector<size_t>& c = p_.Consumers(x);
    if (c[0] == c[1]) return false;  // one node reading x twice
    for (int k = 0; k < 2; ++k) {
      if (IsOnnxOp(*node(c[k]).proto, op)) {
        *a = c[k];
        *other = c[1 - k];
        return true;
      }
    }
    return false;
  }
  // The reader of private value v, when it is `op` with v among its two inputs; *other is
  // the input that is not v.
  bool Next(int v, const char* op, size_t* i, int* other) const {
    if (!p_.Private(v) || p_.Consumers(v).size() != 1) return false;
    *i = p_.Consumers(v)[0];
    const Graph::Node& n = node(*i);
    if (!IsOnnxOp(*n.proto, op) || n.inputs.size() != 2 || !p_.OneOutput(*i)) return false;
    *other = n.inputs[0] == v ? n.inputs[1] : n.inputs[0];
    return n.inputs[0] == v || n.inputs[1] == v;
  }

  // x -> Add(x, 3) -> Clip(0, 6) -> Mul(x, .) -> Div(., 6) or Mul(., 1/6)
  bool HardSwishChain(int x, ConvEpilogue* f) const {
    size_t add, mul;
    if (!Split(x, "Add", &add, &mul) || !IsOnnxOp(*node(mul).proto, "Mul")) return false;
    const Graph::Node& a = node(add);
    float three;
    if (a.inputs.size() != 2 || !p_.OneOutput(add)) return false;
    if (!ScalarConstant(plan_, a.inputs[0] == x ? a.inputs[1] : a.inputs[0], &three) ||
        three != 3.0f) {
      return false;
    }
    if (!p_.Private(out0(add)) || p_.Consumers(out0(add)).size() != 1) return false;
    const size_t clip = p_.Consumers(out0(add))[0];
    float lo, hi;
    if (!IsOnnxOp(*node(clip).proto, "Clip") || !p_.OneOutput(clip) ||
        !ClipBounds(clip, &lo, &hi) || lo != 0.0f || hi != 6.0f) {
      return false;
    }
    size_t mul2;
    int other;
    if (!Next(out0(clip), "Mul", &mul2, &other) || mul2 != mul || other != x) return false;
    size_t last;
    float k;
    if (Next(out0(mul), "Div", &last, &other)) {
      if (node(last).inputs[1] != other || !ScalarConstant(plan_, other, &k) || k != 6.0f)
        return false;
    } else if (Next(out0(mul), "Mul", &last, &other)) {
      if (!ScalarConstant(plan_, other, &k) || std::fabs(k - 1.0f / 6.0f) > 1e-7f) return false;
    } else {
      return false;
    }
    f->activation = "HardSwish";
    f->absorbed = {add, clip, mul, last};
    f->output = out0(last);
    return true;
  }

  // x -> Sigmoid(x) -> Mul(x, .)
  bool SiluPair(int x, ConvEpilogue* f) const {
    size_t sig, mul;
    if (!Split(x, "Sigmoid", &sig, &mul) || !p_.OneOutput(sig)) return false;
    size_t mul2;
    int other;
    if (!Next(out0(sig), "Mul", &mul2, &other) || mul2 != mul || other != x) return false;
    f->activation = "Silu";
    f->absorbed = {sig, mul};
    f->output = out0(mul);
    return true;
  }

  const Graph& plan_;
  const Pattern p_;
};

ConvEpilogueMatcher::ConvEpilogueMatcher(const Graph& graph)
    : impl_(std::make_unique<Impl>(graph)) {}
ConvEpilogueMatcher::~ConvEpilogueMatcher() = default;
bool ConvEpilogueMatcher::Match(int x, ConvEpilogue* f) const {
  return impl_->Match(x, f);
}
bool ConvEpilogueMatcher::Residual(int x, int* z, ConvEpilogue* f) const {
  return impl_->Residual(x, z, f);
}

bool IsFloat32Conv(const Graph& graph, const Graph::Node& n) {
  return IsOnnxOp(*n.proto, "Conv") && n.outputs.size() == 1 && n.outputs[0] >= 0 &&
         graph.value_types[static_cast<size_t>(n.outputs[0])] == DataType::kFloat;
}

onnx::NodeProto FusedConvProto(const Graph& graph, const onnx::NodeProto& conv,
                               const std::vector<int>& inputs, const ConvEpilogue& f) {
  onnx::NodeProto proto = conv;
  proto.domain.set("onnx_light");
  proto.op_type.set("FusedConv");
  proto.input.clear();
  for (int v : inputs)
    proto.input.push_back(v >= 0 ? graph.value_names[static_cast<size_t>(v)] : std::string());
  proto.output.clear();
  proto.output.push_back(graph.value_names[static_cast<size_t>(f.output)]);
  proto.attribute.push_back(StringAttribute("activation", f.activation));
  if (!f.params.empty()) proto.attribute.push_back(FloatsAttribute("activation_params", f.params));
  return proto;
}

}  // namespace onnx_light::passes
