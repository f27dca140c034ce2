// The packed Highway sgemm (simd/gemm_simd.h) on every SIMD target this CPU supports,
// against a double reference: shapes from 1 to several blocks in each dimension (edge
// tiles of 6 rows and 2 vectors, k beyond one 256-deep block, n beyond one 2048-wide
// block), a c with rows further apart than n, and accumulation into a non-zero c.
// Tolerance: 1e-5 of sum |a||b| (a float dot product's rounding is far below it). With a
// packed beforehand (SgemmPackA) the result is bit-identical.
#include "simd/gemm_simd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

class PackedSgemm : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { ForceSimdTargetForTest(GetParam()); }
  void TearDown() override { ForceSimdTargetForTest(0); }
};

TEST_P(PackedSgemm, MatchesDoubleReference) {
  struct Case {
    int64_t m, n, k, ldc_extra;
  };
  const Case cases[] = {{1, 1, 1, 0},      {6, 32, 256, 0},   {7, 33, 257, 3},
                        {5, 15, 3, 0},     {13, 70, 600, 1},  {96, 17, 9, 0},
                        {97, 2100, 20, 5}, {200, 40, 513, 0}, {2, 4500, 7, 0}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> scratch;
  for (const Case& cs : cases) {
    const int64_t ldc = cs.n + cs.ldc_extra;
    std::vector<float> a(static_cast<size_t>(cs.m * cs.k)), b(static_cast<size_t>(cs.k * cs.n));
    std::vector<float> c(static_cast<size_t>(cs.m * ldc));
    for (float& v : a)
      v = u(rng);
    for (float& v : b)
      v = u(rng);
    for (float& v : c)
      v = u(rng);
    const std::vector<float> c0 = c;
    scratch.resize(SgemmPackedWorkFloats(cs.n) + 16);
    float* work = scratch.data();
    while (reinterpret_cast<uintptr_t>(work) % 64 != 0)
      ++work;
    SgemmPacked(cs.m, cs.n, cs.k, a.data(), cs.k, b.data(), cs.n, c.data(), ldc, work);
    // With a packed once beforehand: the same products, bit for bit.
    std::vector<float> packed(SgemmPackedAFloats(cs.m, cs.k));
    SgemmPackA(cs.m, cs.k, a.data(), cs.k, packed.data());
    std::vector<float> c2 = c0;
    SgemmPacked(cs.m, cs.n, cs.k, nullptr, cs.k, b.data(), cs.n, c2.data(), ldc, work,
                packed.data());
    ASSERT_EQ(c2, c) << SimdTargetNameOf(GetParam()) << " m=" << cs.m << " n=" << cs.n;
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t j = 0; j < ldc; ++j) {
        const size_t at = static_cast<size_t>(i * ldc + j);
        if (j >= cs.n) {  // between rows: untouched
          ASSERT_EQ(c[at], c0[at]);
          continue;
        }
        double want = c0[at], mag = std::fabs(c0[at]);
        for (int64_t p = 0; p < cs.k; ++p) {
          const double x = a[static_cast<size_t>(i * cs.k + p)];
          const double y = b[static_cast<size_t>(p * cs.n + j)];
          want += x * y;
          mag += std::fabs(x * y);
        }
        ASSERT_NEAR(c[at], want, 1e-5 * mag + 1e-6)
            << SimdTargetNameOf(GetParam()) << " m=" << cs.m << " n=" << cs.n << " k=" << cs.k
            << " at " << i << "," << j;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(PerTarget, PackedSgemm, ::testing::ValuesIn(CompiledSimdTargets()),
                         [](const ::testing::TestParamInfo<int64_t>& p) {
                           return std::string(SimdTargetNameOf(p.param));
                         });

}  // namespace
}  // namespace onnx_light::kernels
