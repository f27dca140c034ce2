// Convolution pieces written once with Highway and compiled for every x86 target;
// HWY_DYNAMIC_DISPATCH picks the best one for the running CPU.
#include "simd/conv_simd.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "simd/denormals.h"

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/conv_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
#include "simd/exp-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void AxpyStridedF32(float* y, const float* x, size_t n, float a, size_t stride) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const auto va = hn::Set(d, a);
  size_t i = 0;
  if (stride == 1) {
    for (; i + lanes <= n; i += lanes)
      hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, y + i);
  } else if (stride == 2) {
    // Loads 2*lanes inputs and keeps the even ones; the last element read is x[2i + 2*lanes
    // - 1], so stop while that lies inside the row (x[2(n-1)] is the last one needed).
    for (; i + lanes <= n && 2 * (i + lanes) - 1 <= 2 * (n - 1); i += lanes) {
      hn::Vec<decltype(d)> even, odd;
      hn::LoadInterleaved2(d, x + 2 * i, even, odd);
      hn::StoreU(hn::MulAdd(va, even, hn::LoadU(d, y + i)), d, y + i);
    }
  }
  for (; i < n; ++i)
    y[i] += a * x[i * stride];
}

void DeinterleaveF32(const float* x, size_t n, float* even, float* odd) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::Vec<decltype(d)> e, o;
    hn::LoadInterleaved2(d, x + 2 * i, e, o);
    hn::StoreU(e, d, even + i);
    hn::StoreU(o, d, odd + i);
  }
  for (; i < n; ++i) {
    even[i] = x[2 * i];
    odd[i] = x[2 * i + 1];
  }
}

void SplitRowsF32(const float* x, int64_t rows, int64_t w, int64_t n, int64_t c0, float* out,
                  int64_t pw, int64_t odd) {
  const hn::ScalableTag<float> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < rows; ++r) {
    const float* src = x + r * w;
    float* dst = out + r * pw;
    int64_t i = 0;
    if (c0 & 1) {  // an odd first column alone: the pairs below start on an even one
      dst[odd + c0 / 2] = src[0];
      i = 1;
    }
    float* even = dst + (c0 + i) / 2;
    float* odds = dst + odd + (c0 + i) / 2;
    const int64_t pairs = (n - i) / 2;
    int64_t p = 0;
    for (; p + lanes <= pairs; p += lanes) {
      hn::Vec<decltype(d)> e, o;
      hn::LoadInterleaved2(d, src + i + 2 * p, e, o);
      hn::StoreU(e, d, even + p);
      hn::StoreU(o, d, odds + p);
    }
    // The last pairs as one masked vector where the plane goes on past them (the next
    // rows are read, not stored); the last row's one by one.
    const bool room = (rows - 1 - r) * w + (w - i - 2 * p) >= 2 * lanes;
    if (p < pairs && room) {
      hn::Vec<decltype(d)> e, o;
      hn::LoadInterleaved2(d, src + i + 2 * p, e, o);
      const auto m = hn::FirstN(d, static_cast<size_t>(pairs - p));
      hn::BlendedStore(e, m, d, even + p);
      hn::BlendedStore(o, m, d, odds + p);
      p = pairs;
    }
    for (; p < pairs; ++p) {
      even[p] = src[i + 2 * p];
      odds[p] = src[i + 2 * p + 1];
    }
    if (i + 2 * pairs < n) even[pairs] = src[n - 1];  // an even last column alone
  }
}

// exp(-v) over the whole range (exp-inl.h: +inf below -88.7, so that 1 / (1 + e) is 0
// there); NaN is blended back in by Activate.
template <class D, class V>
HWY_INLINE V ExpNeg(D d, V v) {
  return ExpAnywhere(d, hn::Neg(v));
}

// Results below FLT_MIN in magnitude as a zero of their sign: Sigmoid and SiLU of x below
// about -87 are subnormal, and every later multiply-add that reads a subnormal takes a
// microcode assist on Intel cores (~100x slower: an EfficientNet segmenter whose SiLU tails
// fed its 1x1 convolutions ran 4.3x ORT's time). The error is below 1.2e-38.
template <class D, class V>
HWY_INLINE V FlushSubnormal(D d, V r) {
  const auto tiny = hn::Lt(hn::Abs(r), hn::Set(d, std::numeric_limits<float>::min()));
  return hn::IfThenElse(tiny, hn::Mul(r, hn::Zero(d)), r);
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
  const V e = ExpNonPositive(d, hn::Neg(hn::Min(t, hn::Set(d, 16.0f))));
  const V tail = hn::NegMulAdd(e, q, one);  // 1 - e * q
  const V r = hn::IfThenElse(hn::Le(ax, one), hn::Mul(ax, p),
                             hn::IfThenElse(hn::Lt(ax, hn::Set(d, 4.0f)), tail, one));
  return hn::CopySign(r, v);
}

