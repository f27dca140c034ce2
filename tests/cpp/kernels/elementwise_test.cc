// The SIMD element-wise kernels against float64 / long double references: every tail
// length, in place, specials (±0, ±inf, NaN, subnormals), values near 1, and accuracy in
// ULP. Stated bounds: float32 Log <= 1 ULP, float64 Log <= 1 ULP (vs long double);
// float16/bfloat16 results are within 1 ULP of the correctly rounded value (they are the
// float32 result rounded once); LeakyRelu is exact in every type.
//
// Every test runs once per SIMD target compiled in and supported by the running CPU
// (Highway's per-target pattern), so an AVX-512 machine also tests the AVX2, SSE4 and
// emulated paths, and the bounds cannot hold on one machine and fail on another.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "onnx_light/core/float16.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

float F32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Distance in units in the last place of `ref` (rounded to T).
template <typename T>
double Ulp(T got, long double ref) {
  if (std::isnan(static_cast<double>(ref))) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(static_cast<double>(ref))) return got == static_cast<T>(ref) ? 0 : 1e9;
  const T r = static_cast<T>(ref);
  const T next = std::nextafter(r, std::numeric_limits<T>::infinity());
  const long double ulp = static_cast<long double>(next) - static_cast<long double>(r);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

std::vector<float> SpecialFloats() {
  return {0.0f,          -0.0f,           1.0f,   -1.0f,   kInf,       -kInf,
          std::nanf(""), F32(0xffc00001), 1e-45f, -1e-45f, 1e-40f,     1.17549435e-38f,
          3.4028235e38f, -3.4028235e38f,  0.5f,   2.0f,    1.0000001f, 0.99999994f};
}

class ElementwiseSimd : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    ForceSimdTargetForTest(GetParam());
    ASSERT_STREQ(SimdTargetName(), SimdTargetNameOf(GetParam()));
  }
  void TearDown() override { ForceSimdTargetForTest(0); }
};

INSTANTIATE_TEST_SUITE_P(PerTarget, ElementwiseSimd, ::testing::ValuesIn(CompiledSimdTargets()),
                         [](const ::testing::TestParamInfo<int64_t>& p) {
                           return std::string(SimdTargetNameOf(p.param));
                         });

TEST(ElementwiseSimdTargets, SeveralTargetsAreTested) {
  const std::vector<int64_t> targets = CompiledSimdTargets();
  std::string names;
  for (int64_t t : targets)
    names += std::string(" ") + SimdTargetNameOf(t);
  std::printf("SIMD targets tested:%s\n", names.c_str());
  // Every x86-64 CPU runs at least the SSE4-or-better path and the emulated 128-bit one,
  // unless ONNX_LIGHT_SIMD_TARGET caps them.
  if (std::getenv("ONNX_LIGHT_SIMD_TARGET") == nullptr) {
    EXPECT_GE(targets.size(), 2u) << names;
  }
}

TEST_P(ElementwiseSimd, ReportsTarget) {
  EXPECT_GE(Float32Lanes(), 1u);
  EXPECT_NE(std::string(SimdTargetName()), "");
  std::printf("SIMD target %s, %zu float32 lanes\n", SimdTargetName(), Float32Lanes());
}

TEST_P(ElementwiseSimd, LeakyReluEveryTailLengthAndInPlace) {
  const size_t w = Float32Lanes();
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-10, 10);
  for (size_t n = 0; n <= 4 * w + 3; ++n) {
    std::vector<float> x(n + 2), y(n + 2, 123.0f);
    for (float& v : x)
      v = dist(rng);
    LeakyReluF32(x.data(), y.data(), n, 0.1f);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(y[i], x[i] < 0 ? x[i] * 0.1f : x[i]) << n;
    EXPECT_EQ(y[n], 123.0f) << "wrote past the end at n=" << n;
    std::vector<double> xd(x.begin(), x.end()), yd(n + 1, 7.0);
    LeakyReluF64(xd.data(), yd.data(), n, 0.1);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(yd[i], xd[i] < 0 ? xd[i] * 0.1 : xd[i]);
    EXPECT_EQ(yd[n], 7.0);
    std::vector<float> inplace = x;
    LeakyReluF32(inplace.data(), inplace.data(), n, 0.1f);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(inplace[i], y[i]);
  }
}

TEST_P(ElementwiseSimd, LeakyReluSpecials) {
  std::vector<float> x = SpecialFloats(), y(x.size());
  LeakyReluF32(x.data(), y.data(), x.size(), 0.01f);
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(y[i]));
    } else {
      EXPECT_EQ(y[i], x[i] < 0 ? x[i] * 0.01f : x[i]) << x[i];
      EXPECT_EQ(std::signbit(y[i]), std::signbit(x[i]));  // -0 stays -0
    }
  }
}

