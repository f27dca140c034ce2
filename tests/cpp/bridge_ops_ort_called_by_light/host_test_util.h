// Helpers shared by the bridge's native tests: one-node models built with onnx-light's
// model layer, RAII sessions and float runs through the C ABI.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "onnx_light/onnx/onnx.h"
#include "onnx_light_ort/bridge_ops_ort_called_by_light/host.h"

namespace bridge_test {

namespace onnx = onnx_light::onnx;

inline const std::string kLib = ONNX_LIGHT_LIB_DIR;
inline const std::string kExample = kLib + "/libort_custom_ops.so";
inline std::string TestPlugin(const std::string& variant) {
  return kLib + "/test_plugins/libtest_plugin_" + variant + ".so";
}

struct ModelSpec {
  std::string domain = "ort_custom_ops";
  std::string op = "LeakyRelu";
  int32_t type = 1;  // FLOAT
  int64_t opset = 1;
  bool alpha = true;
  float alpha_value = 0.5f;
  std::string int_attr;  // an INT attribute of this name, if not empty
  int64_t int_value = 0;
};

inline onnx::ValueInfoProto Info(const std::string& name, int32_t type) {
  onnx::ValueInfoProto vi;
  vi.name = name;
  // No shape: any rank; output shapes are decided at run time.
  vi.type.mutable_get()->tensor_type.mutable_get()->elem_type = type;
  return vi;
}

inline onnx::ModelProto BuildModel(const ModelSpec& spec) {
  onnx::ModelProto m;
  m.ir_version = 8;
  onnx::OperatorSetIdProto* o = m.opset_import.Add();
  o->domain = spec.domain;
  o->version = spec.opset;
  onnx::GraphProto* g = m.graph.mutable_get();
  g->name = std::string("g");
  onnx::NodeProto* n = g->node.Add();
  n->op_type = spec.op;
  n->domain = spec.domain;
  n->name = std::string("custom");
  n->input = {"x"};
  n->output = {"y"};
  if (spec.alpha) {
    onnx::AttributeProto* a = n->attribute.Add();
    a->name = std::string("alpha");
    a->f = spec.alpha_value;
    a->type = static_cast<int32_t>(onnx::AttributeType::kFloat);
  }
  if (!spec.int_attr.empty()) {
    onnx::AttributeProto* a = n->attribute.Add();
    a->name = spec.int_attr;
    a->i = spec.int_value;
    a->type = static_cast<int32_t>(onnx::AttributeType::kInt);
  }
  g->input.push_back(Info("x", spec.type));
  g->output.push_back(Info("y", spec.type));
  return m;
}

inline std::string Bytes(const onnx::ModelProto& m) {
  return onnx::SerializeToString(m);
}

struct Session {
  LightOrtSession* s = nullptr;
  int32_t code = 0;
  std::string error;
  ~Session() { LightOrtSessionRelease(s); }
};

inline void Create(Session* out, const std::string& plugin, const std::string& model) {
  out->code = LightOrtSessionCreate(plugin.c_str(), model.data(), model.size(), &out->s);
  out->error = out->code == LIGHT_ORT_OK ? "" : LightOrtLastErrorMessage();
}

inline std::vector<float> RunFloat(LightOrtSession* s, const std::vector<float>& x,
                                   const std::vector<int64_t>& shape, int32_t* code = nullptr) {
  LightOrtTensor out;
  const int32_t rc = LightOrtRun(s, x.data(), x.size(), shape.data(), shape.size(), &out);
  if (code) *code = rc;
  if (rc != LIGHT_ORT_OK) return {};
  EXPECT_EQ(out.element_type, 1);
  EXPECT_EQ(out.rank, shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    EXPECT_EQ(out.shape[i], shape[i]);
  std::vector<float> y(static_cast<const float*>(out.data),
                       static_cast<const float*>(out.data) + out.element_count);
  LightOrtTensorRelease(&out);
  EXPECT_EQ(out.data, nullptr);
  return y;
}

}  // namespace bridge_test
