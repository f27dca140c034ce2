// Rotary position embedding shared by ai.onnx RotaryEmbedding (llm/rotary_embedding.cc) and
// ORT's com.microsoft RotaryEmbedding and GroupQueryAttention (kernels/com_microsoft/).
#pragma once

#include <cstdint>
#include <vector>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {

// Rotates the first `dim` of a head's `hs` features by one position's angles (cos_row and
// sin_row hold dim / 2 values): pairs (i, i + dim/2), or (2i, 2i + 1) when interleaved,
// become (x1 cos - x2 sin, x1 sin + x2 cos); the rest is copied. `in` may be `out`.
template <typename T>
void RotateHead(const T* in, T* out, const T* cos_row, const T* sin_row, int64_t dim, int64_t hs,
                bool interleaved) {
  using C = typename ComputeType<T>::type;
  const int64_t half = dim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const int64_t a = interleaved ? 2 * i : i;
    const int64_t c = interleaved ? 2 * i + 1 : i + half;
    const C x1 = static_cast<C>(in[a]), x2 = static_cast<C>(in[c]);
    const C cv = static_cast<C>(cos_row[i]), sv = static_cast<C>(sin_row[i]);
    out[a] = static_cast<T>(x1 * cv - x2 * sv);
    out[c] = static_cast<T>(x1 * sv + x2 * cv);
  }
  if (in != out) {
    for (int64_t e = dim; e < hs; ++e)
      out[e] = in[e];
  }
}

// Output 0 = x ([B, N, S, H], or [B, S, N * H] with heads_attr heads) rotated: each (b, s)
// by the cache row positions[b * S + s] of [max_position, dim / 2] caches, or, without
// positions, by row (b, s) of [B, S, dim / 2] caches. dim_attr 0 means the head size.
Status RotaryCompute(KernelContext& ctx, const Tensor& x, const Tensor& cos_t, const Tensor& sin_t,
                     const std::vector<int64_t>* positions, int64_t heads_attr, int64_t dim_attr,
                     bool interleaved);

}  // namespace onnx_light::kernels
