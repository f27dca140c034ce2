// com.microsoft QLinearLeakyRelu (ORT's quantizer, QOperator format): x >= 0 ? x : alpha * x
// (alpha default 0.01) on 8-bit codes through a 256-entry table (qlinear_unary.h).
#include "com_microsoft/qlinear_unary.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QLinearLeakyRelu) {
  return r.Register(QLinearUnaryDef(
      "QLinearLeakyRelu", [](const KernelInfo& info) -> Result<std::unique_ptr<KernelBase>> {
        ONNX_LIGHT_ASSIGN_OR_RETURN(float alpha, info.GetFloat("alpha", 0.01f));
        return std::unique_ptr<KernelBase>(
            std::make_unique<QLinearUnary>([alpha](float v) { return v >= 0.0f ? v : alpha * v; }));
      }));
}

}  // namespace onnx_light::kernels
