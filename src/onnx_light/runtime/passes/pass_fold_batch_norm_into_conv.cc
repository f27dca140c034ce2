// BatchNormalization after a Conv folds into the Conv's weights and bias (inference
// BatchNormalization is a per-channel affine map): W'[c] = W[c] * s[c], b'[c] = (b[c] -
// mean[c]) * s[c] + B[c], with s = scale / sqrt(var + epsilon), computed in float as ONNX
// Runtime folds. Only float32 nodes whose parameters are constants, and only when the
// Conv's output has no other reader.
#include <cmath>

#include "../graph.h"
#include "conv_fold.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

// A float32 vector constant of `size` elements, or null.
const float* Channels(const Graph& graph, int v, int64_t size) {
  const Tensor* t = ConstantOf(graph, v);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->shape().rank() != 1 ||
      t->shape()[0] != size) {
    return nullptr;
  }
  return t->data<float>();
}

}  // namespace

size_t FoldBatchNormIntoConv(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "Conv")) return 0;
  std::vector<int> readers = ReaderCounts(graph);
  std::vector<char> removed(graph.nodes.size(), 0);
  size_t count = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Graph::Node& bn = graph.nodes[i];
    if (!IsOnnxOp(*bn.proto, "BatchNormalization") || bn.inputs.size() != 5 || bn.outputs.empty() ||
        bn.outputs[0] < 0) {
      continue;
    }
    bool extra_outputs = false;  // training outputs (running mean/var) that someone reads
    for (size_t o = 1; o < bn.outputs.size(); ++o)
      extra_outputs = extra_outputs || (bn.outputs[o] >= 0 && readers[bn.outputs[o]] > 0);
    const int x = bn.inputs[0];
    if (extra_outputs || x < 0 || readers[static_cast<size_t>(x)] != 1 ||
        graph.value_types[static_cast<size_t>(x)] != DataType::kFloat) {
      continue;
    }
    Result<int64_t> training = bn.info->GetInt("training_mode", 0);
    Result<int64_t> spatial = bn.info->GetInt("spatial", 1);
    if (!training.ok() || *training != 0 || !spatial.ok() || *spatial != 1) continue;
    const int p = graph.producer[static_cast<size_t>(x)];
    if (p < 0 || removed[static_cast<size_t>(p)]) continue;
    Graph::Node& conv = graph.nodes[static_cast<size_t>(p)];
    const int64_t m = FoldableConvChannels(graph, conv);
    if (m < 0) continue;
    const float* scale = Channels(graph, bn.inputs[1], m);
    const float* shift = Channels(graph, bn.inputs[2], m);
    const float* mean = Channels(graph, bn.inputs[3], m);
    const float* var = Channels(graph, bn.inputs[4], m);
    Result<float> eps = bn.info->GetFloat("epsilon", 1e-5f);
    if (!scale || !shift || !mean || !var || !eps.ok()) continue;
    std::vector<float> s(static_cast<size_t>(m));
    for (int64_t c = 0; c < m; ++c)
      s[static_cast<size_t>(c)] = scale[c] / std::sqrt(var[c] + *eps);
    if (!FoldIntoConv(graph, ctx, conv, bn.outputs[0], s, [&](int64_t c, float b) {
          return (b - mean[c]) * s[static_cast<size_t>(c)] + shift[c];
        })) {
      continue;
    }
    readers.resize(graph.value_names.size(), 0);
    removed[i] = 1;
    ++count;
  }
  if (count > 0) RemoveNodes(graph, removed);
  return count;
}

}  // namespace onnx_light::passes
