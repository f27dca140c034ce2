#include "simd/qlinear_simd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/qlinear_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The requantization of values in C's units (before its zero point), vector and scalar:
// clamped to [min - zero, max - zero] (comparisons: a NaN goes to the lower bound), rounded
// half to even, the zero point added.
template <typename T>
struct Requantizer {
  hn::ScalableTag<float> df;
  hn::Rebind<int32_t, hn::ScalableTag<float>> di;
  hn::Rebind<T, hn::ScalableTag<float>> d8;
  float lo, hi;
  int32_t zero;
  hn::Vec<hn::ScalableTag<float>> vlo, vhi;
  hn::Vec<hn::Rebind<int32_t, hn::ScalableTag<float>>> vzero;

  explicit Requantizer(int32_t z)
      : lo(static_cast<float>(std::numeric_limits<T>::min()) - static_cast<float>(z)),
        hi(static_cast<float>(std::numeric_limits<T>::max()) - static_cast<float>(z)),
        zero(z),
        vlo(hn::Set(df, lo)),
        vhi(hn::Set(df, hi)),
        vzero(hn::Set(di, z)) {}

  // The value is clamped before it is rounded, so the code fits T: rounded and converted in
  // one instruction (NearestInt: half to even) and narrowed by truncation, not by the
  // saturating demotes' packs and permutes (QLinearAdd ran 1.8x ORT's time with them).
  HWY_INLINE void Store(hn::Vec<hn::ScalableTag<float>> v, T* out) const {
    using U = std::make_unsigned_t<T>;
    const hn::Rebind<uint32_t, hn::ScalableTag<float>> du;
    const hn::Rebind<U, hn::ScalableTag<float>> dq;
    v = hn::IfThenElse(hn::Gt(v, vlo), v, vlo);  // NaN: lo
    v = hn::Min(v, vhi);
    const auto q = hn::BitCast(du, hn::Add(hn::NearestInt(v), vzero));
    hn::StoreU(hn::TruncateTo(dq, q), dq, reinterpret_cast<U*>(out));
  }
  HWY_INLINE T Scalar(float v) const {
    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    return static_cast<T>(static_cast<int32_t>(std::nearbyint(v)) + zero);
  }
};

template <typename T>
void RequantizeRowsT(const int32_t* acc, int64_t ldc, int64_t rows, int64_t n, const int32_t* bias,
                     const float* scale, int32_t zero, T* out, int64_t ldo) {
  const Requantizer<T> rq(zero);
  const auto lanes = static_cast<int64_t>(hn::Lanes(rq.df));
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t* a = acc + r * ldc;
    T* o = out + r * ldo;
    int64_t j = 0;
    for (; j + lanes <= n; j += lanes) {
      const auto sum = hn::Add(hn::LoadU(rq.di, a + j), hn::LoadU(rq.di, bias + j));
      rq.Store(hn::Mul(hn::ConvertTo(rq.df, sum), hn::LoadU(rq.df, scale + j)), o + j);
    }
    for (; j < n; ++j) {
      const auto sum =
          static_cast<int32_t>(static_cast<uint32_t>(a[j]) + static_cast<uint32_t>(bias[j]));
      o[j] = rq.Scalar(static_cast<float>(sum) * scale[j]);
    }
  }
}

void RequantizeRowsImpl(const int32_t* acc, int64_t ldc, int64_t rows, int64_t n,
                        const int32_t* bias, const float* scale, int32_t zero, bool out_signed,
                        void* out, int64_t ldo) {
  if (out_signed) {
    RequantizeRowsT(acc, ldc, rows, n, bias, scale, zero, static_cast<int8_t*>(out), ldo);
  } else {
    RequantizeRowsT(acc, ldc, rows, n, bias, scale, zero, static_cast<uint8_t*>(out), ldo);
  }
}

