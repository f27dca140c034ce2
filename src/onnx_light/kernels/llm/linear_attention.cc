// LinearAttention and CausalConvWithState (opset 27): the recurrent-state attention of
// linear-attention models and the causal depthwise convolution that carries its state.
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "math/gemm.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

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
    ONNX_LIGHT_RETURN_IF(k->rule_ != "linear" && k->rule_ != "gated" && k->rule_ != "delta" &&
                             k->rule_ != "gated_delta",
                         kInvalidModel, "unknown update_rule '" + k->rule_ + "'");
    ONNX_LIGHT_RETURN_IF(k->q_heads_ <= 0 || k->kv_heads_ <= 0 || k->q_heads_ % k->kv_heads_ != 0,
                         kInvalidModel, "q_num_heads must be a positive multiple of kv_num_heads");
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& q = *ctx.input(0);
    const Tensor& k = *ctx.input(1);
    const Tensor& v = *ctx.input(2);
    const Tensor* past = ctx.input(3);
    const Tensor* decay = ctx.input(4);
    const Tensor* beta = ctx.input(5);
    const bool gating = rule_ == "gated" || rule_ == "gated_delta";
    const bool delta = rule_ == "delta" || rule_ == "gated_delta";
    ONNX_LIGHT_RETURN_IF(gating != (decay != nullptr) || delta != (beta != nullptr),
                         kInvalidArgument,
                         "update_rule '" + rule_ + "' needs " + (gating ? "decay" : "no decay") +
                             " and " + (delta ? "beta" : "no beta"));
    ONNX_LIGHT_RETURN_IF(q.shape().rank() != 3 || k.shape().rank() != 3 || v.shape().rank() != 3,
                         kInvalidArgument, "query, key and value must be 3-D");
    const int64_t b = q.shape()[0], t = q.shape()[1], hq = q_heads_, hk = kv_heads_;
    ONNX_LIGHT_RETURN_IF(q.shape()[2] % hq != 0 || k.shape()[2] % hk != 0 ||
                             v.shape()[2] % hk != 0 || k.shape()[0] != b || v.shape()[0] != b ||
                             k.shape()[1] != t || v.shape()[1] != t,
                         kInvalidArgument,
                         "query " + q.shape().ToString() + ", key " + k.shape().ToString() +
                             " and value " + v.shape().ToString() + " do not fit the heads");
    const int64_t dk = q.shape()[2] / hq, dv = v.shape()[2] / hk, group = hq / hk;
    ONNX_LIGHT_RETURN_IF(k.shape()[2] / hk != dk, kInvalidArgument,
                         "query and key head sizes differ");
    // decay and beta are [B, T, ...] like the query: a smaller one would be read past its end.
    for (const Tensor* g : {decay, beta}) {
      ONNX_LIGHT_RETURN_IF(
          g != nullptr && (g->shape().rank() != 3 || g->shape()[0] != b || g->shape()[1] != t),
          kInvalidArgument,
          std::string(g == decay ? "decay" : "beta") + " " + g->shape().ToString() + " must be [" +
              std::to_string(b) + ", " + std::to_string(t) + ", ...] as the query is");
    }
    int64_t decay_per = 0;  // 1: per head, dk: per key feature
    if (decay != nullptr) {
      const int64_t last = decay->shape().rank() == 3 ? decay->shape()[2] : -1;
      decay_per = last == hk ? 1 : (last == hk * dk ? dk : 0);
      ONNX_LIGHT_RETURN_IF(decay_per == 0, kInvalidArgument,
                           "decay must be [B, T, kv_num_heads] or [B, T, kv_num_heads * d_k]");
    }
    int64_t beta_heads = 0;
    if (beta != nullptr) {
      beta_heads = beta->shape().rank() == 3 ? beta->shape()[2] : -1;
      ONNX_LIGHT_RETURN_IF(beta_heads != hk && beta_heads != 1, kInvalidArgument,
                           "beta must be [B, T, kv_num_heads] or [B, T, 1]");
    }
    ONNX_LIGHT_RETURN_IF(
        (past != nullptr && past->shape().dims() != std::vector<int64_t>{b, hk, dk, dv}),
        kInvalidArgument,
        "past_state must be [" + std::to_string(b) + ", " + std::to_string(hk) + ", " +
            std::to_string(dk) + ", " + std::to_string(dv) + "]");
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
    ONNX_LIGHT_RETURN_IF(act != "none" && act != "silu" && act != "swish", kInvalidModel,
                         "unknown activation '" + act + "'");
    k->silu_ = act != "none";
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& w = *ctx.input(1);
    const Tensor* bias = ctx.input(2);
    const Tensor* past = ctx.input(3);
    ONNX_LIGHT_RETURN_IF(x.shape().rank() != 3 || w.shape().rank() != 3 || w.shape()[1] != 1 ||
                             w.shape()[0] != x.shape()[1] || w.shape()[2] < 1,
                         kInvalidArgument,
                         "input must be [B, C, L] and weight [C, 1, K], got " +
                             x.shape().ToString() + " and " + w.shape().ToString());
    const int64_t b = x.shape()[0], c = x.shape()[1], len = x.shape()[2], kw = w.shape()[2];
    ONNX_LIGHT_RETURN_IF(bias != nullptr && bias->num_elements() != c, kInvalidArgument,
                         "bias must be [" + std::to_string(c) + "]");
    ONNX_LIGHT_RETURN_IF(
        (past != nullptr && past->shape().dims() != std::vector<int64_t>{b, c, kw - 1}),
        kInvalidArgument,
        "past_state must be [" + std::to_string(b) + ", " + std::to_string(c) + ", " +
            std::to_string(kw - 1) + "]");
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

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LinearAttention) {
  return r.Register(Def("LinearAttention", 27, {{"T", {0, 1, 2, 3, 4, 5}, {0, 1}, FloatTypes()}},
                        FactoryOf<LinearAttention>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, CausalConvWithState) {
  return r.Register(Def("CausalConvWithState", 27, {{"T", {0, 1, 2, 3}, {0, 1}, FloatTypes()}},
                        FactoryOf<CausalConvWithState>()));
}

}  // namespace onnx_light::kernels
