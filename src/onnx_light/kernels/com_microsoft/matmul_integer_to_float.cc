// com.microsoft MatMulIntegerToFloat (ORT's saved graphs fuse MatMulInteger -> Cast -> Mul
// (-> Add) into it; the dynamic quantizer's models carry it): inputs A, B, a_scale,
// b_scale, a_zero_point (optional), b_zero_point (optional), bias (optional); Y =
// float((A - a_zp) @ (B - b_zp)) * (a_scale * b_scale) + bias, b_scale and bias one value or
// one per column. Exact products, one float rounding for the scale and one for the bias.
#include <memory>

#include "com_microsoft/integer_to_float.h"

namespace onnx_light::kernels {
namespace {

class MatMulIntegerToFloat : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<MatMulIntegerToFloat>();
    k->packed_ = PackConstantB(info);
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a_scale = *ctx.input(2);
    ONNX_LIGHT_RETURN_IF(a_scale.num_elements() != 1 || a_scale.shape().rank() > 1,
                         kInvalidArgument, "a_scale must be one value (a scalar or [1])");
    const Tensor* a_zp = ctx.input_count() > 4 ? ctx.input(4) : nullptr;
    const Tensor* b_zp = ctx.input_count() > 5 ? ctx.input(5) : nullptr;
    const Tensor* bias = ctx.input_count() > 6 ? ctx.input(6) : nullptr;
    ONNX_LIGHT_RETURN_IF(a_zp != nullptr && a_zp->num_elements() != 1, kInvalidArgument,
                         "a_zero_point must be one value");
    return IntegerProductsToFloat(ctx, *ctx.input(0), a_zp, *ctx.input(1), b_zp,
                                  a_scale.data<float>()[0], *ctx.input(3), bias, &packed_);
  }

 private:
  PackedIntegerB packed_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, MatMulIntegerToFloat) {
  const std::vector<DataType> q = {DataType::kUint8, DataType::kInt8};
  return r.Register(MsDef(
      "MatMulIntegerToFloat",
      {{"T1", {0, 4}, {}, q}, {"T2", {1, 5}, {}, q}, {"T3", {2, 3, 6}, {0}, {DataType::kFloat}}},
      FactoryOf<MatMulIntegerToFloat>(), {4, 7}, {1, 1}, (1u << 4) | (1u << 5) | (1u << 6)));
}

}  // namespace onnx_light::kernels