// QLinearMatMul's requantization in double, as the ONNX reference computes it:
// acc * scale + zero (two roundings, no fused multiply-add), clamped to [lo - 1, hi + 1]
// (a NaN to lo - 1), rounded half to even, clamped to [lo, hi].
template <typename T>
void RequantizeRowF64T(const int32_t* acc, int64_t n, const double* scale, double zero, double lo,
                       double hi, T* out) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<int32_t, decltype(dd)> di;
  const auto lanes = static_cast<int64_t>(hn::Lanes(dd));
  const auto vzero = hn::Set(dd, zero), vlo = hn::Set(dd, lo), vhi = hn::Set(dd, hi);
  const auto vlo1 = hn::Set(dd, lo - 1.0), vhi1 = hn::Set(dd, hi + 1.0);
  const hn::Rebind<T, decltype(dd)> dq;
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    auto v = hn::Add(hn::Mul(hn::PromoteTo(dd, hn::LoadU(di, acc + j)), hn::LoadU(dd, scale + j)),
                     vzero);
    v = hn::IfThenElse(hn::Gt(v, vlo1), v, vlo1);
    v = hn::IfThenElse(hn::Lt(v, vhi1), v, vhi1);
    v = hn::Min(hn::Max(hn::Round(v), vlo), vhi);
    hn::StoreU(hn::DemoteTo(dq, hn::DemoteTo(di, v)), dq, out + j);  // in range: exact
  }
  for (; j < n; ++j) {
    double v = static_cast<double>(acc[j]) * scale[j] + zero;
    v = v > lo - 1.0 ? v : lo - 1.0;
    v = v < hi + 1.0 ? v : hi + 1.0;
    v = std::nearbyint(v);
    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    out[j] = static_cast<T>(static_cast<int32_t>(v));
  }
}

void RequantizeRowF64Impl(const int32_t* acc, int64_t n, const double* scale, double zero,
                          bool out_signed, void* out) {
  if (out_signed) {
    RequantizeRowF64T(acc, n, scale, zero, -128.0, 127.0, static_cast<int8_t*>(out));
  } else {
    RequantizeRowF64T(acc, n, scale, zero, 0.0, 255.0, static_cast<uint8_t*>(out));
  }
}

void ProductsToFloatImpl(float* y, int64_t rows, int64_t n, const float* scale, bool one_scale,
                         const float* bias, bool one_bias) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  auto scale_at = [&](int64_t j) {
    return one_scale ? hn::Set(df, scale[0]) : hn::LoadU(df, scale + j);
  };
  auto bias_at = [&](int64_t j) {
    return one_bias ? hn::Set(df, bias[0]) : hn::LoadU(df, bias + j);
  };
  for (int64_t r = 0; r < rows; ++r) {
    float* o = y + r * n;
    const auto* acc = reinterpret_cast<const int32_t*>(o);
    int64_t j = 0;
    for (; j + lanes <= n; j += lanes) {
      auto v = hn::Mul(hn::ConvertTo(df, hn::LoadU(di, acc + j)), scale_at(j));
      if (bias != nullptr) v = hn::Add(v, bias_at(j));
      hn::StoreU(v, df, o + j);
    }
    for (; j < n; ++j) {
      float v = static_cast<float>(acc[j]) * scale[one_scale ? 0 : j];
      if (bias != nullptr) v += bias[one_bias ? 0 : j];
      o[j] = v;
    }
  }
}

template <typename T, QLinearBinaryKind kKind, bool kOneB>
void BinaryT(const T* a, const T* b, T* c, int64_t n, float ra, float rb, int32_t za, int32_t zb,
             int32_t zc) {
  const Requantizer<T> rq(zc);
  const auto lanes = static_cast<int64_t>(hn::Lanes(rq.df));
  const auto vza = hn::Set(rq.di, za), vzb = hn::Set(rq.di, zb);
  const auto vra = hn::Set(rq.df, ra), vrb = hn::Set(rq.df, rb);
  const float y0 = static_cast<float>(static_cast<int32_t>(b[0]) - zb);
  const auto vy0 = hn::Set(rq.df, y0);
  auto codes = [&](const T* p, hn::Vec<decltype(rq.di)> z) {
    return hn::ConvertTo(rq.df, hn::Sub(hn::PromoteTo(rq.di, hn::LoadU(rq.d8, p)), z));
  };
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto x = codes(a + i, vza);
    const auto y = kOneB ? vy0 : codes(b + i, vzb);
    if constexpr (kKind == QLinearBinaryKind::kAdd) {
      rq.Store(hn::Add(hn::Mul(vra, x), hn::Mul(vrb, y)), c + i);
    } else {
      rq.Store(hn::Mul(hn::Mul(x, y), vra), c + i);
    }
  }
  for (; i < n; ++i) {
    const auto x = static_cast<float>(static_cast<int32_t>(a[i]) - za);
    const float y = kOneB ? y0 : static_cast<float>(static_cast<int32_t>(b[i]) - zb);
    c[i] = rq.Scalar(kKind == QLinearBinaryKind::kAdd ? ra * x + rb * y : x * y * ra);
  }
}

