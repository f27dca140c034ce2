// Float exp in vector code for every Highway target, included by the kernels that need it
// after hwy/highway.h (a per-target header: Highway's include-guard toggle). The Cephes
// single-precision method: x = n ln2 + r with |r| <= ln2 / 2 (ln2 in two parts, the first
// exact in 9 bits so that n * it is exact), exp(r) = 1 + r + r^2 P(r) with a degree-5 P,
// times 2^n. n is rounded to nearest by adding 1.5 * 2^23 to x / ln2, whose low mantissa
// bits are then n. Within 2 ULP (tests/cpp/kernels/softmax_simd_test.cc sweeps both).

// clang-format off
#if defined(ONNX_LIGHT_SIMD_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ONNX_LIGHT_SIMD_EXP_INL_H_
#undef ONNX_LIGHT_SIMD_EXP_INL_H_
#else
#define ONNX_LIGHT_SIMD_EXP_INL_H_
#endif
// clang-format on

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace exp_detail {
namespace hn = hwy::HWY_NAMESPACE;

// exp(r) for |r| <= ln2 / 2 and n (as a float) from t, with j = t / ln2 + magic.
template <class D, class V>
HWY_INLINE V Reduced(D d, V t, V n) {
  auto r = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), t);
  r = hn::NegMulAdd(n, hn::Set(d, -2.12194440e-4f), r);
  auto p = hn::Set(d, 1.9875691500e-4f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.3981999507e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 8.3334519073e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.1665795894e-2f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.6666665459e-1f));
  p = hn::MulAdd(p, r, hn::Set(d, 5.0000001201e-1f));
  return hn::MulAdd(hn::Mul(p, r), r, hn::Add(r, hn::Set(d, 1.0f)));
}

#if HWY_TARGET <= HWY_AVX3
// e * 2^floor(n) in one instruction (vscalefps, AVX-512 with VL), overflowing to +inf and
// rounding subnormal results once (XNNPACK's AVX-512 exp kernels use it the same way).
template <size_t N>
HWY_INLINE hn::Vec128<float, N> Scale2(hn::Vec128<float, N> e, hn::Vec128<float, N> n) {
  return hn::Vec128<float, N>{_mm_scalef_ps(e.raw, n.raw)};
}
HWY_INLINE hn::Vec256<float> Scale2(hn::Vec256<float> e, hn::Vec256<float> n) {
  return hn::Vec256<float>{_mm256_scalef_ps(e.raw, n.raw)};
}
HWY_INLINE hn::Vec512<float> Scale2(hn::Vec512<float> e, hn::Vec512<float> n) {
  return hn::Vec512<float>{_mm512_scalef_ps(e.raw, n.raw)};
}
#endif

}  // namespace exp_detail

// exp(t) for t <= 0 (the shifted logits of a softmax): 2^n built straight in the exponent
// field (the magic constant carries the bias 127); below -87.34 (exp under FLT_MIN) and
// for -inf the result is 0; a NaN stays NaN through the arithmetic.
template <class D, class V>
HWY_INLINE V ExpNonPositive(D d, V t) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::RebindToSigned<D> di;
  const auto magic = hn::Set(d, 12583039.0f);  // 1.5 * 2^23 + 127
  const auto j = hn::MulAdd(t, hn::Set(d, 1.44269504088896341f), magic);
  const auto e = exp_detail::Reduced(d, t, hn::Sub(j, magic));
  const auto scale = hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(di, j)));
  const auto cut = hn::Lt(t, hn::Set(d, -87.33654f));
  return hn::IfThenZeroElse(cut, hn::Mul(e, scale));
}

// exp(x) over the whole float range: above ln(FLT_MAX) +inf, subnormal results down to
// x = -103.97 rounded once, below it (and -inf) 0, NaN kept. On AVX-512 2^n is applied by
// vscalefps, which does all of that itself (x is clamped to [-104, 89] first with the NaN
// passed through: x86's max and min return their second operand when one is NaN); 13
// instructions a vector instead of 27. Elsewhere a vector whose lanes all lie well inside
// the range takes 2^n as one float; the others 2^n as two factors 2^(n/2) and 2^(n - n/2),
// built in the exponent field, so that subnormal results round once and x up to
// ln(FLT_MAX) stays finite, and the ends and NaN are blended in.
template <class D, class V>
HWY_INLINE V ExpAnywhere(D d, V x) {
  namespace hn = hwy::HWY_NAMESPACE;
  const auto magic = hn::Set(d, 12582912.0f);  // 1.5 * 2^23
#if HWY_TARGET <= HWY_AVX3
  const auto t = hn::Min(hn::Set(d, 89.0f), hn::Max(hn::Set(d, -104.0f), x));
  const auto j = hn::MulAdd(t, hn::Set(d, 1.44269504088896341f), magic);
  const auto n = hn::Sub(j, magic);
  return exp_detail::Scale2(exp_detail::Reduced(d, t, n), n);
#else
  const hn::RebindToSigned<D> di;
  const auto bias = hn::Set(di, 127);
  // Every lane in [-87.3, 88.3] (NaN is not): n in [-126, 127], so 2^n is one float and one
  // factor gives the same value as the two below (a power-of-two scaling is exact, and the
  // one rounding of a subnormal result happens in the same multiply); 14 instructions a
  // vector instead of 27 (Exp at AVX2 ran 2.5x ORT's time).
  const auto inside = hn::And(hn::Ge(x, hn::Set(d, -87.3f)), hn::Le(x, hn::Set(d, 88.3f)));
  if (hn::AllTrue(d, inside)) {
    const auto jf = hn::MulAdd(x, hn::Set(d, 1.44269504088896341f), magic);
    const auto ef = exp_detail::Reduced(d, x, hn::Sub(jf, magic));
    const auto nf = hn::Sub(hn::BitCast(di, jf), hn::BitCast(di, magic));
    return hn::Mul(ef, hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(nf, bias))));
  }
  const auto t = hn::Min(hn::Max(x, hn::Set(d, -104.0f)), hn::Set(d, 89.0f));
  const auto j = hn::MulAdd(t, hn::Set(d, 1.44269504088896341f), magic);
  const auto e = exp_detail::Reduced(d, t, hn::Sub(j, magic));
  const auto n = hn::Sub(hn::BitCast(di, j), hn::BitCast(di, magic));
  const auto n1 = hn::ShiftRight<1>(n);
  const auto s1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n1, bias)));
  const auto s2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::Sub(n, n1), bias)));
  auto y = hn::Mul(hn::Mul(e, s1), s2);
  y = hn::IfThenElse(hn::Gt(x, hn::Set(d, 88.72283935546875f)),
                     hn::Set(d, std::numeric_limits<float>::infinity()), y);
  y = hn::IfThenZeroElse(hn::Lt(x, hn::Set(d, -103.97208f)), y);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
#endif
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#endif  // include guard
