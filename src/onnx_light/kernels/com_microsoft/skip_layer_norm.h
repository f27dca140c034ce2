// com.microsoft SkipLayerNormalization and SkipSimplifiedLayerNormalization (kRms): the
// residual add and the layer (RMS) normalization after it, as ORT's transformer optimizer
// fuses them. sum = input + skip (+ bias); output = LayerNorm(sum) * gamma (+ beta).
//   input [B, S, H] or [T, H]; skip of the input's shape, [1, S, H] or [S, H] (shared by
//   every batch); gamma, beta, bias [H].
//   Outputs: output; mean and inv_std_var (float, input dims with H as 1; the simplified
//   op's mean is 0, as ORT writes it); input_skip_bias_sum (the sum, for the next layer).
// float runs the SIMD rows of nn/layer_norm_rows.h; double, float16 and bfloat16 compute
// in double and round once. Errors state ORT's rules.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "nn/layer_norm.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {

template <bool kRms>
class SkipLayerNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<SkipLayerNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->epsilon_, info.GetFloat("epsilon", 1e-12f));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& skip = *ctx.input(1);
    const Tensor& gamma = *ctx.input(2);
    const Tensor* beta = kRms ? nullptr : Optional(ctx, 3);
    const Tensor* bias = Optional(ctx, kRms ? 3 : 4);
    const std::vector<int64_t>& d = x.shape().dims();
    ONNX_LIGHT_RETURN_IF(d.size() != 2 && d.size() != 3, kInvalidArgument,
                         "input " + x.shape().ToString() + " must have 2 or 3 dimensions");
    const std::vector<int64_t>& sd = skip.shape().dims();
    ONNX_LIGHT_RETURN_IF(sd.size() != 2 && sd.size() != 3, kInvalidArgument,
                         "skip " + skip.shape().ToString() + " must have 2 or 3 dimensions");
    const int64_t hidden = d.back();
    ONNX_LIGHT_RETURN_IF(sd.back() != hidden || sd[sd.size() - 2] != d[d.size() - 2] ||
                             (sd.size() == 3 && (d.size() != 3 || (sd[0] != d[0] && sd[0] != 1))),
                         kInvalidArgument,
                         "skip " + skip.shape().ToString() + " must be the input's shape " +
                             x.shape().ToString() + ", or it without the batch dimension");
    for (const Tensor* p : {&gamma, beta, bias}) {
      if (p == nullptr) continue;
      const char* what = p == &gamma ? "gamma" : p == beta ? "beta" : "bias";
      ONNX_LIGHT_RETURN_IF(p->shape().rank() != 1 || p->shape()[0] != hidden, kInvalidArgument,
                           std::string(what) + " " + p->shape().ToString() + " must be [" +
                               std::to_string(hidden) + "]");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, d));
    std::vector<int64_t> stat_dims = d;
    stat_dims.back() = 1;
    float* stats[2] = {nullptr, nullptr};
    for (size_t i = 1; i < 3; ++i) {
      if (ctx.output_count() <= i) continue;
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * t, ctx.AllocateOutput(i, DataType::kFloat, stat_dims));
      stats[i - 1] = t->mutable_data<float>();
    }
    Tensor* sum_out = nullptr;
    if (ctx.output_count() > 3) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(sum_out, ctx.AllocateOutput(3, d));
    }
    const int64_t rows = hidden == 0 ? 0 : x.num_elements() / hidden;
    const int64_t skip_rows = hidden == 0 ? 1 : std::max<int64_t>(1, skip.num_elements() / hidden);
    if (x.dtype() == DataType::kFloat) {
      Rows rs{x.data<float>(),
              skip.data<float>(),
              gamma.data<float>(),
              beta != nullptr ? beta->data<float>() : nullptr,
              bias != nullptr ? bias->data<float>() : nullptr,
              y->mutable_data<float>(),
              sum_out != nullptr ? sum_out->mutable_data<float>() : nullptr,
              stats[0],
              stats[1],
              hidden,
              skip_rows};
      const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, hidden));
      ParallelElements(
          ctx.thread_pool(), rows, [&](int64_t r0, int64_t r1) { RowsF32(rs, r0, r1); }, grain);
      return Status::Ok();
    }
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      RowsInDouble<T>(x, skip, gamma, beta, bias, y, sum_out, stats, hidden, skip_rows, rows);
    });
    return Status::Ok();
  }

 private:
  static const Tensor* Optional(const KernelContext& ctx, size_t i) {
    return ctx.input_count() > i ? ctx.input(i) : nullptr;
  }

  struct Rows {
    const float *x, *skip, *gamma, *beta, *bias;
    float *y, *sum, *mean, *inv;
    int64_t hidden, skip_rows;
  };

  // Rows r0..r1: the sums into `sum` (or a scratch block), normalized in blocks of rows.
  void RowsF32(const Rows& p, int64_t r0, int64_t r1) const {
    const int64_t h = p.hidden;
    constexpr int64_t kBlock = 16;
    std::vector<float> scratch(p.sum == nullptr ? static_cast<size_t>(kBlock * h) : 0);
    for (int64_t b0 = r0; b0 < r1; b0 += kBlock) {
      const int64_t b1 = std::min(r1, b0 + kBlock);
      float* sums = p.sum != nullptr ? p.sum + b0 * h : scratch.data();
      for (int64_t r = b0; r < b1; ++r) {
        const float* xr = p.x + r * h;
        const float* sr = p.skip + (r % p.skip_rows) * h;
        float* out = sums + (r - b0) * h;
        if (p.bias != nullptr) {
          for (int64_t i = 0; i < h; ++i)
            out[i] = xr[i] + sr[i] + p.bias[i];
        } else {
          for (int64_t i = 0; i < h; ++i)
            out[i] = xr[i] + sr[i];
        }
      }
      LayerNormRowsF32(sums, p.gamma, p.beta, p.y + b0 * h, b1 - b0, h, epsilon_, kRms,
                       p.mean != nullptr ? p.mean + b0 : nullptr,
                       p.inv != nullptr ? p.inv + b0 : nullptr);
      if (kRms && p.mean != nullptr) std::fill(p.mean + b0, p.mean + b1, 0.0f);
    }
  }

  template <typename T>
  void RowsInDouble(const Tensor& x, const Tensor& skip, const Tensor& gamma, const Tensor* beta,
                    const Tensor* bias, Tensor* y, Tensor* sum_out, float* const stats[2],
                    int64_t h, int64_t skip_rows, int64_t rows) const {
    std::vector<double> s(static_cast<size_t>(h));
    const T* g = gamma.data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = x.data<T>() + r * h;
      const T* sr = skip.data<T>() + (r % skip_rows) * h;
      double mu = 0;
      for (int64_t i = 0; i < h; ++i) {
        double v = static_cast<double>(xr[i]) + static_cast<double>(sr[i]);
        if (bias != nullptr) v += static_cast<double>(bias->data<T>()[i]);
        s[static_cast<size_t>(i)] = v;
        if (sum_out != nullptr) sum_out->mutable_data<T>()[r * h + i] = static_cast<T>(v);
        mu += v;
      }
      mu = kRms || h == 0 ? 0.0 : mu / static_cast<double>(h);
      double s2 = 0;
      for (double v : s)
        s2 += (v - mu) * (v - mu);
      const double inv =
          1.0 / std::sqrt(s2 / static_cast<double>(std::max<int64_t>(h, 1)) + epsilon_);
      if (stats[0] != nullptr) stats[0][r] = static_cast<float>(mu);
      if (stats[1] != nullptr) stats[1][r] = static_cast<float>(inv);
      T* out = y->mutable_data<T>() + r * h;
      for (int64_t i = 0; i < h; ++i) {
        double v = (s[static_cast<size_t>(i)] - mu) * inv * static_cast<double>(g[i]);
        if (beta != nullptr) v += static_cast<double>(beta->data<T>()[i]);
        out[i] = static_cast<T>(v);
      }
    }
  }

  float epsilon_ = 1e-12f;
};

}  // namespace onnx_light::kernels
