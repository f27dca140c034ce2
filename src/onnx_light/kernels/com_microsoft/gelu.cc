// com.microsoft Gelu: Y = 0.5 X (1 + erf(X / sqrt 2)), the op ORT's transformer optimizer
// writes for the erf pattern of BERT-style exports.
#include "com_microsoft/bias_activation.h"
#include "com_microsoft/ms_def.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, Gelu) {
  return r.Register(MsDef("Gelu", {{"T", {0}, {0}, {DataType::kFloat}}},
                          BiasActivationOf(ActivationKind::kGelu), {1, 1}));
}

}  // namespace onnx_light::kernels
