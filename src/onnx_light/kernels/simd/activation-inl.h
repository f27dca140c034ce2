// The activations of fused epilogues (conv_simd.h's Activation) written once with Highway,
// for every file that compiles per SIMD target (conv_simd.cc, depthwise_simd.cc):
// included after <hwy/highway.h> inside each target's pass, Highway's -inl.h convention.
// clang-format off
#if defined(ONNX_LIGHT_SIMD_ACTIVATION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ONNX_LIGHT_SIMD_ACTIVATION_INL_H_
#undef ONNX_LIGHT_SIMD_ACTIVATION_INL_H_
#else
#define ONNX_LIGHT_SIMD_ACTIVATION_INL_H_
#endif
// clang-format on

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <cstring>
#include <limits>

#include "simd/conv_simd.h"

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// hn::Exp is valid up to 88: exp(-v) is clamped there (sigmoid(-88) is 0 in float
// anyway), and NaN is blended back in by Activate.
template <class D, class V>
HWY_INLINE V ExpNeg(D d, V v) {
  return hn::Exp(d, hn::Min(hn::Neg(v), hn::Set(d, 88.0f)));
}

// erf for float32, within 2.5 ULP of the true value (checked against math.erf over 2.2M
// points, tests/python/kernels/math/test_math_unary.py). Coefficients fitted for this
// project by least squares on Chebyshev nodes (relative error weighted): |x| <= 1,
// x * P(x^2) with P of degree 7; 1 < |x| < 4, 1 - exp(-x^2) * Q(1/|x|) with Q of degree 9
// (Q approximates erfcx = erfc * exp(x^2)); beyond 4, erf rounds to +-1 in float.
template <class D, class V>
HWY_INLINE V ErfNumbers(D d, V v) {
  static constexpr float kP[] = {1.1283791670570977f,     -0.37612638425957257f,
                                 0.11283781839100432f,    -0.026865392124795662f,
                                 0.005220923216704407f,   -0.0008482507747839263f,
                                 0.00011254640810690053f, -9.634991350579436e-06f};
  static constexpr float kQ[] = {
      0.00012575778953242934f, 0.5616814878346243f,  0.02122417237901275f, -0.3789607464222324f,
      0.2390853734909426f,     0.22255830165076568f, -0.5183950055111397f, 0.42458844560720327f,
      -0.17400144132941775f,   0.02967723590946446f};
  const V one = hn::Set(d, 1.0f);
  const V ax = hn::Abs(v);
  const V t = hn::Mul(ax, ax);
  V p = hn::Set(d, kP[7]);
  for (int i = 6; i >= 0; --i)
    p = hn::MulAdd(p, t, hn::Set(d, kP[i]));
  const V u = hn::Div(one, hn::Max(ax, one));
  V q = hn::Set(d, kQ[9]);
  for (int i = 8; i >= 0; --i)
    q = hn::MulAdd(q, u, hn::Set(d, kQ[i]));
  const V e = hn::Exp(d, hn::Neg(hn::Min(t, hn::Set(d, 16.0f))));
  const V tail = hn::NegMulAdd(e, q, one);  // 1 - e * q
  const V r = hn::IfThenElse(hn::Le(ax, one), hn::Mul(ax, p),
                             hn::IfThenElse(hn::Lt(ax, hn::Set(d, 4.0f)), tail, one));
  return hn::CopySign(r, v);
}

