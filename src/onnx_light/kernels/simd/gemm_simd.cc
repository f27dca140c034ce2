#include "simd/gemm_simd.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "simd/denormals.h"
#include "simd/prefetch.h"
#include "simd/transpose_simd.h"

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/gemm_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr size_t kMR = 6;  // rows of a register tile
constexpr size_t kNV = 2;  // vectors (of columns) of a register tile read in place
// Vectors of columns of the packed kernel's tile: 6 x 4 vectors on AVX-512 (24 of its 32
// registers; 6 broadcasts of a for 24 multiply-adds, where 6 x 2 needed 6 for 12: the
// broadcasts were the bottleneck, 64 x 1024 by 1024 x 3072 went from 2.64 to 2.36 ms), 2
// where there are 16 registers.
constexpr size_t kNVP = HWY_TARGET <= HWY_AVX3 ? 4 : 2;
constexpr int64_t kKC = 256;
constexpr int64_t kMC = 96;  // a multiple of both tile heights (6 and 8)
// Rows per block when a is read in place (no packing buffer to size): each block of b
// (kKC x kNC, 2 MiB) is read from beyond the L2 cache once per block of rows, and 96 rows read
// it twice for a 128-row product ([128,384] x [384,7500]: 1.13x -> 1.09x ORT's time); 480
// rows of a (480 KiB at kKC) still stay in L2.
constexpr int64_t kMCInPlace = 480;
constexpr int64_t kNC = 2048;

// b[p, j0 .. j0 + nr) for p < kc, zero beyond nr, as kc rows of NR floats. Transposed b
// (b(p, j) = b[j * ldb + p]) is gathered column by column.
void PackB(const float* b, int64_t ldb, bool trans, int64_t kc, int64_t nc, size_t nr_width,
           float* out) {
  for (int64_t j0 = 0; j0 < nc; j0 += static_cast<int64_t>(nr_width)) {
    const int64_t w = std::min<int64_t>(static_cast<int64_t>(nr_width), nc - j0);
    if (trans) {  // a transpose of the panel's w rows of b^T, in 4 x 4 vector blocks
      const auto nr = static_cast<int64_t>(nr_width);
      TransposeTileU32(reinterpret_cast<const uint32_t*>(b + j0 * ldb),
                       reinterpret_cast<uint32_t*>(out), 0, kc, 0, w, ldb, nr);
      if (w < nr) {
        for (int64_t p = 0; p < kc; ++p)
          std::fill(out + p * nr + w, out + (p + 1) * nr, 0.0f);
      }
      out += kc * nr;
      continue;
    }
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = b + p * ldb + j0;
      std::memcpy(out, src, static_cast<size_t>(w) * sizeof(float));
      std::fill(out + w, out + nr_width, 0.0f);
      out += nr_width;
    }
  }
}

// a[i0 .. i0 + MR, p] for p < kc, zero beyond the rows, as kc groups of MR floats.
void PackA(const float* a, int64_t lda, int64_t mc, int64_t kc, float* out) {
  for (int64_t i0 = 0; i0 < mc; i0 += static_cast<int64_t>(kMR)) {
    const int64_t h = std::min<int64_t>(static_cast<int64_t>(kMR), mc - i0);
    for (int64_t p = 0; p < kc; ++p) {
      for (int64_t r = 0; r < static_cast<int64_t>(kMR); ++r)
        *out++ = r < h ? a[(i0 + r) * lda + p] : 0.0f;
    }
  }
}

// c[0 .. rows, 0 .. cols) += the kMR x kNV-vector product of a packed a panel and a b
// panel: packed (kPacked: row p at bp + p * kNV * N, aligned) or read in place (row p at
// bp + boff[p], any alignment: an implicit convolution's shifted input rows).
// With `init`, c is not read: the sums start from bias[r] (0 when bias is null) and
// overwrite c.
// kPackedB (default: as kPacked): b packed while a is read in place (a panel of b packed
// just before its tiles, SgemmIndirectB).
// T: float, or double (DgemmIndirectB), deduced from the operands.
// kBStride: vectors per row of a packed b panel (kV, or wider: an edge tile that reads only
// the first kV vectors of each row of a full-width panel).
// pf (packed b, AVX2 and AVX-512): with each row of the panel, the row pf floats further
// on is prefetched (a line per 64 bytes): the first tile over a panel of constant weights
// fetches the next panel's rows while it multiplies, which otherwise came from memory or L3
// cache on demand, the first tile stalling on each (see IndirectB).
// pf_phase, pf_every (pf_every > 1): only every pf_every-th row's, starting at row
// pf_phase - 1, into L2 (PrefetchL2): the tiles over one panel share its prefetch, so that
// weights streamed from memory arrive over the whole panel's time rather than in the first
// tile's ([16,1024] x [1024,2816]: 1.24x -> 1.11x ORT's time; SgemmPacked and
// simd/gemm_gather_simd.cc).
template <bool kPacked, size_t kRows = kMR, size_t kV = kNV, bool kPackedB = kPacked,
          typename T = float, size_t kBStride = kV>
