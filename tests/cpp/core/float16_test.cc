#include "onnx_light/core/float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace onnx_light {
namespace {

float F32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t Bits32(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// --- Exhaustive round trips: every 16-bit pattern, NaNs included, survives bit-exactly.

TEST(Float16, AllPatternsRoundTripThroughFloat32AndFloat64) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto h = static_cast<uint16_t>(b);
    ASSERT_EQ(FloatToFloat16Bits(Float16BitsToFloat(h)), h) << std::hex << b;
    ASSERT_EQ(DoubleToFloat16Bits(Float16BitsToDouble(h)), h) << std::hex << b;
    // Widening to float32 and to float64 agree (float64 is exact for every float32).
    const float f = Float16BitsToFloat(h);
    const double d = Float16BitsToDouble(h);
    if (!std::isnan(f)) {
      ASSERT_EQ(static_cast<double>(f), d) << std::hex << b;
    }
  }
}

TEST(BFloat16, AllPatternsRoundTripThroughFloat32AndFloat64) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto h = static_cast<uint16_t>(b);
    ASSERT_EQ(FloatToBFloat16Bits(BFloat16BitsToFloat(h)), h) << std::hex << b;
    ASSERT_EQ(DoubleToBFloat16Bits(BFloat16BitsToDouble(h)), h) << std::hex << b;
    // bfloat16 is the upper half of a float32.
    ASSERT_EQ(Bits32(BFloat16BitsToFloat(h)), b << 16) << std::hex << b;
  }
}

// --- Known values at every boundary of the formats.

struct Case {
  float in;
  uint16_t out;
};

TEST(Float16, KnownRoundings) {
  const Case cases[] = {
      {0.0f, 0x0000},
      {-0.0f, 0x8000},
      {1.0f, 0x3c00},
      {-2.0f, 0xc000},
      {1.0f + 0x1p-11f, 0x3c00},      // tie -> even (down)
      {1.0f + 3 * 0x1p-11f, 0x3c02},  // tie -> even (up)
      {1.0f + 0x1p-11f + 0x1p-20f, 0x3c01},
      {65504.0f, 0x7bff},    // largest finite
      {65519.996f, 0x7bff},  // just below the overflow threshold
      {65520.0f, 0x7c00},    // tie between 65504 and 65536 -> even -> inf
      {1e10f, 0x7c00},
      {-1e10f, 0xfc00},
      {0x1p-14f, 0x0400},             // smallest normal
      {0x1p-14f - 0x1p-24f, 0x03ff},  // largest subnormal
      {0x1p-24f, 0x0001},             // smallest subnormal
      {0x1p-25f, 0x0000},             // tie -> even -> zero
      {0x1.000002p-25f, 0x0001},      // just above the tie
      {-0x1p-25f, 0x8000},
      {3 * 0x1p-25f, 0x0002},         // 1.5 quanta -> 2
      {0x1p-14f - 0x1p-25f, 0x0400},  // rounds up into the normal range
      {0x1p-149f, 0x0000},            // float32 subnormal
      {std::numeric_limits<float>::infinity(), 0x7c00},
      {-std::numeric_limits<float>::infinity(), 0xfc00},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FloatToFloat16Bits(c.in), c.out) << c.in;
    EXPECT_EQ(DoubleToFloat16Bits(static_cast<double>(c.in)), c.out) << c.in;
  }
}

TEST(BFloat16, KnownRoundings) {
  const Case cases[] = {
      {1.0f, 0x3f80},
      {-0.0f, 0x8000},
      {1.0f + 0x1p-8f, 0x3f80},      // tie -> even (down)
      {1.0f + 3 * 0x1p-8f, 0x3f82},  // tie -> even (up)
      {F32(0x7f7f7fff), 0x7f7f},     // below the overflow tie
      {F32(0x7f7f8000), 0x7f80},     // tie at the largest finite value -> inf
      {F32(0x00008000), 0x0000},     // subnormal tie -> even
      {F32(0x00018000), 0x0002},     // subnormal tie -> even (up)
      {F32(0x007fffff), 0x0080},     // largest float32 subnormal rounds to the min normal
      {std::numeric_limits<float>::infinity(), 0x7f80},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FloatToBFloat16Bits(c.in), c.out) << std::hex << Bits32(c.in);
    EXPECT_EQ(DoubleToBFloat16Bits(static_cast<double>(c.in)), c.out) << std::hex << Bits32(c.in);
  }
}

