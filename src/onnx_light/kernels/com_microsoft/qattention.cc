// com.microsoft QAttention (ORT's dynamic quantizer writes it for a fused Attention): the
// Q/K/V projection in integers, then com.microsoft Attention (attention_qkv.h). Inputs
// input (8-bit, [B, S, D_in]), weight (8-bit, [D_in, cols]), bias (float [cols]),
// input_scale (float, one value), weight_scale (float, one value or one per column),
// mask_index (optional), input_zero_point, weight_zero_point (optional: one value, or one
// per column for the weights), past (optional); outputs output, present (optional).
// QKV = float((input - izp) @ (weight - wzp)) * (input_scale * weight_scale) + bias: exact
// products, as ORT's MLAS output processor scales them.
#include <memory>

#include "com_microsoft/attention_qkv.h"
#include "com_microsoft/integer_to_float.h"

namespace onnx_light::kernels {
namespace {

class QAttention : public QkvAttention {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QAttention>();
    ONNX_LIGHT_RETURN_IF_ERROR(k->ReadAttributes(info));
    k->packed_ = PackConstantB(info);
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    auto in = [&ctx](size_t i) { return ctx.input_count() > i ? ctx.input(i) : nullptr; };
    const Tensor& x = *ctx.input(0);
    const Tensor& w = *ctx.input(1);
    const Tensor& bias = *ctx.input(2);
    const Tensor& x_scale = *ctx.input(3);
    const Tensor& w_scale = *ctx.input(4);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Sizes z, ProjectionSizes(x, w, &bias));
    ONNX_LIGHT_RETURN_IF(x_scale.num_elements() != 1, kInvalidArgument,
                         "input_scale must be one value");
    ONNX_LIGHT_RETURN_IF_ERROR(CheckPerColumn(&w_scale, z.cols, "weight_scale"));
    const Tensor* x_zp = in(6);
    const Tensor* w_zp = in(7);
    ONNX_LIGHT_RETURN_IF(x_zp != nullptr && x_zp->num_elements() != 1, kInvalidArgument,
                         "input_zero_point must be one value");
    ONNX_LIGHT_RETURN_IF(
        w_zp != nullptr && w_zp->num_elements() != 1 && w_zp->num_elements() != z.cols,
        kInvalidArgument, "weight_zero_point must be one value or one per column");
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor qkv,
                                ctx.AllocateTemporary(DataType::kFloat, {z.batch, z.seq, z.cols}));
    auto output = [&qkv](const std::vector<int64_t>&) -> Result<int32_t*> {
      return reinterpret_cast<int32_t*>(qkv.mutable_data<float>());
    };
    ONNX_LIGHT_RETURN_IF_ERROR(
        IntegerMatMul(x, x_zp, w, w_zp, ctx.thread_pool(), output, &packed_.vnni, &packed_.i16)
            .status());
    std::vector<float> scale(static_cast<size_t>(w_scale.num_elements()));
    for (size_t j = 0; j < scale.size(); ++j)
      scale[j] = x_scale.data<float>()[0] * w_scale.data<float>()[j];
    ScaleProductsInPlace(&qkv, z.cols, scale, bias.data<float>(), bias.num_elements());
    return Attend(ctx, z, qkv.mutable_data<float>(), in(8), in(5), nullptr);
  }

 private:
  PackedIntegerB packed_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QAttention) {
  const std::vector<DataType> q = {DataType::kUint8, DataType::kInt8};
  return r.Register(MsDef("QAttention",
                          {{"T1", {0, 6}, {}, q},
                           {"T2", {1, 7}, {}, q},
                           {"T3", {2, 3, 4, 8}, {0, 1}, {DataType::kFloat}},
                           {"M", {5}, {}, {DataType::kInt32}}},
                          FactoryOf<QAttention>(), {5, 9}, {1, 2},
                          (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8), 1u << 1));
}

}  // namespace onnx_light::kernels
