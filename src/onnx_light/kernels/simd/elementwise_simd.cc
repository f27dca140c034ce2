// Element-wise kernels written once with Highway and compiled for every x86 target;
// HWY_DYNAMIC_DISPATCH picks the best one for the running CPU.
#include "simd/elementwise_simd.h"

#include <strings.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "onnx_light/core/float16.h"

// Order matters: foreach_target.h re-includes this file once per target and must come
// before highway.h and the contrib headers.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/elementwise_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class V>
HWY_INLINE V LeakyReluV(D d, V x, V alpha) {
  return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Mul(x, alpha), x);
}

// hn::Log is undefined for 0, negatives, +inf and NaN: blend the IEEE results in.
template <class D, class V>
HWY_INLINE V LogV(D d, V x) {
  using T = hn::TFromD<D>;
  V r = hn::Log(d, x);
  const V zero = hn::Zero(d);
  const V inf = hn::Set(d, std::numeric_limits<T>::infinity());
  r = hn::IfThenElse(hn::Eq(x, zero), hn::Neg(inf), r);
  r = hn::IfThenElse(hn::Lt(x, zero), hn::Set(d, std::numeric_limits<T>::quiet_NaN()), r);
  r = hn::IfThenElse(hn::Eq(x, inf), inf, r);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// Applies `op` (a vector -> vector lambda) over n elements; the tail goes through a
// full-width stack buffer, so no load or store leaves [x, x + n).
template <class D, typename T, class Op>
HWY_INLINE void Map(D d, const T* x, T* y, size_t n, Op op) {
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(op(hn::LoadU(d, x + i)), d, y + i);
  if (i < n) {
    HWY_ALIGN T buf[hn::MaxLanes(d)] = {};
    std::memcpy(buf, x + i, (n - i) * sizeof(T));
    hn::Store(op(hn::Load(d, buf)), d, buf);
    std::memcpy(y + i, buf, (n - i) * sizeof(T));
  }
}

// float32 -> bfloat16 bits, nearest-even; NaN keeps its truncated payload (made non-zero).
template <class DF>
HWY_INLINE auto DemoteBF16Bits(DF, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint16_t, DF> du16;
  const auto bits = hn::BitCast(du, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1));
  const auto rounded = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7fff), lsb)));
  const auto truncated = hn::ShiftRight<16>(bits);
  const auto empty = hn::Eq(hn::And(truncated, hn::Set(du, 0x7f)), hn::Zero(du));
  const auto nan_bits = hn::Or(truncated, hn::IfThenElseZero(empty, hn::Set(du, 1)));
  const auto out = hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), nan_bits, rounded);
  return hn::DemoteTo(du16, hn::BitCast(di, out));
}

// 16-bit float element-wise through float32: promote, op, round once.
template <bool kBF16, class Op>
HWY_INLINE void Map16(const uint16_t* x, uint16_t* y, size_t n, Op op) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const hn::Rebind<hwy::bfloat16_t, decltype(df)> dbf16;
  const size_t lanes = hn::Lanes(df);
  auto step = [&](const uint16_t* in, uint16_t* out) {
    if constexpr (kBF16) {
      const auto v = hn::PromoteTo(df, hn::BitCast(dbf16, hn::LoadU(du16, in)));
      hn::StoreU(DemoteBF16Bits(df, op(df, v)), du16, out);
    } else {
#if HWY_TARGET > HWY_AVX2
      // Targets without F16C (SSE4 and below) would get Highway 1.0.3's software float16
      // conversions, which mishandle infinities, NaNs, subnormals and the sign of zero:
      // convert lane by lane with the core's exact conversions instead.
      HWY_ALIGN float buf[hn::MaxLanes(df)];
      for (size_t j = 0; j < lanes; ++j)
        buf[j] = Float16BitsToFloat(in[j]);
      hn::Store(op(df, hn::Load(df, buf)), df, buf);
      for (size_t j = 0; j < lanes; ++j)
        out[j] = FloatToFloat16Bits(buf[j]);
#else
      const hn::Rebind<hwy::float16_t, decltype(df)> df16;
      const auto v = hn::PromoteTo(df, hn::BitCast(df16, hn::LoadU(du16, in)));
      hn::StoreU(hn::BitCast(du16, hn::DemoteTo(df16, op(df, v))), du16, out);
#endif
    }
  };
  size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    step(x + i, y + i);
  if (i < n) {
    HWY_ALIGN uint16_t in[hn::MaxLanes(df)] = {};
    HWY_ALIGN uint16_t out[hn::MaxLanes(df)] = {};
    std::memcpy(in, x + i, (n - i) * 2);
    step(in, out);
    std::memcpy(y + i, out, (n - i) * 2);
  }
}

