// Element codecs for the narrow ONNX types that have no C++ arithmetic type: the float8
// family (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E8M0), FLOAT4E2M1 and the packed integers
// INT4/UINT4/INT2/UINT2. Tensors keep them as ONNX stores them: one byte per float8
// element, sub-byte elements packed from the least significant bits (element 0 in the
// low bits of byte 0). Kernels read and write them one element at a time through double,
// which holds every value of every one of these types exactly.
//
// Conversion rules (the ONNX Cast specification; ml_dtypes agrees bit for bit, which
// tests/python/kernels/tensor/test_cast.py checks over every code and many float32 values):
//  - float8/float4 round to nearest even. With saturate (the default) values beyond the
//    largest finite value, infinities included, become that value with their sign.
//    Without it they become infinity (E5M2) or NaN (the others); FLOAT4E2M1 has neither
//    and always saturates. NaN stays NaN (FLOAT4E2M1: -0, as ml_dtypes). FNUZ types have
//    no negative zero.
//  - FLOAT8E8M0 keeps only the exponent (2^(e-127), 0xFF is NaN, no sign, no zero) and
//    rounds by `round_mode`: up (default), down or nearest; saturate keeps 2^127 from
//    rounding up to NaN.
//  - INT4/UINT4/INT2/UINT2 truncate toward zero and wrap (NaN and infinities give 0).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "onnx_light/core/data_type.h"

