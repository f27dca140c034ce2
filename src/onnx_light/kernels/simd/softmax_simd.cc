#include "simd/softmax_simd.h"

#include <cmath>
#include <cstring>
#include <limits>

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/softmax_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include "simd/exp-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The row's maximum, NaN passed over (-inf for a row of NaN).
float RowMax(const float* x, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  auto m = hn::Set(d, -std::numeric_limits<float>::infinity());
  size_t i = 0;
  for (; i + l <= n; i += l) {
    const auto v = hn::LoadU(d, x + i);
    m = hn::IfThenElse(hn::Gt(v, m), v, m);
  }
  float best = hn::GetLane(hn::MaxOfLanes(d, m));
  for (; i < n; ++i)
    best = x[i] > best ? x[i] : best;
  return best;
}

// y = exp(x - shift) (stored when `store`), returning the sum. The tail runs the same
// vector code on a buffer padded with -inf (whose exp is 0).
template <bool kStore>
float ExpShiftSum(const float* x, float* y, size_t n, float shift) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  const auto sh = hn::Set(d, shift);
  auto sum = hn::Zero(d);
  size_t i = 0;
  for (; i + l <= n; i += l) {
    const auto e = ExpNonPositive(d, hn::Sub(hn::LoadU(d, x + i), sh));
    sum = hn::Add(sum, e);
    if (kStore) hn::StoreU(e, d, y + i);
  }
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)];
    for (size_t j = 0; j < l; ++j)
      buf[j] = i + j < n ? x[i + j] : -std::numeric_limits<float>::infinity();
    const auto e = ExpNonPositive(d, hn::Sub(hn::Load(d, buf), sh));
    sum = hn::Add(sum, e);
    hn::Store(e, d, buf);
    if (kStore) std::memcpy(y + i, buf, (n - i) * sizeof(float));
  }
  return hn::GetLane(hn::SumOfLanes(d, sum));
}

// y = x * scale + offset (offset 0: a multiply), over the row.
void Affine(const float* x, float* y, size_t n, float scale, float offset, bool multiply) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  const auto s = hn::Set(d, scale), o = hn::Set(d, offset);
  size_t i = 0;
  for (; i + l <= n; i += l) {
    const auto v = hn::LoadU(d, x + i);
    hn::StoreU(multiply ? hn::Mul(v, s) : hn::Add(v, o), d, y + i);
  }
  for (; i < n; ++i)
    y[i] = multiply ? x[i] * scale : x[i] + offset;
}

void SoftmaxRowF32Impl(const float* x, float* y, size_t n) {
  const float m = RowMax(x, n);
  const float sum = ExpShiftSum<true>(x, y, n, m);
  Affine(y, y, n, 1.0f / sum, 0.0f, true);
}

void LogSoftmaxRowF32Impl(const float* x, float* y, size_t n) {
  const float m = RowMax(x, n);
  const float sum = ExpShiftSum<false>(x, y, n, m);
  // x - (max + log(sum)) would round the two into one; (x - max) - log(sum) as the
  // scalar path takes it.
  const float log_sum = std::log(sum);
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  const auto mv = hn::Set(d, m), lv = hn::Set(d, log_sum);
  size_t i = 0;
  for (; i + l <= n; i += l)
    hn::StoreU(hn::Sub(hn::Sub(hn::LoadU(d, x + i), mv), lv), d, y + i);
  for (; i < n; ++i)
    y[i] = (x[i] - m) - log_sum;
}

template <bool kAnywhere>
void ExpLoop(const float* x, float* y, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  auto op = [&](auto v) { return kAnywhere ? ExpAnywhere(d, v) : ExpNonPositive(d, v); };
  size_t i = 0;
  for (; i + l <= n; i += l)
    hn::StoreU(op(hn::LoadU(d, x + i)), d, y + i);
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
    std::memcpy(buf, x + i, (n - i) * sizeof(float));
    hn::Store(op(hn::Load(d, buf)), d, buf);
    std::memcpy(y + i, buf, (n - i) * sizeof(float));
  }
}

void ExpNonPositiveF32Impl(const float* x, float* y, size_t n) {
  ExpLoop<false>(x, y, n);
}

void ExpAnywhereF32Impl(const float* x, float* y, size_t n) {
  ExpLoop<true>(x, y, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(SoftmaxRowF32Impl);
HWY_EXPORT(LogSoftmaxRowF32Impl);
HWY_EXPORT(ExpNonPositiveF32Impl);
HWY_EXPORT(ExpAnywhereF32Impl);

void SoftmaxRowF32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(SoftmaxRowF32Impl)(x, y, n);
}

void LogSoftmaxRowF32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(LogSoftmaxRowF32Impl)(x, y, n);
}

void ExpNonPositiveF32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(ExpNonPositiveF32Impl)(x, y, n);
}

void ExpAnywhereF32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(ExpAnywhereF32Impl)(x, y, n);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
