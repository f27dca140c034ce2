// Softmax, LogSoftmax and Hardmax: normalizations along an axis.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/conv_simd.h"
#include "simd/elementwise_simd.h"
#include "simd/reduce_simd.h"
#include "simd/softmax_simd.h"

namespace onnx_light::kernels {
namespace {

enum class Norm { kSoftmax, kLogSoftmax, kHardmax };

// Softmax family. Before opset 13 the input is coerced to 2-D at `axis` (default 1) and
// normalized over the flattened trailing dims; from 13 on, along `axis` (default -1).
template <Norm kNorm>
class Normalize : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Normalize>();
    k->legacy_ = info.opset() < 13;
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", k->legacy_ ? 1 : -1));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    if (x.num_elements() == 0) return Status::Ok();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    int64_t outer = 1, len = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t d = x.shape()[static_cast<size_t>(i)];
      if (i < axis) {
        outer *= d;
      } else if (i == axis || legacy_) {
        len *= d;
      } else {
        inner *= d;
      }
    }
    if (kNorm != Norm::kHardmax && x.dtype() == DataType::kFloat && inner == 1) {
      SoftmaxRows(x.data<float>(), y->mutable_data<float>(), outer, len, ctx.thread_pool());
      return Status::Ok();
    }
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_integral_v<T>) {
        Run(x.data<T>(), y->mutable_data<T>(), outer, len, inner, ctx.thread_pool());
      }
    });
    return Status::Ok();
  }

  // float32 Softmax and LogSoftmax along the last axis (attention scores, classifier and
  // CTC heads): each row in vector code (simd/softmax_simd.h: its maximum, exp(x - max)
  // and its sum in one pass, then the scale or shift); rows split across the pool.
  static void SoftmaxRows(const float* in, float* out, int64_t rows, int64_t len,
                          ThreadPool* pool) {
    auto run = [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        if constexpr (kNorm == Norm::kSoftmax) {
          SoftmaxRowF32(in + r * len, out + r * len, static_cast<size_t>(len));
        } else {
          LogSoftmaxRowF32(in + r * len, out + r * len, static_cast<size_t>(len));
        }
      }
    };
    // Chunks of at least ~8k elements (an exp each: T5's 6 heads of 64 x 64 split in
    // three chunks).
    const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(1, len));
    if (pool != nullptr && pool->threads() > 1 && rows >= 2 * grain) {
      pool->ParallelFor(rows, grain, run);
    } else {
      run(0, rows);
    }
  }

 private:
  template <typename T>
  static void Run(const T* in, T* out, int64_t outer, int64_t len, int64_t inner,
                  ThreadPool* pool) {
    using C = typename ComputeType<T>::type;
    if constexpr (kNorm != Norm::kHardmax && std::is_same_v<T, float>) {
      if (inner >= 8) {
        RunColumns(in, out, outer, len, inner, pool);
        return;
      }
    }
    if constexpr (kNorm == Norm::kHardmax) {
      if (inner == 1) {  // contiguous rows: the first maximum read in place, then one 1
        for (int64_t o = 0; o < outer; ++o) {
          const T* x = in + o * len;
          C m = -std::numeric_limits<C>::infinity();
          int64_t arg = 0;
          if constexpr (std::is_same_v<T, float>) {
            // The maximum in vector code, then the first place it is: a compare and a
            // branch per element taken on every new maximum (a random row: 2.1x ORT).
            // A row with a NaN keeps the scan below (NaN never compares greater).
            const float mx = MaxMinF32(x, static_cast<size_t>(len), true);
            if (!std::isnan(mx)) {
              arg = std::find(x, x + len, mx) - x;
              std::fill_n(out + o * len, len, 0.0f);
              out[o * len + arg] = 1.0f;
              continue;
            }
          }
          for (int64_t k = 0; k < len; ++k) {
            const auto v = static_cast<C>(x[k]);
            if (v > m) {
              m = v;
              arg = k;
            }
          }
          std::fill_n(out + o * len, len, T(C(0)));
          out[o * len + arg] = T(C(1));
        }
        return;
      }
    }
    std::vector<C> row(static_cast<size_t>(len));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < inner; ++j) {
        const int64_t base = o * len * inner + j;
        C m = -std::numeric_limits<C>::infinity();
        int64_t arg = 0;
        for (int64_t k = 0; k < len; ++k) {
          row[static_cast<size_t>(k)] = static_cast<C>(in[base + k * inner]);
          if (row[static_cast<size_t>(k)] > m) {
            m = row[static_cast<size_t>(k)];
            arg = k;
          }
        }
        if constexpr (kNorm == Norm::kHardmax) {
          for (int64_t k = 0; k < len; ++k)
            out[base + k * inner] = T(C(k == arg ? 1 : 0));
          continue;
        }
        if constexpr (kNorm == Norm::kSoftmax && std::is_same_v<C, float>) {
          // One SIMD pass: exp(x - max) and its sum (Highway Exp, within 1 ULP).
          const float inv = 1.0f / ExpShiftedF32(row.data(), row.data(), row.size(), m);
          for (int64_t k = 0; k < len; ++k)
            out[base + k * inner] = T(row[static_cast<size_t>(k)] * inv);
          continue;
        }
        C sum = 0;
        for (C& v : row) {
          v -= m;
          sum += std::exp(v);
        }
        const C log_sum = std::log(sum);
        for (int64_t k = 0; k < len; ++k) {
          const C v = row[static_cast<size_t>(k)];
          out[base + k * inner] = T(kNorm == Norm::kSoftmax ? std::exp(v) / sum : v - log_sum);
        }
      }
    }
  }

  // float32 along a non-last axis: the [len x inner] slab a row at a time, every pass
  // contiguous along `inner` (the column maxima, exp(x - max) in SIMD, the column sums),
  // instead of gathering `inner` strided columns one by one. The columns in blocks of 256,
  // whose [len x 256] slab stays in the L1 cache through the passes, split between the
  // pool's threads (a YOLOv8 head's distribution softmax, 16 x 8400: 322 us on one thread,
  // the whole slab passed four times through L2).
  static void RunColumns(const float* in, float* out, int64_t outer, int64_t len, int64_t inner,
                         ThreadPool* pool) {
    constexpr int64_t kBlock = 256;
    const int64_t blocks = (inner + kBlock - 1) / kBlock;
    const Activation exp_act{ActivationKind::kExp, 0, 0};
    auto run = [&](int64_t t0, int64_t t1) {
      float m[kBlock], sum[kBlock];
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t o = t / blocks, j0 = t % blocks * kBlock;
        const int64_t w = std::min(kBlock, inner - j0);
        const float* x = in + o * len * inner + j0;
        float* y = out + o * len * inner + j0;
        std::fill(m, m + w, -std::numeric_limits<float>::infinity());
        for (int64_t k = 0; k < len; ++k) {
          const float* xr = x + k * inner;
          for (int64_t j = 0; j < w; ++j)
            if (xr[j] > m[j]) m[j] = xr[j];
        }
        std::fill(sum, sum + w, 0.0f);
        for (int64_t k = 0; k < len; ++k) {
          const float* xr = x + k * inner;
          float* yr = y + k * inner;
          for (int64_t j = 0; j < w; ++j)
            yr[j] = xr[j] - m[j];
          if constexpr (kNorm == Norm::kSoftmax) {
            ActivationF32(yr, yr, static_cast<size_t>(w), exp_act);
            for (int64_t j = 0; j < w; ++j)
              sum[j] += yr[j];
          } else {
            for (int64_t j = 0; j < w; ++j)
              sum[j] += std::exp(yr[j]);
          }
        }
        for (int64_t j = 0; j < w; ++j)
          sum[j] = kNorm == Norm::kSoftmax ? 1.0f / sum[j] : std::log(sum[j]);
        for (int64_t k = 0; k < len; ++k) {
          float* yr = y + k * inner;
          for (int64_t j = 0; j < w; ++j) {
            if constexpr (kNorm == Norm::kSoftmax) {
              yr[j] *= sum[j];
            } else {
              yr[j] -= sum[j];
            }
          }
        }
      }
    };
    const int64_t tasks = outer * blocks;
    const int64_t threads = pool != nullptr ? pool->threads() : 1;
    if (threads > 1 && tasks >= 2 && outer * len * inner >= 16384) {
      pool->ParallelFor(tasks, std::max<int64_t>(1, tasks / threads), run);
    } else {
      run(0, tasks);
    }
  }

  int64_t axis_ = -1;
  bool legacy_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Softmax) {
  return r.Register(
      UnaryDef("", "Softmax", 1, FloatTypes(), FactoryOf<Normalize<Norm::kSoftmax>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LogSoftmax) {
  return r.Register(
      UnaryDef("", "LogSoftmax", 1, FloatTypes(), FactoryOf<Normalize<Norm::kLogSoftmax>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Hardmax) {
  return r.Register(
      UnaryDef("", "Hardmax", 1, FloatTypes(), FactoryOf<Normalize<Norm::kHardmax>>()));
}

}  // namespace onnx_light::kernels
