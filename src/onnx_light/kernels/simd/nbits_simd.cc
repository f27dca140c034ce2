#include "simd/nbits_simd.h"

#include <algorithm>
#include <cmath>

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/nbits_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One column (see DotQ4Columns): each block's codes less its zero point as integers in
// registers (off the multiply-add ports), converted, multiplied by A's even and odd
// elements, the block's sum scaled in a vector accumulator; one horizontal sum.
HWY_INLINE float DotQ4OneColumn(const uint8_t* codes, size_t blocks, size_t bytes,
                                const float* a_even, const float* a_odd, const float* scale,
                                const uint8_t* zps) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const size_t lanes = hn::Lanes(df);
  const auto low = hn::Set(di, 15);
  auto total = hn::Zero(df);
  float tail = 0.0f;
  for (size_t b = 0; b < blocks; ++b) {
    const uint8_t* p = codes + b * bytes;
    const float* e = a_even + b * bytes;
    const float* o = a_odd + b * bytes;
    const int32_t zp = zps == nullptr ? 8 : (zps[b / 2] >> (4 * (b % 2))) & 15;
    const auto vz = hn::Set(di, zp);
    auto acc0 = hn::Zero(df);
    auto acc1 = hn::Zero(df);
    size_t i = 0;
    for (; i + lanes <= bytes; i += lanes) {
      const auto v = hn::PromoteTo(di, hn::LoadU(d8, p + i));
      acc0 =
          hn::MulAdd(hn::ConvertTo(df, hn::Sub(hn::And(v, low), vz)), hn::LoadU(df, e + i), acc0);
      acc1 = hn::MulAdd(hn::ConvertTo(df, hn::Sub(hn::ShiftRight<4>(v), vz)), hn::LoadU(df, o + i),
                        acc1);
    }
    total = hn::MulAdd(hn::Add(acc0, acc1), hn::Set(df, scale[b]), total);
    float rest = 0.0f;
    for (; i < bytes; ++i) {
      rest +=
          static_cast<float>((p[i] & 15) - zp) * e[i] + static_cast<float>((p[i] >> 4) - zp) * o[i];
    }
    tail += rest * scale[b];
  }
  return hn::GetLane(hn::SumOfLanes(df, total)) + tail;
}

void DotQ4ColumnsImpl(const uint8_t* codes, size_t columns, size_t blocks, size_t bytes,
                      const float* a_even, const float* a_odd, const float* scales,
                      const uint8_t* zps, size_t zp_row, float* out) {
  for (size_t c = 0; c < columns; ++c) {
    out[c] = DotQ4OneColumn(codes + c * blocks * bytes, blocks, bytes, a_even, a_odd,
                            scales + c * blocks, zps == nullptr ? nullptr : zps + c * zp_row);
  }
}

void DequantQ4BlocksImpl(const uint8_t* codes, size_t blocks, size_t bytes, const float* scale,
                         const float* zero_point, float* out) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const size_t lanes = hn::Lanes(df);
  const auto low = hn::Set(di, 15);
  for (size_t b = 0; b < blocks; ++b) {
    const uint8_t* p = codes + b * bytes;
    float* lo = out + b * 2 * bytes;
    float* hi = lo + bytes;
    const float s = scale[b], z = zero_point[b];
    const auto vs = hn::Set(df, s);
    const auto vz = hn::Set(df, z);
    size_t i = 0;
    for (; i + lanes <= bytes; i += lanes) {
      const auto v = hn::PromoteTo(di, hn::LoadU(d8, p + i));
      hn::StoreU(hn::Mul(hn::Sub(hn::ConvertTo(df, hn::And(v, low)), vz), vs), df, lo + i);
      hn::StoreU(hn::Mul(hn::Sub(hn::ConvertTo(df, hn::ShiftRight<4>(v)), vz), vs), df, hi + i);
    }
    for (; i < bytes; ++i) {
      lo[i] = (static_cast<float>(p[i] & 15) - z) * s;
      hi[i] = (static_cast<float>(p[i] >> 4) - z) * s;
    }
  }
}

void QuantizeRowQ8Impl(const float* a, int64_t k, int64_t block, int16_t* q, float* scales,
                       float* sums) {
  const int64_t blocks = (k + block - 1) / block, half = block / 2;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t k0 = b * block, count = std::min(block, k - k0);
    float amax = 0.0f;
    for (int64_t i = 0; i < count; ++i)
      amax = std::max(amax, std::fabs(a[k0 + i]));
    scales[b] = amax / 127.0f;
    const float inverse = amax != 0.0f ? 127.0f / amax : 0.0f;
    int16_t* even = q + b * block;
    int16_t* odd = even + half;
    int32_t sum = 0;
    for (int64_t i = 0; i < block; ++i) {
      // (|a * inverse| <= 127 up to rounding: the clamp only guards the cast)
      const float v = i < count ? std::nearbyint(a[k0 + i] * inverse) : 0.0f;
      const auto c = static_cast<int16_t>(std::min(127.0f, std::max(-127.0f, v)));
      (i % 2 == 0 ? even : odd)[i / 2] = c;
      sum += c;
    }
    sums[b] = scales[b] * static_cast<float>(sum);
  }
}

