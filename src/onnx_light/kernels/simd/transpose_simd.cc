#include "simd/transpose_simd.h"

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/transpose_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void TransposeTileU32Impl(const uint32_t* s, uint32_t* d, int64_t r0, int64_t r1, int64_t c0,
                          int64_t c1, int64_t ld, int64_t ldd) {
#if HWY_TARGET == HWY_SCALAR  // no 128-bit vectors: every element at the edges below
  const int64_t r4 = r0, c4 = c0;
#else
  const hn::Full128<uint32_t> v;
  const hn::Full128<uint64_t> v64;
  const int64_t r4 = r0 + (r1 - r0) / 4 * 4, c4 = c0 + (c1 - c0) / 4 * 4;
  for (int64_t c = c0; c < c4; c += 4) {
    const uint32_t* sc = s + c * ld;
    for (int64_t r = r0; r < r4; r += 4) {
      // Rows of the source block: column c + k of the output, entries r .. r + 3.
      const auto a = hn::LoadU(v, sc + r), b = hn::LoadU(v, sc + ld + r);
      const auto e = hn::LoadU(v, sc + 2 * ld + r), f = hn::LoadU(v, sc + 3 * ld + r);
      const auto ab_lo = hn::BitCast(v64, hn::InterleaveLower(v, a, b));  // a0 b0 a1 b1
      const auto ab_hi = hn::BitCast(v64, hn::InterleaveUpper(v, a, b));  // a2 b2 a3 b3
      const auto ef_lo = hn::BitCast(v64, hn::InterleaveLower(v, e, f));  // e0 f0 e1 f1
      const auto ef_hi = hn::BitCast(v64, hn::InterleaveUpper(v, e, f));  // e2 f2 e3 f3
      uint32_t* dr = d + r * ldd + c;
      hn::StoreU(hn::BitCast(v, hn::InterleaveLower(v64, ab_lo, ef_lo)), v, dr);
      hn::StoreU(hn::BitCast(v, hn::InterleaveUpper(v64, ab_lo, ef_lo)), v, dr + ldd);
      hn::StoreU(hn::BitCast(v, hn::InterleaveLower(v64, ab_hi, ef_hi)), v, dr + 2 * ldd);
      hn::StoreU(hn::BitCast(v, hn::InterleaveUpper(v64, ab_hi, ef_hi)), v, dr + 3 * ldd);
    }
  }
#endif
  // The edges: the last rows (every column), the last columns (the rows above them).
  for (int64_t r = r4; r < r1; ++r) {
    for (int64_t c = c0; c < c1; ++c)
      d[r * ldd + c] = s[c * ld + r];
  }
  for (int64_t r = r0; r < r4; ++r) {
    for (int64_t c = c4; c < c1; ++c)
      d[r * ldd + c] = s[c * ld + r];
  }
}

// Columns [c, n) of k streams with vectors of the tag `dt`; returns where it stopped.
template <class D, typename T = hn::TFromD<D>>
int64_t DeinterleaveWith(D dt, const T* s, int64_t k, int64_t c, int64_t n, T* d, int64_t ldd) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(dt));
  hn::Vec<D> v0, v1, v2, v3;
  for (; c + lanes <= n; c += lanes) {
    const T* sc = s + c * k;
    if (k == 2) {
      hn::LoadInterleaved2(dt, sc, v0, v1);
    } else if (k == 3) {
      hn::LoadInterleaved3(dt, sc, v0, v1, v2);
    } else {
      hn::LoadInterleaved4(dt, sc, v0, v1, v2, v3);
    }
    hn::StoreU(v0, dt, d + c);
    hn::StoreU(v1, dt, d + ldd + c);
    if (k >= 3) hn::StoreU(v2, dt, d + 2 * ldd + c);
    if (k == 4) hn::StoreU(v3, dt, d + 3 * ldd + c);
  }
  return c;
}

template <typename T>
void DeinterleaveT(const T* s, int64_t k, int64_t n, T* d, int64_t ldd) {
  int64_t c = DeinterleaveWith(hn::ScalableTag<T>(), s, k, 0, n, d, ldd);
#if HWY_TARGET != HWY_SCALAR
  c = DeinterleaveWith(hn::Full128<T>(), s, k, c, n, d, ldd);
#endif
  for (; c < n; ++c) {
    for (int64_t r = 0; r < k; ++r)
      d[r * ldd + c] = s[c * k + r];
  }
}

void DeinterleaveStreamsImpl(const void* s, size_t item, int64_t k, int64_t n, void* d,
                             int64_t ldd) {
  switch (item) {
    case 1:
      DeinterleaveT(static_cast<const uint8_t*>(s), k, n, static_cast<uint8_t*>(d), ldd);
      break;
    case 2:
      DeinterleaveT(static_cast<const uint16_t*>(s), k, n, static_cast<uint16_t*>(d), ldd);
      break;
    case 4:
      DeinterleaveT(static_cast<const uint32_t*>(s), k, n, static_cast<uint32_t*>(d), ldd);
      break;
    default:
      DeinterleaveT(static_cast<const uint64_t*>(s), k, n, static_cast<uint64_t*>(d), ldd);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(TransposeTileU32Impl);

void TransposeTileU32(const uint32_t* s, uint32_t* d, int64_t r0, int64_t r1, int64_t c0,
                      int64_t c1, int64_t ld, int64_t ldd) {
  HWY_DYNAMIC_DISPATCH(TransposeTileU32Impl)(s, d, r0, r1, c0, c1, ld, ldd);
}

HWY_EXPORT(DeinterleaveStreamsImpl);

void DeinterleaveStreams(const void* s, size_t item, int64_t k, int64_t n, void* d, int64_t ldd) {
  HWY_DYNAMIC_DISPATCH(DeinterleaveStreamsImpl)(s, item, k, n, d, ldd);
}

}  // namespace onnx_light::kernels
#endif
