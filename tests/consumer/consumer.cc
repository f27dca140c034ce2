// Runs the independent example plugin through the bridge's public C++ wrapper.
#include <cstdio>
#include <string>
#include <vector>

#include "onnx_light_ort/bridge_ops_ort_called_by_light/host.h"
#include "onnxruntime_c_api.h"  // published by the target too (for plugin authors)

// model: y = ort_custom_ops::LeakyRelu(x, alpha=0.5), x and y float[N]; serialized by hand
// so this program needs nothing but the bridge.
static std::string Model() {
  auto varint = [](std::string& s, unsigned long long v) {
    while (v >= 0x80) {
      s += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    s += static_cast<char>(v);
  };
  auto field = [&](std::string& s, int number, const std::string& payload) {
    varint(s, (static_cast<unsigned long long>(number) << 3) | 2);
    varint(s, payload.size());
    s += payload;
  };
  auto value_info = [&](const std::string& name) {
    std::string dim, shape, tensor, type, vi;
    field(dim, 2, "N");       // TensorShapeProto.Dimension.dim_param
    field(shape, 1, dim);     // TensorShapeProto.dim
    tensor += "\x08\x01";     // TypeProto.Tensor.elem_type = FLOAT
    field(tensor, 2, shape);  // TypeProto.Tensor.shape
    field(type, 1, tensor);   // TypeProto.tensor_type
    field(vi, 1, name);       // ValueInfoProto.name
    field(vi, 2, type);       // ValueInfoProto.type
    return vi;
  };
  std::string attr, node, graph, opset, model;
  field(attr, 1, "alpha");
  attr += "\x15";                              // AttributeProto.f (fixed32)
  attr += std::string("\x00\x00\x00\x3f", 4);  // 0.5f
  attr += "\xa0\x01\x01";                      // AttributeProto.type = FLOAT (field 20)
  field(node, 1, "x");
  field(node, 2, "y");
  field(node, 4, "LeakyRelu");
  field(node, 5, attr);
  field(node, 7, "ort_custom_ops");
  field(graph, 1, node);
  field(graph, 2, "g");
  field(graph, 11, value_info("x"));
  field(graph, 12, value_info("y"));
  field(opset, 1, "ort_custom_ops");
  opset += "\x10\x01";  // version 1
  model += "\x08\x08";  // ir_version 8
  field(model, 7, graph);
  field(model, 8, opset);
  return model;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer PLUGIN.so\n");
    return 2;
  }
  static_assert(LIGHT_ORT_API_VERSION == 18, "audited API version");
  onnx_light_ort::Error error;
  onnx_light_ort::Session session = onnx_light_ort::Session::Create(argv[1], Model(), &error);
  if (!error.ok()) {
    std::fprintf(stderr, "create: %s\n", error.message.c_str());
    return 1;
  }
  onnx_light_ort::Output out;
  if (!session.Run({-2.0f, 0.0f, 3.0f}, {3}, &out, &error)) {
    std::fprintf(stderr, "run: %s\n", error.message.c_str());
    return 1;
  }
  const float* y = out.data<float>();
  if (out.element_count() != 3 || y[0] != -1.0f || y[1] != 0.0f || y[2] != 3.0f) {
    std::fprintf(stderr, "wrong result\n");
    return 1;
  }
  // The typed entry point: element type and shape given explicitly, a new length.
  const float x2[4] = {-4.0f, 8.0f, -0.5f, 0.0f};
  onnx_light_ort::Output typed;
  if (!session.RunTyped(x2, session.element_type(), {4}, &typed, &error)) {
    std::fprintf(stderr, "run typed: %s\n", error.message.c_str());
    return 1;
  }
  const float* t = typed.data<float>();
  if (typed.element_type() != 1 || typed.shape() != std::vector<int64_t>{4} || t[0] != -2.0f ||
      t[1] != 8.0f || t[2] != -0.25f || t[3] != 0.0f) {
    std::fprintf(stderr, "wrong typed result\n");
    return 1;
  }
  // A mismatched element type is refused with a clear error, and the session still runs.
  const double d = 1.0;
  onnx_light_ort::Output refused;
  if (session.RunTyped(&d, 11, {}, &refused, &error) || error.code != LIGHT_ORT_TYPE_MISMATCH) {
    std::fprintf(stderr, "a double input was not refused\n");
    return 1;
  }
  std::printf("consumer: LeakyRelu(-2, 0, 3) = (%g, %g, %g) through the bridge\n", y[0], y[1],
              y[2]);
  std::printf("consumer: RunTyped [4] = (%g, %g, %g, %g); DOUBLE input refused: %s\n", t[0], t[1],
              t[2], t[3], error.message.c_str());
  return 0;
}
