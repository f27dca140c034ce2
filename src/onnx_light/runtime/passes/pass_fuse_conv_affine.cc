// fuse_conv_affine: an onnx_light:FusedConv (a Conv with its activation or residual fused)
// whose output only feeds Mul by a scalar constant, then optionally Add of one (or only
// the Add), takes them as its post_scale and post_shift: y = act(conv + Z) * s + t in the
// epilogue, while each output plane is in cache. This is the "learnable affine block" that
// Paddle's PP-LCNetV3 puts after every HardSwish (PP-OCRv4's recognizer: 25 pairs, each
// two more passes over a feature map). A scale or shift before the activation already
// folds into the weights (fold_affine_into_conv); after it, it cannot. Each is rounded as
// the separate Mul and Add round, so the result is the unfused graph's. Then a Max by a
// scalar constant, as post_max: y = max(act(conv + Z) * s + t, m), NaN kept (TensorFlow
// exports write Max(LeakyRelu(x), -0.4) after every convolution of openWakeWord's speech
// embedding: 19 more passes a run).
#include <cmath>

#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

bool IsFusedConv(const onnx::NodeProto& p) {
  return p.op_type.get() == "FusedConv" && p.domain.get() == "onnx_light";
}

}  // namespace

size_t FuseConvAffine(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "Mul") && !HasOnnxOp(graph, "Add") && !HasOnnxOp(graph, "Max")) return 0;
  Fusions fusions(graph, ctx);
  const Pattern pattern(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Graph::Node& conv = graph.nodes[i];
    const onnx::NodeProto& p = *conv.proto;
    if (fusions.Taken(i) || !IsFusedConv(p) || conv.outputs.size() != 1 || conv.outputs[0] < 0 ||
        conv.info->HasAttribute("post_scale") || conv.info->HasAttribute("post_shift") ||
        conv.info->HasAttribute("post_max") || conv.inputs.size() < 2) {
      continue;
    }
    // A scalar broadcasts without changing the output's shape up to the weights' rank (the
    // output's rank).
    const Tensor* w = ConstantOf(graph, conv.inputs[1]);
    if (w == nullptr) continue;
    const size_t rank = w->shape().rank();
    std::vector<size_t> absorbed;
    bool scaled = false, shifted = false, floored = false;
    float scale = 1.0f, shift = 0.0f, floor = 0.0f;
    int out = conv.outputs[0];
    // The reader of `out` when it is a binary `op` of out and a scalar constant that
    // broadcasts without changing out's shape: its value in *value.
    auto scalar_op = [&](const char* op, size_t* next, float* value) {
      if (!pattern.SingleReader(out, next)) return false;
      const Graph::Node& n = graph.nodes[*next];
      if (!IsOnnxOp(*n.proto, op) || n.inputs.size() != 2 || n.outputs.size() != 1 ||
          n.outputs[0] < 0 || n.inputs[0] == n.inputs[1]) {
        return false;
      }
      const int other = n.inputs[0] == out ? n.inputs[1] : n.inputs[0];
      const Tensor* c = ConstantOf(graph, other);
      return c != nullptr && c->shape().rank() <= rank && ScalarConstant(graph, other, value);
    };
    while (!shifted) {
      size_t next;
      float value;
      const bool mul = !scaled && scalar_op("Mul", &next, &value);
      if (!mul && !scalar_op("Add", &next, &value)) break;
      (mul ? scale : shift) = value;
      (mul ? scaled : shifted) = true;
      absorbed.push_back(next);
      out = graph.nodes[next].outputs[0];
    }
    size_t max_node;
    if (scalar_op("Max", &max_node, &floor) && graph.nodes[max_node].info->opset() >= 8 &&
        !std::isnan(floor)) {  // Max broadcasts from opset 8
      floored = true;
      absorbed.push_back(max_node);
      out = graph.nodes[max_node].outputs[0];
    }
    if (absorbed.empty() || !fusions.Free(absorbed)) continue;
    onnx::NodeProto proto = p;
    proto.output.clear();
    proto.output.push_back(graph.value_names[static_cast<size_t>(out)]);
    if (scaled) proto.attribute.push_back(FloatAttribute("post_scale", scale));
    if (shifted) proto.attribute.push_back(FloatAttribute("post_shift", shift));
    if (floored) proto.attribute.push_back(FloatAttribute("post_max", floor));
    const std::vector<int> inputs = conv.inputs;
    fusions.Replace(i, std::move(proto), inputs, {out}, absorbed);
  }
  return fusions.Finish();
}

}  // namespace onnx_light::passes
