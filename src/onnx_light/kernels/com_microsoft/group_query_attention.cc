// com.microsoft GroupQueryAttention (the GenAI model builder and the transformer optimizer
// write it for Llama/Phi/Mistral/Qwen decoders): causal attention with fewer KV heads than
// query heads and a KV cache, as ORT's CPU kernel runs it.
//   query [B, S, N*H] with key and value [B, S, KV*H], or packed [B, S, (N + 2 KV) * H];
//   past_key/past_value [B, KV, P, H] (optional); seqlens_k [B] int32 (each batch's total
//   length - 1); total_sequence_length (int32, one value); cos_cache/sin_cache
//   [max_position, rotary_dim / 2] with do_rotary; position_ids [B, S] (optional, else each
//   token's position is past_b + s); head_sink [N] (optional).
//   present_key/present_value [B, KV, max(total, P), H]: past_b = total_b - S cached keys
//   (0 for the prompt, S == total) then the S new ones, zeros after.
//   Query i of batch b sees keys [max(0, L - local_window_size), L), L = past_b + i + 1
//   (and at most total_b: right padding of a prompt); scores scaled (scale, default
//   1/sqrt(H)), soft-capped (softcap), softmax with a sink logit (head_sink, or 0 with
//   smooth_softmax).
// Refused (NOT_IMPLEMENTED): attention_bias, k_scale/v_scale (quantized caches),
// q_norm_weight/k_norm_weight, qk_output, sliding_window_cache, causal = 0.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/ms_def.h"
#include "llm/attention_core.h"
#include "llm/rotary.h"

