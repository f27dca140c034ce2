// BatchNormalization (inference), InstanceNormalization, GroupNormalization,
// MeanVarianceNormalization, LpNormalization, LayerNormalization, RMSNormalization and
// LRN: statistics in double, rounded once to the storage type (BatchNormalization and
// InstanceNormalization on float apply them in float, as ONNX Runtime does).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/window.h"
#include "math/gemm.h"
#include "nn/layer_norm.h"
#include "onnx_light/platform/target_clones.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {

namespace {

// out[k] = ((row[k] - mu) * inv) * scale[k] (+ bias[k]): a normalized row, rounded as the
// loops before it were. Cloned for AVX-512 and AVX2 (at the baseline's 4 floats a step
// RMSNormalization of [128, 2048] ran 1.7x ORT's time).
ONNX_LIGHT_VECTOR_CLONES void NormalizeRowF32(const float* __restrict row, float mu, float inv,
                                              const float* __restrict scale,
                                              const float* __restrict bias, float* __restrict out,
                                              int64_t n) {
  if (bias != nullptr) {
    for (int64_t k = 0; k < n; ++k)
      out[k] = ((row[k] - mu) * inv) * scale[k] + bias[k];
  } else {
    for (int64_t k = 0; k < n; ++k)
      out[k] = ((row[k] - mu) * inv) * scale[k];
  }
}

// y[i] = (x[i] - m) * a + b over a plane (BatchNormalization, InstanceNormalization).
// Cloned for AVX-512 and AVX2 (at the baseline's 4 floats a step: 1.2x ORT's time).
ONNX_LIGHT_VECTOR_CLONES void AffinePlaneF32(const float* __restrict x, float m, float a, float b,
                                             float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = (x[i] - m) * a + b;
}

// out[k] = x[k] / norm in double, rounded once (LpNormalization's division, as its scalar
// loop did). Cloned for AVX-512 and AVX2.
ONNX_LIGHT_VECTOR_CLONES void DivideRowF32InF64(const float* __restrict x, double norm,
                                                float* __restrict out, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    out[k] = static_cast<float>(static_cast<double>(x[k]) / norm);
}

}  // namespace

void LayerNormRowsF32(const float* x, const float* scale, const float* bias, float* y,
                      int64_t outer, int64_t inner, float epsilon, bool rms, float* mean_out,
                      float* inv_out) {
  for (int64_t o = 0; o < outer; ++o) {
    const float* row = x + o * inner;
    float* out = y + o * inner;
    const auto n = static_cast<size_t>(inner);
    const double mu = rms ? 0.0 : SumF32InF64(row, n, false) / static_cast<double>(inner);
    const auto muf = static_cast<float>(mu);
    const double s2 = SumF32InF64(row, n, true, mu);
    const double inv =
        1.0 / std::sqrt(s2 / static_cast<double>(inner) + static_cast<double>(epsilon));
    if (mean_out != nullptr) mean_out[o] = muf;
    if (inv_out != nullptr) inv_out[o] = static_cast<float>(inv);
    NormalizeRowF32(row, muf, static_cast<float>(inv), scale, bias, out, inner);
  }
}

