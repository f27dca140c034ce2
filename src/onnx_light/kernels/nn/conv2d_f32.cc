#include "nn/conv2d_f32.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "math/gemm.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/conv_simd.h"
#include "simd/gemm_simd.h"

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
  if (z != nullptr || HasEffect(act)) {
    BiasActivationF32(y, static_cast<size_t>(s.oh * s.ow), 0.0f, z, act);
  }
}

constexpr int64_t kDirectMaxOut = 32;     // output channels
constexpr int64_t kDirectMaxDepth = 160;  // input channels x taps

// Depthwise planes through the vector kernel (widths strided by 1 or 2): each plane is
// first copied into a zero-padded buffer, so every tap reads without bounds checks.
struct DepthwisePadded {
  int64_t ph, pw, floats;  // padded rows, row length, buffer floats (with the slack)
};
DepthwisePadded PaddedPlane(const Conv2DShape& s) {
  DepthwisePadded p{};
  p.ph = (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1;
  p.pw = (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1;
  p.floats = (p.ph * p.pw + static_cast<int64_t>(DepthwiseSlackFloats()) + 15) / 16 * 16;
  return p;
}
DepthwiseFlat Flat(const Conv2DShape& s) {
  return DepthwiseFlat{s.h, s.w, s.oh, s.ow, s.kh, s.kw, s.dh, s.dw, s.pt, s.pl};
}
// The scratch a part of the planes holds: a padded plane, or the flat kernel's rows.
int64_t PlaneFloats(const Conv2DShape& s) {
  return std::max(PaddedPlane(s).floats, static_cast<int64_t>(DepthwiseFlatFloats(Flat(s))));
}
bool VectorDepthwise(const Conv2DShape& s) {
  return s.sw <= 2 && s.oh > 0 && s.ow > 0;
}
// How many parts the planes split into: chunks of at least ~32k multiply-adds.
int64_t DepthwiseParts(const Conv2DShape& s, int64_t workers) {
  const int64_t per_plane = std::max<int64_t>(1, s.oh * s.ow * s.kh * s.kw);
  const int64_t planes = s.batch * s.c_in;
  return std::max<int64_t>(1, std::min({workers, planes, planes * per_plane / 32768}));
}
// x's plane into the padded buffer. With `borders`, the padding (and the slack past the
// plane) is zeroed too; without, only the rows and columns of x are written: the caller
// reuses a buffer whose borders it zeroed for an earlier plane of the same shape (for
// small planes, 7x7 and 14x14, zeroing them again for each was as long as the taps).
// With `split` (stride-2 depthwise, DepthwiseGeometry::odd), each row's even columns come
// first and its odd ones from (pw + 1) / 2 on.
void PadPlane(const float* x, const Conv2DShape& s, const DepthwisePadded& p, float* out,
              bool borders, bool split = false) {
  const int64_t c0 = std::min(p.pw, s.pl), c1 = std::min(p.pw, s.w + s.pl);
  if (split) {  // the borders land on the same places in every plane: zeroed once
    if (borders) std::fill(out, out + p.floats, 0.0f);
    const int64_t r0 = std::clamp<int64_t>(s.pt, 0, p.ph);
    const int64_t r1 = std::clamp<int64_t>(s.h + s.pt, r0, p.ph);
    if (c0 < c1 && r1 > r0) {
      SplitRowsF32(x + (r0 - s.pt) * s.w + (c0 - s.pl), r1 - r0, s.w, c1 - c0, c0, out + r0 * p.pw,
                   p.pw, (p.pw + 1) / 2);
    }
    return;
  }
  for (int64_t r = 0; r < p.ph; ++r) {
    float* dst = out + r * p.pw;
    const int64_t ih = r - s.pt;
    if (ih < 0 || ih >= s.h || c0 >= c1) {
      if (borders) std::fill(dst, dst + p.pw, 0.0f);
      continue;
    }
    const float* src = x + ih * s.w + (c0 - s.pl);
    if (borders) {
      std::fill(dst, dst + c0, 0.0f);
      std::fill(dst + c1, dst + p.pw, 0.0f);
    }
    if (c1 - c0 >= 32) {
      std::memcpy(dst + c0, src, static_cast<size_t>(c1 - c0) * sizeof(float));
    } else {  // a few floats: inline, not a call per row
      for (int64_t i = 0; i < c1 - c0; ++i)
        dst[c0 + i] = src[i];
    }
  }
  if (borders) std::fill(out + p.ph * p.pw, out + p.floats, 0.0f);
}

// Small filters (a network's first layers: few input channels, few output channels) run
// directly over padded planes, without building columns: the columns and their packing
// cost as much as the product there. Measured per layer (docs/performance.md).
bool UseDirect(const Conv2DShape& s) {
  const int64_t taps = s.kh * s.kw;
  return !s.depthwise() && s.group == 1 && s.sw <= 2 && s.oh > 0 && s.ow > 0 && taps > 1 &&
         s.m <= kDirectMaxOut && s.c_in * taps <= kDirectMaxDepth;
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

bool UsePacked(int64_t n) {
  static const bool avx512 = PreferPackedSgemm();
  return avx512 && n > 128;  // narrower products: in place (below)
}

// Products of a few dozen columns (small planes: a ResNet's 7x7 and 10x10 layers) read the
// weights in place (SgemmIndirectB, rows of the columns matrix as b's rows): packing the
// weights, which serially cost as much as the product, goes, and the output channels
// split between threads. (256 -> 256, 3x3) at 7x7: 474 -> 382 us at one thread, 440 -> 371
// at two (ORT 238 and 139: what is left is the kernel, not the packing).
bool UseInPlace(int64_t n) {
  static const bool avx512 = PreferPackedSgemm();
  return avx512 && n > 16 && n <= 128;
}

// Products this narrow run as dot products (SgemmNarrow): 1.5-3.9x the BLAS up to 4
// columns everywhere, and up to 16 on AVX-512 (bench/gemm_vs_blas.cc, docs/performance.md).
bool UseNarrow(int64_t n) {
  static const int64_t widest = PreferPackedSgemm() ? 16 : 4;
  return n <= widest;
}

// How a product splits between `workers` threads: by column blocks of at least 256 when
// it is wide enough, else by row blocks of at least 16 (small images, many channels).
struct GemmSplit {
  int64_t parts = 1;
  bool by_rows = false;
};
GemmSplit SplitGemm(int64_t m, int64_t n, int64_t workers) {
  GemmSplit g;
  g.parts = std::max<int64_t>(1, std::min(workers, n / 256));
  if (g.parts == 1 && workers > 1) {
    const int64_t rows = std::max<int64_t>(1, std::min(workers, m / 16));
    if (rows > 1) g = {rows, true};
  }
  return g;
}

}  // namespace

void RunShares(ThreadPool* pool, int64_t workers, int64_t tasks, ParallelBody fn) {
  if (pool == nullptr || workers <= 1) {
    for (int64_t t = 0; t < tasks; ++t)
      fn(t, 0);
    return;
  }
  const int64_t per = (tasks + workers - 1) / workers;
  pool->ParallelFor(workers, 1, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      for (int64_t t = k * per; t < std::min(tasks, (k + 1) * per); ++t)
        fn(t, k);
    }
  });
}