HWY_INLINE void Tile(int64_t kc, const T* HWY_RESTRICT ap, const T* HWY_RESTRICT bp,
                     const int64_t* HWY_RESTRICT boff, T* c, int64_t ldc, int64_t rows,
                     int64_t cols, int64_t lda = 0, bool init = false, const T* bias = nullptr,
                     int64_t pf = 0, int64_t pf_phase = 1, int64_t pf_every = 1) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const size_t N = hn::Lanes(d);
  V acc[kRows][kV];
  for (size_t r = 0; r < kRows; ++r) {
    const V start = init && bias != nullptr
                        ? hn::Set(d, bias[std::min<int64_t>(static_cast<int64_t>(r), rows - 1)])
                        : hn::Zero(d);
    for (size_t v = 0; v < kV; ++v)
      acc[r][v] = start;
  }
  const T* arow[kRows];  // in place: row r, or the last valid row past the edge
  for (size_t r = 0; r < kRows; ++r)
    arow[r] = ap + std::min<int64_t>(static_cast<int64_t>(r), rows - 1) * lda;
  int64_t pf_wait = pf_phase;
  // One row p of b times the tile's column of a.
  auto step = [&](int64_t p) HWY_ATTR {
    V b[kV];
    if constexpr (kPackedB) {
      const T* row = bp + p * static_cast<int64_t>(kBStride * N);
      for (size_t v = 0; v < kV; ++v)
        b[v] = hn::Load(d, row + v * N);
      if (HWY_TARGET <= HWY_AVX2 && pf != 0 && --pf_wait == 0) {
        pf_wait = pf_every;
        for (size_t q = 0; q < kBStride * N; q += 64 / sizeof(T)) {
          if (pf_every > 1) {
            PrefetchL2(row + pf + q);
          } else {
            hwy::Prefetch(row + pf + q);
          }
        }
      }
    } else {
      const T* row = bp + boff[p];
      for (size_t v = 0; v < kV; ++v)
        b[v] = hn::LoadU(d, row + v * N);
    }
    for (size_t r = 0; r < kRows; ++r) {
      // Packed: kRows values of a side by side. In place: row r of a at ap + r * lda (a
      // short tile repeats its last row; those sums are not stored).
      const V a = hn::Set(d, kPacked ? ap[p * static_cast<int64_t>(kRows) + r] : arow[r][p]);
      for (size_t v = 0; v < kV; ++v)
        acc[r][v] = hn::MulAdd(a, b[v], acc[r][v]);
    }
  };
  int64_t p = 0;
  // AVX2's full tile (6 x 2 vectors) with b read in place, two rows of b per pass: 25
  // instructions a row (12 multiply-adds, 8 loads, 5 of index and loop) -> 23. 2-3% faster
  // in interleaved runs and steadier: with one row a pass, 480^3 read 0.88-1.02x OpenBLAS
  // while this VM was busy, with two 1.00-1.03x (bench/gemm_vs_blas.cc). Not for packed b
  // (no gain measured) nor at AVX-512 (16 multiply-adds a row, a wider front end).
  if constexpr (HWY_TARGET == HWY_AVX2 && !kPackedB && kRows * kV >= 12) {
    for (; p + 2 <= kc; p += 2) {
      step(p);
      step(p + 1);
    }
  }
  for (; p < kc; ++p)
    step(p);
  if (rows == static_cast<int64_t>(kRows) && cols == static_cast<int64_t>(kV * N)) {
    for (size_t r = 0; r < kRows; ++r) {
      T* row = c + static_cast<int64_t>(r) * ldc;
      for (size_t v = 0; v < kV; ++v) {
        hn::StoreU(init ? acc[r][v] : hn::Add(hn::LoadU(d, row + v * N), acc[r][v]), d,
                   row + v * N);
      }
    }
    return;
  }
  // An edge tile: through a buffer, adding only the valid part.
  HWY_ALIGN T buf[kRows * kV * hn::MaxLanes(d)];
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t v = 0; v < kV; ++v)
      hn::Store(acc[r][v], d, buf + (r * kV + v) * N);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const T* sums = buf + static_cast<size_t>(r) * kV * N;
    T* row = c + r * ldc;
    for (int64_t j = 0; j < cols; ++j)
      row[j] = init ? sums[j] : row[j] + sums[j];
  }
}

size_t WorkFloats(int64_t n) {
  const hn::ScalableTag<float> d;
  const auto nr = static_cast<int64_t>(kNVP * hn::Lanes(d));
  const int64_t nc_max = std::min<int64_t>(kNC, (n + nr - 1) / nr * nr);
  return static_cast<size_t>(kKC * nc_max);  // one block of b, packed (a is read in place)
}

// The whole of a, in the order SgemmPacked walks it: k blocks, then m blocks, each as
// PackA lays it out. Block (pc, ic) starts at pc * RoundUp(m, MR) + ic * kc.
int64_t RoundUpMR(int64_t m) {
  return (m + static_cast<int64_t>(kMR) - 1) / static_cast<int64_t>(kMR) *
         static_cast<int64_t>(kMR);
}
void PackAllA(int64_t m, int64_t k, const float* a, int64_t lda, float* out) {
  for (int64_t pc = 0; pc < k; pc += kKC) {
    const int64_t kc = std::min(kKC, k - pc);
    for (int64_t ic = 0; ic < m; ic += kMC) {
      const int64_t mc = std::min(kMC, m - ic);
      PackA(a + ic * lda + pc, lda, mc, kc, out + pc * RoundUpMR(m) + ic * kc);
    }
  }
}

