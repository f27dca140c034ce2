// Attention (opset 23 and 24).
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
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "math/gemm.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/elementwise_simd.h"
#include "simd/softmax_simd.h"

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
    ONNX_LIGHT_RETURN_IF(k->qk_mode_ < 0 || k->qk_mode_ > 3, kInvalidModel,
                         "qk_matmul_output_mode must be 0, 1, 2 or 3");
    ONNX_LIGHT_RETURN_IF(k->q_heads_ < 0 || k->kv_heads_ < 0, kInvalidModel,
                         "q_num_heads and kv_num_heads must be positive");
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& q = *ctx.input(0);
    const Tensor& k = *ctx.input(1);
    const Tensor& v = *ctx.input(2);
    const size_t rank = q.shape().rank();
    ONNX_LIGHT_RETURN_IF(
        (rank != 3 && rank != 4) || k.shape().rank() != rank || v.shape().rank() != rank,
        kInvalidArgument,
        "Q, K and V must all be 3-D or all 4-D, got " + q.shape().ToString() + ", " +
            k.shape().ToString() + ", " + v.shape().ToString());
    // The 4-D view of each: [batch, heads, seq, head_size] with element strides.
    Geometry g;
    ONNX_LIGHT_RETURN_IF_ERROR(Describe(q, q_heads_, "Q", &g.q));
    ONNX_LIGHT_RETURN_IF_ERROR(Describe(k, kv_heads_, "K", &g.k));
    ONNX_LIGHT_RETURN_IF_ERROR(Describe(v, kv_heads_, "V", &g.v));
    const int64_t batch = g.q.batch;
    ONNX_LIGHT_RETURN_IF(g.k.batch != batch || g.v.batch != batch, kInvalidArgument,
                         "Q, K and V batch sizes differ");
    ONNX_LIGHT_RETURN_IF(g.k.head_size != g.q.head_size, kInvalidArgument,
                         "Q and K head sizes differ (" + std::to_string(g.q.head_size) + " and " +
                             std::to_string(g.k.head_size) + ")");
    ONNX_LIGHT_RETURN_IF(g.k.heads != g.v.heads || g.k.seq != g.v.seq, kInvalidArgument,
                         "K and V must have the same heads and sequence length");
    ONNX_LIGHT_RETURN_IF(g.k.heads == 0 || g.q.heads % g.k.heads != 0, kInvalidArgument,
                         "q heads (" + std::to_string(g.q.heads) +
                             ") must be a multiple of kv heads (" + std::to_string(g.k.heads) +
                             ")");
    const Tensor* past_k = ctx.input(4);
    const Tensor* past_v = ctx.input(5);
    ONNX_LIGHT_RETURN_IF((past_k == nullptr) != (past_v == nullptr), kInvalidArgument,
                         "past_key and past_value come together");
    int64_t past = 0;
    if (past_k != nullptr) {
      const std::vector<int64_t> want_k = {batch, g.k.heads, -1, g.k.head_size};
      const std::vector<int64_t> want_v = {batch, g.v.heads, -1, g.v.head_size};
      ONNX_LIGHT_RETURN_IF(!Matches(past_k->shape(), want_k) || !Matches(past_v->shape(), want_v) ||
                               past_k->shape()[2] != past_v->shape()[2],
                           kInvalidArgument,
                           "past_key " + past_k->shape().ToString() + " / past_value " +
                               past_v->shape().ToString() + " do not match K and V");
      past = past_k->shape()[2];
    }
    const int64_t total = past + g.k.seq;
    const Tensor* mask = ctx.input(3);
    std::vector<int64_t> mask_dims, mask_strides;
    if (mask != nullptr) {
      ONNX_LIGHT_RETURN_IF(mask->shape().rank() < 2 || mask->shape().rank() > 4, kInvalidArgument,
                           "attn_mask must have rank 2 to 4");
      mask_dims = mask->shape().dims();
      mask_dims.insert(mask_dims.begin(), 4 - mask_dims.size(), 1);
      const std::vector<int64_t> target = {batch, g.q.heads, g.q.seq, total};
      for (size_t d = 0; d < 4; ++d) {
        const bool ok =
            d == 3 ? mask_dims[d] <= total : (mask_dims[d] == 1 || mask_dims[d] == target[d]);
        ONNX_LIGHT_RETURN_IF(!ok, kInvalidArgument,
                             "attn_mask " + mask->shape().ToString() + " does not broadcast to [" +
                                 std::to_string(batch) + ", " + std::to_string(g.q.heads) + ", " +
                                 std::to_string(g.q.seq) + ", " + std::to_string(total) + "]");
      }
      mask_strides = RowMajorStrides(mask_dims);
      for (size_t d = 0; d < 3; ++d)
        if (mask_dims[d] == 1) mask_strides[d] = 0;
    }
    const Tensor* nonpad = ctx.input(6);
    ONNX_LIGHT_RETURN_IF(
        nonpad != nullptr &&
            (nonpad->dtype() != DataType::kInt64 || nonpad->num_elements() != batch),
        kInvalidArgument, "nonpad_kv_seqlen must be int64 [" + std::to_string(batch) + "]");

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

  static Status Describe(const Tensor& t, int64_t heads_attr, const char* what, View* v) {
    const Shape& s = t.shape();
    if (s.rank() == 4) {
      v->batch = s[0], v->heads = s[1], v->seq = s[2], v->head_size = s[3];
      v->ss = v->head_size, v->sh = v->seq * v->ss, v->sb = v->heads * v->sh;
      return Status::Ok();
    }
    ONNX_LIGHT_RETURN_IF(heads_attr <= 0, kInvalidModel,
                         "3-D " + std::string(what) +
                             " needs the q_num_heads and kv_num_heads "
                             "attributes");
    ONNX_LIGHT_RETURN_IF(s[2] % heads_attr != 0, kInvalidArgument,
                         std::string(what) + " hidden size " + std::to_string(s[2]) +
                             " is not a multiple of its " + std::to_string(heads_attr) + " heads");
    v->batch = s[0], v->seq = s[1], v->heads = heads_attr, v->head_size = s[2] / heads_attr;
    v->sh = v->head_size, v->ss = s[2], v->sb = v->seq * v->ss;
    return Status::Ok();
  }

  // The past (if any) and the current K or V as one cache [batch, kv_heads, total, size] in C,
  // also written to `present` (if asked for) in T.
  template <typename T, typename C>
  static std::vector<C> Cache(const Tensor* past_t, const Tensor& cur, const View& cv,
                              int64_t batch, int64_t kvh, int64_t past, int64_t total, int64_t size,
                              Tensor* present) {
    std::vector<C> dst(static_cast<size_t>(batch * kvh * total * size));
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
    if (present != nullptr) {
      T* p = present->mutable_data<T>();
      for (size_t i = 0; i < dst.size(); ++i)
        p[i] = static_cast<T>(dst[i]);
    }
    return dst;
  }

  template <typename T, typename C>
  Status Run(KernelContext& ctx, const Geometry& g, int64_t past, int64_t total, const Tensor* mask,
             const std::vector<int64_t>& mask_dims, const std::vector<int64_t>& mask_strides,
             const Tensor* nonpad, Tensor* y, Tensor* present_k, Tensor* present_v,
             Tensor* qk_out) const {
    const int64_t batch = g.q.batch, qh = g.q.heads, kvh = g.k.heads, qs = g.q.seq;
    const int64_t hs = g.q.head_size, vhs = g.v.head_size;
    // Present K and V, contiguous [batch, kv_heads, total, head_size], in C.
    const std::vector<C> kc =
        Cache<T, C>(ctx.input(4), *ctx.input(1), g.k, batch, kvh, past, total, hs, present_k);
    const std::vector<C> vc =
        Cache<T, C>(ctx.input(5), *ctx.input(2), g.v, batch, kvh, past, total, vhs, present_v);
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
    // One (batch, head) pair into its score and output buffers; the pairs spread across
    // the pool (one GEMM of 128 x 128 x 64 at a time does not: 2.9x ORT's time at 2
    // threads), each pair's GEMMs then on its thread alone.
    // float without a mask, padding, softcap or a qk output (the common prompt): blocks of
    // query rows, each block's products over the keys its rows can see only (a causal
    // prompt's later keys are never multiplied), each row scaled and softmax-ed in vector
    // code. (The full products, then per-element scalar passes: 1.5-1.6x ORT's time.)
    const bool blocked = std::is_same_v<C, float> && mask == nullptr && nonpad == nullptr &&
                         qk_out == nullptr && !(cap > 0);
    // A head's output rows into Y (Q's layout, 3-D or 4-D).
    auto store = [&](int64_t b, int64_t h, const std::vector<C>& out) {
      for (int64_t i = 0; i < qs; ++i) {
        T* dst = y4 ? yp + ((b * qh + h) * qs + i) * vhs : yp + b * y_sb + i * qh * vhs + h * vhs;
        for (int64_t e = 0; e < vhs; ++e)
          dst[e] = static_cast<T>(out[static_cast<size_t>(i * vhs + e)]);
      }
    };
    auto one_head = [&](int64_t b, int64_t h, std::vector<C>& scores, std::vector<C>& out,
                        ThreadPool* gemm_pool) {
      if constexpr (std::is_same_v<C, float>) {
        if (blocked) {
          const int64_t kh = h / group;
          BlockedHead(qp + b * g.q.sb + h * g.q.sh, g.q.ss, kc.data() + (b * kvh + kh) * total * hs,
                      vc.data() + (b * kvh + kh) * total * vhs, qs, total, hs, vhs, past, scale,
                      scores.data(), out.data(), gemm_pool);
          store(b, h, out);
          return;
        }
      }
      {
        const int64_t kh = h / group;
        const C* kp = kc.data() + (b * kvh + kh) * total * hs;
        const C* vp = vc.data() + (b * kvh + kh) * total * vhs;
        // scores[i, j] = sum_e Q[i, e] * K[j, e]
        Gemm2DOverwrite<C>(qp + b * g.q.sb + h * g.q.sh, g.q.ss, 1, kp, 1, hs, scores.data(), qs,
                           total, hs, gemm_pool);
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
          // Without a mask or padding, only the causal cut: the masked tail set to -inf
          // and left out of the softmax's passes (exp(-inf) is 0 there anyway), which halves
          // the exps of a causal prompt (per element bias tests ran 2x ORT's time).
          int64_t valid = total;
          if (mask == nullptr && nonpad == nullptr) {
            if (causal_) valid = std::clamp<int64_t>(i + past + 1, 0, total);
            std::fill(row + valid, row + total, neg_inf);
          }
          for (int64_t j = 0; valid == total && j < total; ++j) {
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
          for (int64_t j = 0; j < valid; ++j)
            mx = std::max(mx, row[j]);
          // exp(-inf - -inf) is NaN: a fully masked row gives NaN, as the reference does.
          double sum = 0;
          if constexpr (std::is_same_v<C, float>) {
            sum = ExpShiftedF32(row, row, static_cast<size_t>(valid), mx);
          } else {
            for (int64_t j = 0; j < valid; ++j) {
              row[j] = std::exp(row[j] - mx);
              sum += static_cast<double>(row[j]);
            }
          }
          const C inv = static_cast<C>(1.0 / sum);
          for (int64_t j = 0; j < valid; ++j)
            row[j] *= inv;
          std::fill(row + valid, row + total, C(0));
          if (qk_out != nullptr && qk_mode_ == 3) WriteRow<T>(qk_out, b, h, i, qh, qs, total, row);
        }
        Gemm2DOverwrite<C>(scores.data(), total, 1, vp, vhs, 1, out.data(), qs, vhs, total,
                           gemm_pool);
        store(b, h, out);
      }
    };
    ForEachHead<C>(batch * qh, qh, qs * total, qs * vhs, ctx.thread_pool(), one_head);
    return Status::Ok();
  }

  // head(b, h, scores, out, gemm_pool) for every (batch, head) pair: the pairs spread across
  // the pool, each with buffers of its own (the products then on its thread alone), or one
  // after another with the pool for their products.
  template <typename C, typename Head>
  static void ForEachHead(int64_t pairs, int64_t heads, int64_t score_floats, int64_t out_floats,
                          ThreadPool* pool, const Head& head) {
    const auto buffers = [&]() {
      return std::make_pair(std::vector<C>(static_cast<size_t>(score_floats)),
                            std::vector<C>(static_cast<size_t>(out_floats)));
    };
    if (pool != nullptr && pool->threads() > 1 && pairs >= pool->threads()) {
      pool->ParallelFor(pairs, 1, [&](int64_t p0, int64_t p1) {
        auto [scores, out] = buffers();
        for (int64_t p = p0; p < p1; ++p)
          head(p / heads, p % heads, scores, out, nullptr);
      });
    } else {
      auto [scores, out] = buffers();
      for (int64_t p = 0; p < pairs; ++p)
        head(p / heads, p % heads, scores, out, pool);
    }
  }

  // One head of the blocked path: out[qs, vhs] = softmax(scale * q k^T, causal when
  // causal_) v, query rows in blocks of kBlock; scores holds qs * total floats.
  void BlockedHead(const float* q, int64_t q_pitch, const float* k, const float* v, int64_t qs,
                   int64_t total, int64_t hs, int64_t vhs, int64_t past, float scale, float* scores,
                   float* out, ThreadPool* pool) const {
    constexpr int64_t kBlock = 32;
    for (int64_t i0 = 0; i0 < qs; i0 += kBlock) {
      const int64_t rows = std::min(kBlock, qs - i0);
      // The keys the block's last row sees (all of them without causal).
      const int64_t seen = causal_ ? std::clamp<int64_t>(i0 + rows + past, 0, total) : total;
      float* sc = scores;  // rows x seen
      float* o = out + i0 * vhs;
      std::fill(o, o + rows * vhs, 0.0f);
      if (seen > 0) {
        Gemm2DOverwrite<float>(q + i0 * q_pitch, q_pitch, 1, k, 1, hs, sc, rows, seen, hs, pool);
      }
      for (int64_t r = 0; r < rows; ++r) {
        float* row = sc + r * seen;
        const int64_t valid = causal_ ? std::clamp<int64_t>(i0 + r + past + 1, 0, seen) : seen;
        if (valid == 0) {  // every key masked: NaN, as the reference's exp(-inf - -inf)
          std::fill(o + r * vhs, o + (r + 1) * vhs, std::numeric_limits<float>::quiet_NaN());
          std::fill(row, row + seen, 0.0f);
          continue;
        }
        BinaryF32(row, &scale, row, static_cast<size_t>(valid), BinaryOpF32::kMul,
                  /*b_scalar=*/true, /*swap=*/false);
        SoftmaxRowF32(row, row, static_cast<size_t>(valid));
        std::fill(row + valid, row + seen, 0.0f);
      }
      if (seen > 0) Gemm2D<float>(sc, seen, 1, v, vhs, 1, o, rows, vhs, seen, pool);
    }
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

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Attention) {
  std::vector<DataType> mask_types = FloatTypes();
  mask_types.push_back(DataType::kBool);
  return r.Register(Def("Attention", 23,
                        {{"T", {0, 1, 2, 4, 5}, {0, 1, 2, 3}, FloatTypes()},
                         {"U", {3}, {}, mask_types},
                         {"I", {6}, {}, {DataType::kInt64}}},
                        FactoryOf<Attention>()));
}

}  // namespace onnx_light::kernels
