// Folding per-channel maps into a Conv's weights and bias (conv_fold.h).
#include "conv_fold.h"

#include "pattern.h"

namespace onnx_light::passes {

int64_t FoldableConvChannels(const Graph& graph, const Graph::Node& conv) {
  if (!IsOnnxOp(*conv.proto, "Conv") || conv.inputs.size() < 2 || conv.outputs.size() != 1) {
    return -1;
  }
  const Tensor* w = ConstantOf(graph, conv.inputs[1]);
  if (w == nullptr || w->dtype() != DataType::kFloat || w->shape().rank() < 3) return -1;
  const int64_t m = w->shape()[0];
  if (conv.inputs.size() > 2 && conv.inputs[2] >= 0) {
    const Tensor* b = ConstantOf(graph, conv.inputs[2]);
    if (b == nullptr || b->dtype() != DataType::kFloat || b->num_elements() != m) return -1;
  }
  return m;
}

bool FoldIntoConv(Graph& graph, const PassContext& ctx, Graph::Node& conv, int output,
                  const std::vector<float>& scale,
                  const std::function<float(int64_t, float)>& bias) {
  const Tensor& w = *ConstantOf(graph, conv.inputs[1]);
  const int64_t m = w.shape()[0];
  const float* b = conv.inputs.size() > 2 && conv.inputs[2] >= 0
                       ? ConstantOf(graph, conv.inputs[2])->data<float>()
                       : nullptr;
  const std::string& name = conv.proto->name.get();
  int wv = conv.inputs[1];
  if (!scale.empty()) {
    Result<Tensor> w2 = w.Clone();
    if (!w2.ok()) return false;
    const int64_t per_channel = w.num_elements() / m;
    float* wp = w2->mutable_data<float>();
    for (int64_t c = 0; c < m; ++c) {
      for (int64_t k = 0; k < per_channel; ++k)
        wp[c * per_channel + k] *= scale[static_cast<size_t>(c)];
    }
    wv = AddConstant(graph, name + "_folded_W", std::move(*w2));
  }
  Result<Tensor> b2 = Tensor::Allocate(DataType::kFloat, *Shape::Create({m}));
  if (!b2.ok()) return false;
  for (int64_t c = 0; c < m; ++c)
    b2->mutable_data<float>()[c] = bias(c, b != nullptr ? b[c] : 0.0f);
  const int bv = AddConstant(graph, name + "_folded_B", std::move(*b2));
  onnx::NodeProto proto = *conv.proto;
  proto.input.clear();
  for (int v : {conv.inputs[0], wv, bv})
    proto.input.push_back(graph.value_names[static_cast<size_t>(v)]);
  proto.output.clear();
  proto.output.push_back(graph.value_names[static_cast<size_t>(output)]);
  const std::vector<int> old_outputs = conv.outputs;
  conv.outputs = {output};
  if (!ReplaceNode(graph, ctx, conv, std::move(proto), {conv.inputs[0], wv, bv}).ok()) {
    conv.outputs = old_outputs;
    return false;
  }
  return true;
}

}  // namespace onnx_light::passes
