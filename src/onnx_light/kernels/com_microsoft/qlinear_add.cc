// com.microsoft QLinearAdd (ORT's quantizer, QOperator format): C = A + B on 8-bit codes,
// (A_scale / C_scale) * (a - a_zp) + (B_scale / C_scale) * (b - b_zp) in float.
#include "com_microsoft/qlinear_binary.h"

namespace onnx_light::kernels {
namespace {
struct AddOp {
  static constexpr QLinearBinaryKind kKind = QLinearBinaryKind::kAdd;
  // ra = a_scale / c_scale, rb = b_scale / c_scale
  static float Ratio(QParams a, QParams b, QParams c, int i) {
    return (i == 0 ? a.scale : b.scale) / c.scale;
  }
  static auto Make(QParams a, QParams b, QParams c) {
    const float ra = Ratio(a, b, c, 0), rb = Ratio(a, b, c, 1);
    return [ra, rb](float x, float y) { return ra * x + rb * y; };
  }
};
}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QLinearAdd) {
  return r.Register(QLinearBinaryDef<AddOp>("QLinearAdd"));
}

}  // namespace onnx_light::kernels