void LeakyReluF32(const float* x, float* y, size_t n, float alpha) {
  const hn::ScalableTag<float> d;
  const auto a = hn::Set(d, alpha);
  Map(d, x, y, n, [&](auto v) { return LeakyReluV(d, v, a); });
}
void LeakyReluF64(const double* x, double* y, size_t n, double alpha) {
  const hn::ScalableTag<double> d;
  const auto a = hn::Set(d, alpha);
  Map(d, x, y, n, [&](auto v) { return LeakyReluV(d, v, a); });
}
void LeakyReluF16(const uint16_t* x, uint16_t* y, size_t n, float alpha) {
  Map16<false>(x, y, n, [alpha](auto d, auto v) { return LeakyReluV(d, v, hn::Set(d, alpha)); });
}
void LeakyReluBF16(const uint16_t* x, uint16_t* y, size_t n, float alpha) {
  Map16<true>(x, y, n, [alpha](auto d, auto v) { return LeakyReluV(d, v, hn::Set(d, alpha)); });
}
// y = exp(x - shift), returning the sum of y (the body of a softmax row). hn::Exp is
// valid on [-FLT_MAX, 88]: -inf gives 0 and NaN stays NaN by blending.
float ExpShiftedF32(const float* x, float* y, size_t n, float shift) {
  const hn::ScalableTag<float> d;
  const auto sh = hn::Set(d, shift);
  const auto lowest = hn::Set(d, std::numeric_limits<float>::lowest());
  auto sum = hn::Zero(d);
  auto op = [&](auto v) {
    const auto t = hn::Sub(v, sh);
    auto r = hn::Exp(d, hn::Max(t, lowest));
    r = hn::IfThenElse(hn::Lt(t, lowest), hn::Zero(d), r);
    return hn::IfThenElse(hn::IsNaN(t), t, r);
  };
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto r = op(hn::LoadU(d, x + i));
    sum = hn::Add(sum, r);
    hn::StoreU(r, d, y + i);
  }
  float total = hn::GetLane(hn::SumOfLanes(d, sum));  // (ReduceSum is newer than Debian's Highway)
  for (; i < n; ++i) {  // the tail, scalar (at most lanes - 1 elements)
    const float t = x[i] - shift;
    y[i] = std::isnan(t) ? t : (t < std::numeric_limits<float>::lowest() ? 0.0f : std::exp(t));
    total += y[i];
  }
  return total;
}

