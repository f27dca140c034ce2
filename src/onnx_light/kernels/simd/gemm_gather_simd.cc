// A matrix product whose left operand is read through two offset tables instead of being
// built: a(r, p) = x[roff[r] + koff[p]]. For a convolution computed transposed (rows: the
// output positions of one image; p: the taps (c, kh, kw); columns: the output channels),
// roff[r] is where the window of position r starts in the (padded) image and koff[p] where
// tap p lies inside a window, so no columns or rows are ever copied
// (nn/conv2d_positions_f32.cc). b is the weights packed by SgemmPackB.
#include <algorithm>

#include "simd/denormals.h"
#include "simd/gemm_simd.h"
#include "simd/prefetch.h"

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/gemm_gather_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr int64_t kKC = 256;  // taps per block: a block of the weights' panel stays in L2
constexpr int64_t kMaxRows = 6;

// c[rows x cols] += the product of kRows rows of a (rows past `rows` repeat the last one and
// are not stored) and kV vectors of a packed panel of b (rows `stride` floats apart).
// pf: the row pf floats further on (the next panel's: the panels lie k rows apart) is
// prefetched into L2 with every pf_every-th row from row pf_phase - 1: the tiles over a
// panel share the next one's prefetch, so that weights streamed from memory arrive over
// the panel's whole time ([16,1024] x [1024,2816]: 1.24x -> 1.11x ORT's time, [32,...]
// 1.12x -> 1.02x; the first tile alone prefetching gained nothing).
template <size_t kRows, size_t kV>
HWY_INLINE void GatherTile(int64_t kc, const float* HWY_RESTRICT x, const int64_t* roff,
                           int64_t rows, const int64_t* HWY_RESTRICT koff,
                           const float* HWY_RESTRICT bp, int64_t stride, float* c, int64_t ldc,
                           int64_t cols, int64_t pf, int64_t pf_phase, int64_t pf_every) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t N = hn::Lanes(d);
  V acc[kRows][kV];
  const float* arow[kRows];
  for (size_t r = 0; r < kRows; ++r) {
    arow[r] = x + roff[std::min<int64_t>(static_cast<int64_t>(r), rows - 1)];
    for (size_t v = 0; v < kV; ++v)
      acc[r][v] = hn::Zero(d);
  }
  int64_t pf_wait = pf_phase;
  for (int64_t p = 0; p < kc; ++p) {
    const float* row = bp + p * stride;
    V b[kV];
    for (size_t v = 0; v < kV; ++v)
      b[v] = hn::Load(d, row + v * N);
    if (pf != 0 && --pf_wait == 0) {
      pf_wait = pf_every;
      for (int64_t q = 0; q < stride; q += 16)  // a line per 16 floats
        PrefetchL2(row + pf + q);
    }
    const int64_t off = koff[p];
    for (size_t r = 0; r < kRows; ++r) {
      const V a = hn::Set(d, arow[r][off]);
      for (size_t v = 0; v < kV; ++v)
        acc[r][v] = hn::MulAdd(a, b[v], acc[r][v]);
    }
  }
  if (rows == static_cast<int64_t>(kRows) && cols == static_cast<int64_t>(kV * N)) {
    for (size_t r = 0; r < kRows; ++r) {
      float* out = c + static_cast<int64_t>(r) * ldc;
      for (size_t v = 0; v < kV; ++v)
        hn::StoreU(hn::Add(hn::LoadU(d, out + v * N), acc[r][v]), d, out + v * N);
    }
    return;
  }
  HWY_ALIGN float buf[kRows * kV * hn::MaxLanes(d)];
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t v = 0; v < kV; ++v)
      hn::Store(acc[r][v], d, buf + (r * kV + v) * N);
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j)
      c[r * ldc + j] += buf[static_cast<size_t>(r) * kV * N + static_cast<size_t>(j)];
  }
}

// A tile exactly as high as its rows (3 to 6; fewer run in a tile of 3).
template <size_t kV>
HWY_INLINE void GatherRows(int64_t kc, const float* x, const int64_t* roff, int64_t rows,
                           const int64_t* koff, const float* bp, int64_t stride, float* c,
                           int64_t ldc, int64_t cols, int64_t pf, int64_t pf_phase,
                           int64_t pf_every) {
  switch (rows) {
    case 1:
    case 2:
    case 3:
      GatherTile<3, kV>(kc, x, roff, rows, koff, bp, stride, c, ldc, cols, pf, pf_phase, pf_every);
      break;
    case 4:
      GatherTile<4, kV>(kc, x, roff, rows, koff, bp, stride, c, ldc, cols, pf, pf_phase, pf_every);
      break;
    case 5:
      GatherTile<5, kV>(kc, x, roff, rows, koff, bp, stride, c, ldc, cols, pf, pf_phase, pf_every);
      break;
    default:
      GatherTile<kMaxRows, kV>(kc, x, roff, rows, koff, bp, stride, c, ldc, cols, pf, pf_phase,
                               pf_every);
  }
}

void SgemmGatherAImpl(int64_t m, int64_t n, int64_t k, const float* x, const int64_t* roff,
                      const int64_t* koff, const float* b_packed, float* c, int64_t ldc) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
  // The panels' width: 4 vectors where there are 32 registers (SgemmPackB's layout).
  constexpr size_t kPanelV = HWY_TARGET <= HWY_AVX3 ? 4 : 2;
  const int64_t nr = static_cast<int64_t>(kPanelV) * lanes;
  const int64_t tiles = (m + kMaxRows - 1) / kMaxRows;
  for (int64_t pc = 0; pc < k; pc += kKC) {
    const int64_t kc = std::min(kKC, k - pc);
    for (int64_t jr = 0; jr < n; jr += nr) {
      const int64_t cols = std::min(nr, n - jr);
      const float* bp = b_packed + jr * k + pc * nr;  // panel jr / nr at jr / nr * k * nr
      // As many vectors as the panel's columns fill (100 = 64 + 36: 3 vectors, not 4).
      const int64_t vectors = (cols + lanes - 1) / lanes;
      // Rows in tiles of nearly equal height (14 as 4 + 5 + 5: tiles of 6 computed 18).
      for (int64_t t = 0, i0 = 0; t < tiles; ++t) {
        const int64_t rows = (m - i0) / (tiles - t);
        const int64_t pf = jr + nr < n ? k * nr : 0;
        const int64_t* ro = roff + i0;
        float* cp = c + i0 * ldc + jr;
        if (vectors == 1) {
          GatherRows<1>(kc, x, ro, rows, koff + pc, bp, nr, cp, ldc, cols, pf, t + 1, tiles);
        } else if (kPanelV == 2 || vectors == 2) {
          GatherRows<2>(kc, x, ro, rows, koff + pc, bp, nr, cp, ldc, cols, pf, t + 1, tiles);
        } else if constexpr (kPanelV == 4) {
          if (vectors == 3) {
            GatherRows<3>(kc, x, ro, rows, koff + pc, bp, nr, cp, ldc, cols, pf, t + 1, tiles);
          } else {
            GatherRows<4>(kc, x, ro, rows, koff + pc, bp, nr, cp, ldc, cols, pf, t + 1, tiles);
          }
        }
        i0 += rows;
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(SgemmGatherAImpl);

void SgemmGatherA(int64_t m, int64_t n, int64_t k, const float* x, const int64_t* roff,
                  const int64_t* koff, const float* b_packed, float* c, int64_t ldc) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(SgemmGatherAImpl)(m, n, k, x, roff, koff, b_packed, c, ldc);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
