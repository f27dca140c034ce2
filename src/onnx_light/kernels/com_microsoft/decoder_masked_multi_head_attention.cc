// com.microsoft DecoderMaskedMultiHeadAttention: one decoding step of multi-head attention
// (GPT-2/T5/Whisper beam search written by ORT's convert_generation), per ORT's contrib
// documentation and CPU kernel. One query token per batch entry:
//   query [B, 1, D], or packed QKV [B, 1, 3D] with no key and value; bias [3D] (optional)
//   added to Q, K and V (to Q only in cross attention).
//   Self attention: key / value [B, 1, D] (or packed), past_key / past_value
//     [B, N, M, H] with past_present_share_buffer = 1 and past_sequence_length P (int32, one
//     value): the step attends to rows [0, P) of the past and to its own K and V, written
//     to row P of present_key / present_value ([B, N, M, H], the rest of the past kept).
//     Without the shared buffer the past is [B, N, P, H] and the presents [B, N, P + 1, H].
//     With beam_width W > 1 (int32, one value; B = batch x W) and cache_indirection
//     [B / W, W, >= P] (int32), past row t of entry b is read from the entry of the same
//     batch whose beam is cache_indirection[b / W, b % W, t].
//   Cross attention: key / value [B, N, L, H] (already projected), no past or present.
//   mask_index (int32) [B, T]: keys whose value is 0 get mask_filter_value (-10000) added;
//   attention_bias [B or 1, N or 1, 1, T] added (self attention only, as ORT's kernel).
//   The optional output qk [B, N, 1, T] is the scaled Q K^T with the mask and bias added,
//   before the softmax. scale defaults (and 0 means) 1 / sqrt(H).
// Refused as ORT's kernel refuses them: more than one query token, a V head size other
// than K's, masks of other layouts, attention_bias in cross attention. ORT shares the past
// and present buffers in place; here the present is the past copied and the step written.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/attention_masks.h"
#include "com_microsoft/ms_def.h"
#include "llm/attention_core.h"

namespace onnx_light::kernels {
namespace {

enum Input {
  kQuery,
  kKey,
  kValue,
  kMask,
  kAttentionBias,
  kPastKey,
  kPastValue,
  kPastSequenceLength,
  kBeamWidth,
  kCacheIndirection,
  kBias,
};

bool Named(const std::vector<std::string>& names, size_t i) {
  return names.size() > i && !names[i].empty();
}

// One int32 value (a scalar or a one-element tensor).
Result<int64_t> ReadCount(const Tensor& t, const char* what) {
  ONNX_LIGHT_RETURN_IF(t.num_elements() != 1, kInvalidArgument,
                       std::string(what) + " " + t.shape().ToString() + " must hold one value");
  return static_cast<int64_t>(t.data<int32_t>()[0]);
}

class DecoderMaskedMultiHeadAttention : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<DecoderMaskedMultiHeadAttention>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->heads_, info.GetInt("num_heads"));
    ONNX_LIGHT_RETURN_IF(k->heads_ <= 0, kInvalidModel, "num_heads must be positive");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->filter_, info.GetFloat("mask_filter_value", -10000.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->scale_, info.GetFloat("scale", 0.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->shared_, GetFlag(info, "past_present_share_buffer", false));
    const std::vector<std::string>& outs = info.node().output;
    k->want_present_ = Named(outs, 1) || Named(outs, 2);
    ONNX_LIGHT_RETURN_IF(k->want_present_ && !(Named(outs, 1) && Named(outs, 2)), kInvalidModel,
                         "present_key and present_value come together");
    k->want_qk_ = Named(outs, 3);
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& q = *ctx.input(kQuery);
    const Tensor* key = OptionalInput(ctx, kKey);
    const Tensor* value = OptionalInput(ctx, kValue);
    const Tensor* bias = OptionalInput(ctx, kBias);
    const int64_t n = heads_;
    const std::vector<int64_t>& qd = q.shape().dims();
    const bool packed = key == nullptr && value == nullptr;
    ONNX_LIGHT_RETURN_IF(packed != (key == nullptr) || packed != (value == nullptr),
                         kInvalidArgument, "key and value come together (or neither: packed QKV)");
    ONNX_LIGHT_RETURN_IF(qd.size() != 3 || qd[1] != 1, kInvalidArgument,
                         "query " + q.shape().ToString() +
                             " must be [batch, 1, hidden]: the op decodes one token at a time");
    ONNX_LIGHT_RETURN_IF(packed && qd[2] % 3 != 0, kInvalidArgument,
                         "packed QKV " + q.shape().ToString() + " must be [batch, 1, 3 * hidden]");
    const int64_t batch = qd[0], d = packed ? qd[2] / 3 : qd[2];
    ONNX_LIGHT_RETURN_IF(d % n != 0 || d == 0, kInvalidArgument,
                         "hidden size " + std::to_string(d) + " is not a positive multiple of " +
                             std::to_string(n) + " heads");
    const int64_t hs = d / n;
    const bool cross = !packed && key->shape().rank() == 4;
    if (bias != nullptr) {
      ONNX_LIGHT_RETURN_IF(bias->shape().rank() != 1 || bias->num_elements() != 3 * d,
                           kInvalidArgument,
                           "bias " + bias->shape().ToString() + " must be [" +
                               std::to_string(3 * d) + "] (Q, K and V of one head size)");
    }
    // Q with its bias, [B, D].
    const int64_t q_row = packed ? 3 * d : d;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor qs, ctx.AllocateTemporary(DataType::kFloat, {batch, d}));
    AddBias(q.data<float>(), q_row, bias != nullptr ? bias->data<float>() : nullptr, batch, d,
            qs.mutable_data<float>());