void LogF32(const float* x, float* y, size_t n) {
  const hn::ScalableTag<float> d;
  Map(d, x, y, n, [&](auto v) { return LogV(d, v); });
}
void LogF64(const double* x, double* y, size_t n) {
  const hn::ScalableTag<double> d;
  Map(d, x, y, n, [&](auto v) { return LogV(d, v); });
}
void LogF16(const uint16_t* x, uint16_t* y, size_t n) {
  Map16<false>(x, y, n, [](auto d, auto v) { return LogV(d, v); });
}
void LogBF16(const uint16_t* x, uint16_t* y, size_t n) {
  Map16<true>(x, y, n, [](auto d, auto v) { return LogV(d, v); });
}
void ReluF32(const float* x, float* y, size_t n) {
  const hn::ScalableTag<float> d;
  Map(d, x, y, n, [&](auto v) {
    return hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Zero(d), v);  // NaN stays NaN
  });
}
// Sums in double: float lanes promoted, four independent accumulators (one chain of
// double additions would wait on its latency), the tail added last. Without a center (a
// plain sum, ReduceMean's) no subtraction: a quarter of the work of each vector.
template <bool kCentered>
double SumF32InF64T(const float* x, size_t n, bool squares, double center) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const size_t l = hn::Lanes(dd);
  auto a0 = hn::Zero(dd), a1 = a0, a2 = a0, a3 = a0;
  const auto c = hn::Set(dd, center);
  const auto load = [&](size_t i) {
    auto v = hn::PromoteTo(dd, hn::LoadU(df, x + i));
    if constexpr (kCentered) v = hn::Sub(v, c);
    return squares ? hn::Mul(v, v) : v;
  };
  size_t i = 0;
  for (; i + 4 * l <= n; i += 4 * l) {
    a0 = hn::Add(a0, load(i));
    a1 = hn::Add(a1, load(i + l));
    a2 = hn::Add(a2, load(i + 2 * l));
    a3 = hn::Add(a3, load(i + 3 * l));
  }
  for (; i + l <= n; i += l)
    a0 = hn::Add(a0, load(i));
  double sum = hn::GetLane(hn::SumOfLanes(dd, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
  for (; i < n; ++i) {
    const double v = static_cast<double>(x[i]) - center;
    sum += squares ? v * v : v;
  }
  return sum;
}
double SumF32InF64(const float* x, size_t n, bool squares, double center) {
  return center == 0.0 ? SumF32InF64T<false>(x, n, squares, center)
                       : SumF32InF64T<true>(x, n, squares, center);
}
// Column sums: four vectors of sums stay in registers while every row adds to them (rows
// in order, as a scalar walk would add them), so each row's two cache lines are read whole.
void SumRowsF32InF64(const float* x, size_t stride, size_t rows, size_t n, bool squares,
                     double* out) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const size_t l = hn::Lanes(dd);
  const auto load = [&](const float* p) {
    const auto v = hn::PromoteTo(dd, hn::LoadU(df, p));
    return squares ? hn::Mul(v, v) : v;
  };
  size_t i = 0;
  for (; i + 4 * l <= n; i += 4 * l) {
    auto a0 = hn::Zero(dd), a1 = a0, a2 = a0, a3 = a0;
    for (size_t r = 0; r < rows; ++r) {
      const float* p = x + r * stride + i;
      a0 = hn::Add(a0, load(p));
      a1 = hn::Add(a1, load(p + l));
      a2 = hn::Add(a2, load(p + 2 * l));
      a3 = hn::Add(a3, load(p + 3 * l));
    }
    hn::StoreU(a0, dd, out + i);
    hn::StoreU(a1, dd, out + i + l);
    hn::StoreU(a2, dd, out + i + 2 * l);
    hn::StoreU(a3, dd, out + i + 3 * l);
  }
  for (; i < n; ++i) {
    double acc = 0;
    for (size_t r = 0; r < rows; ++r) {
      const double v = x[r * stride + i];
      acc += squares ? v * v : v;
    }
    out[i] = acc;
  }
}
// y = a (op) b or, swapped, b (op) a; b one value (broadcast) or n of them.
template <int kOp>
void BinaryLoop(const float* a, const float* b, float* y, size_t n, bool b_scalar, bool swap) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  const auto apply = [&](auto u, auto v) {
    if (swap) std::swap(u, v);
    if constexpr (kOp == 0) return hn::Add(u, v);
    if constexpr (kOp == 1) return hn::Sub(u, v);
    if constexpr (kOp == 2) return hn::Mul(u, v);
    if constexpr (kOp == 3) return hn::Div(u, v);
  };
  const auto s = hn::Set(d, b[0]);
  size_t i = 0;
  for (; i + l <= n; i += l)
    hn::StoreU(apply(hn::LoadU(d, a + i), b_scalar ? s : hn::LoadU(d, b + i)), d, y + i);
  for (; i < n; ++i) {
    float u = a[i], v = b_scalar ? b[0] : b[i];
    if (swap) std::swap(u, v);
    y[i] = kOp == 0 ? u + v : kOp == 1 ? u - v : kOp == 2 ? u * v : u / v;
  }
}
void BinaryF32(const float* a, const float* b, float* y, size_t n, int op, bool b_scalar,
               bool swap) {
  switch (op) {
    case 0:
      return BinaryLoop<0>(a, b, y, n, b_scalar, swap);
    case 1:
      return BinaryLoop<1>(a, b, y, n, b_scalar, swap);
    case 2:
      return BinaryLoop<2>(a, b, y, n, b_scalar, swap);
    default:
      return BinaryLoop<3>(a, b, y, n, b_scalar, swap);
  }
}
// t[i] = t[i + step] when it is greater or NaN, else t[i], for i < n, ascending: each
// vector of t + step is loaded before the store to t that could reach it.
void MaxAheadF32(float* t, size_t n, size_t step) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  size_t i = 0;
  for (; i + l <= n; i += l) {
    const auto u = hn::LoadU(d, t + i + step), v = hn::LoadU(d, t + i);
    hn::StoreU(hn::IfThenElse(hn::Or(hn::Gt(u, v), hn::IsNaN(u)), u, v), d, t + i);
  }
  for (; i < n; ++i) {
    const float u = t[i + step];
    if (u > t[i] || u != u) t[i] = u;
  }
}
// float32 <-> float16 bits. With F16C (AVX2 and AVX-512) a vector at a time, except that a
// vector holding a NaN goes lane by lane through the core's conversions (F16C would set
// the quiet bit of a signalling NaN: the bits then differ from the scalar targets'); on
// targets without it (Highway 1.0.3's software conversions are inexact there), and for
// the tail, lane by lane.
void Float32ToFloat16Impl(const float* x, uint16_t* y, size_t n) {
  size_t i = 0;
#if HWY_TARGET <= HWY_AVX2
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const hn::Rebind<hwy::float16_t, decltype(df)> df16;
  const size_t lanes = hn::Lanes(df);
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(df, x + i);
    if (!hn::AllFalse(df, hn::IsNaN(v))) {
      for (size_t j = i; j < i + lanes; ++j)
        y[j] = FloatToFloat16Bits(x[j]);
      continue;
    }
    hn::StoreU(hn::BitCast(du16, hn::DemoteTo(df16, v)), du16, y + i);
  }
