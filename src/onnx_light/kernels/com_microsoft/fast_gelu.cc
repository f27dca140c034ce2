// com.microsoft FastGelu: Y = 0.5 X' (1 + tanh(sqrt(2 / pi) (X' + 0.044715 X'^3))) with
// X' = X + bias (bias optional, a vector over X's last dimension): the tanh approximation
// GPT-2 style exports spell out, fused by ORT's optimizer and its saved graphs.
#include "com_microsoft/bias_activation.h"
#include "com_microsoft/ms_def.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, FastGelu) {
  return r.Register(MsDef("FastGelu", {{"T", {0, 1}, {0}, {DataType::kFloat}}},
                          BiasActivationOf(ActivationKind::kGeluTanh), {1, 2}, {1, 1}, 1u << 1));
}

}  // namespace onnx_light::kernels
