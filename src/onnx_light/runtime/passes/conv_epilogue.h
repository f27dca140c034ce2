// What fuse_conv_activation and fuse_conv_residual match after a float32 Conv: an
// activation (Relu, Clip with constant bounds, LeakyRelu, Sigmoid, HardSigmoid, HardSwish,
// Tanh, and the two forms exporters write for activations ONNX lacked:
//   x * Clip(x + 3, 0, 6) / 6  (or * 1/6)  -> HardSwish   (Paddle, older PyTorch exports)
//   x * Sigmoid(x)                          -> Silu        (YOLO-style models)),
// or a residual Add(conv, z) optionally followed by one; and the onnx_light:FusedConv node
// that replaces them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../graph.h"

namespace onnx_light::passes {

struct ConvEpilogue {
  std::string activation;
  std::vector<float> params;
  std::vector<size_t> absorbed;  // nodes that go
  int output = -1;               // the value the fused node now produces
};

class ConvEpilogueMatcher {
 public:
  explicit ConvEpilogueMatcher(const Graph& graph);
  ~ConvEpilogueMatcher();
  // The activation after value x (a Conv's output), if the pattern is there and every
  // intermediate value is private to it.
  bool Match(int x, ConvEpilogue* f) const;
  // A residual Add after value x (a Conv's output): x's only reader is Add(x, z) with z
  // another float32 value; then the activation after the Add, if one matches. f->absorbed
  // starts with the Add; f->output is what the fused node produces.
  bool Residual(int x, int* z, ConvEpilogue* f) const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Node n is an ai.onnx Conv with one float32 output: what both fusions start from.
bool IsFloat32Conv(const Graph& graph, const Graph::Node& n);

// The onnx_light:FusedConv node for `conv` (its attributes kept) reading `inputs` and
// producing f.output, with f's activation.
onnx::NodeProto FusedConvProto(const Graph& graph, const onnx::NodeProto& conv,
                               const std::vector<int>& inputs, const ConvEpilogue& f);

}  // namespace onnx_light::passes