// The whole of b [k x n] (row-major) for SgemmPacked: one panel of NR columns after another
// (zero beyond n), each k rows of NR floats; panel q at q * k * NR.
size_t PackedBFloats(int64_t k, int64_t n) {
  const auto nr = static_cast<int64_t>(kNVP * hn::Lanes(hn::ScalableTag<float>()));
  return static_cast<size_t>((n + nr - 1) / nr * nr * k);
}
size_t PrepackedWorkFloats() {
  return 0;  // b packed already, a read in place: nothing to pack
}
void PackAllB(int64_t k, int64_t n, const float* b, int64_t ldb, float* out, bool b_trans) {
  const size_t nr = kNVP * hn::Lanes(hn::ScalableTag<float>());
  PackB(b, ldb, b_trans, k, n, nr, out);
}

void SgemmPacked(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                 int64_t ldb, float* c, int64_t ldc, float* work, const float* a_packed,
                 bool b_trans, const float* b_packed, bool overwrite) {
  const hn::ScalableTag<float> d;
  const size_t nr = kNVP * hn::Lanes(d);
  float* bpack = work;  // aligned by the caller: Load needs the panels on vector boundaries
  for (int64_t jc = 0; jc < n; jc += kNC) {
    const int64_t nc = std::min(kNC, n - jc);
    for (int64_t pc = 0; pc < k; pc += kKC) {
      const int64_t kc = std::min(kKC, k - pc);
      if (b_packed == nullptr) {
        PackB(b_trans ? b + jc * ldb + pc : b + pc * ldb + jc, ldb, b_trans, kc, nc, nr, bpack);
      }
      const int64_t mc_max = a_packed == nullptr ? kMCInPlace : kMC;
      for (int64_t ic = 0; ic < m; ic += mc_max) {
        const int64_t mc = std::min(mc_max, m - ic);
        const float* ap = nullptr;  // a's packed block (a_packed), when given
        // a read in place (its rows broadcast where they lie, as MLAS does) unless packed
        // already: packing it cost a scalar pass over a ([7500,128] x [128,128]: 13% of
        // the product's time, 1.19x ORT's).
        const bool a_in_place = a_packed == nullptr;
        if (a_packed != nullptr) ap = a_packed + pc * RoundUpMR(m) + ic * kc;
        for (int64_t jr = 0; jr < nc; jr += static_cast<int64_t>(nr)) {
          const int64_t cols = std::min<int64_t>(static_cast<int64_t>(nr), nc - jr);
          const float* bp =
              b_packed != nullptr
                  ? b_packed + (jc + jr) / static_cast<int64_t>(nr) * k * static_cast<int64_t>(nr) +
                        pc * static_cast<int64_t>(nr)
                  : bpack + jr * kc;
          // A last panel of a few columns multiplies only the vectors it has (196 = 3 x 64 +
          // 4, a 14x14 plane: one vector; 100 = 64 + 36, the gates of an LSTM of 25: three,
          // where the full tile computed 128 columns for 100: [1000,50] x [50,100] 106 -> 92
          // us, ORT 77-83).
          const auto lanes = static_cast<int64_t>(hn::Lanes(d));
          const int64_t vecs = (cols + lanes - 1) / lanes;
          // Weights packed once: the first tile over this panel prefetches the next (Tile).
          const int64_t pf = b_packed != nullptr && jr + static_cast<int64_t>(nr) < nc
                                 ? k * static_cast<int64_t>(nr)
                                 : 0;
          // overwrite: the first block of k stores its sums (c not read), the others add.
          const bool init = overwrite && pc == 0;
          const float* none = nullptr;  // no bias
          // Every tile over the panel prefetches its share of the next one (Tile's pf).
          const int64_t ntiles = (mc + static_cast<int64_t>(kMR) - 1) / static_cast<int64_t>(kMR);
          for (int64_t ir = 0; ir < mc; ir += static_cast<int64_t>(kMR)) {
            const int64_t rows = std::min<int64_t>(static_cast<int64_t>(kMR), mc - ir);
            float* cp = c + (ic + ir) * ldc + jc + jr;
            // a in place (rows lda apart) or packed (kMR values a row of k, lda unused)
            const float* ar = a_in_place ? a + (ic + ir) * lda + pc : ap + ir * kc;
            const int64_t tile = ir / static_cast<int64_t>(kMR);
            if (kNVP > 1 && vecs == 1) {
              if (a_in_place) {
                Tile<false, kMR, 1, true, float, kNVP>(kc, ar, bp, nullptr, cp, ldc, rows, cols,
                                                       lda, init, none);
              } else {
                Tile<true, kMR, 1, true, float, kNVP>(kc, ar, bp, nullptr, cp, ldc, rows, cols, 0,
                                                      init, none);
              }
            } else if (kNVP > 2 && vecs == 2) {
              if (a_in_place) {
                Tile<false, kMR, 2, true, float, kNVP>(kc, ar, bp, nullptr, cp, ldc, rows, cols,
                                                       lda, init, none);
              } else {
                Tile<true, kMR, 2, true, float, kNVP>(kc, ar, bp, nullptr, cp, ldc, rows, cols, 0,
                                                      init, none);
              }
            } else if (kNVP > 3 && vecs == 3) {
              constexpr size_t kV3 = kNVP > 3 ? 3 : 1;
              if (a_in_place) {
                Tile<false, kMR, kV3, true, float, kNVP>(kc, ar, bp, nullptr, cp, ldc, rows, cols,
                                                         lda, init, none);
              } else {
                Tile<true, kMR, kV3, true, float, kNVP>(kc, ar, bp, nullptr, cp, ldc, rows, cols, 0,
                                                        init, none);
              }
            } else if (a_in_place) {
              Tile<false, kMR, kNVP, true>(kc, ar, bp, nullptr, cp, ldc, rows, cols, lda, init,
                                           none, pf, tile + 1, ntiles);
            } else {
              Tile<true, kMR, kNVP>(kc, ar, bp, nullptr, cp, ldc, rows, cols, 0, init, none, pf,
                                    tile + 1, ntiles);
            }
          }
        }
      }
    }
  }
}

