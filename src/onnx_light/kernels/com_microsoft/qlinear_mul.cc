// com.microsoft QLinearMul (ORT's quantizer, QOperator format): C = A * B on 8-bit codes,
// (a - a_zp) * (b - b_zp) * (A_scale * B_scale / C_scale) in float.
#include "com_microsoft/qlinear_binary.h"

namespace onnx_light::kernels {
namespace {
struct MulOp {
  static auto Make(QParams a, QParams b, QParams c) {
    const float r = a.scale * b.scale / c.scale;
    return [r](float x, float y) { return x * y * r; };
  }
};
}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QLinearMul) {
  return r.Register(QLinearBinaryDef<MulOp>("QLinearMul"));
}

}  // namespace onnx_light::kernels