namespace onnx_light::kernels {
namespace {

class GroupQueryAttention : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<GroupQueryAttention>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->heads_, info.GetInt("num_heads"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->kv_heads_, info.GetInt("kv_num_heads"));
    ONNX_LIGHT_RETURN_IF(
        k->heads_ < 1 || k->kv_heads_ < 1 || k->heads_ % k->kv_heads_ != 0, kInvalidModel,
        "num_heads must be a positive multiple of kv_num_heads (got " + std::to_string(k->heads_) +
            " and " + std::to_string(k->kv_heads_) + ")");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->scale_, info.GetFloat("scale", 0.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->softcap_, info.GetFloat("softcap", 0.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->window_, info.GetInt("local_window_size", -1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->rotary_, GetFlag(info, "do_rotary", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->interleaved_, GetFlag(info, "rotary_interleaved", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->smooth_, GetFlag(info, "smooth_softmax", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(bool causal, GetFlag(info, "causal", true));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t qk_output, info.GetInt("qk_output", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t sliding, info.GetInt("sliding_window_cache", 0));
    ONNX_LIGHT_RETURN_IF(!causal || qk_output != 0 || sliding != 0, kNotImplemented,
                         "causal = 0, qk_output and sliding_window_cache are not supported");
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& query = *ctx.input(0);
    const Tensor* key = OptionalInput(ctx, 1);
    const Tensor* value = OptionalInput(ctx, 2);
    const Tensor* past_k = OptionalInput(ctx, 3);
    const Tensor* past_v = OptionalInput(ctx, 4);
    const Tensor& seqlens = *ctx.input(5);
    const Tensor& total_t = *ctx.input(6);
    const Tensor* cos_t = OptionalInput(ctx, 7);
    const Tensor* sin_t = OptionalInput(ctx, 8);
    const Tensor* pos_ids = OptionalInput(ctx, 9);
    const Tensor* sink_t = OptionalInput(ctx, 11);
    for (size_t i : {10, 12, 13, 14, 15}) {
      ONNX_LIGHT_RETURN_IF(OptionalInput(ctx, i) != nullptr, kNotImplemented,
                           "input " + std::to_string(i) +
                               " (attention_bias, k_scale, v_scale, q_norm_weight or "
                               "k_norm_weight) is not supported");
    }
    const std::vector<int64_t>& qd = query.shape().dims();
    ONNX_LIGHT_RETURN_IF(qd.size() != 3, kInvalidArgument,
                         "query " + query.shape().ToString() + " must be [batch, seq, hidden]");
    const int64_t batch = qd[0], seq = qd[1];
    const bool packed = key == nullptr;
    ONNX_LIGHT_RETURN_IF((key == nullptr) != (value == nullptr), kInvalidArgument,
                         "key and value come together (or neither: packed QKV)");
    const int64_t width = packed ? heads_ + 2 * kv_heads_ : heads_;
    ONNX_LIGHT_RETURN_IF(qd[2] % width != 0, kInvalidArgument,
                         "query's hidden size " + std::to_string(qd[2]) + " is not a multiple of " +
                             std::to_string(width) + " heads");
    const int64_t hs = qd[2] / width;
    if (!packed) {
      for (const Tensor* t : {key, value}) {
        ONNX_LIGHT_RETURN_IF(
            (t->shape().dims() != std::vector<int64_t>{batch, seq, kv_heads_ * hs}),
            kInvalidArgument,
            "key and value " + t->shape().ToString() + " must be [" + std::to_string(batch) + ", " +
                std::to_string(seq) + ", " + std::to_string(kv_heads_ * hs) + "]");
      }
    }
    int64_t past_len = 0;
    ONNX_LIGHT_RETURN_IF((past_k == nullptr) != (past_v == nullptr), kInvalidArgument,
                         "past_key and past_value come together");
    if (past_k != nullptr) {
      const std::vector<int64_t>& pd = past_k->shape().dims();
      ONNX_LIGHT_RETURN_IF(pd.size() != 4 || pd[0] != batch || pd[1] != kv_heads_ || pd[3] != hs ||
                               past_v->shape() != past_k->shape(),
                           kInvalidArgument,
                           "past_key and past_value " + past_k->shape().ToString() +
                               " must be [batch, kv_num_heads, past, head_size]");
      past_len = pd[2];
    }
    ONNX_LIGHT_RETURN_IF(seqlens.num_elements() != batch || total_t.num_elements() != 1,
                         kInvalidArgument,
                         "seqlens_k must be [batch] and total_sequence_length one value");
    const int64_t total = total_t.data<int32_t>()[0];
    const int64_t present = std::max(total, past_len);
    const bool prompt = seq == total;
    ONNX_LIGHT_RETURN_IF(!prompt && seq > 1 && batch != 1, kInvalidArgument,
                         "a continued prompt (1 < sequence length != total_sequence_length) "
                         "needs batch 1");
    std::vector<int64_t> past_b(static_cast<size_t>(batch)), total_b(past_b.size());
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t t = int64_t{seqlens.data<int32_t>()[b]} + 1;
      const int64_t p = prompt ? 0 : t - seq;
      ONNX_LIGHT_RETURN_IF(t < 1 || t > present || p < 0 || p > past_len || p + seq > present,
                           kInvalidArgument,
                           "seqlens_k[" + std::to_string(b) + "] = " + std::to_string(t - 1) +
                               " does not fit sequence length " + std::to_string(seq) + ", past " +
                               std::to_string(past_len) + " and total " + std::to_string(total));
      past_b[static_cast<size_t>(b)] = p;
      total_b[static_cast<size_t>(b)] = t;
    }
    const int64_t stride = qd[2];  // of a (b, s) row of query
    const float* qp = query.data<float>();
    // Q and the new keys as [B, S, heads, H], rotated when asked.
    std::vector<float> q(static_cast<size_t>(batch * seq * heads_ * hs));
    std::vector<float> k_new(static_cast<size_t>(batch * seq * kv_heads_ * hs));
    std::vector<float> v_new(k_new.size());
    for (int64_t r = 0; r < batch * seq; ++r) {
      const float* row = qp + r * stride;
      std::copy(row, row + heads_ * hs, q.data() + r * heads_ * hs);
      const float* kr = packed ? row + heads_ * hs : key->data<float>() + r * kv_heads_ * hs;
      const float* vr =
          packed ? row + (heads_ + kv_heads_) * hs : value->data<float>() + r * kv_heads_ * hs;
      std::copy(kr, kr + kv_heads_ * hs, k_new.data() + r * kv_heads_ * hs);
      std::copy(vr, vr + kv_heads_ * hs, v_new.data() + r * kv_heads_ * hs);
    }
    if (rotary_) {
      ONNX_LIGHT_RETURN_IF_ERROR(
          Rotate(cos_t, sin_t, pos_ids, past_b, total_b, batch, seq, hs, &q, &k_new));
    }
    // The present caches: past_b cached rows, then the new ones, zeros after.
    const std::vector<int64_t> pdims = {batch, kv_heads_, present, hs};
    Tensor* present_k = nullptr;
    Tensor* present_v = nullptr;
    Tensor own_k, own_v;
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(present_k, ctx.AllocateOutput(1, pdims));
    }
    if (ctx.output_count() > 2) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(present_v, ctx.AllocateOutput(2, pdims));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape pshape, Shape::Create(pdims));
    if (present_k == nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(own_k, Tensor::Allocate(DataType::kFloat, pshape));
      present_k = &own_k;
    }
    if (present_v == nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(own_v, Tensor::Allocate(DataType::kFloat, pshape));
      present_v = &own_v;
    }
    for (auto [dst, past, fresh] :
         {std::make_tuple(present_k, past_k, &k_new), std::make_tuple(present_v, past_v, &v_new)}) {
      FillPresent(dst, past, *fresh, past_b, batch, seq, hs, past_len, present);
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {batch, seq, heads_ * hs}));
    std::vector<float> sinks;
    if (sink_t != nullptr) {
      ONNX_LIGHT_RETURN_IF(sink_t->num_elements() != heads_ || sink_t->dtype() != DataType::kFloat,
                           kInvalidArgument, "head_sink must be float [num_heads]");
      sinks.assign(sink_t->data<float>(), sink_t->data<float>() + heads_);
    } else if (smooth_) {
      sinks.assign(static_cast<size_t>(heads_), 0.0f);
    }
    AttentionRun run;
    run.shape = {batch, heads_, kv_heads_, seq, present, hs, hs};
    run.q = {q.data(), seq * heads_ * hs, hs, heads_ * hs};
    run.k = {present_k->data<float>(), kv_heads_ * present * hs, present * hs, hs};
    run.v = {present_v->data<float>(), kv_heads_ * present * hs, present * hs, hs};
    run.y = {y->mutable_data<float>(), seq * heads_ * hs, hs, heads_ * hs};
    run.scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(static_cast<float>(hs));
    run.softcap = softcap_;
    run.sink = sinks.empty() ? nullptr : sinks.data();
    const int64_t window = window_;
    run.bias = [&past_b, &total_b, window, present](int64_t b, int64_t, int64_t i, float* row) {
      const int64_t end =
          std::min(past_b[static_cast<size_t>(b)] + i + 1, total_b[static_cast<size_t>(b)]);
      const int64_t begin = window > 0 && end > window ? end - window : 0;
      const float neg_inf = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < begin; ++j)
        row[j] = neg_inf;
      for (int64_t j = end; j < present; ++j)
        row[j] = neg_inf;
    };
    RunAttentionF32(run, ctx.thread_pool());
    return Status::Ok();
  }