TEST(Float16, Float64RoundsOnceNotThroughFloat32) {
  // Through float32 these would first round to the exact tie, then to even.
  EXPECT_EQ(DoubleToFloat16Bits(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);
  EXPECT_EQ(DoubleToBFloat16Bits(1.0 + 0x1p-8 + 0x1p-30), 0x3f81);
  EXPECT_EQ(DoubleToFloat16Bits(0x1p-25 + 0x1p-60), 0x0001);
  EXPECT_EQ(DoubleToBFloat16Bits(1e300), 0x7f80);
  EXPECT_EQ(DoubleToFloat16Bits(-1e-300), 0x8000);
  EXPECT_EQ(DoubleToBFloat16Bits(0x1p-134), 0x0000);    // half the smallest subnormal: tie
  EXPECT_EQ(DoubleToBFloat16Bits(0x1.8p-133), 0x0002);  // 1.5 quanta -> 2 (even)
}

TEST(Float16, NaNRule) {
  // Payload truncated to the narrow width; set to 1 if that empties it (numpy's rule).
  EXPECT_EQ(FloatToFloat16Bits(F32(0x7fc00000)), 0x7e00);
  EXPECT_EQ(FloatToFloat16Bits(F32(0x7f800001)), 0x7c01);
  EXPECT_EQ(FloatToFloat16Bits(F32(0xff802000)), 0xfc01);
  EXPECT_EQ(FloatToFloat16Bits(F32(0x7fffffff)), 0x7fff);
  EXPECT_EQ(FloatToBFloat16Bits(F32(0x7f800001)), 0x7f81);
  EXPECT_EQ(FloatToBFloat16Bits(F32(0xffc00000)), 0xffc0);
  EXPECT_EQ(Bits32(Float16BitsToFloat(0x7c01)), 0x7f802000u);  // not quieted
  EXPECT_TRUE(float16::FromBits(0x7c01).IsNaN());
  EXPECT_FALSE(float16::FromBits(0x7c00).IsNaN());
  EXPECT_TRUE(bfloat16::FromBits(0xff81).IsNaN());
  EXPECT_FALSE(bfloat16::FromBits(0xff80).IsNaN());
}

// --- Nearest-even property on a sweep of float32 patterns (every 61st, ~70 million):
// the result is a nearest representable value, ties go to the even mantissa, and values
// at or past the overflow threshold give infinity.

template <uint16_t (*Narrow)(float), float (*Widen)(uint16_t)>
void CheckNearestEven(uint16_t inf_bits) {
  for (uint64_t i = 0; i <= 0xffffffffull; i += 61) {
    const auto bits = static_cast<uint32_t>(i);
    const float x = F32(bits);
    const uint16_t r = Narrow(x);
    if (std::isnan(x)) {
      ASSERT_TRUE(std::isnan(Widen(r))) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(std::signbit(Widen(r)), std::signbit(x)) << std::hex << bits;
    const auto mag = static_cast<uint16_t>(r & 0x7fff);
    const double ax = std::fabs(static_cast<double>(x));
    if (mag == inf_bits) {
      // Infinity only when x is infinite or at least halfway past the largest finite value.
      const double max = Widen(static_cast<uint16_t>(inf_bits - 1));
      const double next = 2 * max - static_cast<double>(Widen(static_cast<uint16_t>(inf_bits - 2)));
      ASSERT_GE(ax, (max + next) / 2) << std::hex << bits;
      continue;
    }
    const double here = Widen(mag);
    const double err = std::fabs(ax - here);
    const double up = Widen(static_cast<uint16_t>(mag + 1));
    ASSERT_LE(err, std::fabs(up - ax)) << std::hex << bits;
    if (err == std::fabs(up - ax)) {
      ASSERT_EQ(mag & 1, 0) << "tie not to even " << std::hex << bits;
    }
    if (mag > 0) {
      const double down = Widen(static_cast<uint16_t>(mag - 1));
      ASSERT_LE(err, std::fabs(ax - down)) << std::hex << bits;
      if (err == std::fabs(ax - down)) {
        ASSERT_EQ(mag & 1, 0) << "tie not to even " << std::hex << bits;
      }
    }
  }
}

TEST(Float16, NearestEvenSweep) {
  CheckNearestEven<FloatToFloat16Bits, Float16BitsToFloat>(0x7c00);
}
TEST(BFloat16, NearestEvenSweep) {
  CheckNearestEven<FloatToBFloat16Bits, BFloat16BitsToFloat>(0x7f80);
}

TEST(Float16, ValueTypes) {
  float16 h(1.5f);
  EXPECT_EQ(h.bits, 0x3e00);
  EXPECT_EQ(static_cast<float>(h), 1.5f);
  EXPECT_EQ(static_cast<double>(float16(0.1)), static_cast<double>(float16(0.1f)));
  bfloat16 b(3.0);
  EXPECT_EQ(b.bits, 0x4040);
  EXPECT_EQ(static_cast<float>(b), 3.0f);
  static_assert(std::is_trivially_copyable_v<float16>);
  static_assert(std::is_trivially_copyable_v<bfloat16>);
}

}  // namespace
}  // namespace onnx_light
