// The separable pool's row kernels (simd/pool_simd.h) against scalar loops that follow
// their contracts, exactly (the same taps in the same order, so max and sum agree bit for
// bit): every row length 1..40 (blocks, the overlapping last block, rows shorter than a
// vector), strides 1, 2 (de-interleaved loads), 3 and 5 (gathers), 1..5 taps, NaN, ±inf
// and ±0 in the rows, rows read right up to their reach (the buffer ends there, so an
// over-read shows under the sanitizers). Once per SIMD target compiled in and supported.
#include "simd/pool_simd.h"

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

float MaxNaNRef(float v, float best) {
  return (v > best || std::isnan(v)) ? v : best;
}

bool SameBits(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return x == y;
}

std::vector<float> Values(size_t n, uint32_t seed, bool specials) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> v(n);
  const float pick[] = {std::nanf(""), kInf, -kInf, 0.0f, -0.0f};
  for (size_t i = 0; i < n; ++i)
    v[i] = specials && rng() % 7 == 0 ? pick[rng() % 5] : u(rng);
  return v;
}

class PoolSimd : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    ForceSimdTargetForTest(GetParam());
    ASSERT_STREQ(SimdTargetName(), SimdTargetNameOf(GetParam()));
  }
  void TearDown() override { ForceSimdTargetForTest(0); }
};

INSTANTIATE_TEST_SUITE_P(PerTarget, PoolSimd, ::testing::ValuesIn(CompiledSimdTargets()),
                         [](const ::testing::TestParamInfo<int64_t>& p) {
                           return std::string(SimdTargetNameOf(p.param));
                         });

TEST_P(PoolSimd, WindowRowsMatchTheScalarWindows) {
  for (bool specials : {false, true}) {
    for (size_t stride : {1u, 2u, 3u, 5u}) {
      for (size_t taps = 1; taps <= 5; ++taps) {
        for (size_t n = 1; n <= 40; ++n) {
          const size_t reach = WindowRowReach(n, taps, stride);
          ASSERT_GE(reach, (n - 1) * stride + taps);
          // Two rows, the second ending exactly at its reach.
          const size_t pitch = reach;
          const std::vector<float> rows =
              Values(2 * pitch, static_cast<uint32_t>(n * 131 + taps * 7 + stride), specials);
          for (bool max : {true, false}) {
            std::vector<float> out(2 * n, 123.0f);
            WindowRowsF32(rows.data(), pitch, 2, n, taps, stride, max, out.data());
            for (size_t r = 0; r < 2; ++r) {
              for (size_t o = 0; o < n; ++o) {
                const float* w = rows.data() + r * pitch + o * stride;
                float want = w[0];
                for (size_t k = 1; k < taps; ++k)
                  want = max ? MaxNaNRef(w[k], want) : want + w[k];
                ASSERT_TRUE(SameBits(out[r * n + o], want))
                    << "max " << max << " stride " << stride << " taps " << taps << " n " << n
                    << " row " << r << " o " << o << ": " << out[r * n + o] << " vs " << want;
              }
            }
          }
        }
      }
    }
  }
}

TEST_P(PoolSimd, FoldRowsMatchTheScalarFold) {
  // Two output rows in one call: rows [0, count) and [1, count + 1) of count + 1 input rows.
  for (int32_t count = 1; count <= 4; ++count) {
    for (size_t n = 1; n <= 40; ++n) {
      const size_t in_rows = static_cast<size_t>(count) + 1;
      const std::vector<float> rows =
          Values(in_rows * n, static_cast<uint32_t>(count * 1000 + static_cast<int32_t>(n)), true);
      std::vector<float> divisor(2 * n);
      for (size_t i = 0; i < 2 * n; ++i)
        divisor[i] = static_cast<float>(1 + (i % 3));
      const int32_t first[2] = {0, 1}, counts[2] = {count, count};
      for (int mode = 0; mode < 3; ++mode) {  // max, sum / divisor[i], sum / 4
        const bool max = mode == 0;
        const float* div = mode == 1 ? divisor.data() : nullptr;
        std::vector<float> out(2 * n, 123.0f);
        FoldRowsF32(rows.data(), n, n, 2, first, counts, max, div, 4.0f, out.data());
        for (size_t o = 0; o < 2; ++o) {
          for (size_t i = 0; i < n; ++i) {
            const float* r0 = rows.data() + o * n;
            float want = r0[i];
            for (size_t r = 1; r < static_cast<size_t>(count); ++r)
              want = max ? MaxNaNRef(r0[r * n + i], want) : want + r0[r * n + i];
            if (!max) want = want / (div != nullptr ? div[o * n + i] : 4.0f);
            ASSERT_TRUE(SameBits(out[o * n + i], want))
                << "mode " << mode << " count " << count << " n " << n << " row " << o << " i " << i
                << ": " << out[o * n + i] << " vs " << want;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace onnx_light::kernels