template <typename T>
void BinaryTyped(QLinearBinaryKind kind, const T* a, const T* b, bool one_b, T* c, int64_t n,
                 float ra, float rb, int32_t za, int32_t zb, int32_t zc) {
  constexpr auto kAdd = QLinearBinaryKind::kAdd, kMul = QLinearBinaryKind::kMul;
  if (kind == kAdd) {
    (one_b ? BinaryT<T, kAdd, true> : BinaryT<T, kAdd, false>)(a, b, c, n, ra, rb, za, zb, zc);
  } else {
    (one_b ? BinaryT<T, kMul, true> : BinaryT<T, kMul, false>)(a, b, c, n, ra, rb, za, zb, zc);
  }
}

void QLinearBinaryFlatImpl(QLinearBinaryKind kind, bool is_signed, const void* a, const void* b,
                           bool one_b, void* c, int64_t n, float ra, float rb, int32_t za,
                           int32_t zb, int32_t zc) {
  if (is_signed) {
    BinaryTyped(kind, static_cast<const int8_t*>(a), static_cast<const int8_t*>(b), one_b,
                static_cast<int8_t*>(c), n, ra, rb, za, zb, zc);
  } else {
    BinaryTyped(kind, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b), one_b,
                static_cast<uint8_t*>(c), n, ra, rb, za, zb, zc);
  }
}

// V = B^T d B: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3, then the same on the columns.
template <class V>
HWY_INLINE void InputTransform(V d[4][4], V out[16]) {
  V t[4][4];
  for (int s = 0; s < 4; ++s) {
    t[0][s] = hn::Sub(d[0][s], d[2][s]);
    t[1][s] = hn::Add(d[1][s], d[2][s]);
    t[2][s] = hn::Sub(d[2][s], d[1][s]);
    t[3][s] = hn::Sub(d[1][s], d[3][s]);
  }
  for (int r = 0; r < 4; ++r) {
    out[r * 4 + 0] = hn::Sub(t[r][0], t[r][2]);
    out[r * 4 + 1] = hn::Add(t[r][1], t[r][2]);
    out[r * 4 + 2] = hn::Sub(t[r][2], t[r][1]);
    out[r * 4 + 3] = hn::Sub(t[r][1], t[r][3]);
  }
}

void WinogradInputTilesImpl(const int16_t* img, int64_t wp, int64_t cp, int64_t tr0, int64_t tr1,
                            int64_t tw, int64_t c, int16_t* v) {
  const hn::ScalableTag<int16_t> d16;
  const hn::CappedTag<int16_t, 1> d1;  // the channels past the last whole vector
  const auto lanes = static_cast<int64_t>(hn::Lanes(d16));
  const int64_t tiles = (tr1 - tr0) * tw;
  for (int64_t tr = tr0; tr < tr1; ++tr) {
    for (int64_t tc = 0; tc < tw; ++tc) {
      const int64_t tile = (tr - tr0) * tw + tc;
      const int16_t* base = img + (2 * tr * wp + 2 * tc) * cp;
      int16_t* o = v + tile * c;
      int64_t ch = 0;
      for (; ch + lanes <= c; ch += lanes) {
        hn::Vec<decltype(d16)> d[4][4], out[16];
        for (int r = 0; r < 4; ++r)
          for (int s = 0; s < 4; ++s)
            d[r][s] = hn::LoadU(d16, base + (r * wp + s) * cp + ch);
        InputTransform(d, out);
        for (int i = 0; i < 16; ++i)
          hn::StoreU(out[i], d16, o + i * tiles * c + ch);
      }
      for (; ch < c; ++ch) {
        hn::Vec<decltype(d1)> d[4][4], out[16];
        for (int r = 0; r < 4; ++r)
          for (int s = 0; s < 4; ++s)
            d[r][s] = hn::LoadU(d1, base + (r * wp + s) * cp + ch);
        InputTransform(d, out);
        for (int i = 0; i < 16; ++i)
          hn::StoreU(out[i], d1, o + i * tiles * c + ch);
      }
    }
  }
}

