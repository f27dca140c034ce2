// com.microsoft QLinearMul (ORT's quantizer, QOperator format): C = A * B on 8-bit codes,
// (a - a_zp) * (b - b_zp) * (A_scale * B_scale / C_scale) in float.
#include "com_microsoft/qlinear_binary.h"

namespace onnx_light::kernels {
namespace {
struct MulOp {
  static constexpr QLinearBinaryKind kKind = QLinearBinaryKind::kMul;
  // r = a_scale * b_scale / c_scale (the second ratio unused)
  static float Ratio(QParams a, QParams b, QParams c, int) { return a.scale * b.scale / c.scale; }
  static auto Make(QParams a, QParams b, QParams c) {
    const float r = Ratio(a, b, c, 0);
    return [r](float x, float y) { return x * y * r; };
  }
};
}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QLinearMul) {
  return r.Register(QLinearBinaryDef<MulOp>("QLinearMul"));
}

}  // namespace onnx_light::kernels
