// Prints a model's opsets, inputs, outputs and nodes, and the bytes of its weights,
// using only onnx-light's model layer (no protobuf, no onnx package).
//
//   build/examples/inspect_model path/to/model.onnx [copy.onnx]
#include <cstdio>

#include "onnx_light/onnx/model_io.h"

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL.onnx [COPY.onnx]\n", argv[0]);
    return 2;
  }
  auto model = onnx_light::onnx::LoadModel(argv[1]);
  if (!model.ok()) {
    std::fprintf(stderr, "error: %s\n", model.status().ToString().c_str());
    return 1;
  }
  std::printf("ir_version %lld, producer '%s'\n", static_cast<long long>(model->ir_version.get()),
              model->producer_name.get().c_str());
  for (const auto& opset : model->opset_import) {
    std::printf("opset '%s' %lld\n", opset.domain.get().c_str(),
                static_cast<long long>(opset.version.get()));
  }
  const onnx_light::onnx::GraphProto& graph = model->graph.get();
  for (const auto& v : graph.input)
    std::printf("input  %s\n", v.name.get().c_str());
  for (const auto& v : graph.output)
    std::printf("output %s\n", v.name.get().c_str());
  size_t weight_bytes = 0;
  for (const auto& t : graph.initializer)
    weight_bytes += t.raw_data->size();
  std::printf("%zu initializers, %zu bytes of raw_data (viewed in the mapped file)\n",
              graph.initializer.size(), weight_bytes);
  for (const auto& node : graph.node) {
    std::printf("node %-12s %s(", node.name.get().c_str(), node.op_type.get().c_str());
    for (size_t i = 0; i < node.input.size(); ++i) {
      std::printf("%s%s", i ? ", " : "", node.input[i].c_str());
    }
    std::printf(") -> %zu output(s), %zu attribute(s)\n", node.output.size(),
                node.attribute.size());
  }
  if (argc == 3) {
    // Weights still point into the mapped file; SaveModel writes them out.
    onnx_light::Status saved = onnx_light::onnx::SaveModel(*model, argv[2]);
    if (!saved.ok()) {
      std::fprintf(stderr, "error: %s\n", saved.ToString().c_str());
      return 1;
    }
    std::printf("wrote %s\n", argv[2]);
  }
  return 0;
}
