// com.microsoft GroupQueryAttention (the GenAI model builder and the transformer optimizer
// write it for Llama/Phi/Mistral/Qwen/Gemma decoders): attention with fewer KV heads than
// query heads and a KV cache, as ORT's CPU kernel runs it.
//   query [B, S, N*H] with key and value [B, S, KV*H], or packed [B, S, (N + 2 KV) * H];
//   past_key/past_value [B, KV, P, H] (optional); seqlens_k [B] int32 (each batch's total
//   length - 1); total_sequence_length (int32, one value); cos_cache/sin_cache
//   [max_position, rotary_dim / 2] with do_rotary; position_ids [B, S] (optional, else each
//   token's position is past_b + s); attention_bias [1 or B, 1 or N, S, total] (optional,
//   added after the softcap); head_sink [N] (optional).
//   present_key/present_value [B, KV, max(total, P), H]: past_b = total_b - S cached keys
//   (0 for the prompt, S == total) then the S new ones, zeros after. Past and present may be
//   one buffer of the maximum length (P >= total): the same values.
//   causal (default): query i of batch b sees keys [max(0, L - local_window_size), L), L =
//   min(past_b + i + 1, total_b) (right padding of a prompt sees its valid keys); causal = 0:
//   every query sees keys [0, total_b). Scores scaled (scale, default 1/sqrt(H)),
//   soft-capped (softcap), plus attention_bias, softmax with a sink logit (head_sink, or 0
//   with smooth_softmax).
//   qk_output 1 / 2: output_qk [B, N, S, present] holds the scores before the softmax
//   (scaled, capped, biased) / the probabilities, 0 for the keys a query does not see (ORT
//   leaves the columns past a batch's total_b unwritten; here they are 0).
//   sliding_window_cache = 1 (Gemma 2/3's local layers): past and present are window-sized
//   ring-less buffers of capacity C = P >= local_window_size W: after a step of total length
//   t they hold the last R(t) tokens from row 0, R(t) = t up to C, then (W - 1) + ((t - C -
//   1) mod (C - W + 1)) + 1 (each overflow keeps the last W - 1 and appends), zeros after;
//   the past holds R(past_b). A step's queries read the past's rows and the new keys
//   together. (ORT's rule, checked against it step by step; it refuses qk_output there too.)
// Refused (NOT_IMPLEMENTED): k_scale/v_scale (quantized caches), q_norm_weight/k_norm_weight
// (ORT's CPU kernel refuses them too), qk_output with sliding_window_cache.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "com_microsoft/ms_def.h"
#include "llm/attention_core.h"
#include "llm/rotary.h"

