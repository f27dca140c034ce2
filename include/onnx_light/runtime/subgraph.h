// Subgraphs (If branches, Loop bodies): the values they read from enclosing graphs.
#pragma once

#include <string>
#include <vector>

#include "onnx_light/onnx/onnx.h"

namespace onnx_light {

// The names a node's graph attributes read but do not define (their inputs, initializers
// and node outputs, nested subgraphs included), sorted and unique. The session treats them
// as extra inputs of the node, appended after its own, in this order.
std::vector<std::string> SubgraphFreeNames(const onnx::NodeProto& node);

// The free names of one graph (as above, for a single graph).
std::vector<std::string> GraphFreeNames(const onnx::GraphProto& graph);

struct SessionOptions;

// The session a node belongs to: If, Loop and Scan build their subgraph sessions with its
// options (kernel registry, limits, threads) and its opset imports, so a branch can use
// every op its model can. Kernels get it from KernelInfo::scope() when they are created.
struct SubgraphScope {
  const SessionOptions* options = nullptr;
  const onnx::ModelProto* model = nullptr;
};

}  // namespace onnx_light
