#include "simd/qgemm_simd.h"

#include <hwy/aligned_allocator.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/qgemm_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
// One lane: the plain loop (a build's baseline target; x86 CPUs take the vector code).
template <typename B>
void QGemm(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda, const B* b, int64_t ldb,
           const int32_t* zb, int32_t* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int32_t sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += a[i * lda + p] * (static_cast<int32_t>(b[p * ldb + j]) - zb[j]);
      c[i * ldc + j] = sum;
    }
  }
}
#else
// 8 rows where there are 32 vector registers (16 accumulators), 4 where there are 16.
constexpr size_t kQR = HWY_TARGET <= HWY_AVX3 ? 8 : 4;  // rows of a register tile
constexpr size_t kQV = 2;                               // vectors of int32 columns

// Row p of b, columns [j, j + lanes), centered, widened to int32. `cols` < lanes: the
// rest read as zeros through a buffer.
template <typename B, class D32>
HWY_INLINE hn::Vec<D32> LoadColumns(D32 d32, const B* row, const int32_t* zb, int64_t cols) {
  const hn::Rebind<B, D32> d8;
  const size_t lanes = hn::Lanes(d32);
  if (cols >= static_cast<int64_t>(lanes)) {
    return hn::Sub(hn::PromoteTo(d32, hn::LoadU(d8, row)), hn::LoadU(d32, zb));
  }
  HWY_ALIGN B buf[hn::MaxLanes(d32)] = {};
  HWY_ALIGN int32_t zbuf[hn::MaxLanes(d32)] = {};
  std::memcpy(buf, row, static_cast<size_t>(cols) * sizeof(B));
  std::memcpy(zbuf, zb, static_cast<size_t>(cols) * sizeof(int32_t));
  return hn::Sub(hn::PromoteTo(d32, hn::Load(d8, buf)), hn::Load(d32, zbuf));
}

// One column panel of b (kQV vectors of columns from j), centered and packed as int16
// pairs: for rows p and p + 1, lane i holds (b[p][i], b[p + 1][i]) (an odd k's last row
// pairs with zeros). Every row tile then reads the panel with aligned loads.
template <typename B>
HWY_INLINE void PackPanel(int64_t k, const B* b, int64_t ldb, const int32_t* zb, int64_t cols,
                          int16_t* out) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Repartition<int16_t, decltype(d32)> d16;
  using V32 = hn::Vec<decltype(d32)>;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d32));
  const V32 low = hn::Set(d32, 0xffff);
  for (int64_t p = 0; p < k; p += 2) {
#pragma GCC unroll 4
    for (size_t v = 0; v < kQV; ++v) {
      const int64_t j = static_cast<int64_t>(v) * lanes, left = cols - j;
      V32 pair = hn::Zero(d32);
      if (left > 0) {
        const V32 b0 = LoadColumns(d32, b + p * ldb + j, zb + j, left);
        const V32 b1 =
            p + 1 < k ? LoadColumns(d32, b + (p + 1) * ldb + j, zb + j, left) : hn::Zero(d32);
        pair = hn::Or(hn::ShiftLeft<16>(b1), hn::And(b0, low));
      }
      hn::Store(hn::BitCast(d16, pair), d16, out);
      out += 2 * lanes;
    }
  }
}

// A kR x kQV-vector tile of c = a * b over k: a's rows are int16 pairs (a[r][p],
// a[r][p + 1]) broadcast as one int32, b's pairs come packed by column panel, as int16
// (PackPanel: centered) or as bytes widened here (QGemmI16PackB: not centered), and each
// pair of products is summed in int32 (vpmaddwd on x86): exact, no saturation (|values|
// <= 255).
//
// Row r's values are read as `taps` runs of k values (k even unless taps is 1): run t at
// bases[r] + offsets[t] (a convolution's window read in place, tap by tap), the panel's
// pairs following the runs in order; rows past `rows` repeat the last.
template <size_t kR, typename P>
HWY_INLINE void QTile(int64_t k, int64_t taps, const int16_t* const* bases, const int64_t* offsets,
                      int64_t rows, const P* panel, int64_t cols, int32_t* c, int64_t ldc) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Repartition<int16_t, decltype(d32)> d16;
  using V32 = hn::Vec<decltype(d32)>;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d32));
  V32 acc[kR][kQV], acc1[kR][kQV];