#endif
  for (; i < n; ++i)
    y[i] = FloatToFloat16Bits(x[i]);
}
void Float16ToFloat32Impl(const uint16_t* x, float* y, size_t n) {
  size_t i = 0;
#if HWY_TARGET <= HWY_AVX2
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const hn::Rebind<hwy::float16_t, decltype(df)> df16;
  const size_t lanes = hn::Lanes(df);
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::PromoteTo(df, hn::BitCast(df16, hn::LoadU(du16, x + i)));
    if (!hn::AllFalse(df, hn::IsNaN(v))) {
      for (size_t j = i; j < i + lanes; ++j)
        y[j] = Float16BitsToFloat(x[j]);
      continue;
    }
    hn::StoreU(v, df, y + i);
  }
#endif
  for (; i < n; ++i)
    y[i] = Float16BitsToFloat(x[i]);
}

// int64 -> float32 rounded once, as static_cast<float>: a vector at a time through double
// where every lane is below 2^53 in magnitude (int64 -> double is exact there, so the one
// rounding is double -> float), lane by lane otherwise and for the tail. The baseline
// build's loop converted one value an instruction (Cast int64 -> float 1.8x ORT's time).
void Int64ToFloat32Impl(const int64_t* x, float* y, size_t n) {
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<int64_t> di;
  const hn::Rebind<double, decltype(di)> dd;
  const hn::Rebind<float, decltype(di)> df;
  const hn::RebindToUnsigned<decltype(di)> du;
  const size_t lanes = hn::Lanes(di);
  const auto bias = hn::Set(di, int64_t{1} << 53);
  const auto limit = hn::Set(du, uint64_t{1} << 54);
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(di, x + i);
    if (!hn::AllTrue(du, hn::Lt(hn::BitCast(du, hn::Add(v, bias)), limit))) {
      for (size_t j = i; j < i + lanes; ++j)
        y[j] = static_cast<float>(x[j]);
      continue;
    }
    hn::StoreU(hn::DemoteTo(df, hn::ConvertTo(dd, v)), df, y + i);
  }
#endif
  for (; i < n; ++i)
    y[i] = static_cast<float>(x[i]);
}

