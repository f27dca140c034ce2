// Convolution pieces written once with Highway and compiled for every x86 target;
// HWY_DYNAMIC_DISPATCH picks the best one for the running CPU.
#include "simd/conv_simd.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/conv_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
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

void ActivationF32(const float* x, float* y, size_t n, const Activation& act) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  switch (act.kind) {
#define ONNX_LIGHT_CASE(K)                               \
  case ActivationKind::K:                                \
    i = ActivationLoop<ActivationKind::K>(x, y, n, act); \
    break;
    ONNX_LIGHT_ACTIVATION_KINDS(ONNX_LIGHT_CASE)
#undef ONNX_LIGHT_CASE
  }
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(Activate(d, hn::LoadU(d, x + i), act), d, y + i);
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
    std::memcpy(buf, x + i, (n - i) * sizeof(float));
    hn::Store(Activate(d, hn::Load(d, buf), act), d, buf);
    std::memcpy(y + i, buf, (n - i) * sizeof(float));
  }
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

void BiasActivationF32(float* y, size_t n, float bias, const float* z, const Activation& act) {
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

// Where tap kw of output column 0 reads in a padded row: column kw * dw, or with stride 2
// in the split row (even columns, then odd ones from g.odd on), so that output column ow
// reads ow floats further on: consecutive outputs, consecutive floats. (LoadInterleaved2
// of the plain row was two loads and two shuffles a tap: 3x ORT's time on stride-2
// layers.)
template <int SW>
HWY_INLINE int64_t TapColumn(const DepthwiseGeometry& g, int64_t kw) {
  const int64_t c = kw * g.dw;
  return SW == 1 ? c : (c & 1) * g.odd + c / 2;
}

// B output vectors of one row of a depthwise convolution, side by side (B independent
// chains of multiply-adds, so the FMA latency overlaps): the taps over a padded plane
// (rows `pw` apart), every read in bounds. SW: the stride along the width, 1 or 2.
template <int SW, size_t B, class D>
HWY_INLINE void DepthwiseBlock(D d, const float* xp, int64_t pw, const float* w,
                               const DepthwiseGeometry& g, float bias, int64_t oh, int64_t ow,
                               hn::Vec<D>* acc) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  for (size_t b = 0; b < B; ++b)
    acc[b] = hn::Set(d, bias);
  for (int64_t kh = 0; kh < g.kh; ++kh) {
    const float* row = xp + (oh * g.sh + kh * g.dh) * pw + ow;
    const float* wk = w + kh * g.kw;
    for (int64_t kw = 0; kw < g.kw; ++kw) {
      const auto wv = hn::Set(d, wk[kw]);
      const float* at = row + TapColumn<SW>(g, kw);
      for (size_t b = 0; b < B; ++b) {
        const auto x = hn::LoadU(d, at + static_cast<int64_t>(b) * lanes);
        acc[b] = hn::MulAdd(wv, x, acc[b]);
      }
    }
  }
}

// One output vector in each of R consecutive rows (oh .. oh + R - 1) of a depthwise
// convolution: R independent chains of multiply-adds, for rows of one or a few vectors
// (DepthwiseBlock's B vectors side by side need a row at least B vectors wide: a 56-wide
// row on AVX-512 ran as four single chains, each multiply-add waiting on the last).
template <int SW, size_t R, class D>
HWY_INLINE void DepthwiseColumn(D d, const float* xp, int64_t pw, const float* w,
                                const DepthwiseGeometry& g, float bias, int64_t oh, int64_t ow,
                                hn::Vec<D>* acc) {
  for (size_t r = 0; r < R; ++r)
    acc[r] = hn::Set(d, bias);
  for (int64_t kh = 0; kh < g.kh; ++kh) {
    const float* wk = w + kh * g.kw;
    for (int64_t kw = 0; kw < g.kw; ++kw) {
      const auto wv = hn::Set(d, wk[kw]);
      for (size_t r = 0; r < R; ++r) {
        const float* at = xp + ((oh + static_cast<int64_t>(r)) * g.sh + kh * g.dh) * pw + ow +
                          TapColumn<SW>(g, kw);
        acc[r] = hn::MulAdd(wv, hn::LoadU(d, at), acc[r]);
      }
    }
  }
}