#pragma GCC unroll 16
  for (size_t r = 0; r < kR; ++r) {
#pragma GCC unroll 4
    for (size_t v = 0; v < kQV; ++v)
      acc[r][v] = acc1[r][v] = hn::Zero(d32);
  }
  for (int64_t t = 0; t < taps; ++t) {
    const int16_t* arow[kR];
#pragma GCC unroll 16
    for (size_t r = 0; r < kR; ++r)
      arow[r] = bases[std::min<int64_t>(static_cast<int64_t>(r), rows - 1)] + offsets[t];
    for (int64_t p = 0; p < k; p += 2) {
      hn::Vec<decltype(d16)> bp[kQV];
#pragma GCC unroll 4
      for (size_t v = 0; v < kQV; ++v) {
        if constexpr (std::is_same_v<P, int16_t>) {
          bp[v] = hn::Load(d16, panel + v * 2 * static_cast<size_t>(lanes));
        } else {
          const hn::Rebind<P, decltype(d16)> d8;
          bp[v] = hn::PromoteTo(d16, hn::LoadU(d8, panel + v * 2 * static_cast<size_t>(lanes)));
        }
      }
      panel += kQV * 2 * static_cast<size_t>(lanes);
#pragma GCC unroll 16
      for (size_t r = 0; r < kR; ++r) {
        int32_t pair;
        std::memcpy(&pair, arow[r] + p, sizeof(pair));
        const auto ap = hn::BitCast(d16, hn::Set(d32, pair));
#pragma GCC unroll 4
        for (size_t v = 0; v < kQV; ++v)
          acc[r][v] = hn::ReorderWidenMulAccumulate(d32, ap, bp[v], acc[r][v], acc1[r][v]);
      }
    }
  }
  // A whole tile straight from the registers; a partial one through a buffer with
  // constant indices (indexing the accumulators by the run-time row count made the
  // compiler keep them in memory for the whole loop).
  if (rows == static_cast<int64_t>(kR) && cols == static_cast<int64_t>(kQV) * lanes) {
#pragma GCC unroll 16
    for (size_t r = 0; r < kR; ++r) {
#pragma GCC unroll 4
      for (size_t v = 0; v < kQV; ++v)
        hn::StoreU(hn::Add(acc[r][v], acc1[r][v]), d32,
                   c + static_cast<int64_t>(r) * ldc + static_cast<int64_t>(v) * lanes);
    }
    return;
  }
  HWY_ALIGN int32_t sums[kR][kQV * hn::MaxLanes(d32)];
#pragma GCC unroll 16
  for (size_t r = 0; r < kR; ++r) {
#pragma GCC unroll 4
    for (size_t v = 0; v < kQV; ++v)
      hn::Store(hn::Add(acc[r][v], acc1[r][v]), d32, sums[r] + v * static_cast<size_t>(lanes));
  }
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(c + r * ldc, sums[r], static_cast<size_t>(cols) * sizeof(int32_t));
}

template <typename B>
void QGemm(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda, const B* b, int64_t ldb,
           const int32_t* zb, int32_t* c, int64_t ldc) {
  const hn::ScalableTag<int32_t> d32;
  const auto nr = static_cast<int64_t>(kQV * hn::Lanes(d32));
  const auto mr = static_cast<int64_t>(kQR);
  // One column panel of b at a time, packed once (k rows of nr int16 pairs, in the L1/L2
  // caches) while every tile of rows passes it.
  const int64_t pairs = (k + 1) / 2;
  auto* panel = static_cast<int16_t*>(hwy::AllocateAlignedBytes(
      static_cast<size_t>(pairs * 2 * nr) * sizeof(int16_t), nullptr, nullptr));
  for (int64_t j = 0; j < n; j += nr) {
    const int64_t cols = std::min(nr, n - j);
    PackPanel(k, b + j, ldb, zb + j, cols, panel);
    for (int64_t i = 0; i < m; i += mr) {
      const int16_t* rows[kQR];
      for (size_t r = 0; r < kQR; ++r)
        rows[r] = a + (i + std::min<int64_t>(static_cast<int64_t>(r), m - i - 1)) * lda;
      const int64_t zero = 0;
      QTile<kQR>(k, 1, rows, &zero, std::min(mr, m - i), panel, cols, c + i * ldc + j, ldc);
    }
  }
  hwy::FreeAlignedBytes(panel, nullptr, nullptr);
}

