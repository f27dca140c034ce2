// Attention, RotaryEmbedding, LinearAttention and CausalConvWithState.
//
// Attention (opset 23; opset 24 adds nonpad_kv_seqlen): scaled dot-product attention
// with multi-head, grouped-query (GQA) and multi-query heads, 3-D ([batch, seq, heads *
// head_size]) or 4-D ([batch, heads, seq, head_size]) inputs, a past key/value cache
// (present = past ++ current along the sequence), boolean or additive masks broadcast to
// [batch, q_heads, q_seq, total_seq] (a shorter last dimension is padded with "masked"),
// causal masking offset by the past length, softcap, and the optional QK output.
//
// Per (batch, head): S = scale * Q K^T, S = softcap * tanh(S / softcap) when softcap > 0,
// S += bias (mask, causal, padding), P = softmax(S) along the keys, Y = P V. The two
// products go through Gemm2D (OpenBLAS for float), reading Q, K and V in place through
// strides; 16-bit floats compute in float. A row whose keys are all masked gives NaN, as
// the ONNX reference does. qk_matmul_output_mode follows the ONNX reference
// implementation: 0 and 1 output S after softcap, 2 after adding the bias, 3 P.
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "math/gemm.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

class Attention : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Attention>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->causal_, GetFlag(info, "is_causal", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->q_heads_, info.GetInt("q_num_heads", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->kv_heads_, info.GetInt("kv_num_heads", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->qk_mode_, info.GetInt("qk_matmul_output_mode", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->softcap_, info.GetFloat("softcap", 0.0f));
    k->has_scale_ = info.HasAttribute("scale");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->scale_, info.GetFloat("scale", 1.0f));
    if (k->qk_mode_ < 0 || k->qk_mode_ > 3) {
      return Status(StatusCode::kInvalidModel,
                    info.Describe() + ": qk_matmul_output_mode must be 0, 1, 2 or 3");
    }
    if (k->q_heads_ < 0 || k->kv_heads_ < 0) {
      return Status(StatusCode::kInvalidModel,
                    info.Describe() + ": q_num_heads and kv_num_heads must be positive");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& q = *ctx.input(0);
    const Tensor& k = *ctx.input(1);
    const Tensor& v = *ctx.input(2);
    const std::string where = ctx.info().Describe();
    const size_t rank = q.shape().rank();
    if ((rank != 3 && rank != 4) || k.shape().rank() != rank || v.shape().rank() != rank) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": Q, K and V must all be 3-D or all 4-D, got " + q.shape().ToString() +
                        ", " + k.shape().ToString() + ", " + v.shape().ToString());
    }
    // The 4-D view of each: [batch, heads, seq, head_size] with element strides.
    Geometry g;
    ONNX_LIGHT_RETURN_IF_ERROR(Describe(q, q_heads_, "Q", where, &g.q));
    ONNX_LIGHT_RETURN_IF_ERROR(Describe(k, kv_heads_, "K", where, &g.k));
    ONNX_LIGHT_RETURN_IF_ERROR(Describe(v, kv_heads_, "V", where, &g.v));
    const int64_t batch = g.q.batch;
    if (g.k.batch != batch || g.v.batch != batch) {
      return Status(StatusCode::kInvalidArgument, where + ": Q, K and V batch sizes differ");
    }
    if (g.k.head_size != g.q.head_size) {
      return Status(StatusCode::kInvalidArgument, where + ": Q and K head sizes differ (" +
                                                      std::to_string(g.q.head_size) + " and " +
                                                      std::to_string(g.k.head_size) + ")");
    }
    if (g.k.heads != g.v.heads || g.k.seq != g.v.seq) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": K and V must have the same heads and sequence length");
    }
    if (g.k.heads == 0 || g.q.heads % g.k.heads != 0) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": q heads (" + std::to_string(g.q.heads) +
                        ") must be a multiple of kv heads (" + std::to_string(g.k.heads) + ")");
    }
    const Tensor* past_k = ctx.input(4);
    const Tensor* past_v = ctx.input(5);
    if ((past_k == nullptr) != (past_v == nullptr)) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": past_key and past_value come together");
    }
    int64_t past = 0;
    if (past_k != nullptr) {
      const std::vector<int64_t> want_k = {batch, g.k.heads, -1, g.k.head_size};
      const std::vector<int64_t> want_v = {batch, g.v.heads, -1, g.v.head_size};
      if (!Matches(past_k->shape(), want_k) || !Matches(past_v->shape(), want_v) ||
          past_k->shape()[2] != past_v->shape()[2]) {
        return Status(StatusCode::kInvalidArgument,
                      where + ": past_key " + past_k->shape().ToString() + " / past_value " +
                          past_v->shape().ToString() + " do not match K and V");
      }
      past = past_k->shape()[2];
    }
    const int64_t total = past + g.k.seq;
    const Tensor* mask = ctx.input(3);
    std::vector<int64_t> mask_dims, mask_strides;
    if (mask != nullptr) {
      if (mask->shape().rank() < 2 || mask->shape().rank() > 4) {
        return Status(StatusCode::kInvalidArgument, where + ": attn_mask must have rank 2 to 4");
      }
      mask_dims = mask->shape().dims();
      mask_dims.insert(mask_dims.begin(), 4 - mask_dims.size(), 1);
      const std::vector<int64_t> target = {batch, g.q.heads, g.q.seq, total};
      for (size_t d = 0; d < 4; ++d) {
        const bool ok =
            d == 3 ? mask_dims[d] <= total : (mask_dims[d] == 1 || mask_dims[d] == target[d]);
        if (!ok) {
          return Status(StatusCode::kInvalidArgument,
                        where + ": attn_mask " + mask->shape().ToString() +
                            " does not broadcast to [" + std::to_string(batch) + ", " +
                            std::to_string(g.q.heads) + ", " + std::to_string(g.q.seq) + ", " +
                            std::to_string(total) + "]");
        }
      }
      mask_strides = RowMajorStrides(mask_dims);
      for (size_t d = 0; d < 3; ++d)
        if (mask_dims[d] == 1) mask_strides[d] = 0;
    }
    const Tensor* nonpad = ctx.input(6);
    if (nonpad != nullptr &&
        (nonpad->dtype() != DataType::kInt64 || nonpad->num_elements() != batch)) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": nonpad_kv_seqlen must be int64 [" + std::to_string(batch) + "]");
    }

    // Outputs.
    std::vector<int64_t> ydims =
        rank == 4 ? std::vector<int64_t>{batch, g.q.heads, g.q.seq, g.v.head_size}
                  : std::vector<int64_t>{batch, g.q.seq, g.q.heads * g.v.head_size};
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, ydims));
    Tensor* present_k = nullptr;
    Tensor* present_v = nullptr;
    Tensor* qk_out = nullptr;
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(present_k,
                                  ctx.AllocateOutput(1, {batch, g.k.heads, total, g.k.head_size}));
    }
    if (ctx.output_count() > 2) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(present_v,
                                  ctx.AllocateOutput(2, {batch, g.v.heads, total, g.v.head_size}));
    }
    if (ctx.output_count() > 3) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(qk_out,
                                  ctx.AllocateOutput(3, {batch, g.q.heads, g.q.seq, total}));
    }

    Status status = Status::Ok();
    ForFloat(q.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = typename ComputeType<T>::type;
      status = Run<T, C>(ctx, g, past, total, mask, mask_dims, mask_strides, nonpad, y, present_k,
                         present_v, qk_out);
    });
    return status;
  }

 private:
  struct View {  // a 4-D view: element (b, h, s, e) at b*sb + h*sh + s*ss + e
    int64_t batch = 0, heads = 0, seq = 0, head_size = 0;
    int64_t sb = 0, sh = 0, ss = 0;
  };
  struct Geometry {
    View q, k, v;
  };

  static bool Matches(const Shape& s, const std::vector<int64_t>& want) {
    if (s.rank() != want.size()) return false;
    for (size_t d = 0; d < want.size(); ++d)
      if (want[d] >= 0 && s[d] != want[d]) return false;
    return true;
  }

  static Status Describe(const Tensor& t, int64_t heads_attr, const char* what,
                         const std::string& where, View* v) {
    const Shape& s = t.shape();
    if (s.rank() == 4) {
      v->batch = s[0], v->heads = s[1], v->seq = s[2], v->head_size = s[3];
      v->ss = v->head_size, v->sh = v->seq * v->ss, v->sb = v->heads * v->sh;
      return Status::Ok();
    }
    if (heads_attr <= 0) {
      return Status(StatusCode::kInvalidModel, where + ": 3-D " + what +
                                                   " needs the q_num_heads and kv_num_heads "
                                                   "attributes");
    }
    if (s[2] % heads_attr != 0) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": " + what + " hidden size " + std::to_string(s[2]) +
                        " is not a multiple of its " + std::to_string(heads_attr) + " heads");
    }
    v->batch = s[0], v->seq = s[1], v->heads = heads_attr, v->head_size = s[2] / heads_attr;
    v->sh = v->head_size, v->ss = s[2], v->sb = v->seq * v->ss;
    return Status::Ok();
  }

  template <typename T, typename C>
  Status Run(KernelContext& ctx, const Geometry& g, int64_t past, int64_t total, const Tensor* mask,
             const std::vector<int64_t>& mask_dims, const std::vector<int64_t>& mask_strides,
             const Tensor* nonpad, Tensor* y, Tensor* present_k, Tensor* present_v,
             Tensor* qk_out) const {
    const int64_t batch = g.q.batch, qh = g.q.heads, kvh = g.k.heads, qs = g.q.seq;
    const int64_t hs = g.q.head_size, vhs = g.v.head_size;
    // Present K and V, contiguous [batch, kv_heads, total, head_size], in C.
    std::vector<C> kc(static_cast<size_t>(batch * kvh * total * hs));
    std::vector<C> vc(static_cast<size_t>(batch * kvh * total * vhs));
    auto fill = [&](std::vector<C>& dst, const Tensor* past_t, const Tensor& cur, const View& cv,
                    int64_t size) {
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t h = 0; h < kvh; ++h) {
          C* out = dst.data() + ((b * kvh + h) * total) * size;
          if (past_t != nullptr) {
            const T* p = past_t->data<T>() + (b * kvh + h) * past * size;
            for (int64_t i = 0; i < past * size; ++i)
              out[i] = static_cast<C>(p[i]);
          }
          const T* c = cur.data<T>() + b * cv.sb + h * cv.sh;
          for (int64_t s = 0; s < cv.seq; ++s)
            for (int64_t e = 0; e < size; ++e)
              out[(past + s) * size + e] = static_cast<C>(c[s * cv.ss + e]);
        }
      }
    };
    fill(kc, ctx.input(4), *ctx.input(1), g.k, hs);
    fill(vc, ctx.input(5), *ctx.input(2), g.v, vhs);
    if (present_k != nullptr) {
      T* p = present_k->mutable_data<T>();
      for (size_t i = 0; i < kc.size(); ++i)
        p[i] = static_cast<T>(kc[i]);
    }
    if (present_v != nullptr) {
      T* p = present_v->mutable_data<T>();
      for (size_t i = 0; i < vc.size(); ++i)
        p[i] = static_cast<T>(vc[i]);
    }
    // Q as C, in its own layout (strides of g.q).
    const Tensor& qt = *ctx.input(0);
    std::vector<C> qcopy;
    const C* qp;
    if constexpr (std::is_same_v<C, T>) {
      qp = qt.data<T>();
    } else {
      qcopy.resize(static_cast<size_t>(qt.num_elements()));
      for (size_t i = 0; i < qcopy.size(); ++i)
        qcopy[i] = static_cast<C>(qt.data<T>()[i]);
      qp = qcopy.data();
    }
    const C scale = has_scale_ ? static_cast<C>(scale_)
                               : static_cast<C>(1.0 / std::sqrt(static_cast<double>(hs)));
    const C cap = static_cast<C>(softcap_);
    const C neg_inf = -std::numeric_limits<C>::infinity();
    const std::vector<double> mask_values = mask != nullptr && mask->dtype() != DataType::kBool
                                                ? ToDoubles(mask)
                                                : std::vector<double>{};
    const bool* mask_bool =
        mask != nullptr && mask->dtype() == DataType::kBool ? mask->data<bool>() : nullptr;
    const int64_t group = qh / kvh;
    const int64_t y_sb = g.q.sb / hs * vhs;  // Y has Q's layout with v head size
    const bool y4 = qt.shape().rank() == 4;
    T* yp = y->mutable_data<T>();
    std::vector<C> scores(static_cast<size_t>(qs * total));
    std::vector<C> out(static_cast<size_t>(qs * vhs));
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t h = 0; h < qh; ++h) {
        const int64_t kh = h / group;
        const C* kp = kc.data() + (b * kvh + kh) * total * hs;
        const C* vp = vc.data() + (b * kvh + kh) * total * vhs;
        std::fill(scores.begin(), scores.end(), C(0));
        // scores[i, j] = sum_e Q[i, e] * K[j, e]
        Gemm2D<C>(qp + b * g.q.sb + h * g.q.sh, g.q.ss, 1, kp, 1, hs, scores.data(), qs, total, hs,
                  ctx.thread_pool());
        for (int64_t i = 0; i < qs; ++i) {
          C* row = scores.data() + i * total;
          for (int64_t j = 0; j < total; ++j) {
            C s = row[j] * scale;
            if (cap > 0) s = cap * std::tanh(s / cap);
            row[j] = s;
          }
          if (qk_out != nullptr && qk_mode_ <= 1) WriteRow<T>(qk_out, b, h, i, qh, qs, total, row);
          // The bias: mask (padded with "masked" past its last dimension), causal, padding.
          const int64_t mrow =
              mask != nullptr ? b * mask_strides[0] + h * mask_strides[1] + i * mask_strides[2] : 0;
          const int64_t limit = nonpad != nullptr ? nonpad->data<int64_t>()[b] : total;
          for (int64_t j = 0; j < total; ++j) {
            C bias = 0;
            if (mask != nullptr) {
              if (j >= mask_dims[3]) {
                bias = neg_inf;
              } else if (mask_bool != nullptr) {
                if (!mask_bool[mrow + j]) bias = neg_inf;
              } else {
                bias = static_cast<C>(mask_values[static_cast<size_t>(mrow + j)]);
              }
            }
            if (causal_ && j > i + past) bias += neg_inf;
            if (j >= limit) bias += neg_inf;
            row[j] += bias;
          }
          if (qk_out != nullptr && qk_mode_ == 2) WriteRow<T>(qk_out, b, h, i, qh, qs, total, row);
          C mx = neg_inf;
          for (int64_t j = 0; j < total; ++j)
            mx = std::max(mx, row[j]);
          // exp(-inf - -inf) is NaN: a fully masked row gives NaN, as the reference does.
          double sum = 0;
          if constexpr (std::is_same_v<C, float>) {
            sum = ExpShiftedF32(row, row, static_cast<size_t>(total), mx);
          } else {
            for (int64_t j = 0; j < total; ++j) {
              row[j] = std::exp(row[j] - mx);
              sum += static_cast<double>(row[j]);
            }
          }
          const C inv = static_cast<C>(1.0 / sum);
          for (int64_t j = 0; j < total; ++j)
            row[j] *= inv;
          if (qk_out != nullptr && qk_mode_ == 3) WriteRow<T>(qk_out, b, h, i, qh, qs, total, row);
        }
        std::fill(out.begin(), out.end(), C(0));
        Gemm2D<C>(scores.data(), total, 1, vp, vhs, 1, out.data(), qs, vhs, total,
                  ctx.thread_pool());
        for (int64_t i = 0; i < qs; ++i) {
          T* dst = y4 ? yp + ((b * qh + h) * qs + i) * vhs : yp + b * y_sb + i * qh * vhs + h * vhs;
          for (int64_t e = 0; e < vhs; ++e)
            dst[e] = static_cast<T>(out[static_cast<size_t>(i * vhs + e)]);
        }
      }
    }
    return Status::Ok();
  }

  template <typename T, typename C>
  static void WriteRow(Tensor* t, int64_t b, int64_t h, int64_t i, int64_t heads, int64_t qs,
                       int64_t total, const C* row) {
    T* dst = t->mutable_data<T>() + ((b * heads + h) * qs + i) * total;
    for (int64_t j = 0; j < total; ++j)
      dst[j] = static_cast<T>(row[j]);
  }

  bool causal_ = false;
  int64_t q_heads_ = 0, kv_heads_ = 0, qk_mode_ = 0;
  float softcap_ = 0, scale_ = 1;
  bool has_scale_ = false;
};

// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim features of each head
// by the cached angles of its position: pairs (i, i + d/2), or (2i, 2i + 1) when
// interleaved, become (x1 cos - x2 sin, x1 sin + x2 cos). Input [B, H, S, hs] or
// [B, S, H * hs] (num_heads then required); the caches are [max_pos, d/2] indexed by
// position_ids [B, S], or [B, S, d/2] without them.
class RotaryEmbedding : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<RotaryEmbedding>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->interleaved_, GetFlag(info, "interleaved", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->dim_, info.GetInt("rotary_embedding_dim", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->heads_, info.GetInt("num_heads", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& cos_t = *ctx.input(1);
    const Tensor& sin_t = *ctx.input(2);
    const Tensor* pos = ctx.input(3);
    const std::string where = ctx.info().Describe();
    const Shape& s = x.shape();
    int64_t batch, heads, seq, hs, sb, sh, ss;
    if (s.rank() == 4) {
      batch = s[0], heads = s[1], seq = s[2], hs = s[3];
      ss = hs, sh = seq * hs, sb = heads * sh;
    } else if (s.rank() == 3) {
      if (heads_ <= 0 || s[2] % heads_ != 0) {
        return Status(StatusCode::kInvalidArgument,
                      where + ": a 3-D input needs num_heads dividing its hidden size " +
                          std::to_string(s[2]));
      }
      batch = s[0], seq = s[1], heads = heads_, hs = s[2] / heads_;
      sh = hs, ss = s[2], sb = seq * ss;
    } else {
      return Status(StatusCode::kInvalidArgument,
                    where + ": input must be 3-D or 4-D, got " + s.ToString());
    }
    const int64_t dim = dim_ == 0 ? hs : dim_;
    if (dim > hs || dim % 2 != 0) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": rotary_embedding_dim " + std::to_string(dim) +
                        " must be even and at most the head size " + std::to_string(hs));
    }
    const int64_t half = dim / 2;
    std::vector<int64_t> positions;
    if (pos != nullptr) {
      if (pos->shape().dims() != std::vector<int64_t>{batch, seq} || cos_t.shape().rank() != 2 ||
          cos_t.shape()[1] != half || sin_t.shape() != cos_t.shape()) {
        return Status(StatusCode::kInvalidArgument,
                      where + ": with position_ids [" + std::to_string(batch) + ", " +
                          std::to_string(seq) + "] the caches must be [max_position, " +
                          std::to_string(half) + "], got " + cos_t.shape().ToString() + " and " +
                          sin_t.shape().ToString());
      }
      positions = IndexValues(*pos);
      for (int64_t p : positions) {
        if (p < 0 || p >= cos_t.shape()[0]) {
          return Status(StatusCode::kInvalidArgument, where + ": position id " + std::to_string(p) +
                                                          " is outside the cache of " +
                                                          std::to_string(cos_t.shape()[0]));
        }
      }
    } else if (cos_t.shape().dims() != std::vector<int64_t>{batch, seq, half} ||
               sin_t.shape() != cos_t.shape()) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": without position_ids the caches must be [" + std::to_string(batch) +
                        ", " + std::to_string(seq) + ", " + std::to_string(half) + "], got " +
                        cos_t.shape().ToString() + " and " + sin_t.shape().ToString());
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, s.dims()));
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = typename ComputeType<T>::type;
      const T* xp = x.data<T>();
      const T* cp = cos_t.data<T>();
      const T* sp = sin_t.data<T>();
      T* yp = y->mutable_data<T>();
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t t = 0; t < seq; ++t) {
          const int64_t row =
              pos != nullptr ? positions[static_cast<size_t>(b * seq + t)] : b * seq + t;
          const T* cr = cp + row * half;
          const T* sr = sp + row * half;
          for (int64_t h = 0; h < heads; ++h) {
            const int64_t base = b * sb + h * sh + t * ss;
            const T* in = xp + base;
            T* out = yp + base;
            for (int64_t i = 0; i < half; ++i) {
              const int64_t a = interleaved_ ? 2 * i : i;
              const int64_t c = interleaved_ ? 2 * i + 1 : i + half;
              const C x1 = static_cast<C>(in[a]), x2 = static_cast<C>(in[c]);
              const C cv = static_cast<C>(cr[i]), sv = static_cast<C>(sr[i]);
              out[a] = static_cast<T>(x1 * cv - x2 * sv);
              out[c] = static_cast<T>(x1 * sv + x2 * cv);
            }
            for (int64_t e = dim; e < hs; ++e)
              out[e] = in[e];
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool interleaved_ = false;
  int64_t dim_ = 0, heads_ = 0;
};

// LinearAttention (opset 27): a recurrent state S [B, H_kv, d_k, d_v] updated token by
// token: gated rules decay S by exp(decay) (per head or per key feature), delta rules
// replace v by beta * (v - S^T k), then S += k v^T, and the output for each query head
// is scale * q^T S of its kv head. Inputs and outputs are [B, T, heads * dim]; computed
// in float as the ONNX reference does.
class LinearAttention : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<LinearAttention>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->rule_, info.GetString("update_rule", "gated_delta"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->q_heads_, info.GetInt("q_num_heads"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->kv_heads_, info.GetInt("kv_num_heads"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->scale_, info.GetFloat("scale", 0.0f));
    if (k->rule_ != "linear" && k->rule_ != "gated" && k->rule_ != "delta" &&
        k->rule_ != "gated_delta") {
      return Status(StatusCode::kInvalidModel,
                    info.Describe() + ": unknown update_rule '" + k->rule_ + "'");
    }
    if (k->q_heads_ <= 0 || k->kv_heads_ <= 0 || k->q_heads_ % k->kv_heads_ != 0) {
      return Status(StatusCode::kInvalidModel,
                    info.Describe() + ": q_num_heads must be a positive multiple of kv_num_heads");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const std::string where = ctx.info().Describe();
    const Tensor& q = *ctx.input(0);
    const Tensor& k = *ctx.input(1);
    const Tensor& v = *ctx.input(2);
    const Tensor* past = ctx.input(3);
    const Tensor* decay = ctx.input(4);
    const Tensor* beta = ctx.input(5);
    const bool gating = rule_ == "gated" || rule_ == "gated_delta";
    const bool delta = rule_ == "delta" || rule_ == "gated_delta";
    if (gating != (decay != nullptr) || delta != (beta != nullptr)) {
      return Status(StatusCode::kInvalidArgument, where + ": update_rule '" + rule_ + "' needs " +
                                                      (gating ? "decay" : "no decay") + " and " +
                                                      (delta ? "beta" : "no beta"));
    }
    if (q.shape().rank() != 3 || k.shape().rank() != 3 || v.shape().rank() != 3) {
      return Status(StatusCode::kInvalidArgument, where + ": query, key and value must be 3-D");
    }
    const int64_t b = q.shape()[0], t = q.shape()[1], hq = q_heads_, hk = kv_heads_;
    if (q.shape()[2] % hq != 0 || k.shape()[2] % hk != 0 || v.shape()[2] % hk != 0 ||
        k.shape()[0] != b || v.shape()[0] != b || k.shape()[1] != t || v.shape()[1] != t) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": query " + q.shape().ToString() + ", key " + k.shape().ToString() +
                        " and value " + v.shape().ToString() + " do not fit the heads");
    }
    const int64_t dk = q.shape()[2] / hq, dv = v.shape()[2] / hk, group = hq / hk;
    if (k.shape()[2] / hk != dk) {
      return Status(StatusCode::kInvalidArgument, where + ": query and key head sizes differ");
    }
    int64_t decay_per = 0;  // 1: per head, dk: per key feature
    if (decay != nullptr) {
      const int64_t last = decay->shape().rank() == 3 ? decay->shape()[2] : -1;
      decay_per = last == hk ? 1 : (last == hk * dk ? dk : 0);
      if (decay_per == 0) {
        return Status(StatusCode::kInvalidArgument,
                      where + ": decay must be [B, T, kv_num_heads] or [B, T, kv_num_heads * d_k]");
      }
    }
    int64_t beta_heads = 0;
    if (beta != nullptr) {
      beta_heads = beta->shape().rank() == 3 ? beta->shape()[2] : -1;
      if (beta_heads != hk && beta_heads != 1) {
        return Status(StatusCode::kInvalidArgument,
                      where + ": beta must be [B, T, kv_num_heads] or [B, T, 1]");
      }
    }
    if (past != nullptr && past->shape().dims() != std::vector<int64_t>{b, hk, dk, dv}) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": past_state must be [" + std::to_string(b) + ", " +
                        std::to_string(hk) + ", " + std::to_string(dk) + ", " + std::to_string(dv) +
                        "]");
    }
    const std::vector<double> qv = ToDoubles(&q), kv = ToDoubles(&k), vv = ToDoubles(&v);
    const std::vector<double> dv_ = ToDoubles(decay), bv = ToDoubles(beta);
    std::vector<float> state(static_cast<size_t>(b * hk * dk * dv), 0.0f);
    if (past != nullptr) {
      const std::vector<double> pv = ToDoubles(past);
      for (size_t i = 0; i < state.size(); ++i)
        state[i] = static_cast<float>(pv[i]);
    }
    const float scale = scale_ == 0.0f ? 1.0f / std::sqrt(static_cast<float>(dk)) : scale_;
    std::vector<float> out(static_cast<size_t>(b * t * hq * dv), 0.0f);
    std::vector<float> vt(static_cast<size_t>(dv));
    for (int64_t n = 0; n < b; ++n) {
      for (int64_t i = 0; i < t; ++i) {
        for (int64_t h = 0; h < hk; ++h) {
          float* st = state.data() + ((n * hk + h) * dk) * dv;
          const int64_t row = n * t + i;
          const double* kt = kv.data() + row * hk * dk + h * dk;
          for (int64_t e = 0; e < dv; ++e)
            vt[static_cast<size_t>(e)] =
                static_cast<float>(vv[static_cast<size_t>(row * hk * dv + h * dv + e)]);
          if (gating) {
            for (int64_t d = 0; d < dk; ++d) {
              const double g = dv_[static_cast<size_t>(row * hk * decay_per + h * decay_per +
                                                       (decay_per == 1 ? 0 : d))];
              const auto f = static_cast<float>(std::exp(static_cast<float>(g)));
              for (int64_t e = 0; e < dv; ++e)
                st[d * dv + e] *= f;
            }
          }
          if (delta) {
            const auto be = static_cast<float>(
                bv[static_cast<size_t>(row * beta_heads + (beta_heads == 1 ? 0 : h))]);
            for (int64_t e = 0; e < dv; ++e) {
              float r = 0;
              for (int64_t d = 0; d < dk; ++d)
                r += st[d * dv + e] * static_cast<float>(kt[d]);
              vt[static_cast<size_t>(e)] = be * (vt[static_cast<size_t>(e)] - r);
            }
          }
          for (int64_t d = 0; d < dk; ++d)
            for (int64_t e = 0; e < dv; ++e)
              st[d * dv + e] += static_cast<float>(kt[d]) * vt[static_cast<size_t>(e)];
          for (int64_t g = 0; g < group; ++g) {
            const int64_t qh = h * group + g;
            const double* qt = qv.data() + row * hq * dk + qh * dk;
            float* o = out.data() + row * hq * dv + qh * dv;
            for (int64_t e = 0; e < dv; ++e) {
              float acc = 0;
              for (int64_t d = 0; d < dk; ++d)
                acc += static_cast<float>(qt[d]) * st[d * dv + e];
              o[e] = scale * acc;
            }
          }
        }
      }
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {b, t, hq * dv}));
    ForFloat(y->dtype(), [&](auto tag) {
      using T = decltype(tag);
      for (size_t i = 0; i < out.size(); ++i)
        y->mutable_data<T>()[i] = static_cast<T>(out[i]);
    });
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * ps, ctx.AllocateOutput(1, {b, hk, dk, dv}));
      ForFloat(ps->dtype(), [&](auto tag) {
        using T = decltype(tag);
        for (size_t i = 0; i < state.size(); ++i)
          ps->mutable_data<T>()[i] = static_cast<T>(state[i]);
      });
    }
    return Status::Ok();
  }

 private:
  std::string rule_;
  int64_t q_heads_ = 0, kv_heads_ = 0;
  float scale_ = 0;
};