    AttentionRun run;
    Tensor kv_store[2];
    int64_t total = 0;
    if (cross) {
      ONNX_LIGHT_RETURN_IF_ERROR(ReadCross(ctx, *key, *value, batch, hs, &run, &total));
    } else {
      ONNX_LIGHT_RETURN_IF_ERROR(
          RunSelf(ctx, key, value, bias, packed, batch, hs, kv_store, &run, &total));
    }
    KeyMask mask;
    if (const Tensor* m = OptionalInput(ctx, kMask)) {
      ONNX_LIGHT_RETURN_IF(m->shape().rank() != 2, kNotImplemented,
                           "mask_index " + m->shape().ToString() +
                               ": only the 2-D key padding mask [batch, total_sequence_length] "
                               "is supported (as ORT's kernel)");
      ONNX_LIGHT_ASSIGN_OR_RETURN(mask, KeyMask::Read(*m, batch, 1, total, filter_));
    }
    AttentionBias extra;
    if (const Tensor* a = OptionalInput(ctx, kAttentionBias)) {
      ONNX_LIGHT_RETURN_IF(cross, kNotImplemented,
                           "attention_bias is not supported in cross attention (as ORT's kernel)");
      ONNX_LIGHT_ASSIGN_OR_RETURN(extra, AttentionBias::Read(*a, batch, n, 1, total));
    }
    float* qk = nullptr;
    if (want_qk_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * t, ctx.AllocateOutput(3, {batch, n, 1, total}));
      qk = t->mutable_data<float>();
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {batch, 1, d}));
    run.shape = {batch, n, n, 1, total, hs, hs};
    run.q = {qs.data<float>(), d, hs, d};
    run.y = {y->mutable_data<float>(), d, hs, d};
    run.scale =
        scale_ != 0.0f ? scale_ : static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs)));
    if (mask.present() || extra.present() || qk != nullptr) {
      run.bias = [&mask, &extra, qk, n, total](int64_t b, int64_t h, int64_t, float* row) {
        mask.Add(b, 0, row);
        extra.Add(b, h, 0, row);
        if (qk != nullptr) std::memcpy(qk + (b * n + h) * total, row, total * sizeof(float));
      };
    }
    RunAttentionF32(run, ctx.thread_pool());
    return Status::Ok();
  }

 private:
  static void AddBias(const float* src, int64_t src_row, const float* b, int64_t rows, int64_t cols,
                      float* dst) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* s = src + r * src_row;
      float* o = dst + r * cols;
      if (b == nullptr) {
        std::copy(s, s + cols, o);
      } else {
        for (int64_t c = 0; c < cols; ++c)
          o[c] = s[c] + b[c];
      }
    }
  }

  // Cross attention: K and V are the projected encoder states, [B, N, L, H] each.
  Status ReadCross(const KernelContext& ctx, const Tensor& key, const Tensor& value, int64_t batch,
                   int64_t hs, AttentionRun* run, int64_t* total) const {
    const int64_t n = heads_;
    const std::vector<int64_t>& kd = key.shape().dims();
    ONNX_LIGHT_RETURN_IF(
        kd[0] != batch || kd[1] != n || kd[3] != hs || value.shape().dims() != kd, kInvalidArgument,
        "cross attention key " + key.shape().ToString() + " / value " + value.shape().ToString() +
            " must both be [" + std::to_string(batch) + ", " + std::to_string(n) +
            ", kv_sequence_length, " + std::to_string(hs) + "]");
    ONNX_LIGHT_RETURN_IF(OptionalInput(ctx, kPastKey) != nullptr ||
                             OptionalInput(ctx, kPastValue) != nullptr || want_present_,
                         kInvalidArgument,
                         "cross attention (4-D key and value) takes no past and gives no present");
    const int64_t len = kd[2];
    run->k = {key.data<float>(), n * len * hs, len * hs, hs};
    run->v = {value.data<float>(), n * len * hs, len * hs, hs};
    *total = len;
    return Status::Ok();
  }

  // Where each entry's past rows come from with beams: row j < past of entry b from the
  // entry of its batch on beam ci[b * ci_row + j]; `rows` the presents' rows, t = past + 1.
  struct BeamRows {
    const int32_t* ci;
    int64_t ci_row, beams, past, rows, t;
  };

  // [batch, heads, t, hs]: each entry's rows gathered from the present (heads split
  // between the threads: a memory-bound copy).
  Result<Tensor> GatherBeams(KernelContext& ctx, const float* present, const BeamRows& r,
                             int64_t batch, int64_t hs) const {
    const int64_t n = heads_, t = r.t;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor g,
                                ctx.AllocateTemporary(DataType::kFloat, {batch, n, t, hs}));
    float* dst = g.mutable_data<float>();
    ParallelElements(
        ctx.thread_pool(), batch * n,
        [&](int64_t q0, int64_t q1) {
          for (int64_t q = q0; q < q1; ++q) {
            const int64_t b = q / n, h = q % n, first = b - b % r.beams;
            float* head = dst + q * t * hs;
            for (int64_t j = 0; j < t; ++j) {
              const int64_t from = j < r.past ? first + r.ci[b * r.ci_row + j] : b;
              const float* row = present + ((from * n + h) * r.rows + j) * hs;
              std::copy(row, row + hs, head + j * hs);
            }
          }
        },
        std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(t * hs, 1)));
    return g;
  }

  // Self attention: the presents (outputs or, when not asked for, temporaries) are the past
  // with this step's K and V written at row P; K and V for the scores are views of them, or
  // with beams the rows each entry's beams point to, gathered into kv_store.
  Status RunSelf(KernelContext& ctx, const Tensor* key, const Tensor* value, const Tensor* bias,
                 bool packed, int64_t batch, int64_t hs, Tensor* kv_store, AttentionRun* run,
                 int64_t* total) const {
    const int64_t n = heads_, d = n * hs;
    if (!packed) {
      const std::vector<int64_t> want = {batch, 1, d};
      ONNX_LIGHT_RETURN_IF(key->shape().dims() == want && value->shape().rank() == 3 &&
                               value->shape()[0] == batch && value->shape()[1] == 1 &&
                               value->shape()[2] != d,
                           kNotImplemented,
                           "value " + value->shape().ToString() +
                               ": a V head size other than K's is not supported (as ORT's kernel)");
      ONNX_LIGHT_RETURN_IF(key->shape().dims() != want || value->shape().dims() != want,
                           kInvalidArgument,
                           "self attention key " + key->shape().ToString() + " / value " +
                               value->shape().ToString() + " must both be [" +
                               std::to_string(batch) + ", 1, " + std::to_string(d) + "]");
    }
    const Tensor* past_k = OptionalInput(ctx, kPastKey);
    const Tensor* past_v = OptionalInput(ctx, kPastValue);
    ONNX_LIGHT_RETURN_IF((past_k == nullptr) != (past_v == nullptr), kInvalidArgument,
                         "past_key and past_value come together");
    int64_t past = 0, rows = 1;  // P, and the rows of each present head
    if (past_k != nullptr) {
      const std::vector<int64_t>& pd = past_k->shape().dims();
      ONNX_LIGHT_RETURN_IF(pd.size() != 4 || pd[0] != batch || pd[1] != n || pd[3] != hs ||
                               past_v->shape().dims() != pd,
                           kInvalidArgument,
                           "past_key " + past_k->shape().ToString() + " / past_value " +
                               past_v->shape().ToString() + " must both be [" +
                               std::to_string(batch) + ", " + std::to_string(n) + ", " +
                               (shared_ ? "max_sequence_length" : "past_sequence_length") + ", " +
                               std::to_string(hs) + "]");
      if (shared_) {
        const Tensor* psl = OptionalInput(ctx, kPastSequenceLength);
        ONNX_LIGHT_RETURN_IF(psl == nullptr, kInvalidArgument,
                             "past_present_share_buffer needs past_sequence_length");
        ONNX_LIGHT_ASSIGN_OR_RETURN(past, ReadCount(*psl, "past_sequence_length"));
        ONNX_LIGHT_RETURN_IF(past < 0 || past >= pd[2], kInvalidArgument,
                             "past_sequence_length " + std::to_string(past) + " must be in [0, " +
                                 std::to_string(pd[2]) +
                                 "): the shared buffer needs a row for this step");
        rows = pd[2];
      } else {
        past = pd[2];
        rows = past + 1;
      }
    }
    const int64_t t = past + 1;
    // Beams: W and the cache indirection rows.
    int64_t beams = 1;
    if (const Tensor* bw = OptionalInput(ctx, kBeamWidth)) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(beams, ReadCount(*bw, "beam_width"));
      ONNX_LIGHT_RETURN_IF(beams < 1 || batch % beams != 0, kInvalidArgument,
                           "beam_width " + std::to_string(beams) + " must be positive and divide " +
                               "the batch (" + std::to_string(batch) + ")");
    }
    const Tensor* ci = OptionalInput(ctx, kCacheIndirection);
    ONNX_LIGHT_RETURN_IF(beams > 1 && ci == nullptr, kInvalidArgument,
                         "beam_width > 1 needs cache_indirection");
    int64_t ci_row = 0;
    if (ci != nullptr && past > 0) {
      const std::vector<int64_t>& cd = ci->shape().dims();
      ONNX_LIGHT_RETURN_IF(
          cd.size() != 3 || cd[0] * cd[1] != batch || cd[1] != beams || cd[2] < past,
          kInvalidArgument,
          "cache_indirection " + ci->shape().ToString() + " must be [" +
              std::to_string(batch / beams) + ", " + std::to_string(beams) +
              ", >= " + std::to_string(past) + "]");
      ci_row = cd[2];
      const int32_t* c = ci->data<int32_t>();
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t j = 0; j < past; ++j)
          ONNX_LIGHT_RETURN_IF(c[b * ci_row + j] < 0 || c[b * ci_row + j] >= beams,
                               kInvalidArgument,
                               "cache_indirection holds beam " + std::to_string(c[b * ci_row + j]) +
                                   ", outside [0, " + std::to_string(beams) + ")");
    } else {
      ci = nullptr;
    }
    // The presents: past copied, this step (with its bias) at row P.
    const float* src[2];
    if (packed) {
      src[0] = ctx.input(kQuery)->data<float>() + d;
      src[1] = src[0] + d;
    } else {
      src[0] = key->data<float>();
      src[1] = value->data<float>();
    }
    const int64_t src_row = packed ? 3 * d : d;
    const Tensor* pasts[2] = {past_k, past_v};
    const float* bp = bias != nullptr ? bias->data<float>() : nullptr;
    float* present[2];
    for (int kv = 0; kv < 2; ++kv) {
      Tensor* out = nullptr;
      if (want_present_) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(out, ctx.AllocateOutput(1 + kv, {batch, n, rows, hs}));
      } else {
        ONNX_LIGHT_ASSIGN_OR_RETURN(kv_store[kv],
                                    ctx.AllocateTemporary(DataType::kFloat, {batch, n, rows, hs}));
        out = &kv_store[kv];
      }
      float* dst = out->mutable_data<float>();
      present[kv] = dst;
      // (Heads split between the threads: memory-bound copies of the whole cache, which
      // two cores' bandwidth nearly halves.)
      const int64_t keep = pasts[kv] != nullptr ? (shared_ ? rows : past) : 0;
      ParallelElements(
          ctx.thread_pool(), batch * n,
          [&](int64_t q0, int64_t q1) {
            for (int64_t q = q0; q < q1; ++q) {
              const int64_t b = q / n, h = q % n;
              float* head = dst + q * rows * hs;
              if (keep > 0) {
                const float* p = pasts[kv]->data<float>() + q * keep * hs;
                std::copy(p, p + keep * hs, head);
              }
              AddBias(src[kv] + b * src_row + h * hs, 0,
                      bp != nullptr ? bp + (kv + 1) * d + h * hs : nullptr, 1, hs,
                      head + past * hs);
            }
          },
          std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(keep * hs, 1)));
    }
    if (ci == nullptr) {
      run->k = {present[0], n * rows * hs, rows * hs, hs};
      run->v = {present[1], n * rows * hs, rows * hs, hs};
    } else {
      const BeamRows beam{ci->data<int32_t>(), ci_row, beams, past, rows, t};
      for (int kv = 0; kv < 2; ++kv) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(kv_store[kv], GatherBeams(ctx, present[kv], beam, batch, hs));
      }
      run->k = {kv_store[0].data<float>(), n * t * hs, t * hs, hs};
      run->v = {kv_store[1].data<float>(), n * t * hs, t * hs, hs};
    }
    *total = t;
    return Status::Ok();
  }

  int64_t heads_ = 0;
  float filter_ = -10000.0f, scale_ = 0.0f;
  bool shared_ = false, want_present_ = false, want_qk_ = false;
};

}  // namespace

// Inputs query, key?, value?, mask_index?, attention_bias?, past_key?, past_value?,
// past_sequence_length?, beam_width?, cache_indirection?, bias?; outputs output,
// present_key?, present_value?, qk?.
ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, DecoderMaskedMultiHeadAttention) {
  return r.Register(MsDef("DecoderMaskedMultiHeadAttention",
                          {{"T", {0, 1, 2, 4, 5, 6, 10}, {0, 1, 2, 3}, {DataType::kFloat}},
                           {"M", {3, 7, 8, 9}, {}, {DataType::kInt32}}},
                          FactoryOf<DecoderMaskedMultiHeadAttention>(), {1, 11}, {1, 4},
                          0b11111111110, 0b1110));
}

}  // namespace onnx_light::kernels