size_t ConvGemmWorkFloats(int64_t m, int64_t n, int64_t k, int64_t workers) {
  if (UseNarrow(n)) return static_cast<size_t>(Lines(n * k));  // b transposed
  if (!UsePacked(n)) return 0;
  const GemmSplit g = SplitGemm(m, n, workers);
  const int64_t cols = g.by_rows ? n : (n + g.parts - 1) / g.parts;
  return static_cast<size_t>(g.parts * Lines(static_cast<int64_t>(SgemmPackedWorkFloats(cols))));
}

void ConvGemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
              int64_t ldc, float* work, ThreadPool* pool, const float* a_packed) {
  if (UseNarrow(n)) {
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t j = 0; j < n; ++j)
        work[j * k + p] = b[p * n + j];
    }
    // Rows split across the pool when there is enough work (at least ~256k multiply-adds
    // per chunk).
    auto rows = [&](int64_t i0, int64_t i1) {
      SgemmNarrow(i1 - i0, n, k, a + i0 * k, k, work, k, c + i0 * ldc, ldc);
    };
    const int64_t grain = std::max<int64_t>(16, (int64_t{1} << 15) / std::max<int64_t>(1, n * k));
    if (pool != nullptr && m > grain) {
      pool->ParallelFor(m, grain, rows);
    } else {
      rows(0, m);
    }
    return;
  }
  if (!UsePacked(n)) {  // Gemm2D takes a dense c: callers give ldc == n on this path
    Gemm2D<float>(a, k, 1, b, n, 1, c, m, n, k, pool);
    return;
  }
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  const GemmSplit g = SplitGemm(m, n, workers);
  if (g.parts == 1) {
    SgemmPacked(m, n, k, a, k, b, n, c, ldc, work, a_packed);
    return;
  }
  const int64_t extent = g.by_rows ? m : n, per = (extent + g.parts - 1) / g.parts;
  const int64_t stride = Lines(static_cast<int64_t>(SgemmPackedWorkFloats(g.by_rows ? n : per)));
  pool->ParallelFor(g.parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t i0 = p * per, i1 = std::min(extent, i0 + per);
      if (i0 >= i1) continue;
      if (g.by_rows) {  // rows of a and c; each part packs b itself
        SgemmPacked(i1 - i0, n, k, a + i0 * k, k, b, n, c + i0 * ldc, ldc, work + p * stride);
      } else {
        SgemmPacked(m, i1 - i0, k, a, k, b + i0, n, c + i0, ldc, work + p * stride, a_packed);
      }
    }
  });
}

