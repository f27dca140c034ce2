#include "rnn/lstm_f32.h"

#include <algorithm>
#include <cstring>

#include "math/gemm.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/conv_simd.h"

namespace onnx_light::kernels {

void LstmF32(const LstmF32Args& a) {
  const int64_t h = a.hidden, g4 = 4 * h, rows = a.seq * a.batch;
  const Activation sigmoid{ActivationKind::kSigmoid, 0, 0};
  const Activation tanh{ActivationKind::kTanh, 0, 0};
  if (a.y != nullptr) std::fill(a.y, a.y + a.seq * a.dirs * a.batch * h, 0.0f);
  // DynamicQuantizeLSTM: X quantized once for both directions (the int16 kernel takes it
  // centered); a NaN or an infinity leaves the float product.
  const bool quant = a.wq != nullptr && a.rq != nullptr;
  const bool centered = quant && a.wq->vnni.empty();
  const bool x_quant = quant && QuantizeOperand(a.x, rows, a.input, centered, &a.scratch->xq);
  auto direction = [&](int64_t d, ThreadPool* pool) {
    LstmScratch::Direction& s = a.scratch->dir[d];
    // xw [seq * batch, 4h], gates [batch, 4h], hidden and cell [batch, h], tanh(c) [h].
    s.f.resize(static_cast<size_t>(rows * g4 + a.batch * g4 + 2 * a.batch * h + h));
    float* xw = s.f.data();
    float* gates = xw + rows * g4;
    float* hid = gates + a.batch * g4;
    float* cell = hid + a.batch * h;
    float* tc = cell + a.batch * h;
    const bool rev = a.reverse || d == 1;
    const float* w = a.w + d * g4 * a.input;
    const float* r = a.r + d * g4 * h;
    const float* b = a.b != nullptr ? a.b + d * 2 * g4 : nullptr;
    // xw = X W^T + Wb + Rb, every time step at once.
    for (int64_t i = 0; i < rows; ++i) {
      float* row = xw + i * g4;
      for (int64_t j = 0; j < g4; ++j)
        row[j] = b != nullptr ? b[j] + b[g4 + j] : 0.0f;
    }
    if (x_quant) {
      AddQuantizedProduct(*a.wq, d, a.scratch->xq, rows, xw, &s.acc, pool);
    } else if (a.w_packed == nullptr ||
               !PrepackedGemm(a.x, a.input, a.w_packed + d * a.w_packed_stride, xw, rows, g4,
                              a.input, pool, /*force=*/true)) {
      Gemm2D<float>(a.x, a.input, 1, w, 1, a.input, xw, rows, g4, a.input, pool);
    }
    for (int64_t n = 0; n < a.batch; ++n) {
      const int64_t at = (d * a.batch + n) * h;
      for (int64_t j = 0; j < h; ++j) {
        hid[n * h + j] = a.h0 != nullptr ? a.h0[at + j] : 0.0f;
        cell[n * h + j] = a.c0 != nullptr ? a.c0[at + j] : 0.0f;
      }
    }
    for (int64_t step = 0; step < a.seq; ++step) {
      const int64_t t = rev ? a.seq - 1 - step : step;
      std::memcpy(gates, xw + t * a.batch * g4, static_cast<size_t>(a.batch * g4) * sizeof(float));
      if (quant && QuantizeOperand(hid, a.batch, h, centered, &s.hq)) {
        AddQuantizedProduct(*a.rq, d, s.hq, a.batch, gates, &s.acc, nullptr);
      } else {
        Gemm2D<float>(hid, h, 1, r, 1, h, gates, a.batch, g4, h, pool);
      }
      for (int64_t n = 0; n < a.batch; ++n) {
        float* gn = gates + n * g4;  // ONNX gate order: i, o, f, c
        BiasActivationF32(gn, static_cast<size_t>(3 * h), 0.0f, nullptr, sigmoid);
        BiasActivationF32(gn + 3 * h, static_cast<size_t>(h), 0.0f, nullptr, tanh);
        float* cn = cell + n * h;
        float* hn = hid + n * h;
        for (int64_t j = 0; j < h; ++j)
          cn[j] = gn[2 * h + j] * cn[j] + gn[j] * gn[3 * h + j];
        std::memcpy(tc, cn, static_cast<size_t>(h) * sizeof(float));
        BiasActivationF32(tc, static_cast<size_t>(h), 0.0f, nullptr, tanh);
        for (int64_t j = 0; j < h; ++j)
          hn[j] = gn[h + j] * tc[j];
        if (a.y != nullptr) {
          std::memcpy(a.y + ((t * a.dirs + d) * a.batch + n) * h, hn,
                      static_cast<size_t>(h) * sizeof(float));
        }
      }
    }
    for (int64_t n = 0; n < a.batch; ++n) {
      const int64_t at = (d * a.batch + n) * h;
      if (a.y_h != nullptr) std::memcpy(a.y_h + at, hid + n * h, h * sizeof(float));
      if (a.y_c != nullptr) std::memcpy(a.y_c + at, cell + n * h, h * sizeof(float));
    }
  };
  // Two directions on two threads or more: side by side, each whole (a step's product is
  // too small to split between threads at every step: ddddocr's bidirectional 512-wide
  // LSTM was slower at 2 threads than at 1). The products inside run on the calling
  // thread (the pool's workers are busy: ParallelFor runs inline).
  if (a.dirs == 2 && a.pool != nullptr && a.pool->threads() > 1) {
    a.pool->ParallelFor(2, 1, [&](int64_t d0, int64_t d1) {
      for (int64_t d = d0; d < d1; ++d)
        direction(d, a.pool);
    });
    return;
  }
  for (int64_t d = 0; d < a.dirs; ++d)
    direction(d, a.pool);
}

}  // namespace onnx_light::kernels
