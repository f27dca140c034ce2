#include "nn/pool_max2x2.h"

#include <algorithm>

#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {

bool MaxPool2x2Stride2F32(const Window& w, const float* x, float* y, int64_t planes,
                          ThreadPool* pool) {
  if (w.in.size() != 2) return false;
  const int64_t kh = w.kernel[0];  // 2, or 1 (a 1 x 2 window at stride (1, 2))
  for (size_t d = 0; d < 2; ++d) {
    const int64_t k = d == 0 ? kh : 2;
    if ((k != 2 && k != 1) || w.kernel[d] != k || w.strides[d] != k || w.dilations[d] != 1 ||
        w.pad_begin[d] != 0 || w.out[d] <= 0 || k * w.out[d] > w.in[d]) {
      return false;
    }
  }
  const int64_t height = w.in[0], width = w.in[1], oh_n = w.out[0], ow_n = w.out[1];
  // Output rows of all planes, in chunks of ~16k outputs.
  const int64_t rows = planes * oh_n;
  ParallelElements(
      pool, rows,
      [&](int64_t r0, int64_t r1) {
        // (plane, oh) of row r0 once; then stepped: a division per row cost more than the
        // row itself on 5-wide rows)
        int64_t plane = r0 / oh_n, oh = r0 % oh_n;
        for (int64_t r = r0; r < r1; ++r) {
          const float* a = x + (plane * height + kh * oh) * width;
          const float* b = a + width;
          float* out = y + r * ow_n;
          // as the separable path: each row's two taps, then the second row into the first
          if (kh == 1) {  // one row's pairs (the same order: the later tap first)
            for (int64_t o = 0; o < ow_n; ++o)
              out[o] = MaxNaN(a[2 * o + 1], a[2 * o]);
          } else if (ow_n >= 16) {  // a loop of MaxNaN the compiler vectorizes
            for (int64_t o = 0; o < ow_n; ++o) {
              const float top = MaxNaN(a[2 * o + 1], a[2 * o]);
              const float bottom = MaxNaN(b[2 * o + 1], b[2 * o]);
              out[o] = MaxNaN(bottom, top);
            }
          } else {
            // short rows run scalar, where MaxNaN's test branches (half mispredicted on
            // random data): `v > m ? v : m` keeps the earlier of equals and compiles to max
            // instructions; a window whose sum is NaN (a NaN tap, or infinities of both
            // signs: rare, so predicted) takes the NaN-aware chain. 1070 -> 300 us for
            // [1000, 10, 10, 10].
            for (int64_t o = 0; o < ow_n; ++o) {
              const float a0 = a[2 * o], a1 = a[2 * o + 1], b0 = b[2 * o], b1 = b[2 * o + 1];
              const float top = a1 > a0 ? a1 : a0;
              const float bottom = b1 > b0 ? b1 : b0;
              const float sum = a0 + a1 + b0 + b1;
              out[o] = sum == sum ? (bottom > top ? bottom : top)
                                  : MaxNaN(MaxNaN(b1, b0), MaxNaN(a1, a0));
            }
          }
          if (++oh == oh_n) {
            oh = 0;
            ++plane;
          }
        }
      },
      std::max<int64_t>(1, (int64_t{1} << 14) / ow_n));
  return true;
}

}  // namespace onnx_light::kernels
