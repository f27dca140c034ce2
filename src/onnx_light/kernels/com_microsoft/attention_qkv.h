// What com.microsoft Attention and QAttention share: their attributes, the shapes of the
// fused Q/K/V projection, and the attention over its float result (past/present, key
// masks, attention_bias, unidirectional), as ORT's CPU kernels run them
// (com_microsoft/attention.cc has the semantics).
#pragma once

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/attention_masks.h"
#include "com_microsoft/ms_def.h"
#include "llm/attention_core.h"

namespace onnx_light::kernels {

class QkvAttention : public KernelBase {
 protected:
  Status ReadAttributes(const KernelInfo& info) {
    QkvAttention* k = this;
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
    return Status::Ok();
  }

  struct Sizes {
    int64_t batch = 0, seq = 0, din = 0, cols = 0, dq = 0, dk = 0, dv = 0;
  };

  // The input [B, S, D_in] and weights [D_in, cols] split into Q, K, V sizes.
  Result<Sizes> ProjectionSizes(const Tensor& x, const Tensor& w, const Tensor* bias) const {
    Sizes z;
    ONNX_LIGHT_RETURN_IF(x.shape().rank() != 3, kInvalidArgument,
                         "input " + x.shape().ToString() + " must be [batch, sequence, hidden]");
    z.batch = x.shape()[0], z.seq = x.shape()[1], z.din = x.shape()[2];
    ONNX_LIGHT_RETURN_IF(w.shape().rank() != 2 || w.shape()[0] != z.din, kInvalidArgument,
                         "weights " + w.shape().ToString() + " must be [" + std::to_string(z.din) +
                             ", q + k + v hidden sizes]");
    z.cols = w.shape()[1];
    z.dq = z.dk = z.dv = z.cols / 3;
    if (!qkv_sizes_.empty()) z.dq = qkv_sizes_[0], z.dk = qkv_sizes_[1], z.dv = qkv_sizes_[2];
    ONNX_LIGHT_RETURN_IF(z.dq + z.dk + z.dv != z.cols || z.dq != z.dk || z.dq % heads_ != 0 ||
                             z.dv % heads_ != 0 || z.dq <= 0,
                         kInvalidArgument,
                         "weights " + w.shape().ToString() +
                             " do not split into Q, K, V of equal Q and K sizes divisible by " +
                             std::to_string(heads_) + " heads");
    ONNX_LIGHT_RETURN_IF(
        bias != nullptr && (bias->shape().rank() != 1 || bias->shape()[0] != z.cols),
        kInvalidArgument, "bias must be [" + std::to_string(z.cols) + "]");
    return z;
  }

  // Attention over the projection qp [B * S, cols] (Q, K, V side by side), writing output 0
  // and, when asked, present at output 1.
  Status Attend(KernelContext& ctx, const Sizes& z, float* qp, const Tensor* past,
                const Tensor* mask_t, const Tensor* bias_t) const {
    const int64_t batch = z.batch, seq = z.seq, cols = z.cols, dq = z.dq, dk = z.dk, dv = z.dv;
    const int64_t hs = dq / heads_, vhs = dv / heads_;
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
    if (mask_t != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(mask, KeyMask::Read(*mask_t, batch, seq, total, filter_));
    }
    AttentionBias extra;
    if (bias_t != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(extra, AttentionBias::Read(*bias_t, batch, heads_, seq, total));
    }
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
    run.bias = MaskCausalBias(mask, extra, causal_, past_len, total);
    RunAttentionF32(run, ctx.thread_pool());
    return Status::Ok();
  }

  int64_t heads_ = 0;
  bool causal_ = false, has_scale_ = false;
  float filter_ = -10000.0f, scale_ = 1.0f;
  std::vector<int64_t> qkv_sizes_;
};

}  // namespace onnx_light::kernels