namespace {

// ---- Normalizations -------------------------------------------------------------------

// Values of a per-channel parameter (any float type: BatchNormalization-15 lets them
// differ from X's) as double, checked to be [C].
Result<std::vector<double>> ChannelParam(const Tensor* t, int64_t c, const char* what) {
  ONNX_LIGHT_RETURN_IF(t == nullptr || t->shape().rank() != 1 || t->shape()[0] != c,
                       kInvalidArgument,
                       std::string(what) + " must be [" + std::to_string(c) + "]");
  return ToDoubles(t);
}

// y = scale[c] * (x - shift[c]) * inv[c] + bias[c] per channel (N, C, spatial...). float:
// y = (x - m) * a + b per plane with m, a = scale * inv and b rounded once to float (as ONNX
// Runtime computes in float; not a * x + d, which cancels when the variance is tiny),
// vectorized, planes split across the pool; other types in double.
void ApplyPerChannel(const Tensor& x, Tensor* y, const std::vector<double>& scale,
                     const std::vector<double>& bias, const std::vector<double>& mean,
                     const std::vector<double>& inv, bool per_instance, ThreadPool* pool) {
  const int64_t n = x.shape()[0], c = x.shape().rank() > 1 ? x.shape()[1] : 1;
  const int64_t sz = n * c == 0 ? 0 : x.num_elements() / (n * c);
  if (x.dtype() == DataType::kFloat) {
    const float* xp = x.data<float>();
    float* yp = y->mutable_data<float>();
    ParallelElements(
        pool, n * c,
        [&](int64_t p0, int64_t p1) {
          for (int64_t p = p0; p < p1; ++p) {
            const auto k = static_cast<size_t>(p % c);
            const auto st = static_cast<size_t>(per_instance ? p : p % c);
            const auto a = static_cast<float>(scale[k] * inv[st]);
            const auto m = static_cast<float>(mean[st]), b = static_cast<float>(bias[k]);
            AffinePlaneF32(xp + p * sz, m, a, b, yp + p * sz, sz);
          }
        },
        std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(sz, 1)));
    return;
  }
  ForFloat(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data<T>();
    T* yp = y->mutable_data<T>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const auto k = static_cast<size_t>(ch);
        const auto s = static_cast<size_t>(per_instance ? b * c + ch : ch);
        const double a = scale[k] * inv[s], d = bias[k] - a * mean[s];
        const int64_t base = (b * c + ch) * sz;
        for (int64_t i = 0; i < sz; ++i)
          yp[base + i] = static_cast<T>(a * static_cast<double>(xp[base + i]) + d);
      }
    }
  });
}

class BatchNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<BatchNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->epsilon_, info.GetFloat("epsilon", 1e-5f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t training, info.GetInt("training_mode", 0));
    ONNX_LIGHT_RETURN_IF(training != 0 || info.output_count() > 1, kNotImplemented,
                         "training mode (running statistics outputs) is not "
                         "supported; onnx-light runs inference");
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF(x.shape().rank() < 2, kInvalidArgument, "X must be [N, C, ...]");
    const int64_t c = x.shape()[1];
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto scale, ChannelParam(ctx.input(1), c, "scale"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto bias, ChannelParam(ctx.input(2), c, "B"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto mean, ChannelParam(ctx.input(3), c, "mean"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto var, ChannelParam(ctx.input(4), c, "var"));
    for (double& v : var)
      v = 1.0 / std::sqrt(v + static_cast<double>(epsilon_));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    ApplyPerChannel(x, y, scale, bias, mean, var, false, ctx.thread_pool());
    return Status::Ok();
  }

 private:
  float epsilon_ = 1e-5f;
};

// Mean and 1 / sqrt(variance + epsilon) of n values, two passes in double (0 and
// 1/sqrt(epsilon) for n = 0).
template <typename T>
void MeanInvStd(const T* p, int64_t n, float epsilon, double* mean, double* inv_std) {
  if constexpr (std::is_same_v<T, float>) {  // the same two passes in SIMD doubles
    const auto u = static_cast<size_t>(n);
    const double mu = n > 0 ? SumF32InF64(p, u, false) / static_cast<double>(n) : 0.0;
    const double var = n > 0 ? SumF32InF64(p, u, true, mu) / static_cast<double>(n) : 0.0;
    *mean = mu;
    *inv_std = 1.0 / std::sqrt(var + static_cast<double>(epsilon));
    return;
  }
  double s = 0, s2 = 0;
  for (int64_t i = 0; i < n; ++i)
    s += static_cast<double>(p[i]);
  const double mu = n > 0 ? s / static_cast<double>(n) : 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(p[i]) - mu;
    s2 += d * d;
  }
  *mean = mu;
  *inv_std =
      1.0 / std::sqrt((n > 0 ? s2 / static_cast<double>(n) : 0.0) + static_cast<double>(epsilon));
}

class InstanceNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<InstanceNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->epsilon_, info.GetFloat("epsilon", 1e-5f));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    const int64_t n = x.shape()[0], c = x.shape()[1];
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto scale, ChannelParam(ctx.input(1), c, "scale"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto bias, ChannelParam(ctx.input(2), c, "B"));
    const int64_t sz = n * c == 0 ? 0 : x.num_elements() / (n * c);
    std::vector<double> mean(static_cast<size_t>(n * c)), inv(static_cast<size_t>(n * c));
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      ParallelElements(
          ctx.thread_pool(), n * c,
          [&](int64_t p0, int64_t p1) {
            for (int64_t p = p0; p < p1; ++p) {
              MeanInvStd(xp + p * sz, sz, epsilon_, &mean[static_cast<size_t>(p)],
                         &inv[static_cast<size_t>(p)]);
            }
          },
          std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(sz, 1)));
    });
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    ApplyPerChannel(x, y, scale, bias, mean, inv, true, ctx.thread_pool());
    return Status::Ok();
  }

 private:
  float epsilon_ = 1e-5f;
};

