// Folding per-channel maps into a Conv's weights and bias, for fold_batch_norm_into_conv
// and fold_affine_into_conv.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "../graph.h"
#include "rewrite.h"

namespace onnx_light::passes {

// The output channels M of an ai.onnx Conv whose weights are a float32 constant of rank 3
// or more and whose bias, if any, is a float32 constant of M values; -1 otherwise.
int64_t FoldableConvChannels(const Graph& graph, const Graph::Node& conv);

// Folds a per-channel map into such a Conv (the weight and bias folds of BatchNormalization
// and of Mul/Add by constants): W'[c] = W[c] * scale[c] (scale empty: W as it is) and
// b'[c] = bias(c, b[c]) (b[c] = 0 without a bias); the Conv then produces `output`.
// Returns false, leaving the node as it was, when no kernel takes the rewritten node.
bool FoldIntoConv(Graph& graph, const PassContext& ctx, Graph::Node& conv, int output,
                  const std::vector<float>& scale,
                  const std::function<float(int64_t, float)>& bias);

}  // namespace onnx_light::passes