namespace onnx_light::kernels {
namespace {

// One run's shapes and per-batch lengths.
struct Step {
  int64_t batch = 0, seq = 0, hs = 0, past_len = 0, total = 0, present = 0;
  bool packed = false;
  std::vector<int64_t> past_b, total_b;
};

// The keys and values attention reads, [B, KV, rows, H]: the present caches, or (sliding
// window caches) a staging copy of each batch's cached rows and its new ones. Row 0 of
// batch b is the token at position base[b].
struct KeyRows {
  const float* k = nullptr;
  const float* v = nullptr;
  int64_t rows = 0;
  std::vector<int64_t> base;
  std::vector<float> own_k, own_v;  // the staging copy
};

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
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t causal, info.GetInt("causal", 1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->qk_output_, info.GetInt("qk_output", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t sliding, info.GetInt("sliding_window_cache", 0));
    ONNX_LIGHT_RETURN_IF(causal != 0 && causal != 1, kInvalidModel,
                         "causal must be 0 or 1, got " + std::to_string(causal));
    ONNX_LIGHT_RETURN_IF(k->qk_output_ < 0 || k->qk_output_ > 2, kInvalidModel,
                         "qk_output must be 0, 1 (scores) or 2 (probabilities), got " +
                             std::to_string(k->qk_output_));
    ONNX_LIGHT_RETURN_IF(sliding != 0 && sliding != 1, kInvalidModel,
                         "sliding_window_cache must be 0 or 1, got " + std::to_string(sliding));
    k->causal_ = causal == 1;
    k->sliding_ = sliding == 1;
    ONNX_LIGHT_RETURN_IF(!k->causal_ && k->window_ != -1, kInvalidModel,
                         "local_window_size must be -1 when causal is 0");
    ONNX_LIGHT_RETURN_IF(k->sliding_ && k->window_ <= 0, kInvalidModel,
                         "sliding_window_cache=1 requires local_window_size > 0");
    ONNX_LIGHT_RETURN_IF(k->sliding_ && k->qk_output_ != 0, kNotImplemented,
                         "qk_output is not supported with sliding_window_cache=1 (nor by ORT's "
                         "CPU kernel)");
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& query = *ctx.input(0);
    const Tensor* key = OptionalInput(ctx, 1);
    const Tensor* value = OptionalInput(ctx, 2);
    const Tensor* past_k = OptionalInput(ctx, 3);
    const Tensor* past_v = OptionalInput(ctx, 4);
    for (size_t i : {12, 13, 14, 15}) {
      ONNX_LIGHT_RETURN_IF(OptionalInput(ctx, i) != nullptr, kNotImplemented,
                           "input " + std::to_string(i) +
                               " (k_scale, v_scale: quantized caches; q_norm_weight, "
                               "k_norm_weight: ORT's CPU kernel refuses them too) is not "
                               "supported");
    }
    Step st;
    ONNX_LIGHT_RETURN_IF_ERROR(ReadStep(ctx, query, key, value, past_k, past_v, &st));
    const int64_t batch = st.batch, seq = st.seq, hs = st.hs;
    const int64_t stride = query.shape()[2];  // of a (b, s) row of query
    const float* qp = query.data<float>();
    // Q and the new keys as [B, S, heads, H], rotated when asked.
    std::vector<float> q(static_cast<size_t>(batch * seq * heads_ * hs));
    std::vector<float> k_new(static_cast<size_t>(batch * seq * kv_heads_ * hs));
    std::vector<float> v_new(k_new.size());
    for (int64_t r = 0; r < batch * seq; ++r) {
      const float* row = qp + r * stride;
      std::copy(row, row + heads_ * hs, q.data() + r * heads_ * hs);
      const float* kr = st.packed ? row + heads_ * hs : key->data<float>() + r * kv_heads_ * hs;
      const float* vr =
          st.packed ? row + (heads_ + kv_heads_) * hs : value->data<float>() + r * kv_heads_ * hs;
      std::copy(kr, kr + kv_heads_ * hs, k_new.data() + r * kv_heads_ * hs);
      std::copy(vr, vr + kv_heads_ * hs, v_new.data() + r * kv_heads_ * hs);
    }
    if (rotary_) {
      ONNX_LIGHT_RETURN_IF_ERROR(Rotate(OptionalInput(ctx, 7), OptionalInput(ctx, 8),
                                        OptionalInput(ctx, 9), st, &q, &k_new));
    }
    std::vector<Tensor*> present(2, nullptr);
    Tensor own[2];
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape pshape, Shape::Create({batch, kv_heads_, st.present, hs}));
    for (size_t i = 0; i < 2; ++i) {
      if (ctx.output_count() > i + 1) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(present[i], ctx.AllocateOutput(i + 1, pshape.dims()));
      } else {
        ONNX_LIGHT_ASSIGN_OR_RETURN(own[i], Tensor::Allocate(DataType::kFloat, pshape));
        present[i] = &own[i];
      }
    }
    KeyRows keys;
    if (sliding_) {
      SlidingCaches(st, past_k, past_v, k_new, v_new, present[0], present[1], &keys);
    } else {
      FillPresent(present[0], past_k, k_new, st);
      FillPresent(present[1], past_v, v_new, st);
      keys.k = present[0]->data<float>();
      keys.v = present[1]->data<float>();
      keys.rows = st.present;
      keys.base.assign(static_cast<size_t>(batch), 0);
    }
    return Attend(ctx, st, q, keys);
  }

 private:
  // The shapes of this run's inputs and each batch's past and total lengths, checked.
  Status ReadStep(const KernelContext& ctx, const Tensor& query, const Tensor* key,
                  const Tensor* value, const Tensor* past_k, const Tensor* past_v, Step* st) const {
    const std::vector<int64_t>& qd = query.shape().dims();
    ONNX_LIGHT_RETURN_IF(qd.size() != 3, kInvalidArgument,
                         "query " + query.shape().ToString() + " must be [batch, seq, hidden]");
    st->batch = qd[0];
    st->seq = qd[1];
    const int64_t batch = st->batch, seq = st->seq;
    st->packed = key == nullptr;
    ONNX_LIGHT_RETURN_IF((key == nullptr) != (value == nullptr), kInvalidArgument,
                         "key and value come together (or neither: packed QKV)");
    const int64_t width = st->packed ? heads_ + 2 * kv_heads_ : heads_;
    ONNX_LIGHT_RETURN_IF(qd[2] % width != 0, kInvalidArgument,
                         "query's hidden size " + std::to_string(qd[2]) + " is not a multiple of " +
                             std::to_string(width) + " heads");
    st->hs = qd[2] / width;
    if (!st->packed) {
      for (const Tensor* t : {key, value}) {
        ONNX_LIGHT_RETURN_IF(
            (t->shape().dims() != std::vector<int64_t>{batch, seq, kv_heads_ * st->hs}),
            kInvalidArgument,
            "key and value " + t->shape().ToString() + " must be [" + std::to_string(batch) + ", " +
                std::to_string(seq) + ", " + std::to_string(kv_heads_ * st->hs) + "]");
      }
    }
    ONNX_LIGHT_RETURN_IF((past_k == nullptr) != (past_v == nullptr), kInvalidArgument,
                         "past_key and past_value come together");
    if (past_k != nullptr) {
      const std::vector<int64_t>& pd = past_k->shape().dims();
      ONNX_LIGHT_RETURN_IF(pd.size() != 4 || pd[0] != batch || pd[1] != kv_heads_ ||
                               pd[3] != st->hs || past_v->shape() != past_k->shape(),
                           kInvalidArgument,
                           "past_key and past_value " + past_k->shape().ToString() +
                               " must be [batch, kv_num_heads, past, head_size]");
      st->past_len = pd[2];
    }
    ONNX_LIGHT_RETURN_IF(sliding_ && past_k == nullptr, kInvalidArgument,
                         "sliding_window_cache=1 needs past_key and past_value (the window-sized "
                         "caches)");
    ONNX_LIGHT_RETURN_IF(sliding_ && st->past_len < window_, kInvalidArgument,
                         "sliding_window_cache=1: the caches' capacity " +
                             std::to_string(st->past_len) + " must be at least local_window_size " +
                             std::to_string(window_));
    const Tensor& seqlens = *ctx.input(5);
    const Tensor& total_t = *ctx.input(6);
    ONNX_LIGHT_RETURN_IF(seqlens.num_elements() != batch || total_t.num_elements() != 1,
                         kInvalidArgument,
                         "seqlens_k must be [batch] and total_sequence_length one value");
    st->total = total_t.data<int32_t>()[0];
    // A sliding window cache keeps its capacity; the others grow to the total length.
    st->present = sliding_ ? st->past_len : std::max(st->total, st->past_len);
    const int64_t room = sliding_ ? std::numeric_limits<int64_t>::max() : st->present;
    const bool prompt = seq == st->total;
    ONNX_LIGHT_RETURN_IF(!prompt && seq > 1 && batch != 1, kInvalidArgument,
                         "a continued prompt (1 < sequence length != total_sequence_length) "
                         "needs batch 1");
    st->past_b.assign(static_cast<size_t>(batch), 0);
    st->total_b.assign(static_cast<size_t>(batch), 0);
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t t = int64_t{seqlens.data<int32_t>()[b]} + 1;
      const int64_t p = prompt ? 0 : t - seq;
      const bool fits =
          sliding_ ? p >= 0 && t <= st->total : p >= 0 && p <= st->past_len && p + seq <= room;
      ONNX_LIGHT_RETURN_IF(t < 1 || t > room || !fits, kInvalidArgument,
                           "seqlens_k[" + std::to_string(b) + "] = " + std::to_string(t - 1) +
                               " does not fit sequence length " + std::to_string(seq) + ", past " +
                               std::to_string(st->past_len) + " and total " +
                               std::to_string(st->total));
      st->past_b[static_cast<size_t>(b)] = p;
      st->total_b[static_cast<size_t>(b)] = t;
    }
    return Status::Ok();
  }

  // Q's and the new keys' heads rotated by the cos/sin cache rows of their positions
  // (position_ids, or past + s: padding rows take position 1, as ORT).
  Status Rotate(const Tensor* cos_t, const Tensor* sin_t, const Tensor* pos_ids, const Step& st,
                std::vector<float>* q, std::vector<float>* k_new) const {
    const int64_t batch = st.batch, seq = st.seq, hs = st.hs;
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
          const int64_t p = st.past_b[static_cast<size_t>(b)] + s;
          positions[static_cast<size_t>(b * seq + s)] =
              p < st.total_b[static_cast<size_t>(b)] ? p : 1;  // padding: as ORT
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
                   const Step& st) const {
    const int64_t seq = st.seq, hs = st.hs, present = st.present;
    float* d = dst->mutable_data<float>();
    for (int64_t b = 0; b < st.batch; ++b) {
      const int64_t pb = st.past_b[static_cast<size_t>(b)];
      for (int64_t h = 0; h < kv_heads_; ++h) {
        float* head = d + ((b * kv_heads_ + h) * present) * hs;
        if (pb > 0) {
          const float* src = past->data<float>() + ((b * kv_heads_ + h) * st.past_len) * hs;
          std::copy(src, src + pb * hs, head);
        }
        for (int64_t s = 0; s < seq; ++s) {
          const float* src = fresh.data() + ((b * seq + s) * kv_heads_ + h) * hs;
          std::copy(src, src + hs, head + (pb + s) * hs);
        }
        std::fill(head + (pb + seq) * hs, head + present * hs, 0.0f);  // only the rows after
      }
    }
  }

  // The tokens a window-sized cache of capacity c holds after a total length t (the
  // comment at the top).
  int64_t Retained(int64_t t, int64_t c) const {
    if (t <= c) return t;
    return (window_ - 1) + (t - c - 1) % (c - window_ + 1) + 1;
  }

  // Sliding window caches: each batch's R(past_b) cached rows and its new ones staged
  // together (what the step's queries read), then the last R(total_b) of them into the
  // present caches from row 0, zeros after.
  void SlidingCaches(const Step& st, const Tensor* past_k, const Tensor* past_v,
                     const std::vector<float>& k_new, const std::vector<float>& v_new,
                     Tensor* present_k, Tensor* present_v, KeyRows* keys) const {
    const int64_t batch = st.batch, seq = st.seq, hs = st.hs, cap = st.past_len;
    std::vector<int64_t> held(static_cast<size_t>(batch));
    int64_t rows = 0;
    for (int64_t b = 0; b < batch; ++b) {
      held[static_cast<size_t>(b)] = Retained(st.past_b[static_cast<size_t>(b)], cap);
      rows = std::max(rows, held[static_cast<size_t>(b)] + seq);
    }
    keys->rows = rows;
    keys->base.resize(static_cast<size_t>(batch));
    const auto size = static_cast<size_t>(batch * kv_heads_ * rows * hs);
    keys->own_k.assign(size, 0.0f);
    keys->own_v.assign(size, 0.0f);
    for (auto [past, fresh, stage, dst] :
         {std::make_tuple(past_k, &k_new, &keys->own_k, present_k),
          std::make_tuple(past_v, &v_new, &keys->own_v, present_v)}) {
      float* out = dst->mutable_data<float>();
      std::fill(out, out + dst->num_elements(), 0.0f);
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t hb = held[static_cast<size_t>(b)];
        const int64_t pb = st.past_b[static_cast<size_t>(b)];
        const int64_t tb = st.total_b[static_cast<size_t>(b)];
        keys->base[static_cast<size_t>(b)] = pb - hb;
        const int64_t end = hb + (tb - pb);  // one past the last valid staged row
        const int64_t keep = Retained(tb, cap);
        for (int64_t h = 0; h < kv_heads_; ++h) {
          float* rowsp = stage->data() + (b * kv_heads_ + h) * rows * hs;
          const float* src = past->data<float>() + (b * kv_heads_ + h) * cap * hs;
          std::copy(src, src + hb * hs, rowsp);
          for (int64_t s = 0; s < seq; ++s) {
            const float* f = fresh->data() + ((b * seq + s) * kv_heads_ + h) * hs;
            std::copy(f, f + hs, rowsp + (hb + s) * hs);
          }
          std::copy(rowsp + (end - keep) * hs, rowsp + end * hs,
                    out + (b * kv_heads_ + h) * cap * hs);
        }
      }
    }
    keys->k = keys->own_k.data();
    keys->v = keys->own_v.data();
  }

  // The keys [begin, end) (rows of `keys`) that query i of batch b sees.
  std::pair<int64_t, int64_t> KeyRange(const Step& st, const KeyRows& keys, int64_t b,
                                       int64_t i) const {
    const auto u = static_cast<size_t>(b);
    const int64_t end = causal_ ? std::min(st.past_b[u] + i + 1, st.total_b[u]) : st.total_b[u];
    const int64_t begin = window_ > 0 && end > window_ ? end - window_ : 0;
    return {std::max<int64_t>(0, begin - keys.base[u]), end - keys.base[u]};
  }

  // The optional attention bias [1 or B, 1 or N, S, total], checked.
  Status ReadBias(const KernelContext& ctx, const Step& st, const Tensor** bias) const {
    *bias = OptionalInput(ctx, 10);
    if (*bias == nullptr) return Status::Ok();
    const Tensor& t = **bias;
    const std::vector<int64_t>& d = t.shape().dims();
    ONNX_LIGHT_RETURN_IF(t.dtype() != DataType::kFloat || d.size() != 4 ||
                             (d[0] != 1 && d[0] != st.batch) || (d[1] != 1 && d[1] != heads_) ||
                             d[2] != st.seq || d[3] != st.total,
                         kInvalidArgument,
                         "attention_bias " + t.shape().ToString() + " must be float [1 or " +
                             std::to_string(st.batch) + ", 1 or " + std::to_string(heads_) + ", " +
                             std::to_string(st.seq) + ", " + std::to_string(st.total) +
                             "] (batch, heads, sequence length, total_sequence_length)");
    return Status::Ok();
  }

  // Scaled dot-product attention of Q over `keys`, each query's row masked to the keys it
  // sees (plus the attention bias); output 0 and, with qk_output, output 3.
  Status Attend(KernelContext& ctx, const Step& st, const std::vector<float>& q,
                const KeyRows& keys) const {
    const int64_t batch = st.batch, seq = st.seq, hs = st.hs, rows = keys.rows;
    const Tensor* bias_t = nullptr;
    ONNX_LIGHT_RETURN_IF_ERROR(ReadBias(ctx, st, &bias_t));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {batch, seq, heads_ * hs}));
    Tensor* qk = nullptr;
    if (qk_output_ != 0 && ctx.output_count() > 3) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(qk, ctx.AllocateOutput(3, {batch, heads_, seq, rows}));
    }
    std::vector<float> sinks;
    const Tensor* sink_t = OptionalInput(ctx, 11);
    if (sink_t != nullptr) {
      ONNX_LIGHT_RETURN_IF(sink_t->num_elements() != heads_ || sink_t->dtype() != DataType::kFloat,
                           kInvalidArgument, "head_sink must be float [num_heads]");
      sinks.assign(sink_t->data<float>(), sink_t->data<float>() + heads_);
    } else if (smooth_) {
      sinks.assign(static_cast<size_t>(heads_), 0.0f);
    }
    AttentionRun run;
    run.shape = {batch, heads_, kv_heads_, seq, rows, hs, hs};
    run.q = {q.data(), seq * heads_ * hs, hs, heads_ * hs};
    run.k = {keys.k, kv_heads_ * rows * hs, rows * hs, hs};
    run.v = {keys.v, kv_heads_ * rows * hs, rows * hs, hs};
    run.y = {y->mutable_data<float>(), seq * heads_ * hs, hs, heads_ * hs};
    run.scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(static_cast<float>(hs));
    run.softcap = softcap_;
    run.sink = sinks.empty() ? nullptr : sinks.data();
    if (qk != nullptr) (qk_output_ == 1 ? run.scores : run.probs) = qk->mutable_data<float>();
    const float* bias = bias_t != nullptr ? bias_t->data<float>() : nullptr;
    const int64_t bb = bias_t != nullptr ? bias_t->shape()[0] : 0;
    const int64_t bh = bias_t != nullptr ? bias_t->shape()[1] : 0;
    run.bias = [&](int64_t b, int64_t h, int64_t i, float* row) {
      const auto [begin, end] = KeyRange(st, keys, b, i);
      if (bias != nullptr) {  // columns are positions: row j is position base + j
        const float* br = bias +
                          (((bb == 1 ? 0 : b) * bh + (bh == 1 ? 0 : h)) * seq + i) * st.total +
                          keys.base[static_cast<size_t>(b)];
        for (int64_t j = begin; j < end; ++j)
          row[j] += br[j];
      }
      const float neg_inf = -std::numeric_limits<float>::infinity();
      std::fill(row, row + begin, neg_inf);
      std::fill(row + end, row + rows, neg_inf);
    };
    RunAttentionF32(run, ctx.thread_pool());
    if (run.scores != nullptr) {  // the keys a query does not see: 0, as ORT writes them
      for (int64_t r = 0; r < batch * heads_ * seq; ++r) {
        const auto [begin, end] = KeyRange(st, keys, r / (heads_ * seq), r % seq);
        float* row = run.scores + r * rows;
        std::fill(row, row + begin, 0.0f);
        std::fill(row + end, row + rows, 0.0f);
      }
    }
    return Status::Ok();
  }

  int64_t heads_ = 0, kv_heads_ = 0, window_ = -1, qk_output_ = 0;
  float scale_ = 0.0f, softcap_ = 0.0f;
  bool rotary_ = false, interleaved_ = false, smooth_ = false, causal_ = true, sliding_ = false;
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