// GroupNormalization: statistics per (n, group) over the group's channels and all spatial
// positions; scale and bias per channel (opset 21) or per group (opset 18, deprecated).
class GroupNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<GroupNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->epsilon_, info.GetFloat("epsilon", 1e-5f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->groups_, info.GetInt("num_groups"));
    k->per_group_params_ = info.opset() < 21;
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    const int64_t n = x.shape()[0], c = x.shape()[1];
    ONNX_LIGHT_RETURN_IF(groups_ < 1 || c % groups_ != 0, kInvalidArgument,
                         "num_groups " + std::to_string(groups_) + " must divide the " +
                             std::to_string(c) + " channels");
    const int64_t params = per_group_params_ ? groups_ : c;
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto scale, ChannelParam(ctx.input(1), params, "scale"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto bias, ChannelParam(ctx.input(2), params, "bias"));
    const int64_t per_group = c / groups_;
    const int64_t sz = n * c == 0 ? 0 : x.num_elements() / (n * c);
    const int64_t block = per_group * sz;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      T* yp = y->mutable_data<T>();
      for (int64_t b = 0; b < n * groups_; ++b) {
        const T* xg = xp + b * block;
        double mu = 0, inv = 0;
        MeanInvStd(xg, block, epsilon_, &mu, &inv);
        const int64_t g = b % groups_;
        for (int64_t ch = 0; ch < per_group; ++ch) {
          const auto k = static_cast<size_t>(per_group_params_ ? g : g * per_group + ch);
          for (int64_t i = 0; i < sz; ++i) {
            const int64_t at = ch * sz + i;
            yp[b * block + at] =
                static_cast<T>((static_cast<double>(xg[at]) - mu) * inv * scale[k] + bias[k]);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  float epsilon_ = 1e-5f;
  int64_t groups_ = 1;
  bool per_group_params_ = false;
};

// MeanVarianceNormalization: (x - mean) / (std + 1e-9) over `axes` (default N, H, W), the
// ONNX function body's formula.
class MeanVarianceNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<MeanVarianceNorm>();
    if (info.HasAttribute("axes")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->axes_, info.GetInts("axes"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    for (int64_t a : axes_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank));
      reduced[static_cast<size_t>(ax)] = true;
    }
    const std::vector<int64_t>& dims = x.shape().dims();
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    if (x.dtype() == DataType::kFloat && SegmentsF32(x, reduced, y)) return Status::Ok();
    // Group index of each element: its position over the kept axes.
    int64_t groups = 1;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[static_cast<size_t>(d)]) groups *= dims[static_cast<size_t>(d)];
    const int64_t n = x.num_elements();
    std::vector<int64_t> group(static_cast<size_t>(n));
    std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t g = 0;
      for (int64_t d = 0; d < rank; ++d)
        if (!reduced[static_cast<size_t>(d)])
          g = g * dims[static_cast<size_t>(d)] + pos[static_cast<size_t>(d)];
      group[static_cast<size_t>(e)] = g;
      for (int64_t d = rank; d-- > 0;) {
        if (++pos[static_cast<size_t>(d)] < dims[static_cast<size_t>(d)]) break;
        pos[static_cast<size_t>(d)] = 0;
      }
    }
    const std::vector<double> v = ToDoubles(&x);
    std::vector<double> sum(static_cast<size_t>(groups), 0), sq(static_cast<size_t>(groups), 0);
    std::vector<int64_t> count(static_cast<size_t>(groups), 0);
    for (int64_t e = 0; e < n; ++e) {
      const auto g = static_cast<size_t>(group[static_cast<size_t>(e)]);
      sum[g] += v[static_cast<size_t>(e)];
      ++count[g];
    }
    for (size_t g = 0; g < sum.size(); ++g)
      sum[g] = count[g] > 0 ? sum[g] / static_cast<double>(count[g]) : 0.0;
    for (int64_t e = 0; e < n; ++e) {
      const auto g = static_cast<size_t>(group[static_cast<size_t>(e)]);
      const double d = v[static_cast<size_t>(e)] - sum[g];
      sq[g] += d * d;
    }
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* out = y->mutable_data<T>();
      for (int64_t e = 0; e < n; ++e) {
        const auto g = static_cast<size_t>(group[static_cast<size_t>(e)]);
        const double sd = std::sqrt(count[g] > 0 ? sq[g] / static_cast<double>(count[g]) : 0.0);
        out[e] = static_cast<T>((v[static_cast<size_t>(e)] - sum[g]) / (sd + 1e-9));
      }
    });
    return Status::Ok();
  }

 private:
  // float32 whose trailing reduced axes make segments of 16 elements or more (the default
  // N, H, W on NCHW: each channel's planes): each segment's sum, then its squares about the
  // group's mean, in SIMD doubles (SumF32InF64), then (x - mean) / (std + 1e-9) in float
  // over the segment. False, writing nothing, for other layouts.
  static bool SegmentsF32(const Tensor& x, const std::vector<bool>& reduced, Tensor* y) {
    const std::vector<int64_t>& dims = x.shape().dims();
    size_t t = dims.size();
    int64_t seg = 1;
    while (t > 0 && reduced[t - 1])
      seg *= dims[--t];
    const int64_t n = x.num_elements();
    if (seg < 16 || n == 0) return false;
    const int64_t segments = n / seg;
    // Each segment's group: its index over the kept axes among dims[0, t).
    std::vector<int64_t> group(static_cast<size_t>(segments));
    int64_t groups = 1;
    for (size_t d = 0; d < t; ++d)
      if (!reduced[d]) groups *= dims[d];
    std::vector<int64_t> pos(t, 0);
    for (int64_t k = 0; k < segments; ++k) {
      int64_t g = 0;
      for (size_t d = 0; d < t; ++d)
        if (!reduced[d]) g = g * dims[d] + pos[d];
      group[static_cast<size_t>(k)] = g;
      for (size_t d = t; d-- > 0;) {
        if (++pos[d] < dims[d]) break;
        pos[d] = 0;
      }
    }
    const float* xp = x.data<float>();
    float* yp = y->mutable_data<float>();
    std::vector<double> mean(static_cast<size_t>(groups), 0), sq(static_cast<size_t>(groups), 0);
    std::vector<int64_t> count(static_cast<size_t>(groups), 0);
    for (int64_t k = 0; k < segments; ++k) {
      const auto g = static_cast<size_t>(group[static_cast<size_t>(k)]);
      mean[g] += SumF32InF64(xp + k * seg, static_cast<size_t>(seg), false);
      count[g] += seg;
    }
    for (size_t g = 0; g < mean.size(); ++g)
      mean[g] = count[g] > 0 ? mean[g] / static_cast<double>(count[g]) : 0.0;
    for (int64_t k = 0; k < segments; ++k) {
      const auto g = static_cast<size_t>(group[static_cast<size_t>(k)]);
      sq[g] += SumF32InF64(xp + k * seg, static_cast<size_t>(seg), true, mean[g]);
    }
    for (int64_t k = 0; k < segments; ++k) {
      const auto g = static_cast<size_t>(group[static_cast<size_t>(k)]);
      const double sd = std::sqrt(count[g] > 0 ? sq[g] / static_cast<double>(count[g]) : 0.0);
      const auto m = static_cast<float>(mean[g]);
      const auto div = static_cast<float>(sd + 1e-9);
      float* yr = yp + k * seg;
      BinaryF32(xp + k * seg, &m, yr, static_cast<size_t>(seg), BinaryOpF32::kSub, true, false);
      BinaryF32(yr, &div, yr, static_cast<size_t>(seg), BinaryOpF32::kDiv, true, false);
    }
    return true;
  }

  std::vector<int64_t> axes_ = {0, 2, 3};
};

