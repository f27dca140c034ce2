// Implicit convolution (AVX-512): the matrix product of the weights [m, c * kh * kw],
// read in place, with columns that are never built. Each band of output rows copies the
// input rows it reads into zero-padded planes split by stride phase (row r, column q of
// the padded plane go to phase (r % sh, q % sw) at (r / sh, q / sw)), on the thread that
// runs the band, so that every tap (c, kh, kw) reads a phase plane at a fixed offset from
// the output position: output (oh, ow) is computed at n = oh * wq + ow, and tap (c, kh,
// kw) reads the prepared input at off[c, kh, kw] + n. The product walks those offsets
// (SgemmIndirectB) instead of packed columns; the columns ow >= OW of each row (wq - OW of
// them, the window's reach past the last output) are computed and dropped. 1x1
// convolutions with unit strides and no pads read the input and write the output in
// place (Pointwise). Numbers and the choices in docs/performance.md.
#include <algorithm>
#include <cstring>

#include "nn/conv2d_f32.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

struct Implicit {
  int64_t cg, mg, taps, k;  // per group: input channels, output channels, k = cg * taps
  int64_t band, bands, workers;
  int64_t parts, part;       // one row split by columns between threads: parts of `part` columns
  int64_t mparts;            // one band split by output channels between threads
  int64_t hq, wq;            // one phase plane of a band's input: band + reach rows
  int64_t plane;             // floats per input channel (sh * sw phase planes)
  int64_t in_floats;         // a band's prepared input, with its slack
  int64_t off_floats, cbuf;  // scratch parts: the tap offsets, one output band
  int64_t row;               // a padded input row
  int64_t per_worker() const { return in_floats + cbuf + row; }
};