namespace onnx_light::kernels {

enum class E8M0Rounding { kUp, kDown, kNearest };

inline bool IsNarrowType(DataType t) noexcept {
  switch (t) {
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
    case DataType::kFloat4E2M1:
    case DataType::kInt4:
    case DataType::kUint4:
    case DataType::kInt2:
    case DataType::kUint2:
      return true;
    default:
      return false;
  }
}

// The code of element i (8, 4 or 2 bits, in the low bits).
inline uint32_t NarrowCode(const uint8_t* data, int bits, int64_t i) noexcept {
  if (bits == 8) return data[i];
  const int64_t per = 8 / bits;
  const int shift = static_cast<int>(i % per) * bits;
  return (data[i / per] >> shift) & ((1u << bits) - 1u);
}

inline void SetNarrowCode(uint8_t* data, int bits, int64_t i, uint32_t code) noexcept {
  if (bits == 8) {
    data[i] = static_cast<uint8_t>(code);
    return;
  }
  const int64_t per = 8 / bits;
  const int shift = static_cast<int>(i % per) * bits;
  const auto mask = static_cast<uint8_t>(((1u << bits) - 1u) << shift);
  uint8_t& byte = data[i / per];
  byte = static_cast<uint8_t>((byte & ~mask) | ((code << shift) & mask));
}

namespace narrow_detail {

struct MiniFloat {
  int exp_bits, man_bits, bias;
  bool has_inf;  // E5M2: all-ones exponent with zero mantissa
  bool fnuz;     // NaN is 0x80 (sign bit alone), no negative zero
  bool has_nan;  // FLOAT4E2M1 has none
  double max;
};

inline MiniFloat Format(DataType t) noexcept {
  switch (t) {
    case DataType::kFloat8E4M3FN:
      return {4, 3, 7, false, false, true, 448.0};
    case DataType::kFloat8E4M3FNUZ:
      return {4, 3, 8, false, true, true, 240.0};
    case DataType::kFloat8E5M2:
      return {5, 2, 15, true, false, true, 57344.0};
    case DataType::kFloat8E5M2FNUZ:
      return {5, 2, 16, false, true, true, 57344.0};
    default:  // kFloat4E2M1
      return {2, 1, 1, false, false, false, 6.0};
  }
}

inline double DecodeMini(const MiniFloat& f, uint32_t code) noexcept {
  const int total = 1 + f.exp_bits + f.man_bits;
  const uint32_t sign = (code >> (total - 1)) & 1u;
  const uint32_t e = (code >> f.man_bits) & ((1u << f.exp_bits) - 1u);
  const uint32_t m = code & ((1u << f.man_bits) - 1u);
  const uint32_t e_max = (1u << f.exp_bits) - 1u;
  if (f.fnuz && code == 0x80u) return std::nan("");
  if (f.has_inf && e == e_max) {
    return m == 0 ? (sign ? -HUGE_VAL : HUGE_VAL) : std::nan("");
  }
  if (!f.fnuz && f.has_nan && !f.has_inf && e == e_max && m == (1u << f.man_bits) - 1u) {
    return std::nan("");  // E4M3FN: S.1111.111
  }
  double v = e == 0 ? std::ldexp(static_cast<double>(m), 1 - f.bias - f.man_bits)
                    : std::ldexp(static_cast<double>(m + (1u << f.man_bits)),
                                 static_cast<int>(e) - f.bias - f.man_bits);
  return sign ? -v : v;
}

inline uint32_t EncodeMini(const MiniFloat& f, double v, bool saturate) noexcept {
  const int total = 1 + f.exp_bits + f.man_bits;
  const uint32_t sign_bit = 1u << (total - 1);
  const uint32_t max_code = [&] {
    // The largest finite magnitude's code.
    const uint32_t e_max = (1u << f.exp_bits) - 1u, m_all = (1u << f.man_bits) - 1u;
    if (f.has_inf) return ((e_max - 1u) << f.man_bits) | m_all;
    if (!f.fnuz && f.has_nan) return (e_max << f.man_bits) | (m_all - 1u);
    return (e_max << f.man_bits) | m_all;
  }();
  const uint32_t nan_code = f.fnuz ? 0x80u : (max_code | 1u);  // E4M3FN 0x7F, E5M2 0x7E
  if (std::isnan(v)) {
    if (!f.has_nan) return sign_bit;  // FLOAT4E2M1: -0, as ml_dtypes
    return f.has_inf ? (((1u << f.exp_bits) - 1u) << f.man_bits) | 2u : nan_code;
  }
  const bool neg = std::signbit(v);
  const uint32_t sign = neg ? sign_bit : 0u;
  const double a = std::fabs(v);
  auto overflow = [&]() -> uint32_t {
    if (saturate || !f.has_nan) return sign | max_code;
    if (f.has_inf) return sign | (((1u << f.exp_bits) - 1u) << f.man_bits);
    return f.fnuz ? nan_code : (sign | nan_code);
  };
  if (std::isinf(a)) return overflow();
  if (a == 0) return f.fnuz ? 0u : sign;
  const int emin = 1 - f.bias;  // exponent of the smallest normal
  int e2;
  (void)std::frexp(a, &e2);  // a = f * 2^e2, f in [0.5, 1)
  const int e = e2 - 1 < emin ? emin : e2 - 1;
  const double q = std::nearbyint(std::ldexp(a, f.man_bits - e));  // ties to even
  const double r = std::ldexp(q, e - f.man_bits);
  if (r > f.max) return overflow();
  if (r == 0) return f.fnuz ? 0u : sign;
  uint32_t code;
  if (r < std::ldexp(1.0, emin)) {
    code = static_cast<uint32_t>(q);  // subnormal: exponent field 0
  } else {
    (void)std::frexp(r, &e2);
    const int er = e2 - 1;
    const auto m = static_cast<uint32_t>(std::ldexp(r, f.man_bits - er)) - (1u << f.man_bits);
    code = (static_cast<uint32_t>(er + f.bias) << f.man_bits) | m;
  }
  return sign | code;
}

inline uint32_t EncodeE8M0(double v, bool saturate, E8M0Rounding mode) noexcept {
  const auto x = static_cast<float>(v);  // the rule is stated on float32 bits
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  uint32_t e = (bits >> 23) & 0xFFu;
  if (e == 0xFFu) return 0xFFu;
  bool up = false;
  if (mode == E8M0Rounding::kUp) {
    up = (bits & 0x7FFFFFu) != 0;
  } else if (mode == E8M0Rounding::kNearest) {
    const bool g = (bits & 0x400000u) != 0, r = (bits & 0x200000u) != 0;
    const bool s = (bits & 0x1FFFFFu) != 0, lsb = e > 0;
    up = g && (r || s || lsb);
  }
  if (up && !(saturate && e == 0xFEu)) ++e;
  return e;
}

}  // namespace narrow_detail

// The value of a narrow-type code (exact).
inline double NarrowToDouble(DataType t, uint32_t code) noexcept {
  switch (t) {
    case DataType::kInt4:
      return static_cast<double>(static_cast<int32_t>(code << 28) >> 28);
    case DataType::kInt2:
      return static_cast<double>(static_cast<int32_t>(code << 30) >> 30);
    case DataType::kUint4:
    case DataType::kUint2:
      return static_cast<double>(code);
    case DataType::kFloat8E8M0:
      return code == 0xFFu ? std::nan("") : std::ldexp(1.0, static_cast<int>(code) - 127);
    default:
      return narrow_detail::DecodeMini(narrow_detail::Format(t), code);
  }
}

// The code of `v` in narrow type t (the rules in the file comment).
inline uint32_t DoubleToNarrow(DataType t, double v, bool saturate = true,
                               E8M0Rounding rounding = E8M0Rounding::kUp) noexcept {
  switch (t) {
    case DataType::kInt4:
    case DataType::kUint4:
    case DataType::kInt2:
    case DataType::kUint2: {
      if (!std::isfinite(v)) return 0;
      const double tv = std::trunc(v);
      // Wrap modulo 2^bits; values beyond int64 keep their low bits (fmod is exact).
      const double wrapped = std::fmod(tv, 256.0);
      const auto i = static_cast<int64_t>(wrapped);
      const uint32_t mask = (t == DataType::kInt4 || t == DataType::kUint4) ? 0xFu : 0x3u;
      return static_cast<uint32_t>(i) & mask;
    }
    case DataType::kFloat8E8M0:
      return narrow_detail::EncodeE8M0(v, saturate, rounding);
    default:
      return narrow_detail::EncodeMini(narrow_detail::Format(t), v, saturate);
  }
}

}  // namespace onnx_light::kernels