template <bool kPackedB, size_t kIR, typename T>
HWY_INLINE void TileRows(int64_t rows, int64_t kc, const T* ap, const T* bp, const int64_t* boff,
                         T* cp, int64_t ldc, int64_t cols, int64_t lda, bool init, const T* bi,
                         int64_t pf = 0) {
  // Before AVX2, two tiles instead of four, for the size: 1 or 2 rows in a tile of 2, 3 to 5
  // in the full one (the extra rows repeat the last one and are not stored).
  if constexpr (HWY_TARGET > HWY_AVX2) {
    if (rows <= 2) {
      Tile<false, 2, kNV, kPackedB>(kc, ap, bp, boff, cp, ldc, rows, cols, lda, init, bi, pf);
    } else {
      Tile<false, kIR, kNV, kPackedB>(kc, ap, bp, boff, cp, ldc, rows, cols, lda, init, bi, pf);
    }
    return;
  }
  switch (rows >= static_cast<int64_t>(kIR) ? 0 : rows) {
    case 1:
      Tile<false, 1, kNV, kPackedB>(kc, ap, bp, boff, cp, ldc, rows, cols, lda, init, bi, pf);
      break;
    case 2:
      Tile<false, 2, kNV, kPackedB>(kc, ap, bp, boff, cp, ldc, rows, cols, lda, init, bi, pf);
      break;
    case 3:
    case 4:
      Tile<false, 4, kNV, kPackedB>(kc, ap, bp, boff, cp, ldc, rows, cols, lda, init, bi, pf);
      break;
    default:
      Tile<false, kIR, kNV, kPackedB>(kc, ap, bp, boff, cp, ldc, rows, cols, lda, init, bi, pf);
  }
}

// One row of a (ar) times k rows of a panel of kV vectors, summed in 4 interleaved sets of
// accumulators and added together into sum: row p of the panel at b + boff[p], or at
// b + p * stride without offsets. One row of a gives a register tile only kV accumulators,
// whose multiply-add latency then bounds the product; the sets hide it.
template <size_t kV, class D, typename T>
HWY_INLINE void InterleavedRowSums(D d, const T* ar, int64_t k, const T* b, const int64_t* boff,
                                   int64_t stride, hn::Vec<D> (&sum)[kV]) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  constexpr int64_t kSets = 4;
  auto row_at = [&](int64_t p) { return b + (boff != nullptr ? boff[p] : p * stride); };
  V acc[kSets][kV];
  for (int64_t u = 0; u < kSets; ++u)
    for (size_t v = 0; v < kV; ++v)
      acc[u][v] = hn::Zero(d);
  int64_t p = 0;
  for (; p + kSets <= k; p += kSets) {
    for (int64_t u = 0; u < kSets; ++u) {
      const V av = hn::Set(d, ar[p + u]);
      const T* row = row_at(p + u);
      for (size_t v = 0; v < kV; ++v)
        acc[u][v] = hn::MulAdd(av, hn::LoadU(d, row + v * N), acc[u][v]);
    }
  }
  for (; p < k; ++p) {
    const V av = hn::Set(d, ar[p]);
    const T* row = row_at(p);
    for (size_t v = 0; v < kV; ++v)
      acc[0][v] = hn::MulAdd(av, hn::LoadU(d, row + v * N), acc[0][v]);
  }
  for (size_t v = 0; v < kV; ++v)
    sum[v] = hn::Add(hn::Add(acc[0][v], acc[1][v]), hn::Add(acc[2][v], acc[3][v]));
}

// c[m x n] (+)= a * b for one or two rows of a, b's row p read in place at b + boff[p]
// (readable up to the next multiple of kNV vectors, as IndirectB's): each row alone, by
// InterleavedRowSums (a one-row tile of IndirectB was latency-bound: a recurrent cell's
// [1,64] x [64,64] in a Scan body took four times its issue time).
// A b too big for the cache is streamed instead (FewRowsStream).
template <typename T>
void FewRowsStream(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
                   const int64_t* boff, T* c, int64_t ldc, const T* bias, bool accumulate);

