#include "simd/resize_simd.h"

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/resize_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Element x of a row, in scalar code with the vector code's roundings (this file is
// compiled without contraction).
inline float RowElement(const float* const* rows, int nrows, const int32_t* x1, const int32_t* x2,
                        const float* dx1, const float* dx2, const float* dy, const float* dz,
                        size_t x) {
  float sum = 0;
  bool first = true;
  for (int r = 0; r < nrows; ++r) {
    const float wy = dy[(r & 1) == 0 ? 1 : 0];  // y1 rows weigh by dy2, y2 rows by dy1
    float wa = dx2[x] * wy, wb = dx1[x] * wy;
    if (dz != nullptr) {
      const float wz = dz[r < 2 ? 1 : 0];
      wa = wa * wz;
      wb = wb * wz;
    }
    const float ta = wa * rows[r][x1[x]], tb = wb * rows[r][x2[x]];
    sum = first ? ta + tb : (sum + ta) + tb;
    first = false;
  }
  return sum;
}

void LinearRowF32Impl(const float* const* rows, const int32_t* x1, const int32_t* x2,
                      const float* dx1, const float* dx2, const float* dy, const float* dz,
                      float* y, size_t n) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t l = hn::Lanes(d);
  const int nrows = dz == nullptr ? 2 : 4;
  size_t x = 0;
  for (; x + l <= n; x += l) {
    const auto i1 = hn::LoadU(di, x1 + x), i2 = hn::LoadU(di, x2 + x);
    const auto d1 = hn::LoadU(d, dx1 + x), d2 = hn::LoadU(d, dx2 + x);
    auto sum = hn::Zero(d);
    for (int r = 0; r < nrows; ++r) {
      const auto wy = hn::Set(d, dy[(r & 1) == 0 ? 1 : 0]);
      auto wa = hn::Mul(d2, wy), wb = hn::Mul(d1, wy);
      if (dz != nullptr) {
        const auto wz = hn::Set(d, dz[r < 2 ? 1 : 0]);
        wa = hn::Mul(wa, wz);
        wb = hn::Mul(wb, wz);
      }
      const auto ta = hn::Mul(wa, hn::GatherIndex(d, rows[r], i1));
      const auto tb = hn::Mul(wb, hn::GatherIndex(d, rows[r], i2));
      sum = r == 0 ? hn::Add(ta, tb) : hn::Add(hn::Add(sum, ta), tb);
    }
    hn::StoreU(sum, d, y + x);
  }
  for (; x < n; ++x)
    y[x] = RowElement(rows, nrows, x1, x2, dx1, dx2, dy, dz, x);
}

void LinearChannelsF32Impl(const float* const* src, const float* w, int terms, float* y, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  size_t c = 0;
  for (; c + l <= n; c += l) {
    auto sum = hn::Mul(hn::Set(d, w[0]), hn::LoadU(d, src[0] + c));
    for (int t = 1; t < terms; ++t)
      sum = hn::Add(sum, hn::Mul(hn::Set(d, w[t]), hn::LoadU(d, src[t] + c)));
    hn::StoreU(sum, d, y + c);
  }
  for (; c < n; ++c) {
    float sum = w[0] * src[0][c];
    for (int t = 1; t < terms; ++t)
      sum = sum + w[t] * src[t][c];
    y[c] = sum;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(LinearRowF32Impl);
HWY_EXPORT(LinearChannelsF32Impl);

void LinearRowF32(const float* const* rows, const int32_t* x1, const int32_t* x2, const float* dx1,
                  const float* dx2, const float* dy, const float* dz, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(LinearRowF32Impl)(rows, x1, x2, dx1, dx2, dy, dz, y, n);
}

void LinearChannelsF32(const float* const* src, const float* w, int terms, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(LinearChannelsF32Impl)(src, w, terms, y, n);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