Implicit MakeImplicit(const Conv2DShape& s, int64_t workers) {
  Implicit p{};
  p.cg = s.c_in / s.group;
  p.mg = s.m / s.group;
  p.taps = s.kh * s.kw;
  p.k = p.cg * p.taps;
  const int64_t pw = (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1;
  p.wq = (pw + s.sw - 1) / s.sw;
  // A band of output rows: its products (mg x band * wq floats) stay in the L2 cache
  // while every block of k adds to them.
  constexpr int64_t kBandFloats = int64_t{128} << 10;
  p.band = std::clamp<int64_t>(kBandFloats / std::max<int64_t>(1, p.mg * p.wq), 1, s.oh);
  p.bands = (s.oh + p.band - 1) / p.band;
  // The whole output in one band (a 13x13 map: 13 rows in bands of 7 and 6 left a thread
  // waiting, and both prepared most of the input): the threads prepare its input channels
  // in shares, then split its output channels, in whole tiles of 8.
  p.mparts = 1;
  if (workers > 1 && p.bands == 1 && s.oh > 1 && p.mg >= 16 * workers) p.mparts = workers;
  if (workers > 1 && p.mparts == 1) {  // an equal share of rows for every thread
    const int64_t bands = std::min(s.oh, (p.bands + workers - 1) / workers * workers);
    p.band = (s.oh + bands - 1) / bands;
    p.bands = (s.oh + p.band - 1) / p.band;
  }
  // A single output row (1-D convolutions) is split by columns instead, in whole tiles.
  p.parts = 1;
  const auto tile = static_cast<int64_t>(SgemmTileColumns());
  if (workers > 1 && s.oh == 1) p.parts = std::clamp<int64_t>(p.wq / (2 * tile), 1, workers);
  p.part = (p.wq + p.parts - 1) / p.parts;
  if (p.parts > 1) p.part = (p.part + tile - 1) / tile * tile;
  p.parts = (p.wq + p.part - 1) / p.part;
  p.workers = std::max<int64_t>(1, std::min(workers, p.bands * p.parts * p.mparts));
  // Each band prepares the input rows it reads, on the thread that runs it: rows shared
  // between threads would move between their caches on every run.
  p.hq = p.band + (s.kh - 1) * s.dh / s.sh + 1;
  p.plane = s.sh * s.sw * p.hq * p.wq;
  // Whole tiles are read past the last output position (and past a row's end by the
  // widest tap offset): readable slack, zeroed.
  p.in_floats = Lines(p.cg * p.plane + static_cast<int64_t>(SgemmTileColumns()) + p.wq + 16);
  p.off_floats = Lines(2 * p.k);  // int64 offsets
  p.cbuf = Lines(p.mg * p.band * p.wq);
  p.row = Lines(p.wq * s.sw);
  return p;
}

// The input of the band starting at output row oh0 into its phase planes: padded row r
// (from oh0 * sh) goes to phase r % sh, row r / sh - oh0. `row` holds the padded row
// (wq * sw floats) that wider strides split. Ends with the zeroed slack.
// Channels [c0, c1) only, when given (the slack with the last).
void Prepare(const float* x, const Conv2DShape& s, const Implicit& p, int64_t oh0, float* out,
             float* row, int64_t c0 = 0, int64_t c1 = -1) {
  const int64_t pw = p.wq * s.sw, phase = p.hq * p.wq;
  const int64_t l0 = std::min(pw, s.pl), l1 = std::clamp<int64_t>(s.w + s.pl, l0, pw);
  if (c1 < 0) c1 = p.cg;
  for (int64_t c = c0; c < c1; ++c) {
    const float* xc = x + c * s.h * s.w;
    float* oc = out + c * p.plane;
    for (int64_t r = oh0 * s.sh; r < (oh0 + p.hq) * s.sh; ++r) {
      const int64_t ih = r - s.pt;
      float* rows = oc + (r % s.sh) * s.sw * phase + (r / s.sh - oh0) * p.wq;
      if (ih < 0 || ih >= s.h || l0 >= l1) {
        for (int64_t f = 0; f < s.sw; ++f)
          std::fill(rows + f * phase, rows + f * phase + p.wq, 0.0f);
        continue;
      }
      float* dst = s.sw == 1 ? rows : row;  // stride 1: the row is its own phase
      std::fill(dst, dst + l0, 0.0f);
      std::memcpy(dst + l0, xc + ih * s.w + (l0 - s.pl),
                  static_cast<size_t>(l1 - l0) * sizeof(float));
      std::fill(dst + l1, dst + pw, 0.0f);
      if (s.sw == 2) {
        DeinterleaveF32(row, static_cast<size_t>(p.wq), rows, rows + phase);
      } else if (s.sw > 2) {
        for (int64_t f = 0; f < s.sw; ++f) {
          for (int64_t j = 0; j < p.wq; ++j)
            rows[f * phase + j] = row[j * s.sw + f];
        }
      }
    }
  }
  if (c1 == p.cg) std::fill(out + p.cg * p.plane, out + p.in_floats, 0.0f);
}

// 1x1 convolutions with unit strides and no pads: the input planes are the rows of b as
// they are, and each output plane is a row of c, so the product reads and writes the
// tensors in place. Only the last partial tile of columns goes through a buffer (reads
// past the end of x are not allowed).
bool Pointwise(const Conv2DShape& s) {
  return s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.pt == 0 && s.pl == 0 &&
         s.oh == s.h && s.ow == s.w;
}

struct PointwisePlan {
  int64_t cg, mg, n, tile, full;  // full: columns in whole tiles
  int64_t whole;                  // columns through the tiles; the rest by dot products
  int64_t chunk, tasks, workers;  // column chunks of whole tiles
  int64_t row_parts;              // each chunk's output channels in this many parts
  int64_t off_floats, tail_floats, rest_floats;
};

PointwisePlan MakePointwise(const Conv2DShape& s, int64_t workers) {
  PointwisePlan p{};
  p.cg = s.c_in / s.group;
  p.mg = s.m / s.group;
  p.n = s.h * s.w;
  p.tile = static_cast<int64_t>(SgemmTileColumns());
  p.full = p.n / p.tile * p.tile;
  // A last few columns (at most 4 past a multiple of the vector: 7x7 = 48 + 1, 14x14 = 192
  // + 4) are dot products of the weights' rows with the input's columns (SgemmNarrow: the
  // weights read once more), not a tile of vectors mostly zero: a 7x7 plane's 49 columns
  // had cost 64.
  const int64_t vec = p.tile / 2;  // the tile is two vectors wide on every target
  p.whole = p.n % vec <= 4 ? p.n / vec * vec : p.n;
  // Chunks whose products (mg x chunk) stay in the L2 cache across the blocks of k, as many
  // for every thread.
  constexpr int64_t kChunkFloats = int64_t{128} << 10;
  const int64_t tiles = (p.n + p.tile - 1) / p.tile;
  int64_t chunks = std::max<int64_t>(1, p.mg * p.n / kChunkFloats);
  chunks = std::min(tiles, (chunks + workers - 1) / workers * workers);
  p.chunk = (tiles + chunks - 1) / chunks * p.tile;
  p.row_parts = 1;
  // Few tiles of columns (a 14x14 plane: 7) split unevenly between threads (4 and 3, the
  // last one partial): such planes split their output channels instead, in parts of whole
  // 8-row tiles.
  if (workers > 1 && tiles < 4 * workers && p.mg >= 16 * workers) {
    p.chunk = tiles * p.tile;
    p.row_parts = workers;
  }
  p.tasks = (p.n + p.chunk - 1) / p.chunk * p.row_parts;
  p.workers = std::max<int64_t>(1, std::min(workers, p.tasks));
  p.off_floats = Lines(2 * p.cg);
  p.tail_floats = Lines(p.cg * p.tile + 16);
  p.rest_floats = Lines(p.cg * (p.n - p.whole));
  return p;
}

size_t PointwiseScratchFloats(const Conv2DShape& s, int64_t workers) {
  const PointwisePlan p = MakePointwise(s, workers);
  return static_cast<size_t>(2 * p.off_floats + p.tail_floats + p.rest_floats);
}

void PointwiseConvF32(const float* x, const float* w, const float* bias, const float* z, float* y,
                      const Conv2DShape& s, const Activation& act, float* scratch,
                      ThreadPool* pool) {
  const PointwisePlan p = MakePointwise(s, pool != nullptr ? pool->threads() : 1);
  auto* const off = reinterpret_cast<int64_t*>(scratch);                      // channel c at c * n
  auto* const tail_off = reinterpret_cast<int64_t*>(scratch + p.off_floats);  // c * tile
  float* const tail = scratch + 2 * p.off_floats;
  float* const rest = tail + p.tail_floats;  // the last columns, transposed
  const int64_t rest_n = p.n - p.whole;
  for (int64_t c = 0; c < p.cg; ++c) {
    off[c] = c * p.n;
    tail_off[c] = c * p.tile;
  }
  const bool epilogue = z != nullptr || HasEffect(act);
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t g = 0; g < s.group; ++g) {
      const float* xg = x + (b * s.c_in + g * p.cg) * p.n;
      const int64_t first = (b * s.m + g * p.mg) * p.n;
      float* yg = y + first;
      const float* wg = w + g * p.mg * p.cg;
      if (p.whole > p.full) {  // the last partial tile, from a zero-padded copy (read-only after)
        for (int64_t c = 0; c < p.cg; ++c) {
          float* dst = tail + c * p.tile;
          std::memcpy(dst, xg + c * p.n + p.full,
                      static_cast<size_t>(p.whole - p.full) * sizeof(float));
          std::fill(dst + (p.whole - p.full), dst + p.tile, 0.0f);
        }
      }
      for (int64_t j = 0; j < rest_n; ++j) {
        for (int64_t c = 0; c < p.cg; ++c)
          rest[j * p.cg + c] = xg[c * p.n + p.whole + j];
      }
      auto chunk = [&](int64_t u) {
        const int64_t t = u / p.row_parts, r = u % p.row_parts;
        const int64_t j0 = t * p.chunk, j1 = std::min(p.n, j0 + p.chunk);
        const int64_t o0 = p.mg * r / p.row_parts / 8 * 8;
        const int64_t o1 = r + 1 == p.row_parts ? p.mg : p.mg * (r + 1) / p.row_parts / 8 * 8;
        if (o1 <= o0) return;
        const float* bg = bias != nullptr ? bias + g * p.mg + o0 : nullptr;  // sums start from it
        const float* wo = wg + o0 * p.cg;
        const int64_t in_place = std::min(j1, p.full);
        if (in_place > j0) {
          SgemmIndirectB(o1 - o0, in_place - j0, p.cg, wo, p.cg, xg + j0, off, yg + o0 * p.n + j0,
                         p.n, bg);
        }
        const int64_t tiled = std::min(j1, p.whole);
        if (tiled > in_place) {
          SgemmIndirectB(o1 - o0, tiled - in_place, p.cg, wo, p.cg, tail, tail_off,
                         yg + o0 * p.n + in_place, p.n, bg);
        }
        if (j1 > tiled) {  // the last few columns, from the bias (or 0) up
          for (int64_t o = o0; o < o1; ++o) {
            std::fill(yg + o * p.n + tiled, yg + o * p.n + j1,
                      bias != nullptr ? bias[g * p.mg + o] : 0.0f);
          }
          SgemmNarrow(o1 - o0, j1 - tiled, p.cg, wo, p.cg, rest, p.cg, yg + o0 * p.n + tiled, p.n);
        }
        if (epilogue && j0 == 0 && j1 == p.n) {  // whole planes: one pass, not one per plane
          BiasActivationF32(yg + o0 * p.n, static_cast<size_t>((o1 - o0) * p.n), 0.0f,
                            z != nullptr ? z + first + o0 * p.n : nullptr, act);
        } else if (epilogue) {
          for (int64_t o = o0; o < o1; ++o) {
            BiasActivationF32(yg + o * p.n + j0, static_cast<size_t>(j1 - j0), 0.0f,
                              z != nullptr ? z + first + o * p.n + j0 : nullptr, act);
          }
        }
      };
      RunShares(pool, p.workers, p.tasks, [&](int64_t u, int64_t) { chunk(u); });
    }
  }
}

}  // namespace

