// com.microsoft Attention: BERT's and GPT-2's self-attention as ORT's transformer optimizer
// fuses it, with the Q/K/V projection inside. Per ORT's contrib operator documentation and
// its CPU kernel:
//   QKV = input [B, S, D_in] @ weights [D_in, D_q + D_k + D_v] + bias; heads num_heads, head
//   size D_q / N (D_q == D_k; D_v / N for V; qkv_hidden_sizes when they differ);
//   past [2, B, N, P, H] joins K and V in front; present [2, B, N, P + S, H];
//   mask_index (int32): [B] key lengths (right padding), [2B] ends then starts (left
//   padding), [B, P + S] or [B, S, P + S] raw 0/1 masks; masked scores get
//   mask_filter_value (-10000) added; unidirectional masks keys after P + i (the lowest
//   float); attention_bias [B or 1, N or 1, S, P + S] is added; scale 1/sqrt(H) by default.
//   Output [B, S, D_v].
// Not supported, refused with a reason (as ORT's CPU kernel refuses them too): the 4-D
// Megatron mask, the [3B + 2] mask, do_rotary, past_present_share_buffer.
#include <memory>

#include "com_microsoft/attention_qkv.h"
#include "math/gemm.h"
#include "math/packed_weights.h"

namespace onnx_light::kernels {
namespace {

class MsAttention : public QkvAttention {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<MsAttention>();
    ONNX_LIGHT_RETURN_IF_ERROR(k->ReadAttributes(info));
    // Constant projection weights packed once per session (prepack_matmul_weights makes the
    // session's copy packed): packing them at every run was a fifth of BERT-base's layer.
    k->weights_ = PackedWeights::Of(info, 1);
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& w = *ctx.input(1);
    const Tensor* bias = ctx.input(2);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Sizes z, ProjectionSizes(x, w, bias));
    ONNX_LIGHT_RETURN_IF(ctx.input_count() > 6 && ctx.input(6) != nullptr, kNotImplemented,
                         "past_sequence_length (buffer sharing) is not supported");
    // The projection: qkv [B * S, cols].
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor qkv,
                                ctx.AllocateTemporary(DataType::kFloat, {z.batch * z.seq, z.cols}));
    float* qp = qkv.mutable_data<float>();
    for (int64_t r = 0; r < z.batch * z.seq; ++r) {
      float* row = qp + r * z.cols;
      if (bias != nullptr) {
        std::copy(bias->data<float>(), bias->data<float>() + z.cols, row);
      } else {
        std::fill(row, row + z.cols, 0.0f);
      }
    }
    const bool packed =
        PrepackedGemm(x.data<float>(), z.din, weights_.For(z.din, z.cols), qp, z.batch * z.seq,
                      z.cols, z.din, ctx.thread_pool(), /*force=*/weights_.is_view());
    ONNX_LIGHT_RETURN_IF(!packed && weights_.is_view(), kInternal,
                         "packed weights do not match the projection");
    if (!packed) {
      Gemm2D<float>(x.data<float>(), z.din, 1, w.data<float>(), z.cols, 1, qp, z.batch * z.seq,
                    z.cols, z.din, ctx.thread_pool());
    }
    auto in = [&ctx](size_t i) { return ctx.input_count() > i ? ctx.input(i) : nullptr; };
    return Attend(ctx, z, qp, in(4), in(3), in(5));
  }

 private:
  PackedWeights weights_;
};

}  // namespace

// Inputs input, weights, bias?, mask_index?, past?, attention_bias?, past_sequence_length?;
// outputs output, present?.
ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, Attention) {
  return r.Register(MsDef(
      "Attention",
      {{"T", {0, 1, 2, 4, 5}, {0, 1}, {DataType::kFloat}}, {"M", {3, 6}, {}, {DataType::kInt32}}},
      FactoryOf<MsAttention>(), {2, 7}, {1, 2}, 0b1111100, 0b10));
}

}  // namespace onnx_light::kernels
