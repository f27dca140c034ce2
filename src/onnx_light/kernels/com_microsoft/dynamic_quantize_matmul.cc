// com.microsoft DynamicQuantizeMatMul (ORT's saved graphs fuse DynamicQuantizeLinear ->
// MatMulInteger -> Cast -> Mul into it): inputs A (float), B (8-bit), b_scale,
// b_zero_point (optional), bias (optional). A is quantized to uint8 as
// DynamicQuantizeLinear does (its range including 0, scale = range / 255, zero point
// round(-min / scale), round half to even); then Y = float((A_q - a_zp) @ (B - b_zp)) *
// (a_scale * b_scale) + bias. Exact given A_q; ORT's u8s8 kernels on CPUs without VNNI
// saturate 16-bit pair sums, so its answer there can differ (docs/conformance.md).
#include <cmath>
#include <memory>

#include "com_microsoft/integer_to_float.h"

namespace onnx_light::kernels {
namespace {

class DynamicQuantizeMatMul : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<DynamicQuantizeMatMul>();
    // B packed once for the uint8 A this kernel quantizes.
    k->packed_ = PackConstantB(info, 1, DataType::kUint8);
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor* b_zp = ctx.input_count() > 3 ? ctx.input(3) : nullptr;
    const Tensor* bias = ctx.input_count() > 4 ? ctx.input(4) : nullptr;
    const auto n = static_cast<size_t>(a.num_elements());
    float lo = 0, hi = 0;
    bool nan = false;
    RangeF32(a.data<float>(), n, &lo, &hi, &nan);
    ONNX_LIGHT_RETURN_IF(nan || std::isinf(lo) || std::isinf(hi), kInvalidArgument,
                         "A contains NaN or an infinity, which has no range to quantize");
    const float scale = (hi == lo ? 1.0f : hi - lo) / 255.0f;
    const float zp = std::nearbyint(std::fmin(255.0f, std::fmax(0.0f, 0.0f - lo / scale)));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor aq, Tensor::Allocate(DataType::kUint8, a.shape()));
    QuantizeU8F32(a.data<float>(), n, scale, zp, aq.mutable_data<uint8_t>());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor a_zp, Tensor::Allocate(DataType::kUint8, Shape()));
    a_zp.mutable_data<uint8_t>()[0] = static_cast<uint8_t>(zp);
    return IntegerProductsToFloat(ctx, aq, &a_zp, *ctx.input(1), b_zp, scale, *ctx.input(2), bias,
                                  &packed_);
  }

 private:
  PackedIntegerB packed_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, DynamicQuantizeMatMul) {
  const std::vector<DataType> q = {DataType::kUint8, DataType::kInt8};
  return r.Register(MsDef(
      "DynamicQuantizeMatMul", {{"T1", {0, 2, 4}, {0}, {DataType::kFloat}}, {"T2", {1, 3}, {}, q}},
      FactoryOf<DynamicQuantizeMatMul>(), {3, 5}, {1, 1}, (1u << 3) | (1u << 4)));
}

}  // namespace onnx_light::kernels