// LpNormalization: x / ||x||_p along `axis` (p 1 or 2); a zero norm gives 0.
class LpNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<LpNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", -1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->p_, info.GetInt("p", 2));
    ONNX_LIGHT_RETURN_IF(k->p_ != 1 && k->p_ != 2, kInvalidModel,
                         "p must be 1 or 2, got " + std::to_string(k->p_));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    int64_t outer = 1, len = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t v = x.shape()[static_cast<size_t>(d)];
      (d < axis ? outer : (d == axis ? len : inner)) *= v;
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    if (x.dtype() == DataType::kFloat && inner == 1 && p_ == 2) {
      // Rows along the last axis: the sum of squares in double in vector code, the division
      // by the norm in double vectorized (element by element: 1.4x ORT's time).
      const float* xp = x.data<float>();
      float* yp = y->mutable_data<float>();
      ParallelElements(
          ctx.thread_pool(), outer,
          [&](int64_t o0, int64_t o1) {
            for (int64_t o = o0; o < o1; ++o) {
              const float* row = xp + o * len;
              const double norm = std::sqrt(SumF32InF64(row, static_cast<size_t>(len), true));
              if (norm == 0) {
                std::fill(yp + o * len, yp + (o + 1) * len, 0.0f);
              } else {
                DivideRowF32InF64(row, norm, yp + o * len, len);
              }
            }
          },
          std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(len, 1)));
      return Status::Ok();
    }
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      T* yp = y->mutable_data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t base = o * len * inner + i;
          double norm = 0;
          for (int64_t k = 0; k < len; ++k) {
            const auto v = static_cast<double>(xp[base + k * inner]);
            norm += p_ == 1 ? std::fabs(v) : v * v;
          }
          if (p_ == 2) norm = std::sqrt(norm);
          for (int64_t k = 0; k < len; ++k) {
            const auto v = static_cast<double>(xp[base + k * inner]);
            yp[base + k * inner] = static_cast<T>(norm == 0 ? 0.0 : v / norm);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = -1, p_ = 2;
};

