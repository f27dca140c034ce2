// Runs a model with onnx-light's C++ runtime, then again with a session-local kernel
// registry in which a kernel of this program replaces the built-in onnx_light_cpu::Log.
//
//   build/examples/run_model models/default.onnx
//
// Built in this CMake project: target_link_libraries(app PRIVATE onnx_light::runtime).
#include <cmath>
#include <cstdio>
#include <memory>

#include "onnx_light/runtime/session.h"

namespace {

// log(x) for float tensors, computed in double: the replacement kernel.
class MyLog : public onnx_light::KernelBase {
 public:
  onnx_light::Status Compute(onnx_light::KernelContext& ctx) const override {
    const onnx_light::Tensor& x = *ctx.input(0);
    auto y = ctx.AllocateOutput(0, x.shape().dims());
    if (!y.ok()) return y.status();
    for (int64_t i = 0; i < x.num_elements(); ++i)
      (*y)->mutable_data<float>()[i] = static_cast<float>(std::log(double{x.data<float>()[i]}));
    return onnx_light::Status::Ok();
  }
};

int Print(const char* what, onnx_light::Result<std::vector<onnx_light::Tensor>> outputs) {
  if (!outputs.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, outputs.status().ToString().c_str());
    return 1;
  }
  const onnx_light::Tensor& y = (*outputs)[0];
  std::printf("%s: y %s =", what, y.shape().ToString().c_str());
  for (int64_t i = 0; i < y.num_elements(); ++i)
    std::printf(" %.6g", y.data<float>()[i]);
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL.onnx (models/default.onnx)\n", argv[0]);
    return 2;
  }
  auto session = onnx_light::RuntimeSession::CreateFromFile(argv[1]);
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n", session.status().ToString().c_str());
    return 1;
  }
  onnx_light::Tensor x = *onnx_light::Tensor::Allocate(onnx_light::DataType::kFloat,
                                                       *onnx_light::Shape::Create({2, 4}));
  for (int64_t i = 0; i < 8; ++i)
    x.mutable_data<float>()[i] = static_cast<float>(i) - 4.0f;
  auto outputs = (*session)->Run({{"x", x}});  // Result<std::vector<Tensor>>
  if (Print("built-in kernels", std::move(outputs)) != 0) return 1;

  onnx_light::KernelDef my_kernel_def;
  my_kernel_def.domain = "onnx_light_cpu";
  my_kernel_def.op_type = "Log";
  my_kernel_def.constraints = {{"T", {0}, {0}, {onnx_light::DataType::kFloat}}};
  my_kernel_def.create = [](const onnx_light::KernelInfo&) {
    return onnx_light::Result<std::unique_ptr<onnx_light::KernelBase>>(std::make_unique<MyLog>());
  };
  auto mine =
      std::make_shared<onnx_light::KernelRegistry>(onnx_light::KernelRegistry::BuiltinCpu());
  onnx_light::Status added = mine->Register(my_kernel_def);  // refused if it overlaps
  if (!added.ok()) {
    std::fprintf(stderr, "%s\n", added.ToString().c_str());
    return 1;
  }
  onnx_light::SessionOptions options;
  options.registry = mine;
  auto custom = onnx_light::RuntimeSession::CreateFromFile(argv[1], options);
  if (!custom.ok()) {
    std::fprintf(stderr, "%s\n", custom.status().ToString().c_str());
    return 1;
  }
  return Print("with MyLog", (*custom)->Run({{"x", x}}));
}