// DepthwiseColumn for a K x K kernel (3 or 5) with strides SW in both directions and no
// dilation, its weights already broadcast (wv, K * K vectors, kept in registers where there
// are 32): the input rows are walked once, each vector loaded once and multiplied into
// every output row that reads it (R rows of K taps read (R - 1) * SW + K input rows, not
// R * K: 8 loads a column of taps instead of 20 for 5x5 and four rows).
template <int SW, size_t R, int K, class D>
HWY_INLINE void DepthwiseColumnK(D d, const float* xp, int64_t pw, const hn::Vec<D>* wv,
                                 const DepthwiseGeometry& g, float bias, int64_t oh, int64_t ow,
                                 hn::Vec<D>* acc) {
  for (size_t r = 0; r < R; ++r)
    acc[r] = hn::Set(d, bias);
  constexpr int kRowsIn = static_cast<int>(R - 1) * SW + K;
  const float* top = xp + oh * SW * pw + ow;
#pragma GCC unroll 16
  for (int q = 0; q < kRowsIn; ++q) {
    const float* row = top + q * pw;
#pragma GCC unroll 8
    for (int kw = 0; kw < K; ++kw) {
      const auto x = hn::LoadU(d, row + TapColumn<SW>(g, kw));
#pragma GCC unroll 8
      for (int r = 0; r < static_cast<int>(R); ++r) {
        const int kh = q - r * SW;
        if (kh >= 0 && kh < K) acc[r] = hn::MulAdd(wv[kh * K + kw], x, acc[r]);
      }
    }
  }
}

template <int SW>
void DepthwiseRows(const float* xp, int64_t pw, const float* w, const DepthwiseGeometry& g,
                   float bias, const float* z, float* y, int64_t oh0, int64_t oh1,
                   const Activation& act) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  // The sums (bias included) are stored as they are; each finished row's epilogue
  // (residual, activation) is applied by BiasActivationF32 while the row is in the L1
  // cache, as DirectRows does: applied per vector, it was a call per vector (the
  // activation's switch kept it out of line), a fifth of the time on 56x56 planes.
  const bool epilogue = z != nullptr || HasEffect(act);
  // (Rows are contiguous: one call for a range, not one per row: 7-wide rows were a call,
  // and a tail, per 7 values.)
  auto finish_rows = [&](int64_t r0, int64_t r1) {
    if (!epilogue || r1 <= r0) return;
    HWY_NAMESPACE::BiasActivationF32(y + r0 * g.ow, static_cast<size_t>((r1 - r0) * g.ow), 0.0f,
                                     z != nullptr ? z + r0 * g.ow : nullptr, act);
  };
  // v (a vector of tag dv) into row oh at column j: the first n lanes (a masked store past
  // the row's end).
  auto store = [&](auto dv, auto v, int64_t oh, int64_t j, int64_t n) {
    float* out = y + oh * g.ow + j;
    if (n == static_cast<int64_t>(hn::Lanes(dv))) {
      hn::StoreU(v, dv, out);
    } else {
      hn::BlendedStore(v, hn::FirstN(dv, static_cast<size_t>(n)), dv, out);
    }
  };
  int64_t oh = oh0;
  // Narrow rows: four rows at a time, a vector of each (half-width vectors for rows of at
  // most half a vector: a 7-wide row in 8 lanes, not 16). The last group ends at oh1 and
  // may overlap the one before it: its rows are stored again from their sums, and finished
  // after.
  auto narrow = [&](auto dn) {
    using VN = hn::Vec<decltype(dn)>;
    const auto nl = static_cast<int64_t>(hn::Lanes(dn));
    constexpr int64_t kR = 4;
    VN acc[kR];
    // Finished in runs of at least 512 values (a 7x7 plane at once, not twice per group):
    // rows below the group about to be stored are final.
    int64_t done = oh;
    auto groups = [&](auto column) {
      for (; oh < oh1; oh += kR) {
        const int64_t o = std::min(oh, oh1 - kR);
        if ((o - done) * g.ow >= 512) {
          finish_rows(done, o);
          done = o;
        }
        for (int64_t j = 0; j < g.ow; j += nl) {
          column(o, j);
          for (int64_t r = 0; r < kR; ++r)
            store(dn, acc[r], o + r, j, std::min(nl, g.ow - j));
        }
      }
    };
    // 3x3 and 5x5 without dilation, equal strides: weights in registers, rows loaded once.
    const bool fixed = g.kh == g.kw && g.dh == 1 && g.dw == 1 && g.sh == SW;
    if (fixed && g.kh == 3) {
      VN wv[9];
      for (int i = 0; i < 9; ++i)
        wv[i] = hn::Set(dn, w[i]);
      groups([&](int64_t o, int64_t j) {
        DepthwiseColumnK<SW, kR, 3>(dn, xp, pw, wv, g, bias, o, j, acc);
      });
    } else if (fixed && g.kh == 5) {
      VN wv[25];
      for (int i = 0; i < 25; ++i)
        wv[i] = hn::Set(dn, w[i]);
      groups([&](int64_t o, int64_t j) {
        DepthwiseColumnK<SW, kR, 5>(dn, xp, pw, wv, g, bias, o, j, acc);
      });
    } else {
      groups([&](int64_t o, int64_t j) {
        DepthwiseColumn<SW, kR>(dn, xp, pw, w, g, bias, o, j, acc);
      });
    }
    finish_rows(done, oh1);
  };
  if (g.ow < 4 * lanes && oh1 - oh0 >= 4) {
    constexpr size_t kHalf = hn::MaxLanes(d) >= 8 ? hn::MaxLanes(d) / 2 : 1;
    if (kHalf > 1 && 2 * g.ow <= lanes) {
      narrow(hn::CappedTag<float, kHalf>());
    } else {
      narrow(d);
    }
  }
  for (; oh < oh1; ++oh) {
    int64_t j = 0;
    V acc[4];
    // Blocks of four vectors; the last one ends at the row's end, overlapping the block
    // before it (the sums are stored again, the row finished once after): no single-vector
    // chains left over (112 = 64 + 48 on AVX-512 ran its last three vectors one chain each).
    for (; j < g.ow && g.ow >= 4 * lanes; j += 4 * lanes) {
      const int64_t at = std::min(j, g.ow - 4 * lanes);
      DepthwiseBlock<SW, 4>(d, xp, pw, w, g, bias, oh, at, acc);
      for (int64_t b = 0; b < 4; ++b)
        store(d, acc[b], oh, at + b * lanes, lanes);
    }
    for (; j < g.ow; j += lanes) {  // the padded plane has room for a vector past the row
      DepthwiseBlock<SW, 1>(d, xp, pw, w, g, bias, oh, j, acc);
      store(d, acc[0], oh, j, std::min(lanes, g.ow - j));
    }
    finish_rows(oh, oh + 1);
  }
}

