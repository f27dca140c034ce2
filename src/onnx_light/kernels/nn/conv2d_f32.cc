#include "nn/conv2d_f32.h"

#include <algorithm>
#include <cstring>

#include "math/gemm.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

// The outputs ow in [*lo, *hi) whose input column ow * stride + off lies in [0, width).
void ValidColumns(int64_t off, int64_t stride, int64_t width, int64_t out, int64_t* lo,
                  int64_t* hi) {
  *lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
  *hi = width - 1 - off < 0 ? 0 : std::min(out, (width - 1 - off) / stride + 1);
  if (*lo > *hi) *lo = *hi;
}

// One depthwise plane: y[oh, ow] = sum over taps of w[kh, kw] * x[ih, iw], then the
// epilogue.
void DepthwisePlane(const float* x, const float* w, float bias, const float* z, float* y,
                    const Conv2DShape& s, const Activation& act) {
  std::fill(y, y + s.oh * s.ow, bias);  // the bias first, as in the matrix-product path
  for (int64_t kw = 0; kw < s.kw; ++kw) {
    const int64_t off = kw * s.dw - s.pl;
    int64_t lo, hi;
    ValidColumns(off, s.sw, s.w, s.ow, &lo, &hi);
    if (lo >= hi) continue;
    for (int64_t oh = 0; oh < s.oh; ++oh) {
      float* yrow = y + oh * s.ow;
      for (int64_t kh = 0; kh < s.kh; ++kh) {
        const int64_t ih = oh * s.sh - s.pt + kh * s.dh;
        if (ih < 0 || ih >= s.h) continue;
        const float* xrow = x + ih * s.w;
        AxpyStridedF32(yrow + lo, xrow + lo * s.sw + off, static_cast<size_t>(hi - lo),
                       w[kh * s.kw + kw], static_cast<size_t>(s.sw));
      }
    }
  }
  if (z != nullptr || act.kind != ActivationKind::kNone) {
    BiasActivationF32(y, static_cast<size_t>(s.oh * s.ow), 0.0f, z, act);
  }
}

// Columns for `channels` input channels and output rows [oh0, oh1): row (c, kh, kw) holds
// x[c, ih(oh), iw(ow)] for those output positions, 0 where the window reads padding.
void Im2Col(const float* x, int64_t channels, const Conv2DShape& s, int64_t oh0, int64_t oh1,
            float* col) {
  const int64_t out = (oh1 - oh0) * s.ow;
  for (int64_t c = 0; c < channels; ++c) {
    const float* xc = x + c * s.h * s.w;
    for (int64_t kh = 0; kh < s.kh; ++kh) {
      for (int64_t kw = 0; kw < s.kw; ++kw) {
        float* row = col + ((c * s.kh + kh) * s.kw + kw) * out;
        const int64_t off = kw * s.dw - s.pl;
        int64_t lo, hi;
        ValidColumns(off, s.sw, s.w, s.ow, &lo, &hi);
        for (int64_t oh = oh0; oh < oh1; ++oh) {
          float* dst = row + (oh - oh0) * s.ow;
          const int64_t ih = oh * s.sh - s.pt + kh * s.dh;
          if (ih < 0 || ih >= s.h || lo >= hi) {
            std::fill(dst, dst + s.ow, 0.0f);
            continue;
          }
          std::fill(dst, dst + lo, 0.0f);
          const float* src = xc + ih * s.w + off;
          if (s.sw == 1) {
            std::memcpy(dst + lo, src + lo, static_cast<size_t>(hi - lo) * sizeof(float));
          } else {
            for (int64_t ow = lo; ow < hi; ++ow)
              dst[ow] = src[ow * s.sw];
          }
          std::fill(dst + hi, dst + s.ow, 0.0f);
        }
      }
    }
  }
}

}  // namespace

void ConvGemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
              int64_t ldc, std::vector<std::vector<float>>& pack, ThreadPool* pool) {
  static const bool packed = PreferPackedSgemm();
  if (!packed) {
    if (ldc == n) {
      Gemm2D<float>(a, k, 1, b, n, 1, c, m, n, k, pool);
      return;
    }
    for (int64_t i = 0; i < m; ++i)  // rows apart: one product per row of c
      Gemm2D<float>(a + i * k, k, 1, b, n, 1, c + i * ldc, 1, n, k, nullptr);
    return;
  }
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  if (static_cast<int64_t>(pack.size()) < workers) pack.resize(static_cast<size_t>(workers));
  // Column blocks of at least 256 per worker, so each packs panels worth packing.
  const int64_t parts = std::max<int64_t>(1, std::min(workers, n / 256));
  if (parts == 1) {
    SgemmPacked(m, n, k, a, k, b, n, c, ldc, &pack[0]);
    return;
  }
  const int64_t per = (n + parts - 1) / parts;
  pool->ParallelFor(parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t j0 = p * per, j1 = std::min(n, j0 + per);
      if (j0 < j1) SgemmPacked(m, j1 - j0, k, a, k, b + j0, n, c + j0, ldc, &pack[p]);
    }
  });
}