namespace {

// How Conv2DF32 splits the work; the same numbers size the scratch and run the loops.
struct Plan2D {
  Conv2DShape s;
  int64_t in_plane, out_plane, taps, cg, mg, rows, band, bands, tasks, workers;
  bool direct, banded, by_band;
  int64_t col_floats, out_floats, gemm_floats, per_worker;
  int64_t apack_floats;  // per group: the weights packed once per call (0: not packed)
};

Plan2D Make(const Conv2DShape& shape, int64_t workers) {
  Plan2D p{};
  const Conv2DShape s = AsRows(shape);
  p.s = s;
  p.in_plane = s.h * s.w;
  p.out_plane = s.oh * s.ow;
  p.taps = s.kh * s.kw;
  p.cg = s.c_in / s.group;
  p.mg = s.m / s.group;
  p.rows = p.cg * p.taps;
  p.direct =
      p.taps == 1 && s.sh == 1 && s.sw == 1 && s.pt == 0 && s.pl == 0 && s.oh == s.h && s.ow == s.w;
  // Columns are built for a band of output rows at a time, sized to stay in the L2 cache
  // (about 512 KiB), so the matrix product reads them while they are still there; a
  // whole plane's columns would be written to memory and read back.
  constexpr int64_t kColumnBytes = int64_t{512} << 10;
  const int64_t row_bytes = std::max<int64_t>(1, p.rows * s.ow * int64_t{sizeof(float)});
  // A band keeps at least 256 output positions even past that size: a narrower product
  // (small images with many channels) runs far below the kernels' speed.
  const int64_t min_rows = (256 + s.ow - 1) / std::max<int64_t>(1, s.ow);
  p.band =
      p.direct ? s.oh : std::min(s.oh, std::max<int64_t>({1, kColumnBytes / row_bytes, min_rows}));
  p.bands = s.oh == 0 ? 0 : (s.oh + p.band - 1) / p.band;
  // With several threads taking whole bands, as many bands as make every thread's share
  // equal (13 + 7 rows on two threads ran at 77%: 10 + 10 instead).
  const int64_t images = s.batch * s.group;
  if (workers > 1 && !p.direct && images * p.bands >= workers && images * p.bands % workers != 0 &&
      images * p.bands < 8 * workers) {
    int64_t bands = p.bands;
    while (images * bands % workers != 0)
      ++bands;
    if (bands <= s.oh) {
      p.band = (s.oh + bands - 1) / bands;
      p.bands = (s.oh + p.band - 1) / p.band;
    }
  }
  p.banded = p.band < s.oh;
  p.tasks = images * p.bands;
  p.workers = workers;
  // Enough bands for every thread: each builds and multiplies whole bands. Otherwise one
  // band at a time, its product split between the threads.
  p.by_band = workers > 1 && p.tasks >= workers;
  const int64_t n = p.band * s.ow;
  // Columns read in place are read up to a whole tile past the last one.
  p.col_floats = p.direct ? 0 : Lines(p.rows * n + static_cast<int64_t>(SgemmTileColumns()));
  p.out_floats = p.banded ? Lines(p.mg * n) : 0;  // a short last band may need it
  // The last band may be shorter, and take another kernel: room for either.
  const int64_t last_n = (s.oh - (p.bands - 1) * p.band) * s.ow;
  p.gemm_floats = static_cast<int64_t>(
      std::max(ConvGemmWorkFloats(p.mg, n, p.rows, p.by_band ? 1 : workers),
               ConvGemmWorkFloats(p.mg, last_n, p.rows, p.by_band ? 1 : workers)));
  p.per_worker = p.col_floats + p.out_floats + p.gemm_floats;
  // The weights are packed once per call for the products that read them packed: not
  // when every product splits by rows between the threads (each part packs its own rows;
  // a serial packing of all of them was wasted work, 192 -> 384 1x1 at 13x13 ran no
  // faster on two threads than on one).
  const auto split_by_rows = [&](int64_t cols) {
    return !p.by_band && workers > 1 && SplitGemm(p.mg, cols, workers).by_rows;
  };
  const bool packed_read =
      (UsePacked(n) && !split_by_rows(n)) || (UsePacked(last_n) && !split_by_rows(last_n));
  p.apack_floats = packed_read ? Lines(static_cast<int64_t>(SgemmPackedAFloats(p.mg, p.rows))) : 0;
  return p;
}

}  // namespace