void DepthwiseRowsF32(const float* xp, int64_t pw, const float* w, const DepthwiseGeometry& g,
                      float bias, const float* z, float* y, int64_t oh0, int64_t oh1,
                      const Activation& act) {
  if (g.sw == 1) {
    DepthwiseRows<1>(xp, pw, w, g, bias, z, y, oh0, oh1, act);
  } else {
    DepthwiseRows<2>(xp, pw, w, g, bias, z, y, oh0, oh1, act);
  }
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

size_t DepthwiseSlackFloats() {
  return 2 * hn::Lanes(hn::ScalableTag<float>());
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
HWY_EXPORT(DepthwiseRowsF32);
HWY_EXPORT(DepthwiseSlackFloats);
HWY_EXPORT(SplitRowsF32);
HWY_EXPORT(DirectConvRowsF32);

void DirectConvRowsF32(const float* xp, int64_t cstride, int64_t pw, int64_t channels,
                       const float* w, int64_t oc, const DepthwiseGeometry& g, const float* bias,
                       const float* z, float* y, int64_t out_plane, int64_t oh0, int64_t oh1,
                       const Activation& act) {
  HWY_DYNAMIC_DISPATCH(DirectConvRowsF32)
  (xp, cstride, pw, channels, w, oc, g, bias, z, y, out_plane, oh0, oh1, act);
}

void DepthwiseRowsF32(const float* xp, int64_t pw, const float* w, const DepthwiseGeometry& g,
                      float bias, const float* z, float* y, int64_t oh0, int64_t oh1,
                      const Activation& act) {
  HWY_DYNAMIC_DISPATCH(DepthwiseRowsF32)(xp, pw, w, g, bias, z, y, oh0, oh1, act);
}
size_t DepthwiseSlackFloats() {
  return HWY_DYNAMIC_DISPATCH(DepthwiseSlackFloats)();
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
void BiasActivationF32(float* y, size_t n, float bias, const float* z, const Activation& act) {
  HWY_DYNAMIC_DISPATCH(BiasActivationF32)(y, n, bias, z, act);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