void Conv2DF32(const float* x, const float* w, const float* bias, const float* z, float* y,
               const Conv2DShape& shape, const Activation& act, Conv2DScratch& scr,
               ThreadPool* pool) {
  std::vector<float>& col = scr.col;
  // Images one pixel wide with a kx1 kernel (1-D convolutions exported along the height)
  // are the same memory as one-row images with a 1xk kernel, whose columns are whole rows.
  Conv2DShape s = shape;
  if (s.w == 1 && s.kw == 1 && s.ow == 1 && s.pl == 0 && s.h > 1) {
    s = {s.batch, s.c_in, 1, s.h, s.m, 1, s.kh, s.group, 1, s.oh, 1, s.sh, 1, s.dh, 0, s.pt};
  }
  const int64_t in_plane = s.h * s.w, out_plane = s.oh * s.ow;
  const int64_t taps = s.kh * s.kw;
  if (s.depthwise()) {
    auto run = [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t c = p % s.c_in;
        DepthwisePlane(x + p * in_plane, w + c * taps, bias != nullptr ? bias[c] : 0.0f,
                       z != nullptr ? z + p * out_plane : nullptr, y + p * out_plane, s, act);
      }
    };
    const int64_t planes = s.batch * s.c_in;
    // Chunks of at least ~32k multiply-adds, so small layers stay on one thread.
    const int64_t per_plane = std::max<int64_t>(1, out_plane * taps);
    if (pool != nullptr) {
      pool->ParallelFor(planes, std::max<int64_t>(1, 32768 / per_plane), run);
    } else {
      run(0, planes);
    }
    return;
  }
  const int64_t cg = s.c_in / s.group, mg = s.m / s.group, rows = cg * taps;
  const bool direct =
      taps == 1 && s.sh == 1 && s.sw == 1 && s.pt == 0 && s.pl == 0 && s.oh == s.h && s.ow == s.w;
  // Columns are built for a band of output rows at a time, sized to stay in the L2 cache
  // (about 512 KiB), so the matrix product reads them while they are still there; a
  // whole plane's columns would be written to memory and read back.
  constexpr int64_t kColumnBytes = int64_t{512} << 10;
  const int64_t row_bytes = std::max<int64_t>(1, rows * s.ow * int64_t{sizeof(float)});
  const int64_t band =
      direct ? s.oh : std::max<int64_t>(1, std::min(s.oh, kColumnBytes / row_bytes));
  const bool banded = band < s.oh;
  const int64_t bands = (s.oh + band - 1) / band;
  // Scratch per worker: the band's columns, and its product when banded.
  const int64_t scratch = (direct ? 0 : rows * band * s.ow) + (banded ? mg * band * s.ow : 0);
  // One band: columns, product (bias first, as ONNX Runtime orders the sums, so a model
  // whose channels are equal gets equal channels), copy out, epilogue.
  auto run_band = [&](int64_t task, float* work, std::vector<std::vector<float>>& pack,
                      ThreadPool* gemm_pool) {
    const int64_t b = task / (s.group * bands), g = task / bands % s.group;
    const int64_t oh0 = task % bands * band, oh1 = std::min(s.oh, oh0 + band);
    const int64_t n = (oh1 - oh0) * s.ow;
    const float* xg = x + (b * s.c_in + g * cg) * in_plane;
    float* yg = y + (b * s.m + g * mg) * out_plane;
    const float* cols = xg;
    if (!direct) {
      Im2Col(xg, cg, s, oh0, oh1, work);
      cols = work;
    }
    float* dst = banded ? work + (direct ? 0 : rows * band * s.ow) : yg;
    const int64_t ld = banded ? n : out_plane;
    for (int64_t oc = 0; oc < mg; ++oc) {
      std::fill(dst + oc * ld, dst + oc * ld + n, bias != nullptr ? bias[g * mg + oc] : 0.0f);
    }
    ConvGemm(mg, n, rows, w + g * mg * rows, cols, dst, ld, pack, gemm_pool);
    for (int64_t oc = 0; oc < mg; ++oc) {
      const int64_t ch = g * mg + oc;
      float* out = yg + oc * out_plane + oh0 * s.ow;
      if (banded) std::memcpy(out, dst + oc * n, static_cast<size_t>(n) * sizeof(float));
      if (z != nullptr || act.kind != ActivationKind::kNone) {
        BiasActivationF32(out, static_cast<size_t>(n), 0.0f,
                          z != nullptr ? z + (b * s.m + ch) * out_plane + oh0 * s.ow : nullptr,
                          act);
      }
    }
  };
  const int64_t tasks = s.batch * s.group * bands;
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  if (workers > 1 && tasks >= workers) {
    // Enough bands for every thread: each worker builds and multiplies its own bands
    // (im2col in parallel too), with scratch of its own.
    col.resize(static_cast<size_t>(workers * scratch));
    if (static_cast<int64_t>(scr.pack.size()) < workers) scr.pack.resize(static_cast<size_t>(workers));
    const int64_t per = (tasks + workers - 1) / workers;
    pool->ParallelFor(workers, 1, [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        std::vector<std::vector<float>> own(1);
        own[0].swap(scr.pack[static_cast<size_t>(k)]);  // this worker's packing space
        for (int64_t t = k * per; t < std::min(tasks, (k + 1) * per); ++t)
          run_band(t, col.data() + k * scratch, own, nullptr);
        own[0].swap(scr.pack[static_cast<size_t>(k)]);
      }
    });
    return;
  }
  col.resize(static_cast<size_t>(scratch));
  for (int64_t t = 0; t < tasks; ++t)
    run_band(t, col.data(), scr.pack, pool);  // the product splits across the pool
}

}  // namespace onnx_light::kernels