bool UseImplicitConv(const Conv2DShape& shape) {
  const Conv2DShape s = AsRows(shape);
  static const bool avx512 = PreferPackedSgemm();
  if (!avx512 || s.depthwise() || s.oh <= 0 || s.ow <= 0) return false;
  // In place, the rows of b are whole planes apart: planes a multiple of 4 KiB long put
  // them all in the same L1 sets, and with many rows (k > 256: 512 -> 128 at 32x32, 0.98x
  // ORT packed against 1.08x in place) the packed path is faster. Elsewhere reading the
  // planes in place beats packing them, k large or not (1x1 layers of YOLOX and PP-LCNet,
  // 2026-12-03: 384 -> 192 at 13x13 1.25x -> 1.13x ORT's time, 192 -> 96 at 26x26 1.12x ->
  // 0.95x, 320 -> 64 at 56x56 1.09x -> 0.88x; docs/performance.md).
  if (Pointwise(s)) {
    const bool aliasing = s.h * s.w * int64_t{sizeof(float)} % 4096 == 0;
    return s.h * s.w >= 16 && (s.c_in / s.group <= 256 || !aliasing || s.h * s.w <= 128);
  }
  if (s.kh * s.kw == 1) return false;
  const Implicit p = MakeImplicit(s, 1);
  // The dropped columns cost what they compute: at most a quarter of the row.
  return p.wq * 3 <= s.ow * 4 && s.oh * p.wq >= 64;
}