// The activation K of v (not NaN-aware; Activate blends NaN back in).
template <ActivationKind K, class D, class V>
HWY_INLINE V ActivateKind(D d, V v, const Activation& act) {
  switch (K) {
    case ActivationKind::kNone:
      return v;
    case ActivationKind::kRelu:
      return hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Zero(d), v);  // NaN stays NaN
    case ActivationKind::kClip:
      return hn::Min(hn::Max(v, hn::Set(d, act.a)), hn::Set(d, act.b));
    case ActivationKind::kLeakyRelu:
      return hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Mul(v, hn::Set(d, act.a)), v);
    case ActivationKind::kSigmoid: {
      const auto e = ExpNeg(d, v);
      return hn::Div(hn::Set(d, 1.0f), hn::Add(hn::Set(d, 1.0f), e));
    }
    case ActivationKind::kHardSigmoid: {
      const auto t = hn::MulAdd(hn::Set(d, act.a), v, hn::Set(d, act.b));
      return hn::Min(hn::Max(t, hn::Zero(d)), hn::Set(d, 1.0f));
    }
    case ActivationKind::kHardSwish: {
      const auto t = hn::MulAdd(hn::Set(d, 1.0f / 6.0f), v, hn::Set(d, 0.5f));
      return hn::Mul(v, hn::Min(hn::Max(t, hn::Zero(d)), hn::Set(d, 1.0f)));
    }
    case ActivationKind::kTanh:
      return hn::Tanh(d, v);
    case ActivationKind::kExp: {
      // hn::Exp is valid on [-FLT_MAX, 88]: above 88, exp(v - 1) * e (overflowing to +inf
      // past ln(FLT_MAX) as it should); -inf gives 0.
      const auto lim = hn::Set(d, 88.0f);
      const auto lo =
          hn::Exp(d, hn::Max(hn::Min(v, lim), hn::Set(d, std::numeric_limits<float>::lowest())));
      const auto hi = hn::Mul(hn::Exp(d, hn::Min(hn::Sub(v, hn::Set(d, 1.0f)), lim)),
                              hn::Set(d, 2.71828182845904523536f));
      const auto r = hn::IfThenElse(hn::Gt(v, lim), hi, lo);
      return hn::IfThenElse(hn::Lt(v, hn::Set(d, std::numeric_limits<float>::lowest())),
                            hn::Zero(d), r);
    }
    case ActivationKind::kSilu: {
      const auto e = ExpNeg(d, v);
      return hn::Div(v, hn::Add(hn::Set(d, 1.0f), e));
    }
    case ActivationKind::kErf:
      return ErfNumbers(d, v);
    case ActivationKind::kGelu: {
      const auto e = ErfNumbers(d, hn::Mul(v, hn::Set(d, 0.70710678118654752f)));
      return hn::Mul(hn::Mul(hn::Set(d, 0.5f), v), hn::Add(hn::Set(d, 1.0f), e));
    }
    case ActivationKind::kGeluTanh: {
      const auto cube = hn::Mul(hn::Mul(v, v), v);
      const auto inner =
          hn::Mul(hn::Set(d, 0.79788456080286536f), hn::MulAdd(hn::Set(d, 0.044715f), cube, v));
      return hn::Mul(hn::Mul(hn::Set(d, 0.5f), v), hn::Add(hn::Set(d, 1.0f), hn::Tanh(d, inner)));
    }
    case ActivationKind::kQuickGelu: {
      const auto e = ExpNeg(d, hn::Mul(v, hn::Set(d, act.a)));
      return hn::Div(v, hn::Add(hn::Set(d, 1.0f), e));
    }
  }
  return v;
}

// clang-format off
#define ONNX_LIGHT_ACTIVATION_KINDS(X)                                                     \
  X(kNone) X(kRelu) X(kClip) X(kLeakyRelu) X(kSigmoid) X(kHardSigmoid) X(kHardSwish)      \
  X(kTanh) X(kExp) X(kSilu) X(kErf) X(kGelu) X(kGeluTanh) X(kQuickGelu)
// clang-format on

template <class D, class V>
HWY_INLINE V ActivateNumbers(D d, V v, const Activation& act) {
  switch (act.kind) {
#define ONNX_LIGHT_CASE(K) \
  case ActivationKind::K:  \
    return ActivateKind<ActivationKind::K>(d, v, act);
    ONNX_LIGHT_ACTIVATION_KINDS(ONNX_LIGHT_CASE)
#undef ONNX_LIGHT_CASE
  }
  return v;
}

// Activate with the kind fixed at compile time: one basic block a loop can interleave.
template <ActivationKind K, class D, class V>
HWY_INLINE V ActivateFixed(D d, V v, const Activation& act) {
  if (K != ActivationKind::kNone) v = hn::IfThenElse(hn::IsNaN(v), v, ActivateKind<K>(d, v, act));
  if (act.has_scale) v = hn::Mul(v, hn::Set(d, act.scale));
  if (act.has_shift) v = hn::Add(v, hn::Set(d, act.shift));
  if (act.has_floor) v = hn::IfThenElse(hn::IsNaN(v), v, hn::Max(v, hn::Set(d, act.floor)));
  return v;
}

