// The attention core of attention_core.h.
#include "llm/attention_core.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "math/gemm.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/elementwise_simd.h"
#include "simd/softmax_simd.h"

namespace onnx_light::kernels {
namespace {

// One (b, h): `scores` holds q_seq * kv_seq floats, `out` q_seq * v_head_size.
void OneHead(const AttentionRun& r, int64_t b, int64_t h, float* scores, float* out,
             ThreadPool* pool) {
  const AttentionShape& s = r.shape;
  const int64_t kh = h / (s.q_heads / s.kv_heads);
  const int64_t qs = s.q_seq, kv = s.kv_seq, hs = s.head_size, vhs = s.v_head_size;
  const float* q = r.q.data + b * r.q.sb + h * r.q.sh;
  const float* k = r.k.data + b * r.k.sb + kh * r.k.sh;
  const float* v = r.v.data + b * r.v.sb + kh * r.v.sh;
  Gemm2DOverwrite<float>(q, r.q.ss, 1, k, 1, r.k.ss, scores, qs, kv, hs, pool);  // Q K^T
  for (int64_t i = 0; i < qs; ++i) {
    float* row = scores + i * kv;
    BinaryF32(row, &r.scale, row, static_cast<size_t>(kv), BinaryOpF32::kMul, /*b_scalar=*/true,
              /*swap=*/false);  // in vector code (a scalar loop here was 8% of a head)
    if (r.softcap > 0) {
      for (int64_t j = 0; j < kv; ++j)
        row[j] = r.softcap * std::tanh(row[j] / r.softcap);
    }
    if (r.bias) r.bias(b, h, i, row);
    if (r.scores != nullptr) {
      std::copy(row, row + kv, r.scores + ((b * s.q_heads + h) * qs + i) * kv);
    }
    if (r.sink == nullptr) {
      SoftmaxRowF32(row, row, static_cast<size_t>(kv));  // in vector code, simd/softmax_simd.h
    } else {  // a sink: one more logit in the maximum and the sum
      float mx = r.sink[h];
      for (int64_t j = 0; j < kv; ++j)
        mx = std::max(mx, row[j]);
      const float sum =
          ExpShiftedF32(row, row, static_cast<size_t>(kv), mx) + std::exp(r.sink[h] - mx);
      const float inv = 1.0f / sum;
      for (int64_t j = 0; j < kv; ++j)
        row[j] *= inv;
    }
    if (r.probs != nullptr) {
      std::copy(row, row + kv, r.probs + ((b * s.q_heads + h) * qs + i) * kv);
    }
  }
  Gemm2DOverwrite<float>(scores, kv, 1, v, r.v.ss, 1, out, qs, vhs, kv, pool);  // P V
  float* y = r.y.data + b * r.y.sb + h * r.y.sh;
  for (int64_t i = 0; i < qs; ++i)
    std::copy(out + i * vhs, out + (i + 1) * vhs, y + i * r.y.ss);
}

}  // namespace

void RunAttentionF32(const AttentionRun& r, ThreadPool* pool) {
  const AttentionShape& s = r.shape;
  const int64_t pairs = s.batch * s.q_heads;
  const auto scratch = static_cast<size_t>(s.q_seq * s.kv_seq + s.q_seq * s.v_head_size);
  if (pairs == 0) return;
  const int threads = pool != nullptr ? pool->threads() : 1;
  if (threads > 1 && pairs >= threads) {
    pool->ParallelFor(pairs, 1, [&](int64_t p0, int64_t p1) {
      std::vector<float> buf(scratch);
      for (int64_t p = p0; p < p1; ++p)
        OneHead(r, p / s.q_heads, p % s.q_heads, buf.data(), buf.data() + s.q_seq * s.kv_seq,
                nullptr);
    });
    return;
  }
  std::vector<float> buf(scratch);
  for (int64_t p = 0; p < pairs; ++p)
    OneHead(r, p / s.q_heads, p % s.q_heads, buf.data(), buf.data() + s.q_seq * s.kv_seq, pool);
}

}  // namespace onnx_light::kernels