// float32 -> int64 toward zero, saturating, NaN -> 0 (Cast's rule, cast.cc): through the
// exact float -> double widening and a vector conversion whose out-of-range lanes are
// replaced.
void Float32ToInt64Impl(const float* x, int64_t* y, size_t n) {
  auto one = [](float v) -> int64_t {
    if (std::isnan(v)) return 0;
    if (v >= 9223372036854775808.0f) return std::numeric_limits<int64_t>::max();
    if (v <= -9223372036854775808.0f) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(v);
  };
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<int64_t> di;
  const hn::Rebind<double, decltype(di)> dd;
  const hn::Rebind<float, decltype(di)> df;
  const size_t lanes = hn::Lanes(di);
  const auto hi = hn::Set(dd, 9223372036854775808.0), lo = hn::Neg(hi);
  // Values of int32's range (the usual: indices, shapes, labels) through the float -> int32
  // conversion and a widening, a whole vector of floats at a time; any other vector (NaN,
  // beyond +-2^31) through double and the saturating int64 conversion, which AVX2 has no
  // instruction for (Cast float -> int64 ran 1.62x ORT's time there).
  const hn::ScalableTag<float> dw;
  const hn::RebindToSigned<decltype(dw)> d32;
  const hn::Half<decltype(d32)> dh;
  const hn::Rebind<int64_t, decltype(dh)> d64;
  const size_t wide = hn::Lanes(dw), half = hn::Lanes(d64);
  const auto limit = hn::Set(dw, 2147483648.0f);
  for (; i + wide <= n; i += wide) {
    const auto w = hn::LoadU(dw, x + i);
    if (hn::AllTrue(dw, hn::Lt(hn::Abs(w), limit))) {
      const auto q = hn::ConvertTo(d32, w);
      hn::StoreU(hn::PromoteTo(d64, hn::LowerHalf(dh, q)), d64, y + i);
      hn::StoreU(hn::PromoteTo(d64, hn::UpperHalf(dh, q)), d64, y + i + half);
      continue;
    }
    for (size_t j = i; j < i + wide; j += lanes) {
      const auto v = hn::PromoteTo(dd, hn::LoadU(df, x + j));
      auto r = hn::ConvertTo(di, hn::Min(hn::Max(v, lo), hn::Set(dd, 9223372036854774784.0)));
      r = hn::IfThenElse(hn::RebindMask(di, hn::Ge(v, hi)),
                         hn::Set(di, std::numeric_limits<int64_t>::max()), r);
      r = hn::IfThenZeroElse(hn::RebindMask(di, hn::IsNaN(v)), r);
      hn::StoreU(r, di, y + j);
    }
  }
#endif
  for (; i < n; ++i)
    y[i] = one(x[i]);
}