 private:
  // Q's and the new keys' heads rotated by the cos/sin cache rows of their positions
  // (position_ids, or past + s: padding rows take position 1, as ORT).
  Status Rotate(const Tensor* cos_t, const Tensor* sin_t, const Tensor* pos_ids,
                const std::vector<int64_t>& past_b, const std::vector<int64_t>& total_b,
                int64_t batch, int64_t seq, int64_t hs, std::vector<float>* q,
                std::vector<float>* k_new) const {
    ONNX_LIGHT_RETURN_IF(cos_t == nullptr || sin_t == nullptr, kInvalidArgument,
                         "do_rotary needs cos_cache and sin_cache");
    ONNX_LIGHT_RETURN_IF(cos_t->shape().rank() != 2 || sin_t->shape() != cos_t->shape() ||
                             2 * cos_t->shape()[1] > hs,
                         kInvalidArgument,
                         "cos_cache and sin_cache must be [max_position, <= head_size / 2]");
    const int64_t rot = 2 * cos_t->shape()[1], rows = cos_t->shape()[0];
    std::vector<int64_t> positions(static_cast<size_t>(batch * seq));
    if (pos_ids != nullptr) {
      ONNX_LIGHT_RETURN_IF(pos_ids->num_elements() != batch * seq, kInvalidArgument,
                           "position_ids must be [batch, seq]");
      positions = IndexValues(*pos_ids);
    } else {
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t s = 0; s < seq; ++s) {
          const int64_t p = past_b[static_cast<size_t>(b)] + s;
          positions[static_cast<size_t>(b * seq + s)] =
              p < total_b[static_cast<size_t>(b)] ? p : 1;  // padding: as ORT
        }
      }
    }
    for (int64_t r = 0; r < batch * seq; ++r) {
      const int64_t p = positions[static_cast<size_t>(r)];
      ONNX_LIGHT_RETURN_IF(p < 0 || p >= rows, kInvalidArgument,
                           "position " + std::to_string(p) + " is outside the cos/sin cache of " +
                               std::to_string(rows));
      const float* c = cos_t->data<float>() + p * (rot / 2);
      const float* sn = sin_t->data<float>() + p * (rot / 2);
      for (int64_t h = 0; h < heads_; ++h) {
        float* x = q->data() + (r * heads_ + h) * hs;
        RotateHead(x, x, c, sn, rot, hs, interleaved_);
      }
      for (int64_t h = 0; h < kv_heads_; ++h) {
        float* x = k_new->data() + (r * kv_heads_ + h) * hs;
        RotateHead(x, x, c, sn, rot, hs, interleaved_);
      }
    }
    return Status::Ok();
  }

  // A present cache: past_b cached rows of each (batch, kv head), then the new ones, zeros
  // after.
  void FillPresent(Tensor* dst, const Tensor* past, const std::vector<float>& fresh,
                   const std::vector<int64_t>& past_b, int64_t batch, int64_t seq, int64_t hs,
                   int64_t past_len, int64_t present) const {
    float* d = dst->mutable_data<float>();
    std::fill(d, d + dst->num_elements(), 0.0f);
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t pb = past_b[static_cast<size_t>(b)];
      for (int64_t h = 0; h < kv_heads_; ++h) {
        float* head = d + ((b * kv_heads_ + h) * present) * hs;
        if (pb > 0) {
          const float* src = past->data<float>() + ((b * kv_heads_ + h) * past_len) * hs;
          std::copy(src, src + pb * hs, head);
        }
        for (int64_t s = 0; s < seq; ++s) {
          const float* src = fresh.data() + ((b * seq + s) * kv_heads_ + h) * hs;
          std::copy(src, src + hs, head + (pb + s) * hs);
        }
      }
    }
  }

  int64_t heads_ = 0, kv_heads_ = 0, window_ = -1;
  float scale_ = 0.0f, softcap_ = 0.0f;
  bool rotary_ = false, interleaved_ = false, smooth_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, GroupQueryAttention) {
  return r.Register(MsDef("GroupQueryAttention",
                          {{"T", {0, 1, 2, 3, 4, 7, 8}, {0, 1, 2}, {DataType::kFloat}},
                           {"M", {5, 6}, {}, {DataType::kInt32}}},
                          FactoryOf<GroupQueryAttention>(), {7, 16}, {1, 4}, 0b1111111110011110u,
                          0b1110u));
}

}  // namespace onnx_light::kernels