// Columns of one packed panel for this target.
int64_t PanelColumnsImpl() {
  const hn::ScalableTag<int32_t> d32;
  return static_cast<int64_t>(kQV * hn::Lanes(d32));
}

// b packed as QGemmI16PackedB: per panel of nr columns, per pair of rows, kQV blocks of
// 2 * lanes bytes: (b[p][j], b[p + 1][j]) for the block's columns; zeros past k and n.
// (From int16 values too, into int16 lanes: the wide form.)
template <typename S, typename O>
void PackB(int64_t k, int64_t n, const S* b, int64_t ldb, O* out) {
  const int64_t nr = PanelColumnsImpl();
  const int64_t pairs = (k + 1) / 2;
  for (int64_t j = 0; j < n; j += nr) {
    O* panel = out + j / nr * pairs * 2 * nr;
    for (int64_t q = 0; q < pairs; ++q) {
      O* dst = panel + q * 2 * nr;
      for (int64_t col = 0; col < nr; ++col) {
        const int64_t jj = j + col;
        const int64_t p = 2 * q;
        dst[2 * col] = jj < n ? static_cast<O>(b[p * ldb + jj]) : O{0};
        dst[2 * col + 1] = jj < n && p + 1 < k ? static_cast<O>(b[(p + 1) * ldb + jj]) : O{0};
      }
    }
  }
}

void PackBI8Impl(int64_t k, int64_t n, const uint8_t* b, int64_t ldb, uint8_t* out) {
  PackB(k, n, b, ldb, out);
}
void PackBI16Impl(int64_t k, int64_t n, const int16_t* b, int64_t ldb, int16_t* out) {
  PackB(k, n, b, ldb, out);
}

// Rows of a tile over a packed panel: 6 where there are 16 vector registers (12
// accumulators; the packed pairs need no registers of their own beyond the two loads).
constexpr size_t kPR = HWY_TARGET <= HWY_AVX3 ? 8 : 6;

// c = a * (b - zb) over packed b, row i's values read as `taps` runs of k values, run t
// at bases[i] + offsets[t] (k * taps values in all).
template <typename B>
void QGemmPackedRuns(int64_t m, int64_t n, int64_t k, int64_t taps, const int16_t* const* bases,
                     const int64_t* offsets, const B* bytes, int64_t j0, const int32_t* zb,
                     int32_t* c, int64_t ldc) {
  const int64_t nr = PanelColumnsImpl();
  const auto mr = static_cast<int64_t>(kPR);
  const int64_t pairs = (k * taps + 1) / 2;
  for (int64_t j = 0; j < n; j += nr) {
    const int64_t cols = std::min(nr, n - j);
    const B* panel = bytes + (j0 + j) / nr * pairs * 2 * nr;
    int64_t i = 0;
    for (; i + mr <= m; i += mr)
      QTile<kPR>(k, taps, bases + i, offsets, mr, panel, cols, c + i * ldc + j, ldc);
    for (; i < m; ++i)
      QTile<1>(k, taps, bases + i, offsets, 1, panel, cols, c + i * ldc + j, ldc);
  }
  // The zero points: c -= zb[j] * (sum of a's row), in int32 arithmetic that wraps as the
  // sums do.
  if (zb == nullptr || std::all_of(zb, zb + n, [](int32_t z) { return z == 0; })) return;
  for (int64_t i = 0; i < m; ++i) {
    uint32_t rowsum = 0;
    for (int64_t t = 0; t < taps; ++t) {
      const int16_t* run = bases[i] + offsets[t];
      for (int64_t p = 0; p < k; ++p)
        rowsum += static_cast<uint32_t>(static_cast<int32_t>(run[p]));
    }
    int32_t* ci = c + i * ldc;
    for (int64_t j = 0; j < n; ++j)
      ci[j] = static_cast<int32_t>(static_cast<uint32_t>(ci[j]) -
                                   static_cast<uint32_t>(zb[j]) * rowsum);
  }
}