template <typename T>
void FewRowsInPlace(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
                    const int64_t* boff, T* c, int64_t ldc, const T* bias, bool accumulate) {
  if (n * k * static_cast<int64_t>(sizeof(T)) > (int64_t{1} << 19)) {
    FewRowsStream(m, n, k, a, lda, b, boff, c, ldc, bias, accumulate);
    return;
  }
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const auto nr = static_cast<int64_t>(kNV * N);
  HWY_ALIGN T buf[kNV * hn::MaxLanes(d)];
  for (int64_t i = 0; i < m; ++i) {
    const T* ar = a + i * lda;
    T* cr = c + i * ldc;
    const T base = bias != nullptr ? bias[i] : T(0);
    for (int64_t j0 = 0; j0 < n; j0 += nr) {
      V sums[kNV];
      InterleavedRowSums<kNV>(d, ar, k, b + j0, boff, 0, sums);
      const int64_t cols = std::min(nr, n - j0);
      for (size_t v = 0; v < kNV; ++v) {
        const V sum = sums[v];
        T* out = cr + j0 + static_cast<int64_t>(v * N);
        if (cols == nr) {
          const V from = accumulate ? hn::LoadU(d, out) : hn::Set(d, base);
          hn::StoreU(hn::Add(from, sum), d, out);
        } else {
          hn::Store(sum, d, buf + v * N);
        }
      }
      if (cols < nr) {
        for (int64_t j = 0; j < cols; ++j)
          cr[j0 + j] = (accumulate ? cr[j0 + j] : base) + buf[j];
      }
    }
  }
}

// c[m x n] (+)= a * b for one or two rows of a and a b that does not fit the cache: b
// read row after row, as it lies in memory (a panel at a time, each pass read two lines
// from each of b's rows, 16 KiB apart: [1,1024] x [1024,4096] ran at 9 GB/s), each row of
// b added into a block of c's row that stays in L1, four rows of b per pass over it.
template <typename T>
void FewRowsStream(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
                   const int64_t* boff, T* c, int64_t ldc, const T* bias, bool accumulate) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t kBlock = 4096 / sizeof(T) * 4;  // 16 KiB of a row of c
  if (!accumulate) {
    for (int64_t i = 0; i < m; ++i)
      std::fill(c + i * ldc, c + i * ldc + n, bias != nullptr ? bias[i] : T(0));
  }
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t j1 = std::min(n, j0 + kBlock);
    const int64_t vec_end = j0 + (j1 - j0) / N * N;
    for (int64_t i = 0; i < m; ++i) {
      const T* ar = a + i * lda;
      T* cr = c + i * ldc;
      int64_t p = 0;
      for (; p + 4 <= k; p += 4) {
        const V a0 = hn::Set(d, ar[p]), a1 = hn::Set(d, ar[p + 1]);
        const V a2 = hn::Set(d, ar[p + 2]), a3 = hn::Set(d, ar[p + 3]);
        const T* b0 = b + boff[p];
        const T* b1 = b + boff[p + 1];
        const T* b2 = b + boff[p + 2];
        const T* b3 = b + boff[p + 3];
        for (int64_t j = j0; j < vec_end; j += N) {
          V acc = hn::MulAdd(a0, hn::LoadU(d, b0 + j), hn::LoadU(d, cr + j));
          acc = hn::MulAdd(a1, hn::LoadU(d, b1 + j), acc);
          acc = hn::MulAdd(a2, hn::LoadU(d, b2 + j), acc);
          hn::StoreU(hn::MulAdd(a3, hn::LoadU(d, b3 + j), acc), d, cr + j);
        }
        for (int64_t j = vec_end; j < j1; ++j)
          cr[j] += ar[p] * b0[j] + ar[p + 1] * b1[j] + ar[p + 2] * b2[j] + ar[p + 3] * b3[j];
      }
      for (; p < k; ++p) {
        const V av = hn::Set(d, ar[p]);
        const T* br = b + boff[p];
        for (int64_t j = j0; j < vec_end; j += N)
          hn::StoreU(hn::MulAdd(av, hn::LoadU(d, br + j), hn::LoadU(d, cr + j)), d, cr + j);
        for (int64_t j = vec_end; j < j1; ++j)
          cr[j] += ar[p] * br[j];
      }
    }
  }
}