// Y = A^T M A / 4: rows M0 + M1 + M2, M1 - M2 - M3, then the same on the columns; the
// int32 sums wrap (vector adds), and the result is a multiple of 4 (an exact shift).
void WinogradOutputTilesImpl(const int32_t* prod, int64_t tr0, int64_t tr1, int64_t tw, int64_t m,
                             int64_t oh, int64_t ow, int32_t* acc) {
  const hn::ScalableTag<int32_t> d32;
  const hn::CappedTag<int32_t, 1> d1;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d32));
  const int64_t tiles = (tr1 - tr0) * tw, stride = tiles * m;
  for (int64_t tr = tr0; tr < tr1; ++tr) {
    for (int64_t tc = 0; tc < tw; ++tc) {
      const int64_t tile = (tr - tr0) * tw + tc;
      const int64_t oy = 2 * tr, ox = 2 * tc;
      const bool down = oy + 1 < oh, right = ox + 1 < ow;
      int32_t* y0 = acc + ((oy - 2 * tr0) * ow + ox) * m;
      auto one = [&](auto d, int64_t j) {
        using V = hn::Vec<decltype(d)>;
        const int32_t* p = prod + tile * m + j;
        V s0[4], s1[4];
        for (int s = 0; s < 4; ++s) {
          const V m0 = hn::LoadU(d, p + s * stride), m1 = hn::LoadU(d, p + (4 + s) * stride);
          const V m2 = hn::LoadU(d, p + (8 + s) * stride), m3 = hn::LoadU(d, p + (12 + s) * stride);
          s0[s] = hn::Add(hn::Add(m0, m1), m2);
          s1[s] = hn::Sub(hn::Sub(m1, m2), m3);
        }
        hn::StoreU(hn::ShiftRight<2>(hn::Add(hn::Add(s0[0], s0[1]), s0[2])), d, y0 + j);
        if (right)
          hn::StoreU(hn::ShiftRight<2>(hn::Sub(hn::Sub(s0[1], s0[2]), s0[3])), d, y0 + m + j);
        if (down) {
          int32_t* y1 = y0 + ow * m;
          hn::StoreU(hn::ShiftRight<2>(hn::Add(hn::Add(s1[0], s1[1]), s1[2])), d, y1 + j);
          if (right)
            hn::StoreU(hn::ShiftRight<2>(hn::Sub(hn::Sub(s1[1], s1[2]), s1[3])), d, y1 + m + j);
        }
      };
      int64_t j = 0;
      for (; j + lanes <= m; j += lanes)
        one(d32, j);
      for (; j < m; ++j)
        one(d1, j);
    }
  }
}

// QAvgPoolRow (qlinear_simd.h): a vector of outputs at a time, each lane adding its taps
// in the scalar kernel's order with the scalar kernel's roundings (this file is compiled
// without FP contraction).
template <typename T>
void QAvgPoolRowT(const T* const* rows, int64_t nrows, int64_t kw, int64_t count, float scale,
                  int32_t zp, float divisor, float y_scale, int32_t y_zp, T* out) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const hn::Rebind<T, decltype(df)> d8;
  const auto vscale = hn::Set(df, scale), vdiv = hn::Set(df, divisor);
  const auto vys = hn::Set(df, y_scale), vyz = hn::Set(df, static_cast<float>(y_zp));
  const auto vzp = hn::Set(di, zp);
  constexpr auto kLo = static_cast<int32_t>(std::numeric_limits<T>::min());
  constexpr auto kHi = static_cast<int32_t>(std::numeric_limits<T>::max());
  const auto vlo = hn::Set(di, kLo), vhi = hn::Set(di, kHi);
  const auto n = static_cast<int64_t>(hn::Lanes(df));
  // The last vector overlaps the one before it when count is not a multiple of the
  // lanes (the outputs computed twice come out the same); fewer than a vector: scalar.
  int64_t j = 0;
  for (; j < count && count >= n; j += n) {
    j = std::min(j, count - n);
    auto acc = hn::Zero(df);
    for (int64_t r = 0; r < nrows; ++r) {
      for (int64_t t = 0; t < kw; ++t) {
        const auto code = hn::PromoteTo(di, hn::LoadU(d8, rows[r] + j + t));
        acc = hn::Add(acc, hn::Mul(hn::ConvertTo(df, hn::Sub(code, vzp)), vscale));
      }
    }
    const auto v = hn::Add(hn::Div(hn::Div(acc, vdiv), vys), vyz);
    const auto q = hn::Min(hn::Max(hn::NearestInt(v), vlo), vhi);
    hn::StoreU(hn::DemoteTo(d8, q), d8, out + j);
  }
  for (; j < count; ++j) {
    float acc = 0.0f;
    for (int64_t r = 0; r < nrows; ++r) {
      for (int64_t t = 0; t < kw; ++t)
        acc += scale * static_cast<float>(static_cast<int32_t>(rows[r][j + t]) - zp);
    }
    const auto q =
        static_cast<int32_t>(std::nearbyint(acc / divisor / y_scale + static_cast<float>(y_zp)));
    out[j] = static_cast<T>(std::max(kLo, std::min(q, kHi)));
  }
}