Conv2DShape AsRows(const Conv2DShape& s) {
  // Images one pixel wide with a kx1 kernel (1-D convolutions exported along the height)
  // are the same memory as one-row images with a 1xk kernel, whose columns are whole rows.
  if (s.w == 1 && s.kw == 1 && s.ow == 1 && s.pl == 0 && s.h > 1) {
    return {s.batch, s.c_in, 1, s.h, s.m, 1, s.kh, s.group, 1, s.oh, 1, s.sh, 1, s.dh, 0, s.pt};
  }
  return s;
}

size_t Conv2DScratchFloats(const Conv2DShape& s, int64_t workers, bool w_packed) {
  if (UsePositionsConv(s)) return PositionsConvScratchFloats(s, workers, w_packed);
  if (UseImplicitConv(s)) return ImplicitConvScratchFloats(s, workers);
  const Conv2DShape as_rows = AsRows(s);
  if (UseDirect(as_rows)) return static_cast<size_t>(PaddedPlane(as_rows).floats * s.c_in);
  if (s.depthwise()) {
    if (!VectorDepthwise(s)) return 0;
    return static_cast<size_t>(PlaneFloats(s) * DepthwiseParts(s, workers));
  }
  const Plan2D p = Make(s, workers);
  return static_cast<size_t>(p.apack_floats * p.s.group +
                             p.per_worker * (p.by_band ? p.workers : 1));
}