// tanh for float32 as x * P(u) / Q(u), u = x^2 / 81 on x clamped to [-9, 9] (tanh rounds
// to +-1 in float beyond 9.01): no exponential, one division. Coefficients fitted for this
// project (Loeb's iteratively reweighted least squares on the relative error, 220k points):
// 2.6e-9 relative in exact arithmetic, within 3.3e-7 relative (6 ULP near +-1, where the
// quotient's two roundings show) in float32 over 2M points; tanh(x) = x to float's precision
// near 0 comes out exactly (P(0) = Q(0) = 1 to 2e-10).
template <class D, class V>
HWY_INLINE V TanhRational(D d, V v) {
  static constexpr float kP[] = {0.9999999997856419f,   10.678187627333974f,  21.1041615390959f,
                                 6.602290507378271f,    -1.1336675069555466f, 0.32597388697093854f,
                                 -0.08001432548597286f, 0.010691523811231075f};
  static constexpr float kQ[] = {1.0f, 37.678187196932f, 163.61528453297464f, 144.2751471822133f};
  const V x = hn::Min(hn::Max(v, hn::Set(d, -9.0f)), hn::Set(d, 9.0f));
  const V u = hn::Mul(hn::Mul(x, x), hn::Set(d, 1.0f / 81.0f));
  V p = hn::Set(d, kP[7]);
  for (int i = 6; i >= 0; --i)
    p = hn::MulAdd(p, u, hn::Set(d, kP[i]));
  V q = hn::Set(d, kQ[3]);
  for (int i = 2; i >= 0; --i)
    q = hn::MulAdd(q, u, hn::Set(d, kQ[i]));
  const V r = hn::Div(hn::Mul(x, p), q);
  return hn::Min(hn::Max(r, hn::Set(d, -1.0f)), hn::Set(d, 1.0f));
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
      return FlushSubnormal(d, hn::Div(hn::Set(d, 1.0f), hn::Add(hn::Set(d, 1.0f), e)));
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
      return TanhRational(d, v);
    case ActivationKind::kExp:
      // The Cephes method over the whole range (simd/exp-inl.h, 2 ULP): Highway's Exp,
      // valid to 88 only, needed a second Exp above, and ran 2.46x ORT's time.
      return ExpAnywhere(d, v);
    case ActivationKind::kSilu: {
      const auto e = ExpNeg(d, v);
      return FlushSubnormal(d, hn::Div(v, hn::Add(hn::Set(d, 1.0f), e)));
    }
    case ActivationKind::kErf:
      return ErfNumbers(d, v);
    case ActivationKind::kGelu: {
      const auto e = ErfNumbers(d, hn::Mul(v, hn::Set(d, 0.70710678118654752f)));
      return hn::Mul(hn::Mul(hn::Set(d, 0.5f), v), hn::Add(hn::Set(d, 1.0f), e));
    }
    case ActivationKind::kGeluTanh: {
      // 0.5 (1 + tanh(z)) is sigmoid(2 z) exactly: x / (1 + exp(-2 z)) has no cancellation
      // where tanh(z) nears -1 (1 + tanh lost all but a few bits there) and costs one exp
      // and one division (Highway's Tanh took 1.5x ORT's time).
      const auto cube = hn::Mul(hn::Mul(v, v), v);
      const auto z2 =
          hn::Mul(hn::Set(d, -1.5957691216057308f), hn::MulAdd(hn::Set(d, 0.044715f), cube, v));
      const auto e = ExpAnywhere(d, z2);
      return FlushSubnormal(d, hn::Div(v, hn::Add(hn::Set(d, 1.0f), e)));
    }
    case ActivationKind::kQuickGelu: {
      // x * sigmoid(a x), the sigmoid from e = exp(-|a x|) over the whole range (exp-inl.h):
      // 1 / (1 + e) for a x >= 0, e / (1 + e) below, so that a large negative a x gives
      // x * e (underflowing to -0) and a x = -inf gives inf * 0, NaN, as ORT's and the ONNX
      // reference's (x / (1 + exp(-a x)) with a bounded exp gave -2 at -3.4e38).
      const auto ax = hn::Mul(v, hn::Set(d, act.a));
      const auto e = ExpAnywhere(d, hn::Neg(hn::Abs(ax)));
      const auto pos = hn::Div(hn::Set(d, 1.0f), hn::Add(hn::Set(d, 1.0f), e));
      return hn::Mul(v, hn::IfThenElse(hn::Ge(ax, hn::Zero(d)), pos, hn::Mul(e, pos)));
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

// The activation alone (no scale, shift or floor), its kind fixed at compile time: one
// basic block a loop can interleave. (HardSwish needs no blend: its last step multiplies by
// v, so NaN stays NaN whatever Min/Max return for it.)
template <ActivationKind K, class D, class V>
HWY_INLINE V ActivateFixed(D d, V v, const Activation& act) {
  if (K == ActivationKind::kHardSwish) return ActivateKind<K>(d, v, act);
  if (K == ActivationKind::kNone) return v;
  return hn::IfThenElse(hn::IsNaN(v), v, ActivateKind<K>(d, v, act));
}

// y = act's kind (x) for whole vectors, two per step: the erf, tanh and exp polynomials are
// long dependency chains, and two independent ones in one block keep the pipelines full
// (one vector a step was bound by their latency: Gelu 1.9x ORT's time). act by value:
// through a reference, every store to y might have changed it, and it was loaded again
// for each vector (a third of HardSwish's time). The scale, shift and floor are a second
// pass (AffineLoop): tested in this loop, they were hoisted out of it by the compiler into
// a copy of the loop per combination, per kind and per target (60 KiB).
template <ActivationKind K>
size_t ActivationLoop(const float* x, float* y, size_t n, const Activation act) {
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

// y[i] = floor(y[i] * scale + shift) for i < n, each where act has it (two roundings, as
// the unfused Mul and Add: this file is compiled without contracted multiply-adds).
void AffineLoop(float* y, size_t n, const Activation& act) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const bool has_scale = act.has_scale, has_shift = act.has_shift, has_floor = act.has_floor;
  const auto scale = hn::Set(d, act.scale), shift = hn::Set(d, act.shift);
  const auto floor = hn::Set(d, act.floor);
  for (size_t i = 0; i < n; i += lanes) {
    auto v = hn::LoadU(d, y + i);
    if (has_scale) v = hn::Mul(v, scale);
    if (has_shift) v = hn::Add(v, shift);
    if (has_floor) v = hn::IfThenElse(hn::IsNaN(v), v, hn::Max(v, floor));
    hn::StoreU(v, d, y + i);
  }
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

void ActivationF32(const float* x, float* y, size_t n, const Activation& act) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  // The scalar build (CPUs without SSSE3) keeps a loop per kind for the short activations
  // only: the polynomial ones (exp, tanh, erf) cost 17 KiB there, given to the AVX2 and
  // AVX-512 depthwise kernels under the size goal; with a switch per value they read the
  // same within this VM's noise there (Sigmoid 6.5-9.7 ns a value, 7.9 with its loop).
#if HWY_TARGET != HWY_SCALAR
#define ONNX_LIGHT_LOOP_KINDS(X) ONNX_LIGHT_ACTIVATION_KINDS(X)
#else
#define ONNX_LIGHT_LOOP_KINDS(X) \
  X(kNone) X(kRelu) X(kClip) X(kLeakyRelu) X(kHardSigmoid) X(kHardSwish)
#endif
  switch (act.kind) {
#define ONNX_LIGHT_CASE(K)                               \
  case ActivationKind::K:                                \
    i = ActivationLoop<ActivationKind::K>(x, y, n, act); \
    break;
    ONNX_LIGHT_LOOP_KINDS(ONNX_LIGHT_CASE)
#undef ONNX_LIGHT_CASE
#undef ONNX_LIGHT_LOOP_KINDS
    default:  // (the scalar build's other kinds: the loop below)
      break;
  }
  if (act.has_scale || act.has_shift || act.has_floor) AffineLoop(y, i, act);
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(Activate(d, hn::LoadU(d, x + i), act), d, y + i);
  if (i == n) return;
#if HWY_TARGET <= HWY_AVX2
  // Masked loads do not fault past the end on AVX2 and AVX-512 (two memcpy calls were a
  // fifth of a 7x7 depthwise layer's time, whose epilogue ends here).
  const auto m = hn::FirstN(d, n - i);
  hn::BlendedStore(Activate(d, hn::MaskedLoad(m, d, x + i), act), m, d, y + i);
#else
  HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
  std::memcpy(buf, x + i, (n - i) * sizeof(float));
  hn::Store(Activate(d, hn::Load(d, buf), act), d, buf);
  std::memcpy(y + i, buf, (n - i) * sizeof(float));
#endif
}

// y = act(y + bias (+ z)): the sum in one pass where there is one, then ActivationF32 in
// place (its loops, the kind fixed at compile time and two vectors a step, serve both: a
// second copy of them per kind and SIMD target cost 50 KiB, and a switch per vector had
// kept HardSwish at 1.2 ns a value on MobileNetV3's depthwise layers). The callers pass
// ranges that sit in the L1 or L2 cache (a row, a few rows, a block of channels).
void BiasActivationF32(float* y, size_t n, float bias, const float* z, const Activation& act) {
  if (bias != 0.0f || z != nullptr) {
    const hn::ScalableTag<float> d;
    const size_t lanes = hn::Lanes(d);
    const auto vb = hn::Set(d, bias);
    size_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      auto v = hn::Add(hn::LoadU(d, y + i), vb);
      if (z != nullptr) v = hn::Add(v, hn::LoadU(d, z + i));
      hn::StoreU(v, d, y + i);
    }
    for (; i < n; ++i)
      y[i] = y[i] + bias + (z != nullptr ? z[i] : 0.0f);
  }
  if (HasEffect(act)) HWY_NAMESPACE::ActivationF32(y, y, n, act);
}

// The gate activations of an LSTM step (Sigmoid and Tanh, as Activate computes them, NaN
// in NaN out) with the cell update, the lanes j .. j + Lanes(d) of one batch row: one pass
// where the step had made five calls and four scalar loops over its 25-wide gates (a
// madmom BLSTM's 6,000 steps a run: a fifth of its time).
template <class D>
HWY_INLINE void LstmLanes(D d, size_t j, size_t count, const LstmCell& a) {
  using V = hn::Vec<D>;
  const Activation sig{ActivationKind::kSigmoid, 0, 0}, th{ActivationKind::kTanh, 0, 0};
  const auto act = [&](V v, bool sigmoid) {
    const V r = sigmoid ? ActivateKind<ActivationKind::kSigmoid>(d, v, sig)
                        : ActivateKind<ActivationKind::kTanh>(d, v, th);
    return hn::IfThenElse(hn::IsNaN(v), v, r);
  };
  const auto clip = [&](V v) {
    return a.clip > 0 ? hn::Min(hn::Max(v, hn::Set(d, -a.clip)), hn::Set(d, a.clip)) : v;
  };
  // The last lanes of a row masked (masked loads do not fault past the end on AVX2 and
  // AVX-512; elsewhere the caller passes them one at a time).
  const auto m = hn::FirstN(d, count);
  const auto load = [&](const float* at) {
    return count == hn::Lanes(d) ? hn::LoadU(d, at + j) : hn::MaskedLoad(m, d, at + j);
  };
  const auto store = [&](V v, float* at) {
    if (count == hn::Lanes(d)) {
      hn::StoreU(v, d, at + j);
    } else {
      hn::BlendedStore(v, m, d, at + j);
    }
  };
  const size_t h = a.h;
  const float* g = a.g;
  const V c = load(a.c);
  V gi = load(g), gf = load(g + 2 * h);
  if (a.p != nullptr) {
    gi = hn::Add(gi, hn::Mul(load(a.p), c));
    gf = hn::Add(gf, hn::Mul(load(a.p + 2 * h), c));
  }
  const V i = act(clip(gi), true);
  const V f = a.input_forget ? hn::Sub(hn::Set(d, 1.0f), i) : act(clip(gf), true);
  const V cc = act(clip(load(g + 3 * h)), false);
  const V cn = hn::Add(hn::Mul(f, c), hn::Mul(i, cc));
  V go = load(g + h);
  if (a.p != nullptr) go = hn::Add(go, hn::Mul(load(a.p + h), cn));
  const V o = act(clip(go), true);
  store(cn, a.c);
  store(hn::Mul(o, act(cn, false)), a.hid);
}

void LstmCellF32(const LstmCell& a) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t j = 0;
  for (; j + lanes <= a.h; j += lanes)
    LstmLanes(d, j, lanes, a);
  if (j == a.h) return;
#if HWY_TARGET <= HWY_AVX2
  LstmLanes(d, j, a.h - j, a);
#else
  const hn::CappedTag<float, 1> one;  // the last lanes one at a time, the same numbers
  for (; j < a.h; ++j)
    LstmLanes(one, j, 1, a);
#endif
}