// CausalConvWithState (opset 27): a depthwise 1-D convolution over [B, C, L] that sees
// only the past: the input is prefixed with past_state [B, C, K-1] (zeros without it),
// weight [C, 1, K], optional bias [C] and SiLU activation; present_state is the last K-1
// positions of that padded input.
class CausalConvWithState : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<CausalConvWithState>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string act, info.GetString("activation", "none"));
    if (act != "none" && act != "silu" && act != "swish") {
      return Status(StatusCode::kInvalidModel,
                    info.Describe() + ": unknown activation '" + act + "'");
    }
    k->silu_ = act != "none";
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const std::string where = ctx.info().Describe();
    const Tensor& x = *ctx.input(0);
    const Tensor& w = *ctx.input(1);
    const Tensor* bias = ctx.input(2);
    const Tensor* past = ctx.input(3);
    if (x.shape().rank() != 3 || w.shape().rank() != 3 || w.shape()[1] != 1 ||
        w.shape()[0] != x.shape()[1] || w.shape()[2] < 1) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": input must be [B, C, L] and weight [C, 1, K], got " +
                        x.shape().ToString() + " and " + w.shape().ToString());
    }
    const int64_t b = x.shape()[0], c = x.shape()[1], len = x.shape()[2], kw = w.shape()[2];
    if (bias != nullptr && bias->num_elements() != c) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": bias must be [" + std::to_string(c) + "]");
    }
    if (past != nullptr && past->shape().dims() != std::vector<int64_t>{b, c, kw - 1}) {
      return Status(StatusCode::kInvalidArgument, where + ": past_state must be [" +
                                                      std::to_string(b) + ", " + std::to_string(c) +
                                                      ", " + std::to_string(kw - 1) + "]");
    }
    const std::vector<double> xv = ToDoubles(&x), wv = ToDoubles(&w), bv = ToDoubles(bias),
                              pv = ToDoubles(past);
    const int64_t plen = len + kw - 1;
    std::vector<double> padded(static_cast<size_t>(b * c * plen), 0.0);
    for (int64_t n = 0; n < b * c; ++n) {
      for (int64_t i = 0; i < kw - 1 && !pv.empty(); ++i)
        padded[static_cast<size_t>(n * plen + i)] = pv[static_cast<size_t>(n * (kw - 1) + i)];
      for (int64_t i = 0; i < len; ++i)
        padded[static_cast<size_t>(n * plen + kw - 1 + i)] = xv[static_cast<size_t>(n * len + i)];
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    Tensor* ps = nullptr;
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(ps, ctx.AllocateOutput(1, {b, c, kw - 1}));
    }
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* yp = y->mutable_data<T>();
      for (int64_t n = 0; n < b * c; ++n) {
        const int64_t ch = n % c;
        const double* row = padded.data() + n * plen;
        for (int64_t i = 0; i < len; ++i) {
          double acc = bv.empty() ? 0.0 : bv[static_cast<size_t>(ch)];
          for (int64_t k = 0; k < kw; ++k)
            acc += wv[static_cast<size_t>(ch * kw + k)] * row[i + k];
          // The conv result is rounded to T first, then SiLU in float (the reference).
          const auto r = static_cast<float>(static_cast<T>(acc));
          yp[n * len + i] = silu_ ? static_cast<T>(r / (1.0f + std::exp(-r))) : static_cast<T>(r);
        }
        if (ps != nullptr) {
          for (int64_t i = 0; i < kw - 1; ++i)
            ps->mutable_data<T>()[n * (kw - 1) + i] = static_cast<T>(row[len + i]);
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool silu_ = false;
};

}  // namespace