namespace {

// Stride-1 small filters: a direct convolution over padded planes, output rows split
// across the pool.
void DirectConv(const float* x, const float* w, const float* bias, const float* z, float* y,
                const Conv2DShape& shape, const Activation& act, float* scratch, ThreadPool* pool,
                int64_t workers) {
  const Conv2DShape& s = shape;
  const DepthwisePadded pad = PaddedPlane(s);
  const DepthwiseGeometry geo{s.kh, s.kw, s.sh, s.sw, s.dh, s.dw, s.ow};
  const int64_t in_plane = s.h * s.w, out_plane = s.oh * s.ow;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t c = 0; c < s.c_in; ++c)
      PadPlane(x + (b * s.c_in + c) * in_plane, s, pad, scratch + c * pad.floats,
               /*borders=*/b == 0);
    const float* zb = z != nullptr ? z + b * s.m * out_plane : nullptr;
    float* yb = y + b * s.m * out_plane;
    auto rows = [&](int64_t oh0, int64_t oh1) {
      DirectConvRowsF32(scratch, pad.floats, pad.pw, s.c_in, w, s.m, geo, bias, zb, yb, out_plane,
                        oh0, oh1, act);
    };
    // Rows split across the pool in chunks of at least ~256k multiply-adds.
    const int64_t per_row = std::max<int64_t>(1, s.m * s.c_in * s.kh * s.kw * s.ow);
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 18) / per_row);
    if (pool != nullptr && workers > 1 && s.oh >= 2 * grain) {
      pool->ParallelFor(s.oh, std::max(grain, s.oh / workers), rows);
    } else {
      rows(0, s.oh);
    }
  }
}

// Depthwise with a vector form: each plane padded once, then its rows.
void VectorDepthwiseConv(const float* x, const float* w, const float* bias, const float* z,
                         float* y, const Conv2DShape& shape, const Activation& act, float* scratch,
                         ThreadPool* pool, int64_t workers) {
  const Conv2DShape& s = shape;
  const DepthwisePadded pad = PaddedPlane(s);
  const bool split = s.sw == 2;  // each padded row as its even, then its odd columns
  const DepthwiseGeometry geo{s.kh, s.kw, s.sh, s.sw,
                              s.dh, s.dw, s.ow, split ? (pad.pw + 1) / 2 : 0};
  const int64_t planes = s.batch * s.c_in, in_plane = s.h * s.w, out_plane = s.oh * s.ow;
  const int64_t parts = DepthwiseParts(s, workers), per = (planes + parts - 1) / parts;
  const int64_t pitch = PlaneFloats(s);  // each part's scratch (Conv2DScratchFloats)
  // Small planes at stride 1 with "same" columns (7x7, 14x14), on AVX-512: flat runs.
  const DepthwiseFlat flat = Flat(s);
  if (s.sh == 1 && s.sw == 1 && DepthwiseFlatFits(flat)) {
    auto planes_of = [&](int64_t begin, int64_t end) {
      const int64_t q0 = begin * per, q1 = std::min(planes, end * per);
      if (q1 <= q0) return;
      DepthwiseFlatF32(flat, x + q0 * in_plane, q1 - q0, q0, s.c_in, w, bias,
                       z != nullptr ? z + q0 * out_plane : nullptr, y + q0 * out_plane, act,
                       scratch + begin * pitch);
    };
    if (pool != nullptr && parts > 1) {
      pool->ParallelFor(parts, 1, planes_of);
    } else {
      planes_of(0, parts);
    }
    return;
  }
  // 3x3 and 5x5 at stride 1 or 2 read the planes as they are (AVX2 and AVX-512): the
  // buffer only holds a row of zeros.
  const bool in_place = DepthwiseInPlaceFits(geo, s.oh);
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      float* buf = scratch + k * pitch;
      if (in_place) {
        std::fill(buf, buf + s.w, 0.0f);
        const DepthwiseSource plane{nullptr, s.h, s.w, s.pt, s.pl, buf};
        for (int64_t q = k * per; q < std::min(planes, (k + 1) * per); ++q) {
          const int64_t c = q % s.c_in;
          DepthwiseSource at = plane;
          at.x = x + q * in_plane;
          DepthwiseInPlaceF32(at, w + c * s.kh * s.kw, geo, s.oh, bias != nullptr ? bias[c] : 0.0f,
                              z != nullptr ? z + q * out_plane : nullptr, y + q * out_plane, act);
        }
        continue;
      }
      for (int64_t q = k * per; q < std::min(planes, (k + 1) * per); ++q) {
        const int64_t c = q % s.c_in;
        PadPlane(x + q * in_plane, s, pad, buf, /*borders=*/q == k * per, split);
        DepthwiseRowsF32(buf, pad.pw, w + c * s.kh * s.kw, geo, bias != nullptr ? bias[c] : 0.0f,
                         z != nullptr ? z + q * out_plane : nullptr, y + q * out_plane, 0, s.oh,
                         act);
      }
    }
  };
  if (pool != nullptr && parts > 1) {
    pool->ParallelFor(parts, 1, run);
  } else {
    run(0, parts);
  }
}