// Direct convolution: OC output channels x B output vectors of one row, accumulating
// every input channel's taps (OC * B independent FMA chains; each loaded input vector
// serves OC channels). Planes padded by the caller, `cstride` floats apart.
template <int SW, size_t OC, size_t B, class D>
HWY_INLINE void DirectBlock(D d, const float* xp, int64_t cstride, int64_t pw, int64_t channels,
                            const float* w, const DepthwiseGeometry& g, const float* bias,
                            int64_t oh, int64_t ow, hn::Vec<D> (*acc)[B]) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t taps = g.kh * g.kw, wstride = channels * taps;  // weights per channel out
  hn::Vec<D> sum[OC][B];  // local, so that they stay in registers
  for (size_t o = 0; o < OC; ++o) {
    for (size_t b = 0; b < B; ++b)
      sum[o][b] = hn::Set(d, bias != nullptr ? bias[o] : 0.0f);
  }
  for (int64_t c = 0; c < channels; ++c) {
    const float* plane = xp + c * cstride;
    const float* wc = w + c * taps;
    for (int64_t kh = 0; kh < g.kh; ++kh) {
      const float* row = plane + (oh * g.sh + kh * g.dh) * pw + ow * SW;
      for (int64_t kw = 0; kw < g.kw; ++kw) {
        const float* at = row + kw * g.dw;
        hn::Vec<D> x[B];
        for (size_t b = 0; b < B; ++b) {
          if (SW == 1) {
            x[b] = hn::LoadU(d, at + static_cast<int64_t>(b) * lanes);
          } else {
            hn::Vec<D> odd;
            hn::LoadInterleaved2(d, at + 2 * static_cast<int64_t>(b) * lanes, x[b], odd);
          }
        }
        const int64_t t = kh * g.kw + kw;
        for (size_t o = 0; o < OC; ++o) {
          const auto wv = hn::Set(d, wc[static_cast<int64_t>(o) * wstride + t]);
          for (size_t b = 0; b < B; ++b)
            sum[o][b] = hn::MulAdd(wv, x[b], sum[o][b]);
        }
      }
    }
  }
  for (size_t o = 0; o < OC; ++o) {
    for (size_t b = 0; b < B; ++b)
      acc[o][b] = sum[o][b];
  }
}