Status RegisterKernel_ai_onnx_Attention(KernelRegistry& r) {
  std::vector<DataType> mask_types = FloatTypes();
  mask_types.push_back(DataType::kBool);
  return r.Register(Def("Attention", 23,
                        {{"T", {0, 1, 2, 4, 5}, {0, 1, 2, 3}, FloatTypes()},
                         {"U", {3}, {}, mask_types},
                         {"I", {6}, {}, {DataType::kInt64}}},
                        FactoryOf<Attention>()));
}

}  // namespace onnx_light::kernels

namespace onnx_light::kernels {

Status RegisterKernel_ai_onnx_LinearAttention(KernelRegistry& r) {
  return r.Register(Def("LinearAttention", 27, {{"T", {0, 1, 2, 3, 4, 5}, {0, 1}, FloatTypes()}},
                        FactoryOf<LinearAttention>()));
}
Status RegisterKernel_ai_onnx_CausalConvWithState(KernelRegistry& r) {
  return r.Register(Def("CausalConvWithState", 27, {{"T", {0, 1, 2, 3}, {0, 1}, FloatTypes()}},
                        FactoryOf<CausalConvWithState>()));
}
Status RegisterKernel_ai_onnx_RotaryEmbedding(KernelRegistry& r) {
  return r.Register(Def("RotaryEmbedding", 23,
                        {{"T", {0, 1, 2}, {0}, FloatTypes()}, {"M", {3}, {}, {DataType::kInt64}}},
                        FactoryOf<RotaryEmbedding>()));
}

}  // namespace onnx_light::kernels
