#include "simd/nbits_simd.h"

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

float DotQ4ColumnImpl(const uint8_t* codes, size_t blocks, size_t bytes, const float* a_even,
                      const float* a_odd, const float* scale) {
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
    auto acc0 = hn::Zero(df);
    auto acc1 = hn::Zero(df);
    size_t i = 0;
    for (; i + lanes <= bytes; i += lanes) {
      const auto v = hn::PromoteTo(di, hn::LoadU(d8, p + i));
      acc0 = hn::MulAdd(hn::ConvertTo(df, hn::And(v, low)), hn::LoadU(df, e + i), acc0);
      acc1 = hn::MulAdd(hn::ConvertTo(df, hn::ShiftRight<4>(v)), hn::LoadU(df, o + i), acc1);
    }
    total = hn::MulAdd(hn::Add(acc0, acc1), hn::Set(df, scale[b]), total);
    float rest = 0.0f;
    for (; i < bytes; ++i) {
      rest += static_cast<float>(p[i] & 15) * e[i] + static_cast<float>(p[i] >> 4) * o[i];
    }
    tail += rest * scale[b];
  }
  return hn::GetLane(hn::SumOfLanes(df, total)) + tail;
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

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(DotQ4ColumnImpl);
HWY_EXPORT(DequantQ4BlocksImpl);

void DequantQ4Blocks(const uint8_t* codes, size_t blocks, size_t bytes, const float* scale,
                     const float* zero_point, float* out) {
  HWY_DYNAMIC_DISPATCH(DequantQ4BlocksImpl)(codes, blocks, bytes, scale, zero_point, out);
}

float DotQ4Column(const uint8_t* codes, size_t blocks, size_t bytes, const float* a_even,
                  const float* a_odd, const float* scale) {
  return HWY_DYNAMIC_DISPATCH(DotQ4ColumnImpl)(codes, blocks, bytes, a_even, a_odd, scale);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
