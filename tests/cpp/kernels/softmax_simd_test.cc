// The Softmax rows' exp (simd/softmax_simd.h) within 2 ULP of exp in double over every
// float in [-87.3, 0] a step apart (3.3M points, both ends and the cut included), 0 below
// the cut and for -inf, NaN kept; Softmax and LogSoftmax rows against double loops
// (relative 4e-7 plus the rounding of x - max) at every length 1..70 (tails), masked (-inf) entries
// exactly 0, rows of ±inf and NaN as the scalar formula gives them. Once per SIMD target compiled
// in.
#include "simd/softmax_simd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

class SoftmaxSimd : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    ForceSimdTargetForTest(GetParam());
    ASSERT_STREQ(SimdTargetName(), SimdTargetNameOf(GetParam()));
  }
  void TearDown() override { ForceSimdTargetForTest(0); }
};

INSTANTIATE_TEST_SUITE_P(PerTarget, SoftmaxSimd, ::testing::ValuesIn(CompiledSimdTargets()),
                         [](const ::testing::TestParamInfo<int64_t>& p) {
                           return std::string(SimdTargetNameOf(p.param));
                         });

double UlpOf(float v) {
  return std::nextafter(v, kInf) - v;
}

TEST_P(SoftmaxSimd, ExpIsWithinTwoUlp) {
  std::vector<float> x;
  for (float v = 0.0f; v >= -87.3f; v -= 2.6e-5f)
    x.push_back(v);
  x.push_back(-0.0f);
  x.push_back(-1e-30f);
  x.push_back(-87.33f);
  std::vector<float> y(x.size());
  ExpNonPositiveF32(x.data(), y.data(), x.size());
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(static_cast<double>(x[i]));
    const double ulp = UlpOf(static_cast<float>(want));
    worst = std::max(worst, std::fabs(y[i] - want) / ulp);
  }
  EXPECT_LE(worst, 2.0);
  const float special[] = {-87.34f, -100.0f, -1e30f, -kInf, std::nanf("")};
  float out[5];
  ExpNonPositiveF32(special, out, 5);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out[i], 0.0f) << special[i];
  EXPECT_TRUE(std::isnan(out[4]));
}

TEST_P(SoftmaxSimd, ExpAnywhereIsWithinTwoUlpOverEveryFloat) {
  // Every 4999th float bit pattern from -104 to 89 (normal, subnormal and overflowing
  // results), then the specials.
  std::vector<float> x;
  auto bits_of = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  };
  for (uint32_t sign : {0u, 0x80000000u}) {
    const uint32_t last = bits_of(sign ? -104.0f : 89.0f);
    for (uint32_t b = sign; b <= last; b += 4999) {
      float f;
      std::memcpy(&f, &b, 4);
      x.push_back(f);
    }
  }
  std::vector<float> y(x.size());
  ExpAnywhereF32(x.data(), y.data(), x.size());
  double worst = 0;
  float worst_x = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(static_cast<double>(x[i]));
    const auto wf = static_cast<float>(want);
    if (std::isinf(wf) || wf == 0) {
      ASSERT_EQ(y[i], wf) << x[i];
      continue;
    }
    // (subnormal results: their ULP is the smallest subnormal)
    const double ulp = std::max(UlpOf(wf), 1.4e-45);
    const double u = std::fabs(y[i] - want) / ulp;
    if (u > worst) {
      worst = u;
      worst_x = x[i];
    }
  }
  EXPECT_LE(worst, 2.0) << "at " << worst_x;
  const float special[] = {-kInf, kInf, std::nanf(""), -0.0f, 0.0f, 88.7228f, 88.7229f};
  float out[7];
  ExpAnywhereF32(special, out, 7);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], kInf);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(out[3], 1.0f);
  EXPECT_EQ(out[4], 1.0f);
  EXPECT_TRUE(std::isfinite(out[5]));
  EXPECT_EQ(out[6], kInf);
}

TEST_P(SoftmaxSimd, RowsMatchDoubleLoops) {
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0.0f, 4.0f);
  for (size_t n = 1; n <= 70; ++n) {
    std::vector<float> x(n), y(n), z(n);
    for (float& v : x)
      v = nd(rng);
    if (n > 2) x[n / 2] = -kInf;  // a masked position
    SoftmaxRowF32(x.data(), y.data(), n);
    LogSoftmaxRowF32(x.data(), z.data(), n);
    double m = -kInf, sum = 0;
    for (float v : x)
      m = std::max(m, static_cast<double>(v));
    for (float v : x)
      sum += std::exp(v - m);
    for (size_t i = 0; i < n; ++i) {
      const double want = std::exp(x[i] - m) / sum;
      // x - max rounds to float (half an ULP of |x - max|, which exp turns into a relative
      // error of as much), then 2 ULP of exp and the scale's roundings.
      const double t = std::fabs(x[i] - m);
      if (!std::isinf(x[i])) {
        EXPECT_NEAR(y[i], want, want * (6e-8 * (1 + t) + 4e-7) + 1e-30) << n << " " << i;
      }
      if (std::isinf(x[i])) {
        EXPECT_EQ(y[i], 0.0f);
        EXPECT_EQ(z[i], -kInf);
      } else {
        const double lwant = (x[i] - m) - std::log(sum);
        EXPECT_NEAR(z[i], lwant, 1e-6 * std::fabs(lwant) + 1e-6) << n << " " << i;
      }
    }
  }
}

TEST_P(SoftmaxSimd, InfinitiesAndNaNFollowTheFormula) {
  for (size_t n : {3u, 17u, 40u}) {
    std::vector<float> x(n, 1.0f), y(n);
    x[1] = kInf;  // max +inf: inf - inf is NaN, so the sum is
    SoftmaxRowF32(x.data(), y.data(), n);
    for (float v : y)
      EXPECT_TRUE(std::isnan(v));
    std::fill(x.begin(), x.end(), -kInf);  // every entry masked: -inf - -inf is NaN
    SoftmaxRowF32(x.data(), y.data(), n);
    for (float v : y)
      EXPECT_TRUE(std::isnan(v));
    std::fill(x.begin(), x.end(), 0.5f);
    x[n - 1] = std::nanf("");  // the maximum passes over NaN; exp(NaN) poisons the sum
    SoftmaxRowF32(x.data(), y.data(), n);
    for (float v : y)
      EXPECT_TRUE(std::isnan(v));
    std::fill(x.begin(), x.end(), 2.0f);  // equal entries: exactly 1/n each
    SoftmaxRowF32(x.data(), y.data(), n);
    for (float v : y)
      EXPECT_FLOAT_EQ(v, 1.0f / static_cast<float>(n));
  }
}

}  // namespace
}  // namespace onnx_light::kernels
