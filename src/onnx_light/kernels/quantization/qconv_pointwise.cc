#include "quantization/qconv_pointwise.h"

#include <algorithm>

#include "onnx_light/runtime/thread_pool.h"
#include "quantization/qconv_2d.h"
#include "simd/qgemm_simd.h"

namespace onnx_light::kernels {

namespace {

// dst[r * stride + j] = src[r * stride + j] - 128 as int8, for rows < rows, j in [j0, j1).
// (A function of its own: in the lambda, the int8 stores could alias the captured bounds,
// and the loop reloaded them at every byte, 3x slower than the product after it.)
void FlipColumns(const uint8_t* __restrict src, int8_t* __restrict dst, int64_t rows,
                 int64_t stride, int64_t j0, int64_t j1) {
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* s = src + r * stride;
    int8_t* d = dst + r * stride;
    for (int64_t j = j0; j < j1; ++j)
      d[j] = static_cast<int8_t>(s[j] ^ 0x80);
  }
}

}  // namespace

PointwiseQWeights MakePointwiseQWeights(const Tensor& w, const Tensor* wz) {
  PointwiseQWeights p;
  p.m = w.shape()[0];
  p.k = w.shape()[1];
  p.vnni = HaveVnniQGemm();
  const bool is_signed = w.dtype() == DataType::kInt8;
  const auto* bytes = static_cast<const uint8_t*>(w.raw_data());
  if (p.vnni) {
    // The VNNI kernel's left operand is uint8: int8 weights as w + 128, zero point + 128.
    const uint8_t flip = is_signed ? 0x80 : 0;
    p.a8.resize(static_cast<size_t>(p.m * p.k));
    for (size_t i = 0; i < p.a8.size(); ++i)
      p.a8[i] = static_cast<uint8_t>(bytes[i] ^ flip);
    p.za.resize(static_cast<size_t>(p.m));
    for (int64_t i = 0; i < p.m; ++i)
      p.za[static_cast<size_t>(i)] = QZeroPointAt(wz, i) + (is_signed ? 128 : 0);
    return p;
  }
  p.lda16 = p.k + (p.k & 1);
  p.a16.assign(static_cast<size_t>(p.m * p.lda16), 0);
  for (int64_t i = 0; i < p.m; ++i) {
    const int32_t z = QZeroPointAt(wz, i);
    for (int64_t c = 0; c < p.k; ++c) {
      const uint8_t byte = bytes[i * p.k + c];
      const int32_t v = is_signed ? static_cast<int8_t>(byte) : byte;
      p.a16[static_cast<size_t>(i * p.lda16 + c)] = static_cast<int16_t>(v - z);
    }
  }
  return p;
}

void PointwiseQConv(const PointwiseQWeights& pw, const Tensor& x, int32_t x_zero, int32_t* y,
                    ThreadPool* pool) {
  const int64_t batch = x.shape()[0], k = pw.k, m = pw.m;
  const int64_t hw = batch == 0 || k == 0 ? 0 : x.num_elements() / (batch * k);
  if (hw == 0 || m == 0) return;
  const bool x_signed = x.dtype() == DataType::kInt8;
  const auto* x8 = static_cast<const uint8_t*>(x.raw_data());
  // The right operand's zero point, one per column. VNNI wants int8 there: uint8 codes
  // shifted by 128 (a copy of the image), the zero point with them.
  const bool flip = pw.vnni && !x_signed;
  std::vector<int32_t> zb(static_cast<size_t>(hw), x_zero - (flip ? 128 : 0));
  std::vector<int8_t> shifted(flip ? static_cast<size_t>(k * hw) : 0);
  // Column blocks of 64 split across the pool from ~1M multiply-adds a part.
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  const int64_t parts = std::max<int64_t>(1, std::min({workers, hw / 64, (m * k * hw) >> 20}));
  for (int64_t b = 0; b < batch; ++b) {
    const uint8_t* xb = x8 + b * k * hw;
    int32_t* yb = y + b * m * hw;
    auto cols = [&](int64_t q0, int64_t q1) {
      for (int64_t q = q0; q < q1; ++q) {
        const int64_t j0 = hw * q / parts / 64 * 64,
                      j1 = q + 1 == parts ? hw : hw * (q + 1) / parts / 64 * 64;
        if (j1 <= j0) continue;
        if (!pw.vnni) {
          QGemmI16(m, j1 - j0, k, pw.a16.data(), pw.lda16, xb + j0, x_signed, hw, zb.data() + j0,
                   yb + j0, hw);
          continue;
        }
        const int8_t* right = reinterpret_cast<const int8_t*>(xb);
        if (flip) {  // (this part's columns of every channel)
          FlipColumns(xb, shifted.data(), k, hw, j0, j1);
          right = shifted.data();
        }
        QGemmVnni(m, j1 - j0, k, pw.a8.data(), k, 0, pw.za.data(), right + j0, hw, zb.data() + j0,
                  yb + j0, hw);
      }
    };
    if (parts > 1) {
      pool->ParallelFor(parts, 1, cols);
    } else {
      cols(0, 1);
    }
  }
}

}  // namespace onnx_light::kernels
