// Small models built in C++ for the runtime tests.
#pragma once

#include <string>
#include <vector>

#include "onnx_light/onnx/onnx.h"

namespace onnx_light::testing {

inline onnx::ValueInfoProto TensorInfo(const std::string& name, int32_t elem_type,
                                       const std::vector<int64_t>& dims, bool with_shape = true,
                                       const std::vector<std::string>& params = {}) {
  onnx::ValueInfoProto vi;
  vi.name = name;
  onnx::TypeProto_Tensor* t = vi.type.mutable_get()->tensor_type.mutable_get();
  t->elem_type = elem_type;
  if (with_shape) {
    onnx::TensorShapeProto* shape = t->shape.mutable_get();
    for (size_t i = 0; i < dims.size(); ++i) {
      onnx::TensorShapeProto_Dimension* d = shape->dim.Add();
      if (i < params.size() && !params[i].empty()) {
        d->dim_param = params[i];
      } else if (dims[i] >= 0) {
        d->dim_value = dims[i];
      }
    }
  }
  return vi;
}

inline onnx::NodeProto Node(const std::string& op, std::vector<std::string> inputs,
                            std::vector<std::string> outputs, const std::string& domain = "",
                            const std::string& name = "") {
  onnx::NodeProto n;
  n.op_type = op;
  n.input = std::move(inputs);
  n.output = std::move(outputs);
  if (!domain.empty()) n.domain = domain;
  n.name = name.empty() ? op + "_node" : name;
  return n;
}

inline void AddFloatAttr(onnx::NodeProto& n, const std::string& name, float v) {
  onnx::AttributeProto* a = n.attribute.Add();
  a->name = name;
  a->f = v;
  a->type = static_cast<int32_t>(onnx::AttributeType::kFloat);
}

inline void AddIntAttr(onnx::NodeProto& n, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = n.attribute.Add();
  a->name = name;
  a->i = v;
  a->type = static_cast<int32_t>(onnx::AttributeType::kInt);
}

inline onnx::ModelProto Model(std::vector<onnx::NodeProto> nodes,
                              std::vector<onnx::ValueInfoProto> inputs,
                              std::vector<onnx::ValueInfoProto> outputs,
                              std::vector<std::pair<std::string, int64_t>> opsets = {{"", 17}}) {
  onnx::ModelProto m;
  m.ir_version = 8;
  for (auto& [domain, version] : opsets) {
    onnx::OperatorSetIdProto* o = m.opset_import.Add();
    o->domain = domain;
    o->version = version;
  }
  onnx::GraphProto* g = m.graph.mutable_get();
  g->name = std::string("test");
  for (auto& n : nodes)
    g->node.push_back(std::move(n));
  for (auto& i : inputs)
    g->input.push_back(std::move(i));
  for (auto& o : outputs)
    g->output.push_back(std::move(o));
  return m;
}

}  // namespace onnx_light::testing
