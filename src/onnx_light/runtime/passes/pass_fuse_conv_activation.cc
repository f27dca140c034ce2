// fuse_conv_activation: a float32 Conv whose output only feeds an activation (the forms in
// conv_epilogue.h) becomes one onnx_light:FusedConv node that applies the activation to
// each output plane while it is in cache.
#include "conv_epilogue.h"
#include "pass_manager.h"

namespace onnx_light::passes {

size_t FuseConvActivation(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "Conv")) return 0;
  Fusions fusions(graph, ctx);
  const ConvEpilogueMatcher match(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Graph::Node& conv = graph.nodes[i];
    if (fusions.Taken(i) || !IsFloat32Conv(graph, conv)) continue;
    ConvEpilogue f;
    if (!match.Match(conv.outputs[0], &f) || !fusions.Free(f.absorbed)) continue;
    const std::vector<int> inputs = conv.inputs;
    onnx::NodeProto proto = FusedConvProto(graph, *conv.proto, inputs, f);
    fusions.Replace(i, std::move(proto), inputs, {f.output}, f.absorbed);
  }
  return fusions.Finish();
}

}  // namespace onnx_light::passes