// LayerNormalization (opset 17) and RMSNormalization (opset 23): normalize over the dims
// from `axis` on; scale (and bias) broadcast to those dims. LayerNormalization's optional
// Mean and InvStdDev outputs have shape dims[:axis] + [1, ...] and type float.
template <bool kRms>
class LayerNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<LayerNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", -1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->epsilon_, info.GetFloat("epsilon", 1e-5f));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& scale = *ctx.input(1);
    const Tensor* bias = kRms ? nullptr : ctx.input(2);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    const std::vector<int64_t> inner_dims(x.shape().dims().begin() + axis, x.shape().dims().end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape inner_shape, Shape::Create(inner_dims));
    const int64_t inner = inner_shape.num_elements();
    const int64_t outer = inner == 0 ? 0 : x.num_elements() / inner;
    auto offsets = [&](const Tensor& p, const char* what) -> Result<std::vector<int64_t>> {
      ONNX_LIGHT_ASSIGN_OR_RETURN(auto d, BroadcastDims(p.shape(), inner_shape));
      ONNX_LIGHT_RETURN_IF(d != inner_dims, kInvalidArgument,
                           std::string(what) + " " + p.shape().ToString() +
                               " does not broadcast to " + inner_shape.ToString());
      const std::vector<int64_t> st = BroadcastStrides(p.shape(), inner_dims);
      std::vector<int64_t> off(static_cast<size_t>(inner));
      std::vector<int64_t> pos(inner_dims.size(), 0);
      for (int64_t i = 0; i < inner; ++i) {
        int64_t o = 0;
        for (size_t k = 0; k < pos.size(); ++k)
          o += pos[k] * st[k];
        off[static_cast<size_t>(i)] = o;
        for (size_t k = pos.size(); k-- > 0;) {
          if (++pos[k] < inner_dims[k]) break;
          pos[k] = 0;
        }
      }
      return off;
    };
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto scale_off, offsets(scale, "scale"));
    std::vector<int64_t> bias_off;
    if (bias != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(bias_off, offsets(*bias, "B"));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    std::vector<int64_t> stat_dims(x.shape().dims().begin(), x.shape().dims().begin() + axis);
    stat_dims.resize(static_cast<size_t>(rank), 1);
    float* mean_out = nullptr;
    float* inv_out = nullptr;
    if (!kRms && ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * m, ctx.AllocateOutput(1, DataType::kFloat, stat_dims));
      mean_out = m->mutable_data<float>();
    }
    if (ctx.output_count() > (kRms ? 1 : 2)) {  // RMS: SimplifiedLayerNormalization's
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * v,
                                  ctx.AllocateOutput(kRms ? 1 : 2, DataType::kFloat, stat_dims));
      inv_out = v->mutable_data<float>();
    }
    // float32 with a scale (and bias) of the normalized size, the common case: the sums
    // in double over 8 partial sums each, the output in float, loops the compiler
    // vectorizes.
    const bool identity = [&] {
      for (size_t i = 0; i < scale_off.size(); ++i) {
        if (scale_off[i] != static_cast<int64_t>(i) ||
            (!bias_off.empty() && bias_off[i] != static_cast<int64_t>(i))) {
          return false;
        }
      }
      return true;
    }();
    if (x.dtype() == DataType::kFloat && identity) {
      // Rows split between threads in chunks of at least ~16k values (a transformer's
      // 64 x 512 activations: two chunks).
      auto rows = [&](int64_t o0, int64_t o1) {
        LayerNormRowsF32(x.data<float>() + o0 * inner, scale.data<float>(),
                         bias != nullptr ? bias->data<float>() : nullptr,
                         y->mutable_data<float>() + o0 * inner, o1 - o0, inner, epsilon_, kRms,
                         mean_out != nullptr ? mean_out + o0 : nullptr,
                         inv_out != nullptr ? inv_out + o0 : nullptr);
      };
      const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, inner));
      ThreadPool* pool = ctx.thread_pool();
      if (pool != nullptr && pool->threads() > 1 && outer >= 2 * grain) {
        pool->ParallelFor(outer, grain, rows);
      } else {
        rows(0, outer);
      }
      return Status::Ok();
    }
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      const T* sp = scale.data<T>();
      const T* bp = bias != nullptr ? bias->data<T>() : nullptr;
      T* yp = y->mutable_data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        const T* row = xp + o * inner;
        double mu = 0, s2 = 0;
        if (!kRms) {
          for (int64_t i = 0; i < inner; ++i)
            mu += static_cast<double>(row[i]);
          mu /= static_cast<double>(inner);
        }
        for (int64_t i = 0; i < inner; ++i) {
          const double d = static_cast<double>(row[i]) - mu;
          s2 += d * d;
        }
        const double inv =
            1.0 / std::sqrt(s2 / static_cast<double>(inner) + static_cast<double>(epsilon_));
        if (mean_out != nullptr) mean_out[o] = static_cast<float>(mu);
        if (inv_out != nullptr) inv_out[o] = static_cast<float>(inv);
        for (int64_t i = 0; i < inner; ++i) {
          double v = (static_cast<double>(row[i]) - mu) * inv *
                     static_cast<double>(sp[scale_off[static_cast<size_t>(i)]]);
          if (bp != nullptr) v += static_cast<double>(bp[bias_off[static_cast<size_t>(i)]]);
          yp[o * inner + i] = static_cast<T>(v);
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
};

