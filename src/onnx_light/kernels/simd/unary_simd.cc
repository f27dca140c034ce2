#include "simd/unary_simd.h"

#include <cmath>
#include <limits>

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/unary_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
#include "simd/exp-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The vector form of op at v (a, b its parameters as vectors).
template <UnaryOpF32 kOp, class D, class V>
HWY_INLINE V Op(D d, V v, V a, V b) {
  const V zero = hn::Zero(d), one = hn::Set(d, 1.0f);
  // Exp/Expm1 are valid on [-FLT_MAX, 104]: arguments that only matter below 0 are clamped
  // to [-100, 0] (exp(-100) is 0 to float's precision next to 1), a NaN restored after.
  const auto neg_part = [&](V t) { return hn::Max(hn::Min(t, zero), hn::Set(d, -100.0f)); };
  const auto keep_nan = [&](V r) { return hn::IfThenElse(hn::IsNaN(v), v, r); };
  if constexpr (kOp == UnaryOpF32::kSqrt) return hn::Sqrt(v);
  if constexpr (kOp == UnaryOpF32::kAbs) return hn::Abs(v);
  if constexpr (kOp == UnaryOpF32::kNeg) return hn::Neg(v);
  if constexpr (kOp == UnaryOpF32::kReciprocal) return hn::Div(one, v);
  // The rounding ops keep the input's sign (-0.3 rounds to -0): the emulation on targets
  // without a rounding instruction (SSSE3) loses it.
  if constexpr (kOp == UnaryOpF32::kFloor) return hn::CopySign(hn::Floor(v), v);
  if constexpr (kOp == UnaryOpF32::kCeil) return hn::CopySign(hn::Ceil(v), v);
  if constexpr (kOp == UnaryOpF32::kRound) return hn::CopySign(hn::Round(v), v);
  if constexpr (kOp == UnaryOpF32::kElu) {
    const V e = hn::Mul(a, hn::Expm1(d, neg_part(v)));
    return keep_nan(hn::IfThenElse(hn::Ge(v, zero), v, e));
  }
  if constexpr (kOp == UnaryOpF32::kSelu) {  // alpha * e^x - alpha as alpha * expm1(x)
    const V e = hn::Mul(a, hn::Expm1(d, neg_part(v)));
    return keep_nan(hn::Mul(b, hn::IfThenElse(hn::Gt(v, zero), v, e)));
  }
  if constexpr (kOp == UnaryOpF32::kCelu) {
    const V e = hn::Mul(a, hn::Expm1(d, neg_part(hn::Div(v, a))));
    return keep_nan(hn::Add(hn::Max(v, zero), hn::Min(e, zero)));
  }
  if constexpr (kOp == UnaryOpF32::kSoftplus) {  // max(x, 0) + log1p(exp(-|x|))
    const V t = hn::Log1p(d, hn::Exp(d, hn::Max(hn::Neg(hn::Abs(v)), hn::Set(d, -100.0f))));
    return keep_nan(hn::Add(hn::Max(v, zero), t));
  }
  if constexpr (kOp == UnaryOpF32::kSoftsign) return hn::Div(v, hn::Add(one, hn::Abs(v)));
  if constexpr (kOp == UnaryOpF32::kThresholdedRelu) return hn::IfThenElseZero(hn::Gt(v, a), v);
  if constexpr (kOp == UnaryOpF32::kShrink) {
    const V lo = hn::IfThenElseZero(hn::Lt(v, hn::Neg(b)), hn::Add(v, a));
    return hn::IfThenElse(hn::Gt(v, b), hn::Sub(v, a), lo);
  }
  if constexpr (kOp == UnaryOpF32::kSign) {
    const V neg = hn::IfThenElse(hn::Lt(v, zero), hn::Neg(one), v);
    return hn::IfThenElse(hn::Gt(v, zero), one, neg);
  }
  if constexpr (kOp == UnaryOpF32::kAsin) return hn::Asin(d, v);
  if constexpr (kOp == UnaryOpF32::kAcos) return hn::Acos(d, v);
  if constexpr (kOp == UnaryOpF32::kAtan) return hn::Atan(d, v);
  if constexpr (kOp == UnaryOpF32::kSin) return hn::Sin(d, v);
  if constexpr (kOp == UnaryOpF32::kCos) return hn::Cos(d, v);
  if constexpr (kOp == UnaryOpF32::kMish) {
    // softplus as max(x, 0) + log1p(exp(-|x|)) with the whole-range exp (exp-inl.h: 0 below
    // -104, where a clamp to Highway Exp's range left x * 4e-44); -inf gives -inf * 0,
    // NaN, as the formula does
    const V sp = hn::Add(hn::Max(v, zero), hn::Log1p(d, ExpAnywhere(d, hn::Neg(hn::Abs(v)))));
    return keep_nan(hn::Mul(v, hn::Tanh(d, sp)));
  }
  return v;
}

