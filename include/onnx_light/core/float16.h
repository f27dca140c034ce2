// IEEE binary16 (float16) and bfloat16 value types with exact conversions.
//
// Narrowing (from float32 or float64) rounds to nearest, ties to even, in one step (a
// float64 is never rounded through float32 first), with gradual underflow to subnormals
// and overflow to infinity. Widening is exact. Signed zeros and infinities are kept.
//
// NaN rule (the same for both types): the sign is kept and the payload is truncated to
// the narrow mantissa's width; if that leaves it zero, the lowest mantissa bit is set so
// the result stays NaN. Widening shifts the payload up without quieting it. So every one
// of the 65,536 bit patterns of either type survives narrow -> wide -> narrow unchanged.
// This is numpy's float16 rule exactly; ml_dtypes' bfloat16 differs only for NaN (it
// returns the canonical quiet NaN 0x7fc0 with the sign) and for float64 inputs (it
// rounds through float32, which can double-round).
#pragma once

#include <cstdint>
#include <cstring>

namespace onnx_light {

uint16_t FloatToFloat16Bits(float value) noexcept;
uint16_t DoubleToFloat16Bits(double value) noexcept;
float Float16BitsToFloat(uint16_t bits) noexcept;
double Float16BitsToDouble(uint16_t bits) noexcept;

uint16_t FloatToBFloat16Bits(float value) noexcept;
uint16_t DoubleToBFloat16Bits(double value) noexcept;
float BFloat16BitsToFloat(uint16_t bits) noexcept;
double BFloat16BitsToDouble(uint16_t bits) noexcept;

// Trivially copyable 16-bit storage types. Arithmetic is done by converting to float.
struct float16 {
  uint16_t bits = 0;

  float16() = default;
  explicit float16(float v) noexcept : bits(FloatToFloat16Bits(v)) {}
  explicit float16(double v) noexcept : bits(DoubleToFloat16Bits(v)) {}
  static constexpr float16 FromBits(uint16_t b) noexcept {
    float16 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const noexcept { return Float16BitsToFloat(bits); }
  explicit operator double() const noexcept { return Float16BitsToDouble(bits); }
  bool IsNaN() const noexcept { return (bits & 0x7fff) > 0x7c00; }
};

struct bfloat16 {
  uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float v) noexcept : bits(FloatToBFloat16Bits(v)) {}
  explicit bfloat16(double v) noexcept : bits(DoubleToBFloat16Bits(v)) {}
  static constexpr bfloat16 FromBits(uint16_t b) noexcept {
    bfloat16 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const noexcept { return BFloat16BitsToFloat(bits); }
  explicit operator double() const noexcept { return BFloat16BitsToDouble(bits); }
  bool IsNaN() const noexcept { return (bits & 0x7fff) > 0x7f80; }
};

static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2, "16-bit storage types");

}  // namespace onnx_light