// LRN: y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta, the
// window spanning channels c - floor((size - 1) / 2) .. c + ceil((size - 1) / 2).
class Lrn : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Lrn>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->alpha_, info.GetFloat("alpha", 1e-4f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->beta_, info.GetFloat("beta", 0.75f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->bias_, info.GetFloat("bias", 1.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->size_, info.GetInt("size"));
    ONNX_LIGHT_RETURN_IF(k->size_ < 1, kInvalidModel, "size must be >= 1");
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t n = x.shape()[0], c = x.shape()[1];
    const int64_t sz = n * c == 0 ? 0 : x.num_elements() / (n * c);
    const int64_t lo = (size_ - 1) / 2, hi = size_ - 1 - lo;
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      T* yp = y->mutable_data<T>();
      // Planes split between the threads (a pow per element: 4.7 ms for AlexNet's first
      // LRN on one thread, where ORT's 2-thread run took 3.1).
      ParallelElements(
          ctx.thread_pool(), n * c,
          [&](int64_t p0, int64_t p1) {
            for (int64_t p = p0; p < p1; ++p) {
              const int64_t b = p / c, ch = p % c;
              const int64_t c0 = std::max<int64_t>(0, ch - lo), c1 = std::min(c - 1, ch + hi);
              for (int64_t i = 0; i < sz; ++i) {
                double sq = 0;
                for (int64_t k = c0; k <= c1; ++k) {
                  const auto v = static_cast<double>(xp[(b * c + k) * sz + i]);
                  sq += v * v;
                }
                const double d =
                    std::pow(static_cast<double>(bias_) +
                                 static_cast<double>(alpha_) / static_cast<double>(size_) * sq,
                             static_cast<double>(beta_));
                yp[p * sz + i] = static_cast<T>(static_cast<double>(xp[p * sz + i]) / d);
              }
            }
          },
          std::max<int64_t>(1, (int64_t{1} << 12) / std::max<int64_t>(sz, 1)));
    });
    return Status::Ok();
  }

 private:
  float alpha_ = 1e-4f, beta_ = 0.75f, bias_ = 1.0f;
  int64_t size_ = 1;
};