// Rows [oh0, oh1) of OC output channels: the sums (bias included) stored, then each
// finished row's epilogue (residual, activation) applied by BiasActivationF32 while it is
// in the L1 cache; the epilogue is not compiled into every instantiation.
template <int SW, size_t OC>
void DirectRows(const float* xp, int64_t cstride, int64_t pw, int64_t channels, const float* w,
                const DepthwiseGeometry& g, const float* bias, const float* z, float* y,
                int64_t out_plane, int64_t oh0, int64_t oh1, const Activation& act) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  constexpr size_t kB = OC >= 4 ? 4 : 8 / OC;  // vectors per step: at most 16 accumulators
  const bool epilogue = z != nullptr || HasEffect(act);
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    int64_t j = 0;
    V acc[OC][kB];
    for (; j + static_cast<int64_t>(kB) * lanes <= g.ow; j += static_cast<int64_t>(kB) * lanes) {
      DirectBlock<SW, OC, kB>(d, xp, cstride, pw, channels, w, g, bias, oh, j, acc);
      for (size_t o = 0; o < OC; ++o) {
        float* out = y + static_cast<int64_t>(o) * out_plane + oh * g.ow + j;
        for (size_t b = 0; b < kB; ++b)
          hn::StoreU(acc[o][b], d, out + static_cast<int64_t>(b) * lanes);
      }
    }
    V one[OC][1];
    for (; j < g.ow; j += lanes) {  // the padded planes have room past each row's end
      DirectBlock<SW, OC, 1>(d, xp, cstride, pw, channels, w, g, bias, oh, j, one);
      const int64_t n = std::min(lanes, g.ow - j);
      for (size_t o = 0; o < OC; ++o) {
        HWY_ALIGN float buf[hn::MaxLanes(d)];
        hn::Store(one[o][0], d, buf);
        std::memcpy(y + static_cast<int64_t>(o) * out_plane + oh * g.ow + j, buf,
                    static_cast<size_t>(n) * sizeof(float));
      }
    }
    if (!epilogue) continue;
    for (size_t o = 0; o < OC; ++o) {
      const int64_t at = static_cast<int64_t>(o) * out_plane + oh * g.ow;
      HWY_NAMESPACE::BiasActivationF32(y + at, static_cast<size_t>(g.ow), 0.0f,
                                       z != nullptr ? z + at : nullptr, act);
    }
  }
}

