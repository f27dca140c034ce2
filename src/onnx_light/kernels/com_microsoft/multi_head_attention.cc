// com.microsoft MultiHeadAttention: attention after the projections (the optimizer's
// fusion for BART/T5/CLIP/SAM cross and self attention, and LLM exports), per ORT's contrib
// documentation and CPU kernel. Inputs, in the layouts ORT's CPU kernel takes:
//   query [B, S, D] with key [B, L, D] and value [B, L, Dv] (bias [D + D + Dv] added to
//   each), or with key and value already per head [B, N, L, H] (cross attention reusing
//   them; bias then only for Q), or query alone as packed QKV [B, S, N, 3, H];
//   key_padding_mask (int32) [B] lengths, [B, T] or [B, S, T] 0/1 (masked scores get
//   mask_filter_value, -10000, added); attention_bias [B or 1, N or 1, S, T];
//   past_key / past_value [B, N, P, H] in front of K and V; unidirectional masks keys after
//   P + i. Outputs: output [B, S, Dv], present_key / present_value [B, N, P + L, H].
// Refused: packed KV, past_sequence_length and cache_indirection (buffer sharing, beam
// search) and the qk output.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/attention_masks.h"
#include "com_microsoft/ms_def.h"
#include "llm/attention_core.h"

namespace onnx_light::kernels {
namespace {

// K or V of the current step: a [B, N, L, size] view of its input (or of the staged copy
// with the bias added).
struct Current {
  HeadView view;
  int64_t len = 0, size = 0;
};

class MultiHeadAttention : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<MultiHeadAttention>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->heads_, info.GetInt("num_heads"));
    ONNX_LIGHT_RETURN_IF(k->heads_ <= 0, kInvalidModel, "num_heads must be positive");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->causal_, GetFlag(info, "unidirectional", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->filter_, info.GetFloat("mask_filter_value", -10000.0f));
    k->has_scale_ = info.HasAttribute("scale");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->scale_, info.GetFloat("scale", 1.0f));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& q = *ctx.input(0);
    const Tensor* key = OptionalInput(ctx, 1);
    const Tensor* value = OptionalInput(ctx, 2);
    const Tensor* bias = OptionalInput(ctx, 3);
    const Tensor* past_k = OptionalInput(ctx, 6);
    const Tensor* past_v = OptionalInput(ctx, 7);
    ONNX_LIGHT_RETURN_IF(OptionalInput(ctx, 8) != nullptr || OptionalInput(ctx, 9) != nullptr,
                         kNotImplemented,
                         "past_sequence_length and cache_indirection (buffer sharing, beam "
                         "search) are not supported");
    ONNX_LIGHT_RETURN_IF(ctx.output_count() > 3, kNotImplemented, "the qk output is not supported");
    ONNX_LIGHT_RETURN_IF((past_k == nullptr) != (past_v == nullptr), kInvalidArgument,
                         "past_key and past_value come together");
    const int64_t n = heads_;
    const std::vector<int64_t>& qd = q.shape().dims();
    Tensor staged;  // Q (and K, V) with the bias added, [B, S or L, D] each
    HeadView qv;
    Current kc, vc;
    int64_t batch = 0, seq = 0, hs = 0;
    if (qd.size() == 5) {  // packed QKV [B, S, N, 3, H]
      ONNX_LIGHT_RETURN_IF(key != nullptr || value != nullptr || qd[2] != n || qd[3] != 3,
                           kInvalidArgument,
                           "packed QKV " + q.shape().ToString() + " must be [batch, seq, " +
                               std::to_string(n) + ", 3, head_size] with no key or value");
      batch = qd[0], seq = qd[1], hs = qd[4];
      const int64_t row = n * 3 * hs;
      const float* base = q.data<float>();
      if (bias != nullptr) {
        ONNX_LIGHT_RETURN_IF(bias->num_elements() != 3 * n * hs, kInvalidArgument,
                             "bias must have " + std::to_string(3 * n * hs) + " values");
        ONNX_LIGHT_ASSIGN_OR_RETURN(staged, ctx.AllocateTemporary(DataType::kFloat, qd));
        float* s = staged.mutable_data<float>();
        const float* bp = bias->data<float>();
        for (int64_t r = 0; r < batch * seq; ++r)
          for (int64_t h = 0; h < n; ++h)
            for (int64_t t = 0; t < 3; ++t)
              for (int64_t e = 0; e < hs; ++e)
                s[r * row + (h * 3 + t) * hs + e] =
                    base[r * row + (h * 3 + t) * hs + e] + bp[t * n * hs + h * hs + e];
        base = s;
      }
      qv = {base, seq * row, 3 * hs, row};
      kc = {{base + hs, seq * row, 3 * hs, row}, seq, hs};
      vc = {{base + 2 * hs, seq * row, 3 * hs, row}, seq, hs};
    } else {
      ONNX_LIGHT_RETURN_IF(qd.size() != 3 || key == nullptr || value == nullptr, kInvalidArgument,
                           "query " + q.shape().ToString() +
                               " must be [batch, seq, hidden] with key and value, or packed "
                               "QKV [batch, seq, heads, 3, head_size]");
      ONNX_LIGHT_RETURN_IF(qd[2] % n != 0, kInvalidArgument,
                           "query hidden size " + std::to_string(qd[2]) + " is not a multiple of " +
                               std::to_string(n) + " heads");
      batch = qd[0], seq = qd[1], hs = qd[2] / n;
      ONNX_LIGHT_RETURN_IF_ERROR(
          ReadKeyValue(ctx, *key, *value, bias, batch, seq, hs, &staged, &qv, &kc, &vc));
    }
    const int64_t vhs = vc.size;
    int64_t past = 0;
    if (past_k != nullptr) {
      past = past_k->shape().rank() == 4 ? past_k->shape()[2] : -1;
      const std::vector<int64_t> want_k = {batch, n, past, hs}, want_v = {batch, n, past, vhs};
      ONNX_LIGHT_RETURN_IF(past_k->shape().dims() != want_k || past_v->shape().dims() != want_v ||
                               key == nullptr || key->shape().rank() != 3,
                           kInvalidArgument,
                           "past_key " + past_k->shape().ToString() + " / past_value " +
                               past_v->shape().ToString() + " must be [" + std::to_string(batch) +
                               ", " + std::to_string(n) +
                               ", past, head_size], with 3-D key and value");
    }
    const int64_t total = past + kc.len;
    KeyMask mask;
    if (OptionalInput(ctx, 4) != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(
          mask, KeyMask::Read(*OptionalInput(ctx, 4), batch, seq, total, filter_));
    }
    AttentionBias extra;
    if (OptionalInput(ctx, 5) != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(
          extra, AttentionBias::Read(*OptionalInput(ctx, 5), batch, n, seq, total));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {batch, seq, n * vhs}));
    AttentionRun run;
    run.shape = {batch, n, n, seq, total, hs, vhs};
    run.q = qv;
    run.y = {y->mutable_data<float>(), seq * n * vhs, vhs, n * vhs};
    run.k = kc.view;
    run.v = vc.view;
    // With a past or a present output, K and V are joined into [B, N, T, size].
    Tensor joined[2];
    const Current* cur[2] = {&kc, &vc};
    const Tensor* pasts[2] = {past_k, past_v};
    for (size_t t = 0; t < 2; ++t) {
      if (past_k == nullptr && ctx.output_count() <= t + 1) continue;
      const int64_t size = cur[t]->size;
      Tensor* dst_t = nullptr;
      if (ctx.output_count() > t + 1) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(dst_t, ctx.AllocateOutput(t + 1, {batch, n, total, size}));
      } else {
        ONNX_LIGHT_ASSIGN_OR_RETURN(
            joined[t], ctx.AllocateTemporary(DataType::kFloat, {batch, n, total, size}));
        dst_t = &joined[t];
      }
      float* dst = dst_t->mutable_data<float>();
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t h = 0; h < n; ++h) {
          float* out = dst + (b * n + h) * total * size;
          if (pasts[t] != nullptr) {
            const float* p = pasts[t]->data<float>() + (b * n + h) * past * size;
            std::copy(p, p + past * size, out);
          }
          const HeadView& cv = cur[t]->view;
          for (int64_t s = 0; s < cur[t]->len; ++s) {
            const float* src = cv.data + b * cv.sb + h * cv.sh + s * cv.ss;
            std::copy(src, src + size, out + (past + s) * size);
          }
        }
      }
      (t == 0 ? run.k : run.v) = {dst, n * total * size, total * size, size};
    }
    run.scale = has_scale_ ? scale_ : static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs)));
    run.bias = MaskCausalBias(mask, extra, causal_, past, total);
    RunAttentionF32(run, ctx.thread_pool());
    return Status::Ok();
  }

 private:
  // key/value 3-D [B, L, D] (bias added to Q, K and V: staged) or 4-D [B, N, L, H] (bias
  // added to Q only).
  Status ReadKeyValue(const KernelContext& ctx, const Tensor& key, const Tensor& value,
                      const Tensor* bias, int64_t batch, int64_t seq, int64_t hs, Tensor* staged,
                      HeadView* qv, Current* kc, Current* vc) const {
    const int64_t n = heads_, d = n * hs;
    const Tensor& q = *ctx.input(0);
    const std::vector<int64_t>& kd = key.shape().dims();
    const std::vector<int64_t>& vd = value.shape().dims();
    const bool per_head = kd.size() == 4;
    ONNX_LIGHT_RETURN_IF(kd.size() == 5, kNotImplemented, "packed KV is not supported");
    if (per_head) {
      ONNX_LIGHT_RETURN_IF(kd[0] != batch || kd[1] != n || kd[3] != hs || vd.size() != 4 ||
                               vd[0] != batch || vd[1] != n || vd[2] != kd[2],
                           kInvalidArgument,
                           "key " + key.shape().ToString() + " / value " +
                               value.shape().ToString() + " must be [" + std::to_string(batch) +
                               ", " + std::to_string(n) + ", kv_seq, head_size]");
    } else {
      ONNX_LIGHT_RETURN_IF(kd.size() != 3 || kd[0] != batch || kd[2] != d || vd.size() != 3 ||
                               vd[0] != batch || vd[1] != kd[1] || vd[2] % n != 0,
                           kInvalidArgument,
                           "key " + key.shape().ToString() + " / value " +
                               value.shape().ToString() + " must be [" + std::to_string(batch) +
                               ", kv_seq, " + std::to_string(d) + "] and [" +
                               std::to_string(batch) + ", kv_seq, heads * v_head_size]");
    }
    const int64_t len = per_head ? kd[2] : kd[1];
    const int64_t dv = per_head ? n * vd[3] : vd[2];
    const int64_t vhs = dv / n;
    if (bias == nullptr) {
      *qv = {q.data<float>(), seq * d, hs, d};
      *kc = per_head ? Current{{key.data<float>(), n * len * hs, len * hs, hs}, len, hs}
                     : Current{{key.data<float>(), len * d, hs, d}, len, hs};
      *vc = per_head ? Current{{value.data<float>(), n * len * vhs, len * vhs, vhs}, len, vhs}
                     : Current{{value.data<float>(), len * dv, vhs, dv}, len, vhs};
      return Status::Ok();
    }
    ONNX_LIGHT_RETURN_IF(
        bias->shape().rank() != 1 || bias->num_elements() != 2 * d + dv, kInvalidArgument,
        "bias " + bias->shape().ToString() + " must be [" + std::to_string(2 * d + dv) + "]");
    // Staged: Q + bq [B*S, D], then K + bk [B*L, D], V + bv [B*L, Dv] (3-D key and value).
    const int64_t q_size = batch * seq * d;
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        *staged, ctx.AllocateTemporary(DataType::kFloat,
                                       {q_size + (per_head ? 0 : batch * len * (d + dv))}));
    float* s = staged->mutable_data<float>();
    const float* bp = bias->data<float>();
    auto add = [](const float* src, const float* b, float* dst, int64_t rows, int64_t cols) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          dst[r * cols + c] = src[r * cols + c] + b[c];
    };
    add(q.data<float>(), bp, s, batch * seq, d);
    *qv = {s, seq * d, hs, d};
    if (per_head) {
      *kc = {{key.data<float>(), n * len * hs, len * hs, hs}, len, hs};
      *vc = {{value.data<float>(), n * len * vhs, len * vhs, vhs}, len, vhs};
      return Status::Ok();
    }
    float* ks = s + q_size;
    float* vs = ks + batch * len * d;
    add(key.data<float>(), bp + d, ks, batch * len, d);
    add(value.data<float>(), bp + 2 * d, vs, batch * len, dv);
    *kc = {{ks, len * d, hs, d}, len, hs};
    *vc = {{vs, len * dv, vhs, dv}, len, vhs};
    return Status::Ok();
  }

  int64_t heads_ = 0;
  bool causal_ = false, has_scale_ = false;
  float filter_ = -10000.0f, scale_ = 1.0f;
};

}  // namespace

// Inputs query, key?, value?, bias?, key_padding_mask?, attention_bias?, past_key?,
// past_value?, past_sequence_length?, cache_indirection?; outputs output, present_key?,
// present_value?, qk?.
ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, MultiHeadAttention) {
  return r.Register(MsDef("MultiHeadAttention",
                          {{"T", {0, 1, 2, 3, 5, 6, 7}, {0, 1, 2, 3}, {DataType::kFloat}},
                           {"M", {4, 8, 9}, {}, {DataType::kInt32}}},
                          FactoryOf<MultiHeadAttention>(), {1, 10}, {1, 4}, 0b1111111110, 0b1110));
}

}  // namespace onnx_light::kernels
