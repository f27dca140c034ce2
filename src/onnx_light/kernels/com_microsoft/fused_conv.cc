// com.microsoft FusedConv: Conv, plus Z (optional, added before the activation) and an
// activation (`activation`: Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid; parameters
// in `activation_params`), as ORT's Conv+activation and Conv+Add+activation fusions write
// it into saved optimized graphs. The kernel is onnx_light:FusedConv's (nn/conv.h), the
// same computation. float only, as ORT's CPU kernel.
#include "com_microsoft/ms_def.h"
#include "nn/conv.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, FusedConv) {
  return r.Register(MsDef("FusedConv", {{"T", {0, 1, 2, 3}, {0}, {DataType::kFloat}}},
                          &CreateFusedConv, {2, 4}, {1, 1}, (1u << 2) | (1u << 3)));
}

}  // namespace onnx_light::kernels
