// fuse_conv_residual: a float32 Conv whose output only feeds Add(conv, z) (a ResNet's
// shortcut), optionally followed by one of the activations in conv_epilogue.h, becomes
// one onnx_light:FusedConv with Z = z (the kernel adds Z before the activation; a Z of
// another shape, which the pass cannot see, is added with broadcasting after the
// convolution).
#include "conv_epilogue.h"
#include "pass_manager.h"

namespace onnx_light::passes {

size_t FuseConvResidual(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "Conv") || !HasOnnxOp(graph, "Add")) return 0;
  Fusions fusions(graph, ctx);
  const ConvEpilogueMatcher match(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Graph::Node& conv = graph.nodes[i];
    if (fusions.Taken(i) || !IsFloat32Conv(graph, conv)) continue;
    ConvEpilogue f;
    int z = -1;
    if (!match.Residual(conv.outputs[0], &z, &f)) continue;
    std::vector<size_t> group = f.absorbed;
    group.push_back(i);
    if (!fusions.Free(group)) continue;
    // The fused node takes the place of the pattern's last node: the Conv's inputs and Z
    // are all computed by then (Z may come from a branch after the Conv).
    std::vector<int> inputs = conv.inputs;
    inputs.resize(3, -1);
    inputs.push_back(z);
    onnx::NodeProto proto = FusedConvProto(graph, *conv.proto, inputs, f);
    const auto last = static_cast<size_t>(graph.producer[static_cast<size_t>(f.output)]);
    fusions.Replace(last, std::move(proto), inputs, {f.output}, group);
  }
  return fusions.Finish();
}

}  // namespace onnx_light::passes