// y = act(x) for whole vectors, two per step: the erf, tanh and exp polynomials are long
// dependency chains, and two independent ones in one block keep the pipelines full (one
// vector a step was bound by their latency: Gelu 1.9x ORT's time).
template <ActivationKind K>
size_t ActivationLoop(const float* x, float* y, size_t n, const Activation& act) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto a = ActivateFixed<K>(d, hn::LoadU(d, x + i), act);
    const auto b = ActivateFixed<K>(d, hn::LoadU(d, x + i + lanes), act);
    hn::StoreU(a, d, y + i);
    hn::StoreU(b, d, y + i + lanes);
  }
  return i;
}

// NaN in, NaN out, whatever Min/Max do with it on this target.
template <class D, class V>
HWY_INLINE V Activate(D d, V v, const Activation& act) {
  if (act.kind != ActivationKind::kNone)
    v = hn::IfThenElse(hn::IsNaN(v), v, ActivateNumbers(d, v, act));
  if (act.has_scale) v = hn::Mul(v, hn::Set(d, act.scale));
  if (act.has_shift) v = hn::Add(v, hn::Set(d, act.shift));
  if (act.has_floor) v = hn::IfThenElse(hn::IsNaN(v), v, hn::Max(v, hn::Set(d, act.floor)));
  return v;
}

// y = act(y + bias (+ z)) for whole vectors, the kind fixed at compile time (a switch per
// vector kept HardSwish at 1.2 ns an element: 2.2x ORT's time on MobileNetV3's depthwise
// layers). Returns where the whole vectors end.
template <ActivationKind K>
size_t BiasActivationLoop(float* y, size_t n, float bias, const float* z, const Activation& act) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const auto vb = hn::Set(d, bias);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto v = hn::Add(hn::LoadU(d, y + i), vb);
    if (z != nullptr) v = hn::Add(v, hn::LoadU(d, z + i));
    hn::StoreU(ActivateFixed<K>(d, v, act), d, y + i);
  }
  return i;
}

// y[i] = act(y[i] + bias + (z ? z[i] : 0)) (BiasActivationF32, for the kernels of other files
// to apply per target).
inline void BiasActivationRows(float* y, size_t n, float bias, const float* z,
                               const Activation& act) {
  const hn::ScalableTag<float> d;
  size_t i = 0;
  switch (act.kind) {
#define ONNX_LIGHT_CASE(K)                                         \
  case ActivationKind::K:                                          \
    i = BiasActivationLoop<ActivationKind::K>(y, n, bias, z, act); \
    break;
    ONNX_LIGHT_ACTIVATION_KINDS(ONNX_LIGHT_CASE)
#undef ONNX_LIGHT_CASE
  }
  if (i == n) return;
#if HWY_TARGET <= HWY_AVX2
  // Masked loads do not fault past the end on AVX2 and AVX-512 (two memcpy calls were a
  // fifth of a 7x7 depthwise layer's time).
  const auto m = hn::FirstN(d, n - i);
  auto v = hn::Add(hn::MaskedLoad(m, d, y + i), hn::Set(d, bias));
  if (z != nullptr) v = hn::Add(v, hn::MaskedLoad(m, d, z + i));
  hn::BlendedStore(Activate(d, v, act), m, d, y + i);
#else
  HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
  HWY_ALIGN float zb[hn::MaxLanes(d)] = {};
  std::memcpy(buf, y + i, (n - i) * sizeof(float));
  if (z != nullptr) std::memcpy(zb, z + i, (n - i) * sizeof(float));
  auto v = hn::Add(hn::Add(hn::Load(d, buf), hn::Set(d, bias)), hn::Load(d, zb));
  hn::Store(Activate(d, v, act), d, buf);
  std::memcpy(y + i, buf, (n - i) * sizeof(float));
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#endif  // ONNX_LIGHT_SIMD_ACTIVATION_INL_H_
