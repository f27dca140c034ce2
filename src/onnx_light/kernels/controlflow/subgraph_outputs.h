// What If, Loop and Scan share about their subgraphs' outputs: tensors only (a node's
// outputs have one kind, fixed by its kernel; sequences and optionals inside subgraphs are
// not supported yet).
#pragma once

#include <string>
#include <vector>

#include "onnx_light/runtime/subgraph.h"

namespace onnx_light::kernels {

// NOT_IMPLEMENTED when one of the graph's outputs is a sequence or a map (found when the
// node is built: the graph's outputs are typed then).
inline Status NoSequenceOutputs(const Subgraph& graph) {
  for (const ValueMeta& m : graph.outputs()) {
    ONNX_LIGHT_RETURN_IF(m.kind != ValueKind::kTensor && !m.is_optional(), kNotImplemented,
                         std::string("a subgraph output that is a ") + ValueKindName(m.kind) +
                             " ('" + m.name + "') is not supported");
  }
  return Status::Ok();
}

// A run's outputs as tensors; an empty optional or a sequence is refused.
inline Result<std::vector<Tensor>> TensorOutputs(std::vector<Value> outs) {
  std::vector<Tensor> tensors;
  tensors.reserve(outs.size());
  for (Value& v : outs) {
    ONNX_LIGHT_RETURN_IF(
        v.is_container() || v.none, kNotImplemented,
        std::string("a subgraph output is ") +
            (v.none ? "an empty optional" : std::string("a ") + ValueKindName(v.kind())) +
            ", not a tensor");
    tensors.push_back(std::move(v.tensor));
  }
  return tensors;
}

// The graph attribute `attr` of the node, which the op requires.
inline Result<const Subgraph*> RequiredSubgraph(const NodeSubgraphs& graphs, const char* attr) {
  const Subgraph* g = FindSubgraph(graphs, attr);
  ONNX_LIGHT_RETURN_IF(g == nullptr, kInvalidModel,
                       std::string("the ") + attr + " graph is required");
  return g;
}

}  // namespace onnx_light::kernels
