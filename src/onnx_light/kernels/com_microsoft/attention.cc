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
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/attention_masks.h"
#include "com_microsoft/ms_def.h"
#include "llm/attention_core.h"
#include "math/gemm.h"

namespace onnx_light::kernels {
namespace {

class MsAttention : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<MsAttention>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->heads_, info.GetInt("num_heads"));
    ONNX_LIGHT_RETURN_IF(k->heads_ <= 0, kInvalidModel, "num_heads must be positive");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->causal_, GetFlag(info, "unidirectional", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->filter_, info.GetFloat("mask_filter_value", -10000.0f));
    k->has_scale_ = info.HasAttribute("scale");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->scale_, info.GetFloat("scale", 1.0f));
    if (info.HasAttribute("qkv_hidden_sizes")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->qkv_sizes_, info.GetInts("qkv_hidden_sizes"));
      ONNX_LIGHT_RETURN_IF(k->qkv_sizes_.size() != 3, kInvalidModel,
                           "qkv_hidden_sizes must have 3 values");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(bool rotary, GetFlag(info, "do_rotary", false));
    ONNX_LIGHT_RETURN_IF(rotary, kNotImplemented,
                         "do_rotary is not supported (nor by ORT's CPU kernel)");
    ONNX_LIGHT_ASSIGN_OR_RETURN(bool shared, GetFlag(info, "past_present_share_buffer", false));
    ONNX_LIGHT_RETURN_IF(shared, kNotImplemented, "past_present_share_buffer is not supported");
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& w = *ctx.input(1);
    const Tensor* bias = ctx.input(2);
    ONNX_LIGHT_RETURN_IF(x.shape().rank() != 3, kInvalidArgument,
                         "input " + x.shape().ToString() + " must be [batch, sequence, hidden]");
    const int64_t batch = x.shape()[0], seq = x.shape()[1], din = x.shape()[2];
    ONNX_LIGHT_RETURN_IF(w.shape().rank() != 2 || w.shape()[0] != din, kInvalidArgument,
                         "weights " + w.shape().ToString() + " must be [" + std::to_string(din) +
                             ", q + k + v hidden sizes]");
    const int64_t cols = w.shape()[1];
    int64_t dq = cols / 3, dk = cols / 3, dv = cols / 3;
    if (!qkv_sizes_.empty()) dq = qkv_sizes_[0], dk = qkv_sizes_[1], dv = qkv_sizes_[2];
    ONNX_LIGHT_RETURN_IF(
        dq + dk + dv != cols || dq != dk || dq % heads_ != 0 || dv % heads_ != 0 || dq <= 0,
        kInvalidArgument,
        "weights " + w.shape().ToString() +
            " do not split into Q, K, V of equal Q and K sizes "
            "divisible by " +
            std::to_string(heads_) + " heads");
    ONNX_LIGHT_RETURN_IF(bias != nullptr && (bias->shape().rank() != 1 || bias->shape()[0] != cols),
                         kInvalidArgument, "bias must be [" + std::to_string(cols) + "]");
    const int64_t hs = dq / heads_, vhs = dv / heads_;
    const Tensor* past = ctx.input_count() > 4 ? ctx.input(4) : nullptr;
    int64_t past_len = 0;
    if (past != nullptr) {
      const std::vector<int64_t>& p = past->shape().dims();
      ONNX_LIGHT_RETURN_IF(
          p.size() != 5 || p[0] != 2 || p[1] != batch || p[2] != heads_ || p[4] != hs || hs != vhs,
          kInvalidArgument,
          "past " + past->shape().ToString() + " must be [2, " + std::to_string(batch) + ", " +
              std::to_string(heads_) + ", past, " + std::to_string(hs) +
              "] (and K, V of one head size)");
      past_len = p[3];
    }
    const int64_t total = past_len + seq;
    KeyMask mask;
    if (ctx.input_count() > 3 && ctx.input(3) != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(mask, KeyMask::Read(*ctx.input(3), batch, seq, total, filter_));
    }
    AttentionBias extra;
    if (ctx.input_count() > 5 && ctx.input(5) != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(extra,
                                  AttentionBias::Read(*ctx.input(5), batch, heads_, seq, total));
    }
    ONNX_LIGHT_RETURN_IF(ctx.input_count() > 6 && ctx.input(6) != nullptr, kNotImplemented,
                         "past_sequence_length (buffer sharing) is not supported");

    // The projection: qkv [B * S, cols].
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor qkv,
                                ctx.AllocateTemporary(DataType::kFloat, {batch * seq, cols}));
    float* qp = qkv.mutable_data<float>();
    for (int64_t r = 0; r < batch * seq; ++r) {
      float* row = qp + r * cols;
      if (bias != nullptr) {
        std::copy(bias->data<float>(), bias->data<float>() + cols, row);
      } else {
        std::fill(row, row + cols, 0.0f);
      }
    }
    Gemm2D<float>(x.data<float>(), din, 1, w.data<float>(), cols, 1, qp, batch * seq, cols, din,
                  ctx.thread_pool());

    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {batch, seq, dv}));
    AttentionRun run;
    run.shape = {batch, heads_, heads_, seq, total, hs, vhs};
    run.q = {qp, seq * cols, hs, cols};
    run.y = {y->mutable_data<float>(), seq * dv, vhs, dv};
    // K and V: the projection in place without past or present; else [2, B, N, T, H].
    Tensor present_store;
    Tensor* present = nullptr;
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(present, ctx.AllocateOutput(1, {2, batch, heads_, total, hs}));
    } else if (past != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(
          present_store, ctx.AllocateTemporary(DataType::kFloat, {2, batch, heads_, total, hs}));
      present = &present_store;
    }
    if (present != nullptr) {
      ONNX_LIGHT_RETURN_IF(hs != vhs, kInvalidArgument, "present needs K and V of one head size");
      float* pk = present->mutable_data<float>();
      const int64_t half = batch * heads_ * total * hs;
      for (int64_t kv = 0; kv < 2; ++kv) {
        for (int64_t b = 0; b < batch; ++b) {
          for (int64_t h = 0; h < heads_; ++h) {
            float* dst = pk + kv * half + (b * heads_ + h) * total * hs;
            if (past != nullptr) {
              const float* src = past->data<float>() + kv * batch * heads_ * past_len * hs +
                                 (b * heads_ + h) * past_len * hs;
              std::copy(src, src + past_len * hs, dst);
            }
            for (int64_t s = 0; s < seq; ++s) {
              const float* src = qp + (b * seq + s) * cols + dq + kv * dk + h * hs;
              std::copy(src, src + hs, dst + (past_len + s) * hs);
            }
          }
        }
      }
      run.k = {pk, heads_ * total * hs, total * hs, hs};
      run.v = {pk + half, heads_ * total * hs, total * hs, hs};
    } else {
      run.k = {qp + dq, seq * cols, hs, cols};
      run.v = {qp + dq + dk, seq * cols, vhs, cols};
    }
    run.scale = has_scale_ ? scale_ : static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs)));
    const bool causal = causal_;
    if (mask.present() || extra.present() || causal) {
      run.bias = [&mask, &extra, causal, past_len, total](int64_t b, int64_t h, int64_t i,
                                                          float* row) {
        mask.Add(b, i, row);
        if (causal) {
          for (int64_t j = past_len + i + 1; j < total; ++j)
            row[j] += std::numeric_limits<float>::lowest();
        }
        extra.Add(b, h, i, row);
      };
    }
    RunAttentionF32(run, ctx.thread_pool());
    return Status::Ok();
  }

 private:
  int64_t heads_ = 0;
  bool causal_ = false, has_scale_ = false;
  float filter_ = -10000.0f, scale_ = 1.0f;
  std::vector<int64_t> qkv_sizes_;
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