void QAvgPoolRowImpl(bool is_signed, const void* const* rows, int64_t nrows, int64_t kw,
                     int64_t count, float scale, int32_t zp, float divisor, float y_scale,
                     int32_t y_zp, void* out) {
  if (is_signed) {
    QAvgPoolRowT(reinterpret_cast<const int8_t* const*>(rows), nrows, kw, count, scale, zp, divisor,
                 y_scale, y_zp, static_cast<int8_t*>(out));
  } else {
    QAvgPoolRowT(reinterpret_cast<const uint8_t* const*>(rows), nrows, kw, count, scale, zp,
                 divisor, y_scale, y_zp, static_cast<uint8_t*>(out));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(RequantizeRowsImpl);
HWY_EXPORT(RequantizeRowF64Impl);
HWY_EXPORT(ProductsToFloatImpl);
HWY_EXPORT(QLinearBinaryFlatImpl);
HWY_EXPORT(WinogradInputTilesImpl);
HWY_EXPORT(WinogradOutputTilesImpl);
HWY_EXPORT(QAvgPoolRowImpl);

void QAvgPoolRow(bool is_signed, const void* const* rows, int64_t nrows, int64_t kw, int64_t count,
                 float scale, int32_t zp, float divisor, float y_scale, int32_t y_zp, void* out) {
  if (count <= 0) return;
  HWY_DYNAMIC_DISPATCH(QAvgPoolRowImpl)
  (is_signed, rows, nrows, kw, count, scale, zp, divisor, y_scale, y_zp, out);
}

void ProductsToFloat(float* y, int64_t rows, int64_t n, const float* scale, bool one_scale,
                     const float* bias, bool one_bias) {
  HWY_DYNAMIC_DISPATCH(ProductsToFloatImpl)(y, rows, n, scale, one_scale, bias, one_bias);
}

void RequantizeRowF64(const int32_t* acc, int64_t n, const double* scale, double zero,
                      bool out_signed, void* out) {
  HWY_DYNAMIC_DISPATCH(RequantizeRowF64Impl)(acc, n, scale, zero, out_signed, out);
}

void RequantizeRows(const int32_t* acc, int64_t ldc, int64_t rows, int64_t n, const int32_t* bias,
                    const float* scale, int32_t zero, bool out_signed, void* out, int64_t ldo) {
  HWY_DYNAMIC_DISPATCH(RequantizeRowsImpl)
  (acc, ldc, rows, n, bias, scale, zero, out_signed, out, ldo);
}

void QLinearBinaryFlat(QLinearBinaryKind kind, bool is_signed, const void* a, const void* b,
                       bool one_b, void* c, int64_t n, float ra, float rb, int32_t za, int32_t zb,
                       int32_t zc) {
  if (n <= 0) return;
  HWY_DYNAMIC_DISPATCH(QLinearBinaryFlatImpl)
  (kind, is_signed, a, b, one_b, c, n, ra, rb, za, zb, zc);
}

void WinogradInputTiles(const int16_t* img, int64_t wp, int64_t cp, int64_t tr0, int64_t tr1,
                        int64_t tw, int64_t c, int16_t* v) {
  HWY_DYNAMIC_DISPATCH(WinogradInputTilesImpl)(img, wp, cp, tr0, tr1, tw, c, v);
}

void WinogradOutputTiles(const int32_t* prod, int64_t tr0, int64_t tr1, int64_t tw, int64_t m,
                         int64_t oh, int64_t ow, int32_t* acc) {
  HWY_DYNAMIC_DISPATCH(WinogradOutputTilesImpl)(prod, tr0, tr1, tw, m, oh, ow, acc);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