// The ops whose Highway form holds on part of the line only: lanes outside it (and inf,
// NaN) take the C library's. Sin and Cos are valid for |x| <= 39000, Asin and Acos on
// [-1, 1] (NaN beyond), Atan on finite x.
template <UnaryOpF32 kOp>
constexpr float kValidUpTo = kOp == UnaryOpF32::kSin || kOp == UnaryOpF32::kCos ? 39000.0f
                             : kOp == UnaryOpF32::kAsin || kOp == UnaryOpF32::kAcos
                                 ? 1.0f
                                 : std::numeric_limits<float>::max();

template <UnaryOpF32 kOp>
float Scalar(float x) {
  if constexpr (kOp == UnaryOpF32::kSin) return std::sin(x);
  if constexpr (kOp == UnaryOpF32::kCos) return std::cos(x);
  if constexpr (kOp == UnaryOpF32::kAsin) return std::asin(x);
  if constexpr (kOp == UnaryOpF32::kAcos) return std::acos(x);
  return std::atan(x);
}

template <UnaryOpF32 kOp, class D, class V>
HWY_INLINE V Fixup(D d, V v, V r) {
  if constexpr (kOp == UnaryOpF32::kSin || kOp == UnaryOpF32::kCos || kOp == UnaryOpF32::kAsin ||
                kOp == UnaryOpF32::kAcos || kOp == UnaryOpF32::kAtan) {
    const auto far = hn::Not(hn::Le(hn::Abs(v), hn::Set(d, kValidUpTo<kOp>)));
    if (HWY_UNLIKELY(!hn::AllFalse(d, far))) {
      HWY_ALIGN float xs[hn::MaxLanes(d)], rs[hn::MaxLanes(d)];
      hn::Store(v, d, xs);
      hn::Store(r, d, rs);
      for (size_t j = 0; j < hn::Lanes(d); ++j) {
        if (!(std::fabs(xs[j]) <= kValidUpTo<kOp>)) rs[j] = Scalar<kOp>(xs[j]);
      }
      return hn::Load(d, rs);
    }
  }
  return r;
}

template <UnaryOpF32 kOp>
void Loop(const float* x, float* y, size_t n, float pa, float pb) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  const auto a = hn::Set(d, pa), b = hn::Set(d, pb);
  size_t i = 0;
  for (; i + l <= n; i += l) {
    const auto v = hn::LoadU(d, x + i);
    hn::StoreU(Fixup<kOp>(d, v, Op<kOp>(d, v, a, b)), d, y + i);
  }
  if (i < n) {  // the tail through a padded vector
    HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
    for (size_t j = i; j < n; ++j)
      buf[j - i] = x[j];
    const auto v = hn::Load(d, buf);
    hn::Store(Fixup<kOp>(d, v, Op<kOp>(d, v, a, b)), d, buf);
    for (size_t j = i; j < n; ++j)
      y[j] = buf[j - i];
  }
}

void UnaryF32Impl(int op, const float* x, float* y, size_t n, float a, float b) {
  switch (static_cast<UnaryOpF32>(op)) {
#define ONNX_LIGHT_UNARY_CASE(k) \
  case UnaryOpF32::k:            \
    return Loop<UnaryOpF32::k>(x, y, n, a, b);
    ONNX_LIGHT_UNARY_CASE(kSqrt)
    ONNX_LIGHT_UNARY_CASE(kAbs)
    ONNX_LIGHT_UNARY_CASE(kNeg)
    ONNX_LIGHT_UNARY_CASE(kReciprocal)
    ONNX_LIGHT_UNARY_CASE(kFloor)
    ONNX_LIGHT_UNARY_CASE(kCeil)
    ONNX_LIGHT_UNARY_CASE(kRound)
    ONNX_LIGHT_UNARY_CASE(kElu)
    ONNX_LIGHT_UNARY_CASE(kSelu)
    ONNX_LIGHT_UNARY_CASE(kCelu)
    ONNX_LIGHT_UNARY_CASE(kSoftplus)
    ONNX_LIGHT_UNARY_CASE(kSoftsign)
    ONNX_LIGHT_UNARY_CASE(kThresholdedRelu)
    ONNX_LIGHT_UNARY_CASE(kShrink)
    ONNX_LIGHT_UNARY_CASE(kSign)
    ONNX_LIGHT_UNARY_CASE(kSin)
    ONNX_LIGHT_UNARY_CASE(kCos)
    ONNX_LIGHT_UNARY_CASE(kMish)
    ONNX_LIGHT_UNARY_CASE(kAsin)
    ONNX_LIGHT_UNARY_CASE(kAcos)
    ONNX_LIGHT_UNARY_CASE(kAtan)
#undef ONNX_LIGHT_UNARY_CASE
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(UnaryF32Impl);

void UnaryF32(UnaryOpF32 op, const float* x, float* y, size_t n, float a, float b) {
  HWY_DYNAMIC_DISPATCH(UnaryF32Impl)(static_cast<int>(op), x, y, n, a, b);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