// Depthwise with wider strides: row by row, planes split across the pool.
void DepthwiseConvPlanes(const float* x, const float* w, const float* bias, const float* z,
                         float* y, const Conv2DShape& shape, const Activation& act,
                         ThreadPool* pool) {
  const Conv2DShape& s = shape;
  const int64_t in_plane = s.h * s.w, out_plane = s.oh * s.ow, taps = s.kh * s.kw;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t q = begin; q < end; ++q) {
      const int64_t c = q % s.c_in;
      DepthwisePlane(x + q * in_plane, w + c * taps, bias != nullptr ? bias[c] : 0.0f,
                     z != nullptr ? z + q * out_plane : nullptr, y + q * out_plane, s, act);
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
}

}  // namespace

void Conv2DF32(const float* x, const float* w, const float* bias, const float* z, float* y,
               const Conv2DShape& shape, const Activation& act, float* scratch, ThreadPool* pool,
               const float* w_positions) {
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  if (UsePositionsConv(shape)) {
    PositionsConvF32(x, w, bias, z, y, shape, act, scratch, pool, w_positions);
    return;
  }
  // On AVX-512 the implicit product takes the small filters too (faster or equal on
  // every layer measured, docs/performance.md).
  if (UseImplicitConv(shape)) {
    ImplicitConvF32(x, w, bias, z, y, shape, act, scratch, pool);
    return;
  }
  // One-pixel-wide images with a kx1 kernel (a TCN's dilated 1-D convolutions exported
  // along the height) as one-row images: a vector along the row instead of one output per
  // row (dilation 1024 over 996 steps: 1.64 ms -> 77 us).
  const Conv2DShape as_rows = AsRows(shape);
  if (UseDirect(as_rows)) {
    DirectConv(x, w, bias, z, y, as_rows, act, scratch, pool, workers);
    return;
  }
  if (shape.depthwise() && VectorDepthwise(shape)) {
    VectorDepthwiseConv(x, w, bias, z, y, shape, act, scratch, pool, workers);
    return;
  }
  if (shape.depthwise()) {
    DepthwiseConvPlanes(x, w, bias, z, y, shape, act, pool);
    return;
  }
  const Plan2D p = Make(shape, workers);
  const Conv2DShape& s = p.s;
  // The weights, packed once for every band (and thread) that multiplies them.
  float* const apack = scratch;
  scratch += p.apack_floats * s.group;
  if (p.apack_floats > 0) {
    for (int64_t g = 0; g < s.group; ++g)
      SgemmPackA(p.mg, p.rows, w + g * p.mg * p.rows, p.rows, apack + g * p.apack_floats);
  }
  // fn(oc0, oc1) over a band's output channels: split across `band_pool` (the product's,
  // when one band's product is split between the threads) in parts of at least 16k values;
  // the bias fill and the epilogue (a HardSwish over 256 x 14 x 14) ran on one thread while
  // the other waited, 13% of a MobileNetV3 at two threads.
  auto channels = [&](auto fn, int64_t n, ThreadPool* band_pool) {
    if (band_pool != nullptr && band_pool->threads() > 1 && p.mg * n >= (int64_t{1} << 15)) {
      band_pool->ParallelFor(
          p.mg, std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, n)), fn);
    } else {
      fn(0, p.mg);
    }
  };
  // One band: columns, product (bias first, as ONNX Runtime orders the sums, so a model
  // whose channels are equal gets equal channels), copy out, epilogue.
  auto run_band = [&](int64_t task, float* work, ThreadPool* gemm_pool) {
    const int64_t b = task / (s.group * p.bands), g = task / p.bands % s.group;
    const int64_t oh0 = task % p.bands * p.band, oh1 = std::min(s.oh, oh0 + p.band);
    const int64_t n = (oh1 - oh0) * s.ow;
    const float* xg = x + (b * s.c_in + g * p.cg) * p.in_plane;
    float* yg = y + (b * s.m + g * p.mg) * p.out_plane;
    const float* cols = xg;
    if (!p.direct) {
      Im2Col(xg, p.cg, s, oh0, oh1, work);
      cols = work;
    }
    // The product goes into Y's rows directly when the packed kernel runs (it takes a row
    // stride), else, for a band, into a buffer copied out after. The bias goes in first and
    // the product is added to it, as ONNX Runtime orders the sums (a model whose channels
    // are equal gets equal channels).
    const bool in_place = UseInPlace(n) && !p.direct;
    const bool into_y = !p.banded || UsePacked(n) || UseNarrow(n) || in_place;
    float* dst = into_y ? yg + oh0 * s.ow : work + p.col_floats;
    const int64_t ld = into_y ? p.out_plane : n;
    if (in_place) {
      // Sums start from the bias; output channels split between the threads (8-row tiles).
      std::vector<int64_t> boff(static_cast<size_t>(p.rows));
      for (int64_t r = 0; r < p.rows; ++r)
        boff[static_cast<size_t>(r)] = r * n;
      const float* wg = w + g * p.mg * p.rows;
      const float* bg = bias != nullptr ? bias + g * p.mg : nullptr;
      auto rows = [&](int64_t i0, int64_t i1) {
        SgemmIndirectB(i1 - i0, n, p.rows, wg + i0 * p.rows, p.rows, cols, boff.data(),
                       dst + i0 * ld, ld, bg != nullptr ? bg + i0 : nullptr);
      };
      const int64_t threads = gemm_pool != nullptr ? gemm_pool->threads() : 1;
      if (threads > 1 && p.mg >= 32) {
        gemm_pool->ParallelFor(p.mg, std::max<int64_t>(8, p.mg / threads / 8 * 8), rows);
      } else {
        rows(0, p.mg);
      }
    } else {
      channels(
          [&](int64_t oc0, int64_t oc1) {
            for (int64_t oc = oc0; oc < oc1; ++oc) {
              std::fill(dst + oc * ld, dst + oc * ld + n,
                        bias != nullptr ? bias[g * p.mg + oc] : 0.0f);
            }
          },
          n, gemm_pool);
      ConvGemm(p.mg, n, p.rows, w + g * p.mg * p.rows, cols, dst, ld,
               work + p.col_floats + p.out_floats, gemm_pool,
               p.apack_floats > 0 ? apack + g * p.apack_floats : nullptr);
    }
    const bool epilogue = z != nullptr || HasEffect(act);
    channels(
        [&](int64_t oc0, int64_t oc1) {
          if (into_y && n == p.out_plane) {  // whole planes, one after another: one call
            // (1x1 planes, a squeeze-excite's or a classifier's: a call per value was 15% of
            // a 512 -> 1280 layer)
            if (epilogue) {
              const int64_t first = (b * s.m + g * p.mg + oc0) * p.out_plane;
              BiasActivationF32(y + first, static_cast<size_t>((oc1 - oc0) * n), 0.0f,
                                z != nullptr ? z + first : nullptr, act);
            }
            return;
          }
          for (int64_t oc = oc0; oc < oc1; ++oc) {
            const int64_t ch = g * p.mg + oc;
            float* out = yg + oc * p.out_plane + oh0 * s.ow;
            if (!into_y) std::memcpy(out, dst + oc * n, static_cast<size_t>(n) * sizeof(float));
            if (epilogue) {
              BiasActivationF32(
                  out, static_cast<size_t>(n), 0.0f,
                  z != nullptr ? z + (b * s.m + ch) * p.out_plane + oh0 * s.ow : nullptr, act);
            }
          }
        },
        n, gemm_pool);
  };
  if (p.by_band) {
    RunShares(pool, workers, p.tasks,
              [&](int64_t t, int64_t k) { run_band(t, scratch + k * p.per_worker, nullptr); });
    return;
  }
  for (int64_t t = 0; t < p.tasks; ++t)
    run_band(t, scratch, pool);  // the product splits across the pool
}

}  // namespace onnx_light::kernels
