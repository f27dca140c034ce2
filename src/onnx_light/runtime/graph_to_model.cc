// Writing the runtime graph back as a standard ONNX model (optimized_model_path,
// RuntimeSession::OptimizedModel).
#include "graph.h"
#include "onnx_light/runtime/tensor_proto.h"

namespace onnx_light {

Result<onnx::ModelProto> GraphToModel(const Graph& graph, const onnx::ModelProto& source) {
  onnx::ModelProto out;
  out.ir_version = source.ir_version.get();
  out.producer_name = std::string("onnx-light");
  out.opset_import = source.opset_import;
  out.functions = source.functions;
  onnx::GraphProto* g = out.graph.mutable_get();
  const onnx::GraphProto& src = source.graph.get();
  g->name = src.name.get();
  g->input = src.input;
  g->output = src.output;
  // Constants that a node or a graph output still reads become initializers (folded
  // values and Constant nodes included); the nodes in the planned order.
  std::vector<bool> read(graph.value_names.size(), false);
  for (const Graph::Node& n : graph.nodes) {
    for (int v : n.inputs) {
      if (v >= 0) read[static_cast<size_t>(v)] = true;
    }
  }
  for (int v : graph.output_values)
    read[static_cast<size_t>(v)] = true;
  for (size_t v = 0; v < graph.value_names.size(); ++v) {
    const Tensor& t = graph.constants[v].tensor;
    if (!read[v] || graph.producer[v] >= 0 || t.dtype() == DataType::kUndefined) continue;
    ONNX_LIGHT_ASSIGN_OR_RETURN(onnx::TensorProto p, TensorToProto(t, graph.value_names[v]));
    g->initializer.push_back(std::move(p));
  }
  bool imports_own = false;
  for (const onnx::OperatorSetIdProto& o : out.opset_import)
    imports_own = imports_own || o.domain.get() == "onnx_light";
  for (const Graph::Node& n : graph.nodes) {
    if (!imports_own && n.proto->domain.get() == "onnx_light") {
      onnx::OperatorSetIdProto* own = out.opset_import.Add();
      own->domain.set("onnx_light");
      own->version.set(1);
      imports_own = true;
    }
    onnx::NodeProto node = *n.proto;
    // Passes may have rewired inputs (an Identity's readers read its source).
    for (size_t i = 0; i < node.input.size() && i < n.inputs.size(); ++i) {
      if (n.inputs[i] >= 0) node.input[i] = graph.value_names[static_cast<size_t>(n.inputs[i])];
    }
    g->node.push_back(std::move(node));
  }
  return out;
}

}  // namespace onnx_light
