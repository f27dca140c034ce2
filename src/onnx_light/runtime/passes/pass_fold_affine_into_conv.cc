// A per-channel scale or shift right after a float32 Conv (Mul, Add, or Sub of a constant
// that is a scalar or varies only along the channel axis, as Paddle's "learnable affine
// blocks" and converted batch norms export them) folds into the Conv's weights and bias:
// W'[c] = W[c] * s[c], b'[c] = b[c] * s[c], then b'[c] += t[c] (or -= t[c]). Repeated while the
// Conv's only reader is such a node, so Conv -> Mul -> Add becomes one Conv and a following
// activation can fuse.
#include "../graph.h"
#include "conv_fold.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

// The per-channel values of constant v for an output of rank `rank` with `m` channels
// (axis 1), or empty when v varies along another axis or is not float32.
std::vector<float> PerChannel(const Graph& graph, int v, size_t rank, int64_t m) {
  const Tensor* t = ConstantOf(graph, v);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->shape().rank() > rank) return {};
  const size_t r = t->shape().rank();
  if (t->num_elements() == 1)
    return std::vector<float>(static_cast<size_t>(m), t->data<float>()[0]);
  for (size_t i = 0; i < r; ++i) {
    const size_t axis = rank - r + i;  // right-aligned, as broadcasting aligns
    const int64_t d = t->shape()[i];
    if (axis == 1 ? (d != m && d != 1) : d != 1) return {};
  }
  return std::vector<float>(t->data<float>(), t->data<float>() + m);
}

}  // namespace

size_t FoldAffineIntoConv(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "Conv")) return 0;
  std::vector<char> removed(graph.nodes.size(), 0);
  size_t count = 0;
  std::vector<int> readers = ReaderCounts(graph);
  std::vector<int> reader_node(graph.value_names.size(), -1);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (int v : graph.nodes[i].inputs) {
      if (v >= 0) reader_node[static_cast<size_t>(v)] = static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Graph::Node& conv = graph.nodes[i];
    if (removed[i] || conv.outputs.empty() || conv.outputs[0] < 0) continue;
    for (;;) {
      const int64_t m = FoldableConvChannels(graph, conv);
      const int x = conv.outputs[0];
      if (m < 0 || graph.value_types[static_cast<size_t>(x)] != DataType::kFloat ||
          readers[static_cast<size_t>(x)] != 1) {
        break;
      }
      const int ri = reader_node[static_cast<size_t>(x)];
      if (ri < 0 || removed[static_cast<size_t>(ri)]) break;
      const Graph::Node& next = graph.nodes[static_cast<size_t>(ri)];
      const bool mul = IsOnnxOp(*next.proto, "Mul"), add = IsOnnxOp(*next.proto, "Add");
      const bool sub = IsOnnxOp(*next.proto, "Sub") && next.inputs.size() == 2 &&
                       next.inputs[0] == x;  // x - t; t - x would negate the weights
      if ((!mul && !add && !sub) || next.inputs.size() != 2 || next.outputs.size() != 1 ||
          next.outputs[0] < 0 || next.inputs[0] == next.inputs[1]) {
        break;
      }
      const int other = next.inputs[0] == x ? next.inputs[1] : next.inputs[0];
      const size_t rank = ConstantOf(graph, conv.inputs[1])->shape().rank();
      const std::vector<float> k = PerChannel(graph, other, rank, m);
      if (k.empty()) break;
      // Mul scales weights and bias; Add and Sub shift the bias and keep the weights.
      auto folded = [&](int64_t c, float b) {
        const float t = k[static_cast<size_t>(c)];
        return mul ? b * t : sub ? b - t : b + t;
      };
      if (!FoldIntoConv(graph, ctx, conv, next.outputs[0], mul ? k : std::vector<float>(),
                        folded)) {
        break;
      }
      readers.resize(graph.value_names.size(), 0);
      reader_node.resize(graph.value_names.size(), -1);
      removed[static_cast<size_t>(ri)] = 1;
      ++count;
    }
  }
  if (count > 0) RemoveNodes(graph, removed);
  return count;
}

}  // namespace onnx_light::passes