size_t ImplicitConvScratchFloats(const Conv2DShape& shape, int64_t workers) {
  const Conv2DShape s = AsRows(shape);
  if (Pointwise(s)) return PointwiseScratchFloats(s, workers);
  const Implicit p = MakeImplicit(s, workers);
  // Split by output channels, the threads share one band's buffers (a padded row each).
  if (p.mparts > 1) return static_cast<size_t>(p.off_floats + p.per_worker() + p.workers * p.row);
  return static_cast<size_t>(p.off_floats + p.workers * p.per_worker());
}

void ImplicitConvF32(const float* x, const float* w, const float* bias, const float* z, float* y,
                     const Conv2DShape& shape, const Activation& act, float* scratch,
                     ThreadPool* pool) {
  const Conv2DShape s = AsRows(shape);
  if (Pointwise(s)) {
    PointwiseConvF32(x, w, bias, z, y, s, act, scratch, pool);
    return;
  }
  const Implicit p = MakeImplicit(s, pool != nullptr ? pool->threads() : 1);
  auto* const off = reinterpret_cast<int64_t*>(scratch);
  float* const own = scratch + p.off_floats;  // per thread: input, products, row
  const int64_t phase = p.hq * p.wq;
  for (int64_t c = 0; c < p.cg; ++c) {
    for (int64_t kh = 0; kh < s.kh; ++kh) {
      for (int64_t kw = 0; kw < s.kw; ++kw) {
        const int64_t rh = kh * s.dh, rw = kw * s.dw;
        off[(c * s.kh + kh) * s.kw + kw] =
            c * p.plane + (rh % s.sh * s.sw + rw % s.sw) * phase + rh / s.sh * p.wq + rw / s.sw;
      }
    }
  }
  const int64_t in_plane = s.h * s.w, out_plane = s.oh * s.ow;
  const bool epilogue = z != nullptr || HasEffect(act);
  for (int64_t g = 0; g < s.group; ++g) {
    for (int64_t b = 0; b < s.batch; ++b) {
      const float* xg = x + (b * s.c_in + g * p.cg) * in_plane;
      const int64_t m0 = g * p.mg;
      // Task t: band t / parts, its columns [j0, j1) of part t % parts, output channels
      // [o0, o1) (all of them but with mparts, which prepares the band first).
      auto task = [&](int64_t t, float* mine, int64_t o0, int64_t o1, bool prepare,
                      const float* shared = nullptr) {
        float* in = mine;
        float* cbuf = mine + p.in_floats;
        const int64_t oh0 = t / p.parts * p.band, oh1 = std::min(s.oh, oh0 + p.band);
        const int64_t j0 = t % p.parts * p.part;
        const int64_t j1 = p.parts == 1 ? (oh1 - oh0) * p.wq : std::min(p.wq, j0 + p.part);
        const int64_t n = j1 - j0;
        if (prepare) Prepare(xg, s, p, oh0, in, cbuf + p.cbuf);
        const float* src = shared != nullptr ? shared : in;
        // The sums start from the bias, in registers.
        SgemmIndirectB(o1 - o0, n, p.k, w + (g * p.mg + o0) * p.k, p.k, src + j0, off,
                       cbuf + o0 * n, n, bias != nullptr ? bias + m0 + o0 : nullptr);
        // The outputs: whole rows of the band, or the part's columns of the one row.
        const int64_t cols = p.parts == 1 ? s.ow : std::clamp<int64_t>(s.ow - j0, 0, n);
        const int64_t first = p.parts == 1 ? oh0 * s.ow : j0;
        for (int64_t o = o0; o < o1; ++o) {
          const int64_t plane = (b * s.m + m0 + o) * out_plane + first;
          float* yo = y + plane;
          // Without a residual, the activation runs over the band in the cache (dropped
          // columns included: one long row beats many short ones).
          const bool fused = epilogue && z == nullptr;
          if (fused) ActivationF32(cbuf + o * n, cbuf + o * n, static_cast<size_t>(n), act);
          for (int64_t oh = oh0; oh < oh1; ++oh) {
            std::memcpy(yo + (oh - oh0) * s.ow, cbuf + o * n + (oh - oh0) * p.wq,
                        static_cast<size_t>(cols) * sizeof(float));
          }
          if (epilogue && !fused) {
            BiasActivationF32(yo, static_cast<size_t>((oh1 - oh0 - 1) * s.ow + cols), 0.0f,
                              z + plane, act);
          }
        }
      };
      if (p.mparts > 1) {
        // One band: its input channels prepared in shares, then its output channels.
        float* in = own;
        RunShares(pool, p.workers, p.workers, [&](int64_t k, int64_t) {
          Prepare(xg, s, p, 0, in, own + p.per_worker() + k * p.row, p.cg * k / p.workers,
                  p.cg * (k + 1) / p.workers);
        });
        RunShares(pool, p.workers, p.mparts, [&](int64_t r, int64_t) {
          const int64_t o0 = p.mg * r / p.mparts / 8 * 8;
          const int64_t o1 = r + 1 == p.mparts ? p.mg : p.mg * (r + 1) / p.mparts / 8 * 8;
          if (o1 > o0) task(0, own, o0, o1, false);
        });
        continue;
      }
      if (p.parts > 1) {
        // One output row split by columns (a 1-D convolution): its input prepared once, the
        // channels in shares between the threads, then read by every part (each thread
        // prepared all of it before: dilated 1-D convolutions over 7,500 steps ran 1.6x
        // ORT's time on two threads). Worker k's padded row is past its product buffer.
        RunShares(pool, p.workers, p.workers, [&](int64_t k, int64_t) {
          Prepare(xg, s, p, 0, own, own + k * p.per_worker() + p.in_floats + p.cbuf,
                  p.cg * k / p.workers, p.cg * (k + 1) / p.workers);
        });
        RunShares(pool, p.workers, p.parts, [&](int64_t t, int64_t k) {
          task(t, own + k * p.per_worker(), 0, p.mg, false, own);
        });
        continue;
      }
      const int64_t tasks = p.bands * p.parts;
      RunShares(pool, p.workers, tasks,
                [&](int64_t t, int64_t k) { task(t, own + k * p.per_worker(), 0, p.mg, true); });
    }
  }
}

}  // namespace onnx_light::kernels