TEST_P(ElementwiseSimd, LeakyRelu16BitAllPatterns) {
  std::vector<uint16_t> x(65536), y(65536), z(65536);
  for (uint32_t i = 0; i < 65536; ++i)
    x[i] = static_cast<uint16_t>(i);
  LeakyReluF16(x.data(), y.data(), x.size(), 0.2f);
  LeakyReluBF16(x.data(), z.data(), x.size(), 0.2f);
  for (uint32_t i = 0; i < 65536; ++i) {
    const float h = Float16BitsToFloat(x[i]);
    const float b = BFloat16BitsToFloat(x[i]);
    if (std::isnan(h)) {
      ASSERT_TRUE(std::isnan(Float16BitsToFloat(y[i])));
    } else {
      ASSERT_EQ(y[i], FloatToFloat16Bits(h < 0 ? h * 0.2f : h)) << std::hex << i;
    }
    if (std::isnan(b)) {
      ASSERT_TRUE(std::isnan(BFloat16BitsToFloat(z[i])));
    } else {
      ASSERT_EQ(z[i], FloatToBFloat16Bits(b < 0 ? b * 0.2f : b)) << std::hex << i;
    }
  }
}

// The softmax body: exp(x - shift) within 2 ULP of long double exp over the whole finite
// range below 88, -inf -> 0, NaN propagated, the returned sum equal to the sum of y (to
// float rounding), every tail length, in place.
TEST_P(ElementwiseSimd, ExpShiftedAccuracySpecialsAndSum) {
  const size_t w = Float32Lanes();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-110, 80);
  double worst = 0;
  for (size_t n = 0; n <= 4 * w + 3; ++n) {
    for (int rep = 0; rep < 50; ++rep) {
      std::vector<float> x(n), y(n + 1, 123.0f);
      for (float& v : x)
        v = dist(rng);
      const float shift = rep % 2 ? 0.0f : -5.0f;
      const float sum = ExpShiftedF32(x.data(), y.data(), n, shift);
      long double want_sum = 0;
      for (size_t i = 0; i < n; ++i) {
        const long double ref = std::exp(static_cast<long double>(x[i] - shift));
        worst = std::max(worst, Ulp(y[i], ref));
        want_sum += y[i];
      }
      EXPECT_EQ(y[n], 123.0f) << "wrote past the end at n=" << n;
      EXPECT_NEAR(sum, static_cast<double>(want_sum), 1e-6 * static_cast<double>(want_sum) + 1e-30);
      // In place gives the same values.
      std::vector<float> z = x;
      ExpShiftedF32(z.data(), z.data(), n, shift);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(z[i], y[i]);
    }
  }
  EXPECT_LE(worst, 2.0);
  std::printf("ExpShiftedF32 worst error %.3f ULP\n", worst);
  const float specials[] = {-kInf, std::nanf(""), 0.0f, -1e30f, 88.0f};
  for (size_t n = 1; n <= 2 * w + 1; ++n) {  // each special at every lane position
    for (float sp : specials) {
      std::vector<float> x(n, 1.0f), y(n);
      x[n - 1] = sp;
      ExpShiftedF32(x.data(), y.data(), n, 1.0f);
      const long double ref = std::exp(static_cast<long double>(sp) - 1.0L);
      if (std::isnan(sp)) {
        EXPECT_TRUE(std::isnan(y[n - 1]));
      } else {
        EXPECT_LE(Ulp(y[n - 1], ref), 2.0) << sp;
      }
      if (n > 1) {
        EXPECT_EQ(y[0], 1.0f);  // exp(1 - 1)
      }
    }
  }
  // A fully masked row (all -inf, shift -inf) is NaN, as exp(-inf - -inf) is.
  std::vector<float> masked(5, -kInf), out(5);
  EXPECT_TRUE(std::isnan(ExpShiftedF32(masked.data(), out.data(), 5, -kInf)));
}

TEST_P(ElementwiseSimd, LogFloat32AccuracySweep) {
  // Every 97th positive float32 pattern (22 million values: subnormals, near 1, huge).
  const size_t kBatch = 1 << 16;
  std::vector<float> x(kBatch), y(kBatch);
  double worst = 0;
  float worst_x = 0;
  size_t k = 0;
  auto flush = [&] {
    LogF32(x.data(), y.data(), k);
    for (size_t i = 0; i < k; ++i) {
      const double u = Ulp(y[i], std::log(static_cast<long double>(x[i])));
      if (u > worst) worst = u, worst_x = x[i];
    }
    k = 0;
  };
  for (uint64_t b = 1; b < 0x7f800000u; b += 97) {
    x[k++] = F32(static_cast<uint32_t>(b));
    if (k == kBatch) flush();
  }
  flush();
  std::printf("float32 Log: worst %.3f ULP at %.9g\n", worst, worst_x);
  EXPECT_LE(worst, 1.0) << "at x=" << worst_x;
}