template <typename B>
void QGemmPacked(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda, const B* bytes,
                 int64_t j0, const int32_t* zb, int32_t* c, int64_t ldc) {
  constexpr int64_t kChunk = 96;  // rows per call, their pointers on the stack
  const int16_t* rows[kChunk];
  const int64_t zero = 0;
  for (int64_t i0 = 0; i0 < m; i0 += kChunk) {
    const int64_t count = std::min(kChunk, m - i0);
    for (int64_t i = 0; i < count; ++i)
      rows[i] = a + (i0 + i) * lda;
    QGemmPackedRuns(count, n, k, 1, rows, &zero, bytes, j0, zb, c + i0 * ldc, ldc);
  }
}

// (wide: int16 lanes; else bytes, signed or not.)
void QGemmPackedImpl(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda,
                     const uint8_t* bytes, bool b_signed, bool wide, int64_t j0, const int32_t* zb,
                     int32_t* c, int64_t ldc) {
  if (wide) {
    QGemmPacked(m, n, k, a, lda, reinterpret_cast<const int16_t*>(bytes), j0, zb, c, ldc);
  } else if (b_signed) {
    QGemmPacked(m, n, k, a, lda, reinterpret_cast<const int8_t*>(bytes), j0, zb, c, ldc);
  } else {
    QGemmPacked(m, n, k, a, lda, bytes, j0, zb, c, ldc);
  }
}

void QGemmPackedRunsImpl(int64_t m, int64_t n, int64_t k, int64_t taps, const int16_t* const* bases,
                         const int64_t* offsets, const uint8_t* bytes, bool b_signed, bool wide,
                         int64_t j0, const int32_t* zb, int32_t* c, int64_t ldc) {
  if (wide) {
    QGemmPackedRuns(m, n, k, taps, bases, offsets, reinterpret_cast<const int16_t*>(bytes), j0, zb,
                    c, ldc);
  } else if (b_signed) {
    QGemmPackedRuns(m, n, k, taps, bases, offsets, reinterpret_cast<const int8_t*>(bytes), j0, zb,
                    c, ldc);
  } else {
    QGemmPackedRuns(m, n, k, taps, bases, offsets, bytes, j0, zb, c, ldc);
  }
}
#endif  // HWY_TARGET == HWY_SCALAR

#if HWY_TARGET == HWY_SCALAR  // no packed form: QGemmI16PackB leaves it empty
int64_t PanelColumnsImpl() {
  return 0;
}
void PackBI8Impl(int64_t, int64_t, const uint8_t*, int64_t, uint8_t*) {}
void PackBI16Impl(int64_t, int64_t, const int16_t*, int64_t, int16_t*) {}
void QGemmPackedImpl(int64_t, int64_t, int64_t, const int16_t*, int64_t, const uint8_t*, bool, bool,
                     int64_t, const int32_t*, int32_t*, int64_t) {}
void QGemmPackedRunsImpl(int64_t, int64_t, int64_t, int64_t, const int16_t* const*, const int64_t*,
                         const uint8_t*, bool, bool, int64_t, const int32_t*, int32_t*, int64_t) {}
#endif  // HWY_TARGET == HWY_SCALAR

// DynamicQuantizeLinear's pieces: the range (with 0) and whether a NaN is present, and
// y = saturate(round_half_even(x / scale) + zp) as uint8.
void RangeF32Impl(const float* x, size_t n, float* lo, float* hi, bool* nan) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  auto vlo = hn::Zero(d), vhi = hn::Zero(d);
  auto bad = hn::Zero(d);  // lanes that saw a NaN, as all-ones
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, x + i);
    bad = hn::Or(bad, hn::VecFromMask(d, hn::IsNaN(v)));
    vlo = hn::Min(vlo, v);
    vhi = hn::Max(vhi, v);
  }
  float l = hn::GetLane(hn::MinOfLanes(d, vlo)), h = hn::GetLane(hn::MaxOfLanes(d, vhi));
  bool any = !hn::AllFalse(d, hn::MaskFromVec(bad));
  for (; i < n; ++i) {
    any = any || x[i] != x[i];
    l = x[i] < l ? x[i] : l;
    h = x[i] > h ? x[i] : h;
  }
  *lo = l;
  *hi = h;
  *nan = any;
}