// c[m x n] = bias + a * b (c not read) with a read in place (rows lda apart, no packing:
// each row is a sequential stream of broadcasts) and row p of b read in place at b +
// boff[p] (n columns, readable up to the next multiple of the tile width). Blocked as
// SgemmPacked; the first block of k starts from the bias and stores, the others add.
// A tile of `rows` rows of a read in place (a tile of its own height for the last rows:
// a full-height one would compute rows it throws away, 32 rows in tiles of 6: 36), b packed
// (kPackedB: rows of kNV vectors) or in place (rows at b + boff[p]).
// b_packed (instead of b and boff): all of b packed once by PackAllB, where its panels are
// this tile's width (kNVP == kNV: every target but AVX-512); read panel by panel, no copy.
template <typename T>
void IndirectB(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
               const int64_t* boff, T* c, int64_t ldc, const T* bias, bool accumulate,
               const T* b_packed = nullptr) {
  if (m <= 2 && b_packed == nullptr) {
    FewRowsInPlace(m, n, k, a, lda, b, boff, c, ldc, bias, accumulate);
    return;
  }
  const hn::ScalableTag<T> d;
  const auto nr = static_cast<int64_t>(kNV * hn::Lanes(d));
  // 8 rows where there are 32 vector registers (16 accumulators: channel counts are
  // mostly multiples of 8, so no tile rows are wasted), 6 where there are 16.
  constexpr size_t kIR = HWY_TARGET <= HWY_AVX3 ? 8 : 6;
  const auto mr = static_cast<int64_t>(kIR);
  HWY_ALIGN T panel[kKC * kNV * hn::MaxLanes(d)];
  // Columns in blocks whose kc rows of b (256 x 512 floats, 512 KiB) stay in the L2 cache
  // while every block of rows passes them; without it a wide b was read from memory once
  // per 96 rows (a transformer's 4096-wide products ran 1.4x slower than OpenBLAS's).
  constexpr int64_t kNCI = 512;
  for (int64_t jc = 0; jc < n; jc += kNCI) {
    const int64_t jend = std::min(n, jc + kNCI);
    for (int64_t pc = 0; pc < k; pc += kKC) {
      const int64_t kc = std::min(kKC, k - pc);
      // How b's rows lie (the same for every block of rows): packed per panel or not.
      const bool wide =
          b_packed == nullptr && kc > 1 &&
          (boff[pc + kc - 1] - boff[pc]) / (kc - 1) * static_cast<int64_t>(sizeof(T)) >=
              4096;  // rows a page apart
      // Rows more than two panel widths apart (a 1x1 convolution's input planes, 3,840
      // bytes apart for a [256,6,160] input) are packed too: read in place, a panel's kc
      // rows took two lines each, too many for L1 at those strides, and every tile read
      // them again from L2 (256 -> 256 channels over 6 x 160: 1.23x -> 0.96x ORT's time
      // packed). The taps of a 3x3 window lie a float apart and share their lines, and
      // rows at most two panel widths apart are nearly a packed panel already (the
      // zero-padded copy of a last partial tile: exactly one; a LinearRegressor's 4
      // columns went 235 -> 315 us copied again): read in place. AVX-512 only: AVX2's
      // panel rows are one line, and packing them lost 10-15% on 14x14 and 56x56 planes.
      bool apart = HWY_TARGET <= HWY_AVX3 && b_packed == nullptr && kc > 1;
      for (int64_t p = pc; apart && p + 1 < pc + kc; ++p)
        apart = boff[p + 1] - boff[p] >= 2 * nr || boff[p] - boff[p + 1] >= 2 * nr;
      for (int64_t ic = 0; ic < m; ic += kMC) {
        const int64_t mc = std::min(kMC, m - ic);
        for (int64_t jr = jc; jr < jend; jr += nr) {
          const int64_t cols = std::min(nr, n - jr);
          // Many tiles of rows read this panel of b, whose rows lie a page or more apart
          // (a wide b): it is packed first, into a contiguous copy that stays in L1. Read
          // in place, every tile missed the TLB on each of its kc rows (64 x 3072 by 1024
          // on AVX2: 0.72x OpenBLAS in place, 0.91x packed). Narrow b, or a few tiles,
          // read in place: the copy would cost more (24 x 2560 by 864: 1.15x in place,
          // 0.96x packed).
          const bool pack = (wide || apart) && mc >= 8 * mr;
          // While it copies, the next panel's line of each row is prefetched: the rows lie
          // far apart and are each met once per panel, too many streams for the hardware
          // prefetcher, so every row's line was a miss the copy waited on (13% of the
          // kernel's samples on 64 x 1600 by 576; at AVX2 0.88-0.96x -> 1.03-1.05x
          // OpenBLAS, a transformer's FFN 0.87-0.94x -> 0.92-1.00x: bench/gemm_vs_blas.cc).
          if (pack) {
            const bool next = jr + nr < jend;
            for (int64_t p = 0; p < kc; ++p) {
              const T* row = b + jr + boff[pc + p];
              if (next) hwy::Prefetch(row + nr);
              std::memcpy(panel + p * nr, row, sizeof(T) * static_cast<size_t>(nr));
            }
          }
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const int64_t rows = std::min(mr, mc - ir);
            const T* ap = a + (ic + ir) * lda + pc;
            T* cp = c + (ic + ir) * ldc + jr;
            const bool init = pc == 0 && !accumulate;
            const T* bi = bias != nullptr ? bias + ic + ir : nullptr;
            // (AVX2 and AVX-512 only: older targets keep the full width, for the size.)
            if constexpr (std::is_same_v<T, float> && kNV > 1 && HWY_TARGET <= HWY_AVX2) {
              // A last few columns (196 = 6 x 32 + 4: a 14x14 plane) in a tile one vector
              // wide: the full width multiplied 28 zero columns, 1/8 of the product.
              if (b_packed == nullptr && !pack && rows == mr &&
                  cols <= nr / static_cast<int64_t>(kNV)) {
                Tile<false, kIR, 1, false, T>(kc, ap, b + jr, boff + pc, cp, ldc, rows, cols, lda,
                                              init, bi);
                continue;
              }
            }
            if (b_packed != nullptr) {
              // The first tile over a panel prefetches the next one (Tile's pf): the panels
              // (k rows of nr floats, one after another) are read in slices of kc rows, a
              // slice at a time k * nr floats apart, and the first tile over each slice
              // waited on memory for it (the hardware prefetcher starts over at each). At AVX2,
              // with the prefetch: 64 x 3072 by 1024 and its transpose (a transformer's FFN) 0.90x
              // / 1.01x -> 1.18x / 1.20x OpenBLAS; 8 and 32 rows by 1024 x 8210 (a classifier head)
              // 0.99x / 0.97x -> 2.46x / 1.49x (bench/gemm_vs_blas.cc).
              TileRows<true, kIR>(rows, kc, ap, b_packed + jr * k + pc * nr, nullptr, cp, ldc, cols,
                                  lda, init, bi, ir == 0 && jr + nr < jend ? nr * k : 0);
            } else if (pack) {
              TileRows<true, kIR>(rows, kc, ap, panel, nullptr, cp, ldc, cols, lda, init, bi);
            } else {
              TileRows<false, kIR>(rows, kc, ap, b + jr, boff + pc, cp, ldc, cols, lda, init, bi);
            }
          }
        }
      }
    }
  }
}

