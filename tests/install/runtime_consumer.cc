// Runs models/default.onnx, y = log(LeakyRelu(x, 0.2)^2 + 1), with the installed C++ runtime
// and checks y against the formula computed here in double (tolerance 1e-5, float32).
#include <cmath>
#include <cstdio>

#include "onnx_light/runtime/session.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: runtime_consumer models/default.onnx\n");
    return 2;
  }
  auto session = onnx_light::RuntimeSession::CreateFromFile(argv[1]);
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n", session.status().ToString().c_str());
    return 1;
  }
  onnx_light::Tensor x = *onnx_light::Tensor::Allocate(onnx_light::DataType::kFloat,
                                                       *onnx_light::Shape::Create({3, 4}));
  for (int64_t i = 0; i < 12; ++i)
    x.mutable_data<float>()[i] = 0.75f * static_cast<float>(i) - 4.0f;
  auto outputs = (*session)->Run({{"x", x}});
  if (!outputs.ok()) {
    std::fprintf(stderr, "%s\n", outputs.status().ToString().c_str());
    return 1;
  }
  const onnx_light::Tensor& y = (*outputs)[0];
  if (y.shape().ToString() != "[3, 4]") {
    std::fprintf(stderr, "y has shape %s, want [3, 4]\n", y.shape().ToString().c_str());
    return 1;
  }
  for (int64_t i = 0; i < 12; ++i) {
    const double xi = x.data<float>()[i];
    const double h = xi < 0 ? 0.2 * xi : xi;
    const double want = std::log(h * h + 1.0);
    if (std::fabs(y.data<float>()[i] - want) > 1e-5) {
      std::fprintf(stderr, "y[%lld] = %.8g, want %.8g\n", static_cast<long long>(i),
                   static_cast<double>(y.data<float>()[i]), want);
      return 1;
    }
  }
  std::printf("runtime_consumer: 12 values of y match log(LeakyRelu(x)^2 + 1)\n");
  return 0;
}