Status StatsAreFloat(const onnx::NodeProto&, int, const std::vector<DataType>& in,
                     std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = in[0];
  for (size_t i = 1; i < out->size(); ++i)
    (*out)[i] = DataType::kFloat;
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<KernelBase>> CreateLayerNorm(const KernelInfo& info, bool rms) {
  return rms ? LayerNorm<true>::Create(info) : LayerNorm<false>::Create(info);
}

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, BatchNormalization) {
  return r.Register(
      Def("BatchNormalization", 1, {{"T", {0}, {0}, FloatTypes()}}, FactoryOf<BatchNorm>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, InstanceNormalization) {
  return r.Register(Def("InstanceNormalization", 1, {{"T", {0, 1, 2}, {0}, FloatTypes()}},
                        FactoryOf<InstanceNorm>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GroupNormalization) {
  return r.Register(
      Def("GroupNormalization", 18, {{"T", {0, 1, 2}, {0}, FloatTypes()}}, FactoryOf<GroupNorm>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, MeanVarianceNormalization) {
  return r.Register(
      UnaryDef("", "MeanVarianceNormalization", 9, FloatTypes(), FactoryOf<MeanVarianceNorm>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LpNormalization) {
  return r.Register(UnaryDef("", "LpNormalization", 1, FloatTypes(), FactoryOf<LpNorm>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LayerNormalization) {
  KernelDef def = Def("LayerNormalization", 17, {{"T", {0, 1, 2}, {0}, FloatTypes()}},
                      FactoryOf<LayerNorm<false>>());
  def.output_types = &StatsAreFloat;
  // Opset 1-16: ONNX has no LayerNormalization there, ONNX Runtime has (its optimizer
  // writes it into opset-11..16 graphs); the same op, arity stated here (no schema).
  KernelDef old = def;
  old.since_version = 1;
  old.end_version = 16;
  old.arity = {2, 3, 1, 3, 1u << 2, 0b110};
  ONNX_LIGHT_RETURN_IF_ERROR(r.Register(std::move(old)));
  return r.Register(std::move(def));
}
// onnx_light:LayerNormalization (opset 1): LayerNormalization for graphs whose ai.onnx
// opset predates 17; the fuse_layer_norm pass makes it from the pattern exporters emit
// (inputs X, Scale, optional B; output Y only).
ONNX_LIGHT_REGISTER_KERNEL(onnx_light, LayerNormalization) {
  return r.Register(OnnxLightDef("LayerNormalization", {{"T", {0, 1, 2}, {0}, FloatTypes()}},
                                 FactoryOf<LayerNorm<false>>(), 2, 3, 1u << 2));
}
// onnx_light:RMSNormalization (opset 1): RMSNormalization for graphs whose ai.onnx opset
// predates 23; the fuse_layer_norm pass makes it from the RMS pattern (inputs X, Scale).
ONNX_LIGHT_REGISTER_KERNEL(onnx_light, RMSNormalization) {
  KernelDef def =
      Def("RMSNormalization", 1, {{"T", {0, 1}, {0}, FloatTypes()}}, FactoryOf<LayerNorm<true>>());
  def.domain = "onnx_light";
  return r.Register(std::move(def));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, RMSNormalization) {
  return r.Register(Def("RMSNormalization", 23, {{"T", {0, 1}, {0}, FloatTypes()}},
                        FactoryOf<LayerNorm<true>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LRN) {
  return r.Register(UnaryDef("", "LRN", 1, FloatTypes(), FactoryOf<Lrn>()));
}

}  // namespace onnx_light::kernels