// Block b's integer dot with R rows of codes, whole vectors of its bytes (the rest, from
// the returned index, left to the caller), added to acc[r].
// (kBytes: the block's bytes when known at compile time, else 0: the loop unrolls.)
template <int R, int64_t kBytes, class D16, class D32>
HWY_INLINE int64_t BlockDots(D16 d16, D32 d32, const uint8_t* p, int64_t runtime_bytes,
                             const int16_t* const* q, int64_t q0, hn::Vec<D32>* acc) {
  const int64_t bytes = kBytes > 0 ? kBytes : runtime_bytes;
  const hn::Rebind<uint8_t, D16> d8;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d16));
  const auto low = hn::Set(d16, 15);
  hn::Vec<D32> acc1[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
    acc1[r] = hn::Zero(d32);
  int64_t i = 0;
  for (; i + lanes <= bytes; i += lanes) {
    const auto v = hn::PromoteTo(d16, hn::LoadU(d8, p + i));
    const auto lo = hn::And(v, low), hi = hn::ShiftRight<4>(v);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      acc[r] =
          hn::ReorderWidenMulAccumulate(d32, lo, hn::LoadU(d16, q[r] + q0 + i), acc[r], acc1[r]);
      acc[r] = hn::ReorderWidenMulAccumulate(d32, hi, hn::LoadU(d16, q[r] + q0 + bytes + i), acc[r],
                                             acc1[r]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
    acc[r] = hn::Add(acc[r], acc1[r]);
  return i;
}

// R rows at once, R a constant: the accumulators stay in registers. Blocks in pairs (two
// accumulators hide the multiply-add's latency); the zero points' term is one vector dot
// over the blocks at the end.
template <int R, int64_t kBytes>
void DotQ4Q8Rows(const uint8_t* codes, int64_t blocks, int64_t runtime_bytes,
                 const int16_t* const* q, const float* const* a_scales, const float* const* a_sums,
                 const float* w_scales, const float* zs, float* out) {
  const hn::CappedTag<int16_t, 16> d16;
  const hn::Repartition<int32_t, decltype(d16)> d32;
  const hn::Rebind<float, decltype(d32)> df;
  const hn::ScalableTag<float> dfull;
  const int64_t bytes = kBytes > 0 ? kBytes : runtime_bytes;  // (16 divides into whole vectors)
  hn::Vec<decltype(df)> t0[R], t1[R];
  float scalar[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    t0[r] = t1[r] = hn::Zero(df);
    scalar[r] = 0.0f;
  }
  // the codes past a block's last whole vector, if any (blocks of 16 on wide vectors)
  [[maybe_unused]] auto rest = [&](int64_t b, int64_t from) {
    const uint8_t* p = codes + b * bytes;
    for (int r = 0; r < R; ++r) {
      int32_t sum = 0;
      for (int64_t j = from; j < bytes; ++j)
        sum +=
            (p[j] & 15) * q[r][b * 2 * bytes + j] + (p[j] >> 4) * q[r][b * 2 * bytes + bytes + j];
      scalar[r] += static_cast<float>(sum) * (a_scales[r][b] * w_scales[b]);
    }
  };
  int64_t b = 0;
  for (; b + 2 <= blocks; b += 2) {
    hn::Vec<decltype(d32)> e[R], o[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      e[r] = o[r] = hn::Zero(d32);
    [[maybe_unused]] const int64_t ie =
        BlockDots<R, kBytes>(d16, d32, codes + b * bytes, bytes, q, b * 2 * bytes, e);
    [[maybe_unused]] const int64_t io =
        BlockDots<R, kBytes>(d16, d32, codes + (b + 1) * bytes, bytes, q, (b + 1) * 2 * bytes, o);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      // each block's integer dot, whole, then scaled (as ORT's kernels do per block)
      t0[r] = hn::MulAdd(hn::ConvertTo(df, e[r]), hn::Set(df, a_scales[r][b] * w_scales[b]), t0[r]);
      t1[r] = hn::MulAdd(hn::ConvertTo(df, o[r]), hn::Set(df, a_scales[r][b + 1] * w_scales[b + 1]),
                         t1[r]);
    }
    if constexpr (kBytes == 0) {
      if (ie < bytes) rest(b, ie);
      if (io < bytes) rest(b + 1, io);
    }
  }
  if (b < blocks) {
    hn::Vec<decltype(d32)> e[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      e[r] = hn::Zero(d32);
    [[maybe_unused]] const int64_t ie =
        BlockDots<R, kBytes>(d16, d32, codes + b * bytes, bytes, q, b * 2 * bytes, e);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      t0[r] = hn::MulAdd(hn::ConvertTo(df, e[r]), hn::Set(df, a_scales[r][b] * w_scales[b]), t0[r]);
    }
    if constexpr (kBytes == 0) {
      if (ie < bytes) rest(b, ie);
    }
  }
  // sum_b (w_scale[b] * zp[b]) * (a_scale[b] * sum of block b's codes)
  const auto full = static_cast<int64_t>(hn::Lanes(dfull));
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    auto corr = hn::Zero(dfull);
    int64_t k = 0;
    for (; k + full <= blocks; k += full) {
      corr = hn::MulAdd(hn::LoadU(dfull, zs + k), hn::LoadU(dfull, a_sums[r] + k), corr);
    }
    float c = hn::GetLane(hn::SumOfLanes(dfull, corr));
    for (; k < blocks; ++k)
      c += zs[k] * a_sums[r][k];
    out[r] = hn::GetLane(hn::SumOfLanes(df, hn::Add(t0[r], t1[r]))) + scalar[r] - c;
  }
}

void DotQ4Q8ColumnImpl(const uint8_t* codes, int64_t blocks, int64_t bytes, int rows,
                       const int16_t* const* q, const float* const* a_scales,
                       const float* const* sums, const float* w_scales, const float* zs,
                       float* out) {
  // (blocks of 32 codes, the usual, with the byte count a constant)
  const bool b16 = bytes == 16;
  switch (rows) {
    case 1:
      return (b16 ? DotQ4Q8Rows<1, 16> : DotQ4Q8Rows<1, 0>)(codes, blocks, bytes, q, a_scales, sums,
                                                            w_scales, zs, out);
    case 2:
      return (b16 ? DotQ4Q8Rows<2, 16> : DotQ4Q8Rows<2, 0>)(codes, blocks, bytes, q, a_scales, sums,
                                                            w_scales, zs, out);
    case 3:
      return (b16 ? DotQ4Q8Rows<3, 16> : DotQ4Q8Rows<3, 0>)(codes, blocks, bytes, q, a_scales, sums,
                                                            w_scales, zs, out);
    default:
      return (b16 ? DotQ4Q8Rows<4, 16> : DotQ4Q8Rows<4, 0>)(codes, blocks, bytes, q, a_scales, sums,
                                                            w_scales, zs, out);
  }
}

// 2: the dispatched target has AVX-512, 1: AVX2, 0: neither (or not x86).
int TileTargetImpl() {
#if HWY_ARCH_X86
  if (HWY_TARGET <= HWY_AVX3) return 2;
  if (HWY_TARGET <= HWY_AVX2) return 1;
#endif
  return 0;
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(DotQ4ColumnsImpl);
HWY_EXPORT(DequantQ4BlocksImpl);
HWY_EXPORT(QuantizeRowQ8Impl);
HWY_EXPORT(DotQ4Q8ColumnImpl);
HWY_EXPORT(TileTargetImpl);

int Q4Q8TileTarget() {
  return HWY_DYNAMIC_DISPATCH(TileTargetImpl)();
}

void DequantQ4Blocks(const uint8_t* codes, size_t blocks, size_t bytes, const float* scale,
                     const float* zero_point, float* out) {
  HWY_DYNAMIC_DISPATCH(DequantQ4BlocksImpl)(codes, blocks, bytes, scale, zero_point, out);
}

void DotQ4Columns(const uint8_t* codes, size_t columns, size_t blocks, size_t bytes,
                  const float* a_even, const float* a_odd, const float* scales, const uint8_t* zps,
                  size_t zp_row, float* out) {
  HWY_DYNAMIC_DISPATCH(DotQ4ColumnsImpl)
  (codes, columns, blocks, bytes, a_even, a_odd, scales, zps, zp_row, out);
}

void QuantizeRowQ8(const float* a, int64_t k, int64_t block, int16_t* q, float* scales,
                   float* sums) {
  HWY_DYNAMIC_DISPATCH(QuantizeRowQ8Impl)(a, k, block, q, scales, sums);
}

void DotQ4Q8Column(const uint8_t* codes, int64_t blocks, int64_t bytes, int rows,
                   const int16_t* const* q, const float* const* a_scales, const float* const* sums,
                   const float* w_scales, const float* zs, float* out) {
  HWY_DYNAMIC_DISPATCH(DotQ4Q8ColumnImpl)
  (codes, blocks, bytes, rows, q, a_scales, sums, w_scales, zs, out);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