void QuantizeU8F32Impl(const float* x, size_t n, float scale, float zp, uint8_t* out) {
  const hn::ScalableTag<float> d;
  const hn::Rebind<int32_t, decltype(d)> di;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const size_t lanes = hn::Lanes(d);
  const auto vs = hn::Set(d, scale), vz = hn::Set(d, zp);
  const auto v0 = hn::Zero(d), v255 = hn::Set(d, 255.0f);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto q = hn::Add(hn::Round(hn::Div(hn::LoadU(d, x + i), vs)), vz);
    const auto c = hn::ConvertTo(di, hn::Min(hn::Max(q, v0), v255));
    hn::StoreU(hn::DemoteTo(d8, c), d8, out + i);
  }
  for (; i < n; ++i) {
    const float q = std::nearbyint(x[i] / scale) + zp;
    // NaN (an infinite x over an infinite scale) goes to 0, never into the int cast.
    out[i] =
        static_cast<uint8_t>(static_cast<int32_t>(!(q >= 0.0f) ? 0.0f : (q > 255.0f ? 255.0f : q)));
  }
}

// QuantizeLinear per tensor: v = x / scale, a NaN to lo, clamped to [lo, hi] (the type's
// range less the zero point), rounded half to even, the zero point added.
template <typename Q>
void QuantizeLinearRows(const float* x, size_t n, float scale, float lo, float hi, int32_t zp,
                        Q* out) {
  const hn::ScalableTag<float> d;
  const hn::Rebind<int32_t, decltype(d)> di;
  const hn::Rebind<uint32_t, decltype(d)> du;
  using U = std::make_unsigned_t<Q>;
  const hn::Rebind<U, decltype(d)> dq;
  const size_t lanes = hn::Lanes(d);
  const auto vs = hn::Set(d, scale), vlo = hn::Set(d, lo), vhi = hn::Set(d, hi);
  const auto vz = hn::Set(di, zp);
  size_t i = 0;
  // The value is clamped to the type's range less the zero point before it is rounded, so
  // the sum fits the type: rounded and converted in one instruction (NearestInt: half to
  // even) and narrowed by truncation, without the saturating demotes' packs and permutes
  // (1.6x ORT's time with them).
  for (; i + lanes <= n; i += lanes) {
    auto v = hn::Div(hn::LoadU(d, x + i), vs);
    v = hn::IfThenElse(hn::Gt(v, vlo), v, vlo);  // NaN: lo
    v = hn::Min(v, vhi);
    const auto q = hn::BitCast(du, hn::Add(hn::NearestInt(v), vz));
    hn::StoreU(hn::TruncateTo(dq, q), dq, reinterpret_cast<U*>(out) + i);
  }
  for (; i < n; ++i) {
    float v = x[i] / scale;
    v = v > lo ? v : lo;  // NaN: lo
    v = v < hi ? v : hi;
    out[i] = static_cast<Q>(static_cast<int32_t>(std::nearbyint(v)) + zp);
  }
}

void QuantizeLinearF32Impl(const float* x, size_t n, float scale, float lo, float hi, int32_t zp,
                           bool is_signed, int bytes, void* out) {
  if (bytes == 2 && is_signed) {
    QuantizeLinearRows(x, n, scale, lo, hi, zp, static_cast<int16_t*>(out));
  } else if (bytes == 2) {
    QuantizeLinearRows(x, n, scale, lo, hi, zp, static_cast<uint16_t*>(out));
  } else if (is_signed) {
    QuantizeLinearRows(x, n, scale, lo, hi, zp, static_cast<int8_t*>(out));
  } else {
    QuantizeLinearRows(x, n, scale, lo, hi, zp, static_cast<uint8_t*>(out));
  }
}

