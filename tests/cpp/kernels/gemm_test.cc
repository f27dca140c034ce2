// Gemm2D (OpenBLAS for float/double in the default build) and Gemm2DLoop against a long
// double reference: every transpose combination, shapes from empty to several BLAS blocks,
// accumulation into a non-zero C, and the pool's row split. Tolerance: relative 1e-5 of
// sum |a||b| for float, 1e-13 for double (both far above a dot product's rounding).
#include "math/gemm.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

struct Case {
  int64_t m, n, k;
  bool ta, tb;
};

enum class Path { kGemm2D, kLoop, kOwn };

template <typename T>
void Check(const Case& cs, ThreadPool* pool, bool loop_only, double tol,
           Path path = Path::kGemm2D) {
  std::mt19937 rng(static_cast<unsigned>(cs.m * 131 + cs.n * 17 + cs.k));
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<T> a(static_cast<size_t>(cs.m * cs.k)), b(static_cast<size_t>(cs.k * cs.n));
  std::vector<T> c(static_cast<size_t>(cs.m * cs.n));
  for (T& v : a)
    v = static_cast<T>(dist(rng));
  for (T& v : b)
    v = static_cast<T>(dist(rng));
  for (T& v : c)
    v = static_cast<T>(dist(rng));
  const std::vector<T> c0 = c;
  // a is stored [m, k] or, transposed, [k, m]; b [k, n] or [n, k].
  const int64_t lar = cs.ta ? 1 : cs.k, lac = cs.ta ? cs.m : 1;
  const int64_t lbr = cs.tb ? 1 : cs.n, lbc = cs.tb ? cs.k : 1;
  if (path == Path::kOwn) {
    ASSERT_TRUE(
        OwnGemm2D(a.data(), lar, lac, b.data(), lbr, lbc, c.data(), cs.m, cs.n, cs.k, pool));
  } else if (loop_only) {
    Gemm2DLoop(a.data(), lar, lac, b.data(), lbr, lbc, c.data(), cs.m, cs.n, cs.k);
  } else {
    Gemm2D(a.data(), lar, lac, b.data(), lbr, lbc, c.data(), cs.m, cs.n, cs.k, pool);
  }
  for (int64_t i = 0; i < cs.m; ++i) {
    for (int64_t j = 0; j < cs.n; ++j) {
      long double ref = c0[static_cast<size_t>(i * cs.n + j)], mag = std::fabs(ref);
      for (int64_t p = 0; p < cs.k; ++p) {
        const long double x = a[static_cast<size_t>(i * lar + p * lac)];
        const long double y = b[static_cast<size_t>(p * lbr + j * lbc)];
        ref += x * y;
        mag += std::fabs(x * y);
      }
      const double got = static_cast<double>(c[static_cast<size_t>(i * cs.n + j)]);
      ASSERT_LE(std::fabs(got - static_cast<double>(ref)), tol * static_cast<double>(mag) + 1e-30)
          << "m=" << cs.m << " n=" << cs.n << " k=" << cs.k << " ta=" << cs.ta << " tb=" << cs.tb
          << " at (" << i << ", " << j << ")";
    }
  }
}

std::vector<Case> Cases() {
  std::vector<Case> out;
  for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{{0, 3, 4},
                                                            {3, 0, 4},
                                                            {3, 4, 0},
                                                            {1, 1, 1},
                                                            {1, 7, 5},
                                                            {7, 1, 5},
                                                            {5, 6, 1},
                                                            {17, 33, 65},
                                                            {64, 64, 64},
                                                            {129, 70, 300},
                                                            {300, 257, 31}}) {
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        out.push_back({m, n, k, ta, tb});
  }
  return out;
}

TEST(Gemm, FloatMatchesReference) {
  for (const Case& cs : Cases()) {
    Check<float>(cs, nullptr, false, 1e-5);
    Check<float>(cs, nullptr, true, 1e-5);
  }
}

TEST(Gemm, DoubleMatchesReference) {
  for (const Case& cs : Cases()) {
    Check<double>(cs, nullptr, false, 1e-13);
    Check<double>(cs, nullptr, true, 1e-13);
  }
}

// The own kernels alone (a build without OpenBLAS runs them for every product): a or b
// transposed, vectors, one and three threads, on every case above.
TEST(Gemm, OwnKernelsMatchReference) {
  ThreadPool pool(3);
  for (const Case& cs : Cases()) {
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      Check<float>(cs, p, false, 1e-5, Path::kOwn);
      Check<double>(cs, p, false, 1e-13, Path::kOwn);
    }
  }
  Check<float>({1, 2048, 512, false, true}, &pool, false, 1e-5, Path::kOwn);
  Check<float>({100, 1100, 300, false, false}, &pool, false, 1e-5, Path::kOwn);
}

TEST(Gemm, RowSplitAcrossPoolMatchesReference) {
  ThreadPool pool(3);
  for (const Case& cs : Cases())
    Check<float>(cs, &pool, false, 1e-5);
}

TEST(Gemm, OneRowSplitsItsColumnsAcrossThePool) {
  // A recurrent step: one row times a 2048 x 512 matrix, stored either way round.
  ThreadPool pool(3);
  for (bool tb : {false, true}) {
    Check<float>({1, 2048, 512, false, tb}, &pool, false, 1e-5);
    Check<float>({1, 2048, 512, false, tb}, nullptr, false, 1e-5);
  }
}

TEST(Gemm, IntegerLoopWrapsLikeNumpy) {
  // uint32 accumulation: 65536 * 65536 wraps to 0, plus 3.
  const uint32_t a[2] = {65536u, 1u}, b[2] = {65536u, 3u};
  uint32_t c = 0;
  Gemm2D(a, 2, 1, b, 1, 1, &c, 1, 1, 2);
  EXPECT_EQ(c, 3u);
}

}  // namespace
}  // namespace onnx_light::kernels