void SgemmIndirectBImpl(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                        const float* b, const int64_t* boff, float* c, int64_t ldc,
                        const float* bias, bool accumulate) {
  IndirectB(m, n, k, a, lda, b, boff, c, ldc, bias, accumulate);
}
void DgemmIndirectBImpl(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                        const double* b, const int64_t* boff, double* c, int64_t ldc,
                        const double* bias, bool accumulate) {
  IndirectB(m, n, k, a, lda, b, boff, c, ldc, bias, accumulate);
}
// c[m x n] += a * b with a read in place and b packed by PackAllB (panels of kNV vectors:
// not on AVX-512, where SgemmPacked reads them).
void SgemmPrepackedInPlaceAImpl(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                const float* b_packed, float* c, int64_t ldc) {
  IndirectB<float>(m, n, k, a, lda, nullptr, nullptr, c, ldc, nullptr, /*accumulate=*/true,
                   b_packed);
}
// c[m x n] += a * b with b packed by PackAllB, for 1 to 3 rows of a (a batch-1 layer):
// per row and panel, InterleavedRowSums.
void SgemmPrepackedFewRowsImpl(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                               const float* b_packed, float* c, int64_t ldc) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const auto nr = static_cast<int64_t>(kNVP * N);
  HWY_ALIGN float buf[kNVP * hn::MaxLanes(d)];
  for (int64_t i = 0; i < m; ++i) {
    const float* ar = a + i * lda;
    float* cr = c + i * ldc;
    for (int64_t j0 = 0; j0 < n; j0 += nr) {
      // panel j0 / nr starts at j0 / nr * k * nr, its rows nr floats apart
      V sums[kNVP];
      InterleavedRowSums<kNVP>(d, ar, k, b_packed + j0 * k, nullptr, nr, sums);
      const int64_t cols = std::min(nr, n - j0);
      for (size_t v = 0; v < kNVP; ++v) {
        const V sum = sums[v];
        if (cols == nr) {
          hn::StoreU(hn::Add(hn::LoadU(d, cr + j0 + v * N), sum), d, cr + j0 + v * N);
        } else {
          hn::Store(sum, d, buf + v * N);
        }
      }
      if (cols < nr) {
        for (int64_t j = 0; j < cols; ++j)
          cr[j0 + j] += buf[j];
      }
    }
  }
}
size_t DTileColumnsImpl() {
  return kNV * hn::Lanes(hn::ScalableTag<double>());
}

size_t TileColumnsImpl() {
  return kNV * hn::Lanes(hn::ScalableTag<float>());
}
size_t PackedTileColumnsImpl() {
  return kNVP * hn::Lanes(hn::ScalableTag<float>());
}

bool PreferPackedSgemmImpl() {
  return HWY_TARGET <= HWY_AVX3;
}

// Narrow products: an R x C tile of c += a * bt^T as R * C dot products along k, each
// row of a and of bt loaded once per vector of k.
template <size_t R, size_t C>
HWY_INLINE void NarrowTile(int64_t k, const float* a, int64_t lda, const float* bt, int64_t ldbt,
                           float* c, int64_t ldc, int64_t ldc_col) {
  const hn::ScalableTag<float> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  using V = hn::Vec<decltype(d)>;
  V acc[R][C];
  for (size_t r = 0; r < R; ++r) {
    for (size_t j = 0; j < C; ++j)
      acc[r][j] = hn::Zero(d);
  }
  int64_t p = 0;
  for (; p + lanes <= k; p += lanes) {
    V b[C];
    for (size_t j = 0; j < C; ++j)
      b[j] = hn::LoadU(d, bt + static_cast<int64_t>(j) * ldbt + p);
    for (size_t r = 0; r < R; ++r) {
      const V x = hn::LoadU(d, a + static_cast<int64_t>(r) * lda + p);
      for (size_t j = 0; j < C; ++j)
        acc[r][j] = hn::MulAdd(x, b[j], acc[r][j]);
    }
  }
  for (size_t r = 0; r < R; ++r) {
    for (size_t j = 0; j < C; ++j) {
      float sum = hn::GetLane(hn::SumOfLanes(d, acc[r][j]));
      for (int64_t q = p; q < k; ++q)  // the tail, shorter than a vector
        sum += a[static_cast<int64_t>(r) * lda + q] * bt[static_cast<int64_t>(j) * ldbt + q];
      c[static_cast<int64_t>(r) * ldc + static_cast<int64_t>(j) * ldc_col] += sum;
    }
  }
}

