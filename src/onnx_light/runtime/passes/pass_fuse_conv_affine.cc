// fuse_conv_affine: an onnx_light:FusedConv (a Conv with its activation or residual fused)
// whose output only feeds Mul by a scalar constant, then optionally Add of one (or only
// the Add), takes them as its post_scale and post_shift: y = act(conv + Z) * s + t in the
// epilogue, while each output plane is in cache. This is the "learnable affine block" that
// Paddle's PP-LCNetV3 puts after every HardSwish (PP-OCRv4's recognizer: 25 pairs, each
// two more passes over a feature map). A scale or shift before the activation already
// folds into the weights (fold_affine_into_conv); after it, it cannot. Each is rounded as
// the separate Mul and Add round, so the result is the unfused graph's.
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
  if (!HasOnnxOp(graph, "Mul") && !HasOnnxOp(graph, "Add")) return 0;
  Fusions fusions(graph, ctx);
  const Pattern pattern(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Graph::Node& conv = graph.nodes[i];
    const onnx::NodeProto& p = *conv.proto;
    if (fusions.Taken(i) || !IsFusedConv(p) || conv.outputs.size() != 1 || conv.outputs[0] < 0 ||
        conv.info->HasAttribute("post_scale") || conv.info->HasAttribute("post_shift") ||
        conv.inputs.size() < 2) {
      continue;
    }
    // A scalar broadcasts without changing the output's shape up to the weights' rank (the
    // output's rank).
    const Tensor* w = ConstantOf(graph, conv.inputs[1]);
    if (w == nullptr) continue;
    const size_t rank = w->shape().rank();
    std::vector<size_t> absorbed;
    bool scaled = false, shifted = false;
    float scale = 1.0f, shift = 0.0f;
    int out = conv.outputs[0];
    while (!shifted) {
      size_t next;
      if (!pattern.SingleReader(out, &next)) break;
      const Graph::Node& n = graph.nodes[next];
      const bool mul = IsOnnxOp(*n.proto, "Mul"), add = IsOnnxOp(*n.proto, "Add");
      if ((!mul && !add) || (mul && scaled) || n.inputs.size() != 2 || n.outputs.size() != 1 ||
          n.outputs[0] < 0 || n.inputs[0] == n.inputs[1]) {
        break;
      }
      const int other = n.inputs[0] == out ? n.inputs[1] : n.inputs[0];
      const Tensor* c = ConstantOf(graph, other);
      float value;
      if (c == nullptr || c->shape().rank() > rank || !ScalarConstant(graph, other, &value)) break;
      (mul ? scale : shift) = value;
      (mul ? scaled : shifted) = true;
      absorbed.push_back(next);
      out = n.outputs[0];
    }
    if (absorbed.empty() || !fusions.Free(absorbed)) continue;
    onnx::NodeProto proto = p;
    proto.output.clear();
    proto.output.push_back(graph.value_names[static_cast<size_t>(out)]);
    if (scaled) proto.attribute.push_back(FloatAttribute("post_scale", scale));
    if (shifted) proto.attribute.push_back(FloatAttribute("post_shift", shift));
    const std::vector<int> inputs = conv.inputs;
    fusions.Replace(i, std::move(proto), inputs, {out}, absorbed);
  }
  return fusions.Finish();
}

}  // namespace onnx_light::passes