void DirectConvRowsF32(const float* xp, int64_t cstride, int64_t pw, int64_t channels,
                       const float* w, int64_t oc, const DepthwiseGeometry& g, const float* bias,
                       const float* z, float* y, int64_t out_plane, int64_t oh0, int64_t oh1,
                       const Activation& act) {
  // Four output channels at a time where there are 32 vector registers, two where 16;
  // the rest one at a time.
  constexpr size_t kOC = HWY_TARGET <= HWY_AVX3 ? 4 : 2;
  const int64_t wstride = channels * g.kh * g.kw;
  for (int64_t o = 0; o < oc;) {
    const bool block = oc - o >= static_cast<int64_t>(kOC);
    const float* bo = bias != nullptr ? bias + o : nullptr;
    const float* zo = z != nullptr ? z + o * out_plane : nullptr;
    const float* wo = w + o * wstride;
    float* yo = y + o * out_plane;
    if (g.sw == 1) {
      block ? DirectRows<1, kOC>(xp, cstride, pw, channels, wo, g, bo, zo, yo, out_plane, oh0, oh1,
                                 act)
            : DirectRows<1, 1>(xp, cstride, pw, channels, wo, g, bo, zo, yo, out_plane, oh0, oh1,
                               act);
    } else {
      block ? DirectRows<2, kOC>(xp, cstride, pw, channels, wo, g, bo, zo, yo, out_plane, oh0, oh1,
                                 act)
            : DirectRows<2, 1>(xp, cstride, pw, channels, wo, g, bo, zo, yo, out_plane, oh0, oh1,
                               act);
    }
    o += block ? static_cast<int64_t>(kOC) : 1;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(AxpyStridedF32);
HWY_EXPORT(DeinterleaveF32);
HWY_EXPORT(ActivationF32);
HWY_EXPORT(BiasActivationF32);
HWY_EXPORT(LstmCellF32);
HWY_EXPORT(SplitRowsF32);
HWY_EXPORT(DirectConvRowsF32);

void DirectConvRowsF32(const float* xp, int64_t cstride, int64_t pw, int64_t channels,
                       const float* w, int64_t oc, const DepthwiseGeometry& g, const float* bias,
                       const float* z, float* y, int64_t out_plane, int64_t oh0, int64_t oh1,
                       const Activation& act) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(DirectConvRowsF32)
  (xp, cstride, pw, channels, w, oc, g, bias, z, y, out_plane, oh0, oh1, act);
}

void AxpyStridedF32(float* y, const float* x, size_t n, float a, size_t stride) {
  HWY_DYNAMIC_DISPATCH(AxpyStridedF32)(y, x, n, a, stride);
}
void DeinterleaveF32(const float* x, size_t n, float* even, float* odd) {
  HWY_DYNAMIC_DISPATCH(DeinterleaveF32)(x, n, even, odd);
}
void SplitRowsF32(const float* x, int64_t rows, int64_t w, int64_t n, int64_t c0, float* out,
                  int64_t pw, int64_t odd) {
  HWY_DYNAMIC_DISPATCH(SplitRowsF32)(x, rows, w, n, c0, out, pw, odd);
}
void ActivationF32(const float* x, float* y, size_t n, const Activation& act) {
  HWY_DYNAMIC_DISPATCH(ActivationF32)(x, y, n, act);
}
void LstmCellF32(const LstmCell& a) {
  HWY_DYNAMIC_DISPATCH(LstmCellF32)(a);
}
void BiasActivationF32(float* y, size_t n, float bias, const float* z, const Activation& act) {
  HWY_DYNAMIC_DISPATCH(BiasActivationF32)(y, n, bias, z, act);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