TEST_P(ElementwiseSimd, LogNearOneAndSpecials) {
  std::vector<float> x;
  float up = 1.0f, down = 1.0f;
  for (int i = 0; i < 2000; ++i) {
    up = std::nextafter(up, 2.0f);
    down = std::nextafter(down, 0.0f);
    x.push_back(up);
    x.push_back(down);
  }
  std::vector<float> y(x.size());
  LogF32(x.data(), y.data(), x.size());
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    worst = std::max(worst, Ulp(y[i], std::log(static_cast<long double>(x[i]))));
  }
  std::printf("float32 Log within 2000 ULP of 1: worst %.3f ULP\n", worst);
  EXPECT_LE(worst, 1.0);

  std::vector<float> s = {0.0f, -0.0f, -1.0f, -kInf, kInf, std::nanf(""), 1.0f, 1e-45f};
  std::vector<float> r(s.size());
  LogF32(s.data(), r.data(), s.size());
  EXPECT_EQ(r[0], -kInf);
  EXPECT_EQ(r[1], -kInf);
  EXPECT_TRUE(std::isnan(r[2]));
  EXPECT_TRUE(std::isnan(r[3]));
  EXPECT_EQ(r[4], kInf);
  EXPECT_TRUE(std::isnan(r[5]));
  EXPECT_EQ(r[6], 0.0f);
  EXPECT_NEAR(r[7], std::log(static_cast<double>(1e-45f)), 1e-4);  // smallest subnormal
}

TEST_P(ElementwiseSimd, LogFloat64Accuracy) {
  std::mt19937_64 rng(7);
  std::vector<double> x;
  for (int i = 0; i < 200000; ++i) {
    uint64_t b = rng() & 0x7fefffffffffffffull;  // positive finite
    double d;
    std::memcpy(&d, &b, 8);
    x.push_back(d);
  }
  double v = 1.0;
  for (int i = 0; i < 1000; ++i)
    x.push_back(v = std::nextafter(v, 2.0));
  x.push_back(4.9e-324);  // smallest subnormal
  std::vector<double> y(x.size());
  LogF64(x.data(), y.data(), x.size());
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    worst = std::max(worst, Ulp(y[i], std::log(static_cast<long double>(x[i]))));
  }
  std::printf("float64 Log: worst %.3f ULP\n", worst);
  EXPECT_LE(worst, 1.0);
  double specials[4] = {0.0, -2.0, std::numeric_limits<double>::infinity(), std::nan("")};
  double out[4];
  LogF64(specials, out, 4);
  EXPECT_EQ(out[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(out[3]));
}

// All 65,536 inputs of each 16-bit type: the result is within 1 ULP (of the 16-bit type)
// of log computed in long double and rounded once, and usually exactly that.
template <uint16_t (*Narrow)(float), float (*Widen)(uint16_t),
          void (*Kernel)(const uint16_t*, uint16_t*, size_t)>
void CheckLog16(const char* name) {
  std::vector<uint16_t> x(65536), y(65536);
  for (uint32_t i = 0; i < 65536; ++i)
    x[i] = static_cast<uint16_t>(i);
  Kernel(x.data(), y.data(), x.size());
  int inexact = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    const float xi = Widen(x[i]);
    const float got = Widen(y[i]);
    const float want = Widen(Narrow(static_cast<float>(std::log(static_cast<long double>(xi)))));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << name << " " << std::hex << i;
      continue;
    }
    if (Narrow(got) == Narrow(want)) continue;
    ++inexact;
    const uint16_t a = Narrow(got), b = Narrow(want);
    ASSERT_LE(std::abs(static_cast<int>(a & 0x7fff) - static_cast<int>(b & 0x7fff)), 1)
        << name << " x=" << xi << " got " << got << " want " << want;
  }
  std::printf("%s Log: %d of 65536 inputs 1 ULP from the correctly rounded result\n", name,
              inexact);
}

TEST_P(ElementwiseSimd, Log16BitAllPatterns) {
  CheckLog16<FloatToFloat16Bits, Float16BitsToFloat, LogF16>("float16");
  CheckLog16<FloatToBFloat16Bits, BFloat16BitsToFloat, LogBF16>("bfloat16");
}

TEST_P(ElementwiseSimd, Log16BitTails) {
  const size_t w = Float32Lanes();
  for (size_t n = 0; n <= 4 * w + 3; ++n) {
    std::vector<uint16_t> x(n + 1), y(n + 1, 0xbeef);
    for (size_t i = 0; i < n; ++i)
      x[i] = FloatToFloat16Bits(0.5f + static_cast<float>(i));
    LogF16(x.data(), y.data(), n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_NEAR(Float16BitsToFloat(y[i]), std::log(0.5f + static_cast<float>(i)), 2e-3);
    }
    EXPECT_EQ(y[n], 0xbeef);
    LogBF16(x.data(), y.data(), n);  // (reinterpreted bits: only the tail guard matters)
    EXPECT_EQ(y[n], 0xbeef);
  }
}

}  // namespace
}  // namespace onnx_light::kernels