size_t Float32LanesImpl() {
  return hn::Lanes(hn::ScalableTag<float>());
}
const char* TargetNameImpl() {
  return hwy::TargetName(HWY_TARGET);
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(LeakyReluF32);
HWY_EXPORT(Float32ToFloat16Impl);
HWY_EXPORT(Float16ToFloat32Impl);
HWY_EXPORT(Int64ToFloat32Impl);
HWY_EXPORT(Float32ToInt64Impl);
HWY_EXPORT(LeakyReluF64);
HWY_EXPORT(LeakyReluF16);
HWY_EXPORT(LeakyReluBF16);
HWY_EXPORT(LogF32);
HWY_EXPORT(LogF64);
HWY_EXPORT(LogF16);
HWY_EXPORT(LogBF16);
HWY_EXPORT(ReluF32);
HWY_EXPORT(ExpShiftedF32);
HWY_EXPORT(SumF32InF64);
HWY_EXPORT(SumRowsF32InF64);
HWY_EXPORT(BinaryF32);
HWY_EXPORT(MaxAheadF32);
HWY_EXPORT(Float32LanesImpl);
HWY_EXPORT(TargetNameImpl);

void LeakyReluF32(const float* x, float* y, size_t n, float alpha) {
  HWY_DYNAMIC_DISPATCH(LeakyReluF32)(x, y, n, alpha);
}
void LeakyReluF64(const double* x, double* y, size_t n, double alpha) {
  HWY_DYNAMIC_DISPATCH(LeakyReluF64)(x, y, n, alpha);
}
void LeakyReluF16(const uint16_t* x, uint16_t* y, size_t n, float alpha) {
  HWY_DYNAMIC_DISPATCH(LeakyReluF16)(x, y, n, alpha);
}
void LeakyReluBF16(const uint16_t* x, uint16_t* y, size_t n, float alpha) {
  HWY_DYNAMIC_DISPATCH(LeakyReluBF16)(x, y, n, alpha);
}
double SumF32InF64(const float* x, size_t n, bool squares, double center) {
  return HWY_DYNAMIC_DISPATCH(SumF32InF64)(x, n, squares, center);
}
void SumRowsF32InF64(const float* x, size_t stride, size_t rows, size_t n, bool squares,
                     double* out) {
  HWY_DYNAMIC_DISPATCH(SumRowsF32InF64)(x, stride, rows, n, squares, out);
}
void BinaryF32(const float* a, const float* b, float* y, size_t n, BinaryOpF32 op, bool b_scalar,
               bool swap) {
  HWY_DYNAMIC_DISPATCH(BinaryF32)(a, b, y, n, static_cast<int>(op), b_scalar, swap);
}
void MaxAheadF32(float* t, size_t n, size_t step) {
  HWY_DYNAMIC_DISPATCH(MaxAheadF32)(t, n, step);
}
void LogF32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(LogF32)(x, y, n);
}
void LogF64(const double* x, double* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(LogF64)(x, y, n);
}
void LogF16(const uint16_t* x, uint16_t* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(LogF16)(x, y, n);
}
void LogBF16(const uint16_t* x, uint16_t* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(LogBF16)(x, y, n);
}
void ReluF32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(ReluF32)(x, y, n);
}
float ExpShiftedF32(const float* x, float* y, size_t n, float shift) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftedF32)(x, y, n, shift);
}
size_t Float32Lanes() {
  return HWY_DYNAMIC_DISPATCH(Float32LanesImpl)();
}
void Float32ToFloat16(const float* x, uint16_t* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(Float32ToFloat16Impl)(x, y, n);
}
void Float16ToFloat32(const uint16_t* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(Float16ToFloat32Impl)(x, y, n);
}
void Int64ToFloat32(const int64_t* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(Int64ToFloat32Impl)(x, y, n);
}
void Float32ToInt64(const float* x, int64_t* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(Float32ToInt64Impl)(x, y, n);
}
const char* SimdTargetName() {
  return HWY_DYNAMIC_DISPATCH(TargetNameImpl)();
}

std::vector<int64_t> CompiledSimdTargets() {
  return hwy::SupportedAndGeneratedTargets();
}

const char* SimdTargetNameOf(int64_t target) {
  return hwy::TargetName(target);
}

void ForceSimdTargetForTest(int64_t target) {
  hwy::SetSupportedTargetsForTest(target);
}

namespace {

// ONNX_LIGHT_SIMD_TARGET=NAME: disable every target better than NAME (Highway orders
// targets best first, from the lowest bit).
bool ApplySimdTargetFromEnv() {
  const char* want = std::getenv("ONNX_LIGHT_SIMD_TARGET");
  if (want == nullptr || *want == '\0') return false;
  std::string names;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    if (strcasecmp(want, hwy::TargetName(t)) == 0) {
      hwy::DisableTargets(t - 1);
      return true;
    }
    names += std::string(names.empty() ? "" : ", ") + hwy::TargetName(t);
  }
  std::fprintf(stderr,
               "onnx-light: ONNX_LIGHT_SIMD_TARGET=%s is not a SIMD target compiled in and "
               "supported by this CPU (%s); ignored\n",
               want, names.c_str());
  return false;
}

[[maybe_unused]] const bool g_simd_target_from_env = ApplySimdTargetFromEnv();

}  // namespace

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE

#if HWY_ONCE
#include "onnx_light/runtime/cpu.h"
namespace onnx_light {
const char* SimdTargetName() {
  return kernels::SimdTargetName();
}
}  // namespace onnx_light
#endif
