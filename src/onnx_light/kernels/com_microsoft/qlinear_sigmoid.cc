// com.microsoft QLinearSigmoid (ORT's quantizer, QOperator format): sigmoid on 8-bit codes
// through a 256-entry table (qlinear_unary.h).
#include <cmath>

#include "com_microsoft/qlinear_unary.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QLinearSigmoid) {
  return r.Register(QLinearUnaryDef(
      "QLinearSigmoid", [](const KernelInfo&) -> Result<std::unique_ptr<KernelBase>> {
        return std::unique_ptr<KernelBase>(
            std::make_unique<QLinearUnary>([](float v) { return 1.0f / (1.0f + std::exp(-v)); }));
      }));
}

}  // namespace onnx_light::kernels
