#include "rnn/lstm_quantized.h"

#include <algorithm>
#include <cmath>

#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {

QuantizedMatrix PackQuantized(const Tensor& q, const Tensor& scale, const Tensor& zp) {
  QuantizedMatrix m;
  m.dirs = q.shape()[0];
  m.k = q.shape()[1];
  m.n = q.shape()[2];
  if (m.dirs == 0 || m.k == 0 || m.n == 0) return m;  // (not usable: nothing to pack)
  const bool per_col = scale.num_elements() != m.dirs;
  const bool is_signed = q.dtype() == DataType::kInt8;
  m.zero.resize(static_cast<size_t>(m.dirs * m.n));
  m.scale.resize(static_cast<size_t>(m.dirs * m.n));
  // uint8 weights as int8 for the VNNI kernel: b - 128 against zero - 128, the same
  // differences.
  const bool vnni = HaveVnniQGemm();
  const int32_t shift = vnni && !is_signed ? 128 : 0;
  for (int64_t d = 0; d < m.dirs; ++d) {
    for (int64_t j = 0; j < m.n; ++j) {
      const int64_t at = per_col ? d * m.n + j : d;
      const int32_t z =
          is_signed ? int32_t{zp.data<int8_t>()[at]} : int32_t{zp.data<uint8_t>()[at]};
      m.zero[static_cast<size_t>(d * m.n + j)] = z - shift;
      m.scale[static_cast<size_t>(d * m.n + j)] = scale.data<float>()[at];
    }
  }
  const auto* bytes = static_cast<const uint8_t*>(q.raw_data());
  const int64_t per = m.k * m.n;
  std::vector<int8_t> flipped(shift != 0 ? static_cast<size_t>(per) : 0);
  for (int64_t d = 0; d < m.dirs; ++d) {
    const uint8_t* b = bytes + d * per;
    if (vnni) {
      const auto* b8 = reinterpret_cast<const int8_t*>(b);
      if (shift != 0) {
        for (int64_t i = 0; i < per; ++i)
          flipped[static_cast<size_t>(i)] = static_cast<int8_t>(b[i] ^ 0x80);
        b8 = flipped.data();
      }
      m.vnni.push_back(QGemmVnniPackB(m.k, m.n, b8, m.n));
      if (m.vnni.back().panels == nullptr) m.vnni.clear();
    } else {
      m.i16.push_back(QGemmI16PackB(m.k, m.n, b, is_signed, m.n));
      if (m.i16.back().bytes == nullptr) {  // a scalar build: read in place
        m.i16.clear();
        m.raw.assign(bytes, bytes + m.dirs * per);
        m.raw_signed = is_signed;
        return m;
      }
    }
  }
  return m;
}

bool QuantizeOperand(const float* a, int64_t m, int64_t k, bool centered, QuantizedOperand* op) {
  const auto n = static_cast<size_t>(m * k);
  float lo = 0, hi = 0;
  bool nan = false;
  RangeF32(a, n, &lo, &hi, &nan);
  if (nan || std::isinf(lo) || std::isinf(hi)) return false;
  const float scale = (hi == lo ? 1.0f : hi - lo) / 255.0f;
  const float zp = std::nearbyint(std::fmin(255.0f, std::fmax(0.0f, 0.0f - lo / scale)));
  op->scale = scale;
  op->zero = static_cast<int32_t>(zp);
  op->q.resize(n);
  QuantizeU8F32(a, n, scale, zp, op->q.data());
  if (centered) {
    const int64_t k2 = k + (k & 1);
    op->centered.resize(static_cast<size_t>(m * k2));
    for (int64_t i = 0; i < m; ++i) {
      int16_t* row = op->centered.data() + i * k2;
      const uint8_t* src = op->q.data() + i * k;
      for (int64_t p = 0; p < k; ++p)
        row[p] = static_cast<int16_t>(src[p] - op->zero);
      if (k2 > k) row[k] = 0;
    }
  }
  return true;
}

void AddQuantizedProduct(const QuantizedMatrix& b, int64_t d, const QuantizedOperand& a, int64_t m,
                         float* c, std::vector<int32_t>* acc, ThreadPool* pool) {
  const int64_t n = b.n, k = b.k;
  acc->resize(static_cast<size_t>(m * n));
  const int32_t* zb = b.zero.data() + d * n;
  const float* sb = b.scale.data() + d * n;
  // Column panels split across the pool from ~1M multiply-adds a part (the input
  // projection of all steps; a step's one row stays on its thread).
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  const int64_t parts = std::max<int64_t>(1, std::min({workers, n / 64, (m * n * k) >> 20}));
  auto cols = [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t j0 = n * q / parts / 64 * 64,
                    j1 = q + 1 == parts ? n : n * (q + 1) / parts / 64 * 64;
      if (j1 <= j0) continue;
      int32_t* out = acc->data() + j0;
      if (!b.vnni.empty()) {
        QGemmVnni(m, j1 - j0, k, a.q.data(), k, a.zero, nullptr, nullptr, n, zb + j0, out, n,
                  &b.vnni[static_cast<size_t>(d)], j0);
      } else if (!b.raw.empty()) {
        QGemmI16(m, j1 - j0, k, a.centered.data(), k + (k & 1), b.raw.data() + d * k * n + j0,
                 b.raw_signed, n, zb + j0, out, n);
      } else {
        QGemmI16Packed(m, j1 - j0, a.centered.data(), k + (k & 1), b.i16[static_cast<size_t>(d)],
                       j0, zb + j0, out, n);
      }
      for (int64_t i = 0; i < m; ++i) {
        const int32_t* s = acc->data() + i * n;
        float* row = c + i * n;
        for (int64_t j = j0; j < j1; ++j)
          row[j] += static_cast<float>(s[j]) * (a.scale * sb[j]);
      }
    }
  };
  if (parts > 1) {
    pool->ParallelFor(parts, 1, cols);
  } else {
    cols(0, 1);
  }
}

}  // namespace onnx_light::kernels
