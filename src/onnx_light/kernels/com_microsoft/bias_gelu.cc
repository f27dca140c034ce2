// com.microsoft BiasGelu: C = Gelu(A + B) (erf form), B a vector over A's last dimension;
// the optimizer's fusion of a MatMul's bias Add with the Gelu after it.
#include "com_microsoft/bias_activation.h"
#include "com_microsoft/ms_def.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, BiasGelu) {
  return r.Register(MsDef("BiasGelu", {{"T", {0, 1}, {0}, {DataType::kFloat}}},
                          BiasActivationOf(ActivationKind::kGelu), {2, 2}));
}

}  // namespace onnx_light::kernels