void QGemmImpl(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda, const void* b,
               bool b_signed, int64_t ldb, const int32_t* zb, int32_t* c, int64_t ldc) {
  if (b_signed) {
    QGemm(m, n, k, a, lda, static_cast<const int8_t*>(b), ldb, zb, c, ldc);
  } else {
    QGemm(m, n, k, a, lda, static_cast<const uint8_t*>(b), ldb, zb, c, ldc);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(QGemmImpl);
HWY_EXPORT(PanelColumnsImpl);
HWY_EXPORT(PackBI8Impl);
HWY_EXPORT(PackBI16Impl);
HWY_EXPORT(QGemmPackedImpl);
HWY_EXPORT(QGemmPackedRunsImpl);
HWY_EXPORT(RangeF32Impl);
HWY_EXPORT(QuantizeU8F32Impl);
HWY_EXPORT(QuantizeLinearF32Impl);

void RangeF32(const float* x, size_t n, float* lo, float* hi, bool* nan) {
  HWY_DYNAMIC_DISPATCH(RangeF32Impl)(x, n, lo, hi, nan);
}
void QuantizeU8F32(const float* x, size_t n, float scale, float zp, uint8_t* out) {
  HWY_DYNAMIC_DISPATCH(QuantizeU8F32Impl)(x, n, scale, zp, out);
}
void QuantizeLinearF32(const float* x, size_t n, float scale, float lo, float hi, int32_t zp,
                       bool is_signed, int bytes, void* out) {
  HWY_DYNAMIC_DISPATCH(QuantizeLinearF32Impl)(x, n, scale, lo, hi, zp, is_signed, bytes, out);
}

void QGemmI16(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda, const void* b,
              bool b_signed, int64_t ldb, const int32_t* zb, int32_t* c, int64_t ldc) {
  HWY_DYNAMIC_DISPATCH(QGemmImpl)(m, n, k, a, lda, b, b_signed, ldb, zb, c, ldc);
}

void QGemmI16PackedB::Free::operator()(uint8_t* p) const {
  hwy::FreeAlignedBytes(p, nullptr, nullptr);
}

namespace {

// An empty packed b of k x n (bytes null on a scalar build or an empty matrix), its panels
// allocated for elements of `size` bytes.
QGemmI16PackedB AllocatePacked(int64_t k, int64_t n, size_t size) {
  QGemmI16PackedB p;
  p.nr = HWY_DYNAMIC_DISPATCH(PanelColumnsImpl)();
  if (p.nr <= 0 || k <= 0 || n <= 0) return p;
  p.k = k;
  p.n = n;
  const int64_t panels = (n + p.nr - 1) / p.nr, pairs = (k + 1) / 2;
  const auto bytes = static_cast<size_t>(panels * pairs * 2 * p.nr) * size;
  p.bytes.reset(static_cast<uint8_t*>(hwy::AllocateAlignedBytes(bytes, nullptr, nullptr)));
  return p;
}

}  // namespace

QGemmI16PackedB QGemmI16PackB(int64_t k, int64_t n, const void* b, bool b_signed, int64_t ldb) {
  QGemmI16PackedB p = AllocatePacked(k, n, 1);
  p.b_signed = b_signed;
  if (p.bytes != nullptr)
    HWY_DYNAMIC_DISPATCH(PackBI8Impl)(k, n, static_cast<const uint8_t*>(b), ldb, p.bytes.get());
  return p;
}

QGemmI16PackedB QGemmI16PackB16(int64_t k, int64_t n, const int16_t* b, int64_t ldb) {
  QGemmI16PackedB p = AllocatePacked(k, n, sizeof(int16_t));
  p.wide = true;
  if (p.bytes != nullptr) {
    HWY_DYNAMIC_DISPATCH(PackBI16Impl)
    (k, n, b, ldb, reinterpret_cast<int16_t*>(p.bytes.get()));
  }
  return p;
}

void QGemmI16Packed(int64_t m, int64_t n, const int16_t* a, int64_t lda,
                    const QGemmI16PackedB& packed, int64_t j0, const int32_t* zb, int32_t* c,
                    int64_t ldc) {
  HWY_DYNAMIC_DISPATCH(QGemmPackedImpl)
  (m, n, packed.k, a, lda, packed.bytes.get(), packed.b_signed, packed.wide, j0, zb, c, ldc);
}

void QGemmI16PackedRuns(int64_t m, int64_t n, int64_t k, int64_t taps, const int16_t* const* bases,
                        const int64_t* offsets, const QGemmI16PackedB& packed, int64_t j0,
                        const int32_t* zb, int32_t* c, int64_t ldc) {
  HWY_DYNAMIC_DISPATCH(QGemmPackedRunsImpl)
  (m, n, k, taps, bases, offsets, packed.bytes.get(), packed.b_signed, packed.wide, j0, zb, c, ldc);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