template <size_t R>
HWY_INLINE void NarrowRows(int64_t n, int64_t k, const float* a, int64_t lda, const float* bt,
                           int64_t ldbt, float* c, int64_t ldc, int64_t ldc_col) {
  // The R rows of a stay in the L1 cache while every column of bt passes them.
  for (int64_t j0 = 0; j0 < n; j0 += 4) {
    const float* b = bt + j0 * ldbt;
    float* cj = c + j0 * ldc_col;
    switch (std::min<int64_t>(4, n - j0)) {
      case 1:
        NarrowTile<R, 1>(k, a, lda, b, ldbt, cj, ldc, ldc_col);
        break;
      case 2:
        NarrowTile<R, 2>(k, a, lda, b, ldbt, cj, ldc, ldc_col);
        break;
      case 3:
        NarrowTile<R, 3>(k, a, lda, b, ldbt, cj, ldc, ldc_col);
        break;
      default:
        NarrowTile<R, 4>(k, a, lda, b, ldbt, cj, ldc, ldc_col);
    }
  }
}

void SgemmNarrowImpl(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* bt,
                     int64_t ldbt, float* c, int64_t ldc, int64_t ldc_col) {
  // Four rows at a time where there are 32 vector registers (16 accumulators), two where
  // there are 16.
  constexpr size_t kRows = HWY_TARGET <= HWY_AVX3 ? 4 : 2;
  int64_t i = 0;
  for (; i + static_cast<int64_t>(kRows) <= m; i += static_cast<int64_t>(kRows))
    NarrowRows<kRows>(n, k, a + i * lda, lda, bt, ldbt, c + i * ldc, ldc, ldc_col);
  for (; i < m; ++i)
    NarrowRows<1>(n, k, a + i * lda, lda, bt, ldbt, c + i * ldc, ldc, ldc_col);
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(SgemmPacked);
HWY_EXPORT(WorkFloats);
HWY_EXPORT(PackAllA);
HWY_EXPORT(PackedBFloats);
HWY_EXPORT(PackAllB);
HWY_EXPORT(PrepackedWorkFloats);
HWY_EXPORT(PreferPackedSgemmImpl);
HWY_EXPORT(SgemmNarrowImpl);
HWY_EXPORT(SgemmIndirectBImpl);
HWY_EXPORT(DgemmIndirectBImpl);
HWY_EXPORT(SgemmPrepackedInPlaceAImpl);
HWY_EXPORT(SgemmPrepackedFewRowsImpl);
HWY_EXPORT(DTileColumnsImpl);
HWY_EXPORT(TileColumnsImpl);
HWY_EXPORT(PackedTileColumnsImpl);

void SgemmIndirectB(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                    const int64_t* boff, float* c, int64_t ldc, const float* bias,
                    bool accumulate) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(SgemmIndirectBImpl)(m, n, k, a, lda, b, boff, c, ldc, bias, accumulate);
}
void SgemmPrepackedInPlaceA(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                            const float* b_packed, float* c, int64_t ldc) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(SgemmPrepackedInPlaceAImpl)(m, n, k, a, lda, b_packed, c, ldc);
}
void SgemmPrepackedFewRows(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                           const float* b_packed, float* c, int64_t ldc) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(SgemmPrepackedFewRowsImpl)(m, n, k, a, lda, b_packed, c, ldc);
}
size_t SgemmTileColumns() {
  return HWY_DYNAMIC_DISPATCH(TileColumnsImpl)();
}
void DgemmIndirectB(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
                    const int64_t* boff, double* c, int64_t ldc, const double* bias,
                    bool accumulate) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(DgemmIndirectBImpl)(m, n, k, a, lda, b, boff, c, ldc, bias, accumulate);
}
size_t DgemmTileColumns() {
  return HWY_DYNAMIC_DISPATCH(DTileColumnsImpl)();
}
size_t SgemmPackedTileColumns() {
  return HWY_DYNAMIC_DISPATCH(PackedTileColumnsImpl)();
}

void SgemmNarrow(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* bt,
                 int64_t ldbt, float* c, int64_t ldc, int64_t ldc_col) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(SgemmNarrowImpl)(m, n, k, a, lda, bt, ldbt, c, ldc, ldc_col);
}

void SgemmPacked(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                 int64_t ldb, float* c, int64_t ldc, float* work, const float* a_packed,
                 bool b_trans, const float* b_packed, bool overwrite) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(SgemmPacked)
  (m, n, k, a, lda, b, ldb, c, ldc, work, a_packed, b_trans, b_packed, overwrite);
}
size_t SgemmPackedBFloats(int64_t k, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(PackedBFloats)(k, n);
}
size_t SgemmPrepackedWorkFloats() {
  return HWY_DYNAMIC_DISPATCH(PrepackedWorkFloats)();
}
void SgemmPackB(int64_t k, int64_t n, const float* b, int64_t ldb, float* out, bool b_trans) {
  HWY_DYNAMIC_DISPATCH(PackAllB)(k, n, b, ldb, out, b_trans);
}
size_t SgemmPackedAFloats(int64_t m, int64_t k) {
  constexpr int64_t kRows = 6;  // the tile height (kMR in every target)
  return static_cast<size_t>((m + kRows - 1) / kRows * kRows * k);
}
void SgemmPackA(int64_t m, int64_t k, const float* a, int64_t lda, float* out) {
  HWY_DYNAMIC_DISPATCH(PackAllA)(m, k, a, lda, out);
}
size_t SgemmPackedWorkFloats(int64_t n) {
  return HWY_DYNAMIC_DISPATCH(WorkFloats)(n);
}

bool PreferPackedSgemm() {
  return HWY_DYNAMIC_DISPATCH(PreferPackedSgemmImpl)();
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
