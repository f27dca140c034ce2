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
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "math/gemm.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/denormals.h"
#include "simd/elementwise_simd.h"
#include "simd/qgemm_simd.h"

namespace onnx_light::kernels {
namespace {

// b [k x n] packed by SgemmPackB into `storage`, at its first 64-byte boundary.
const float* PackedB(int64_t k, int64_t n, const std::vector<float>& b,
                     std::vector<float>* storage) {
  storage->assign(SgemmPackedBFloats(k, n) + 16, 0.0f);
  float* packed = storage->data();
  while (reinterpret_cast<uintptr_t>(packed) % 64 != 0)
    ++packed;
  SgemmPackB(k, n, b.data(), n, packed);
  return packed;
}

// Row i of a [m x k] (row-major) times column j of b, in double, and the sum of the
// products' magnitudes (the tolerance's scale); b(q, j) at b[q * ldb_row + j * ldb_col].
struct Dot {
  double sum = 0, mag = 0;
};
Dot DoubleDot(const std::vector<float>& a, const std::vector<float>& b, int64_t k, int64_t i,
              int64_t j, int64_t ldb_row, int64_t ldb_col) {
  Dot d;
  for (int64_t q = 0; q < k; ++q) {
    const double x = a[static_cast<size_t>(i * k + q)];
    const double y = b[static_cast<size_t>(q * ldb_row + j * ldb_col)];
    d.sum += x * y;
    d.mag += std::fabs(x * y);
  }
  return d;
}

class PackedSgemm : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { ForceSimdTargetForTest(GetParam()); }
  void TearDown() override { ForceSimdTargetForTest(0); }
};

TEST_P(PackedSgemm, MatchesDoubleReference) {
  struct Case {
    int64_t m, n, k, ldc_extra;
  };
  const Case cases[] = {{1, 1, 1, 0},     {6, 32, 256, 0},   {7, 33, 257, 3},   {5, 15, 3, 0},
                        {13, 70, 600, 1}, {96, 17, 9, 0},    {97, 2100, 20, 5}, {200, 40, 513, 0},
                        {2, 4500, 7, 0},  {491, 70, 300, 2}, {1000, 9, 40, 0}};
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
    // overwrite (a in place and packed): c = a * b over a c of NaN, the rows' gaps untouched
    for (const float* ap :
         {static_cast<const float*>(nullptr), static_cast<const float*>(packed.data())}) {
      std::vector<float> c3(c0.size(), std::numeric_limits<float>::quiet_NaN());
      SgemmPacked(cs.m, cs.n, cs.k, ap != nullptr ? nullptr : a.data(), cs.k, b.data(), cs.n,
                  c3.data(), ldc, work, ap, false, nullptr, /*overwrite=*/true);
      for (int64_t i = 0; i < cs.m; ++i) {
        for (int64_t j = 0; j < ldc; ++j) {
          const size_t at = static_cast<size_t>(i * ldc + j);
          if (j >= cs.n) {
            ASSERT_TRUE(std::isnan(c3[at]));
            continue;
          }
          const Dot dot = DoubleDot(a, b, cs.k, i, j, cs.n, 1);
          ASSERT_NEAR(c3[at], dot.sum, 1e-5 * dot.mag + 1e-6)
              << SimdTargetNameOf(GetParam()) << " overwrite m=" << cs.m << " n=" << cs.n;
        }
      }
    }
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t j = 0; j < ldc; ++j) {
        const size_t at = static_cast<size_t>(i * ldc + j);
        if (j >= cs.n) {  // between rows: untouched
          ASSERT_EQ(c[at], c0[at]);
          continue;
        }
        const Dot dot = DoubleDot(a, b, cs.k, i, j, cs.n, 1);
        ASSERT_NEAR(c[at], c0[at] + dot.sum, 1e-5 * (std::fabs(c0[at]) + dot.mag) + 1e-6)
            << SimdTargetNameOf(GetParam()) << " m=" << cs.m << " n=" << cs.n << " k=" << cs.k
            << " at " << i << "," << j;
      }
    }
  }
}

// The implicit product: b's rows read in place at arbitrary offsets (shifted rows of one
// buffer, as a convolution's taps are), the sums starting from the bias (or 0) and
// overwriting c; edge tiles of rows and columns, k past one block.
TEST_P(PackedSgemm, IndirectBMatchesDoubleReference) {
  struct Case {
    int64_t m, n, k;
    bool bias;
    int64_t stride = 3;  // between rows of b: 1024 floats and more pack each panel first
  };
  const Case cases[] = {{1, 1, 1, true},
                        {8, 32, 9, false},
                        {13, 70, 300, true},
                        {64, 100, 576, true},
                        {5, 3, 27, false},
                        {97, 257, 40, true},
                        {100, 1100, 300, true, 1100},
                        {50, 600, 40, false, 2048},
                        {70, 40, 513, true, 1500},
                        {33, 16, 7, false, 4096},
                        // One or two rows: summed in interleaved sets, or streamed where
                        // b is over 512 KiB (odd n and k: column and row tails).
                        {1, 37, 300, true},
                        {2, 70, 9, false},
                        {1, 3003, 257, true, 3010},
                        {2, 1500, 131, false, 1600}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const Case& cs : cases) {
    const int64_t tile = static_cast<int64_t>(SgemmTileColumns());
    // Row p of b starts at offset stride * p + (p % 5): with a short stride rows overlap,
    // as shifted image rows do; with a long one they are a wide matrix's rows.
    std::vector<int64_t> off(static_cast<size_t>(cs.k));
    for (int64_t p = 0; p < cs.k; ++p)
      off[static_cast<size_t>(p)] = cs.stride * p + p % 5;
    std::vector<float> buf(static_cast<size_t>(cs.stride * cs.k + 5 + cs.n + tile));
    for (float& v : buf)
      v = u(rng);
    std::vector<float> a(static_cast<size_t>(cs.m * cs.k)), bias(static_cast<size_t>(cs.m));
    for (float& v : a)
      v = u(rng);
    for (float& v : bias)
      v = u(rng);
    std::vector<float> c(static_cast<size_t>(cs.m * cs.n), 1e30f);  // overwritten
    SgemmIndirectB(cs.m, cs.n, cs.k, a.data(), cs.k, buf.data(), off.data(), c.data(), cs.n,
                   cs.bias ? bias.data() : nullptr);
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t j = 0; j < cs.n; ++j) {
        double want = cs.bias ? bias[static_cast<size_t>(i)] : 0.0, mag = std::fabs(want);
        for (int64_t p = 0; p < cs.k; ++p) {
          const double x = a[static_cast<size_t>(i * cs.k + p)];
          const double y = buf[static_cast<size_t>(off[static_cast<size_t>(p)] + j)];
          want += x * y;
          mag += std::fabs(x * y);
        }
        ASSERT_NEAR(c[static_cast<size_t>(i * cs.n + j)], want, 1e-5 * mag + 1e-6)
            << SimdTargetNameOf(GetParam()) << " m=" << cs.m << " n=" << cs.n << " k=" << cs.k
            << " stride=" << cs.stride;
      }
    }
  }
}

// The same kernel in double precision, wide b (each panel packed) and narrow, against a
// long-double reference to 1e-13 of sum |a||b|.
TEST_P(PackedSgemm, DoubleIndirectBMatchesReference) {
  struct Case {
    int64_t m, n, k, stride;
    bool bias;
  };
  const Case cases[] = {{1, 1, 1, 1, true},         {7, 9, 300, 9, false},
                        {70, 600, 40, 700, true},   {100, 33, 513, 33, false},
                        {1, 1201, 130, 1210, true},  // streamed
                        {2, 9, 7, 9, false}};
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const Case& cs : cases) {
    const int64_t tile = static_cast<int64_t>(DgemmTileColumns());
    std::vector<int64_t> off(static_cast<size_t>(cs.k));
    for (int64_t p = 0; p < cs.k; ++p)
      off[static_cast<size_t>(p)] = cs.stride * p;
    std::vector<double> buf(static_cast<size_t>(cs.stride * cs.k + cs.n + tile));
    for (double& v : buf)
      v = u(rng);
    std::vector<double> a(static_cast<size_t>(cs.m * cs.k)), bias(static_cast<size_t>(cs.m));
    for (double& v : a)
      v = u(rng);
    for (double& v : bias)
      v = u(rng);
    std::vector<double> c(static_cast<size_t>(cs.m * cs.n), 1e300);  // overwritten
    DgemmIndirectB(cs.m, cs.n, cs.k, a.data(), cs.k, buf.data(), off.data(), c.data(), cs.n,
                   cs.bias ? bias.data() : nullptr);
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t j = 0; j < cs.n; ++j) {
        long double want = cs.bias ? bias[static_cast<size_t>(i)] : 0.0, mag = std::fabs(want);
        for (int64_t p = 0; p < cs.k; ++p) {
          const long double x = a[static_cast<size_t>(i * cs.k + p)];
          const long double y = buf[static_cast<size_t>(off[static_cast<size_t>(p)] + j)];
          want += x * y;
          mag += std::fabs(x * y);
        }
        ASSERT_NEAR(c[static_cast<size_t>(i * cs.n + j)], static_cast<double>(want),
                    static_cast<double>(1e-13 * mag) + 1e-15)
            << SimdTargetNameOf(GetParam()) << " m=" << cs.m << " n=" << cs.n << " k=" << cs.k;
      }
    }
  }
}

// The exact integer product on every target (the scalar target's loop included): int16 a
// (centered, one readable zero past an odd k), 8-bit b of either signedness with a zero
// point per column, at the extremes where a saturating kernel would be wrong.
TEST_P(PackedSgemm, IntegerProductIsExact) {
  std::mt19937 rng(5);
  for (const bool b_signed : {true, false}) {
    for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                                  {9, 33, 7},
                                  {16, 64, 512},
                                  {5, 100, 1023}}) {
      const int64_t k2 = k + (k & 1);
      std::vector<int16_t> a(static_cast<size_t>(m * k2), 0);
      std::vector<uint8_t> b(static_cast<size_t>(k * n));
      std::vector<int32_t> zb(static_cast<size_t>(n)), c(static_cast<size_t>(m * n));
      std::uniform_int_distribution<int> av(-255, 255), bv(0, 255);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t p = 0; p < k; ++p)
          a[static_cast<size_t>(i * k2 + p)] = static_cast<int16_t>(i == 0 ? 255 : av(rng));
      }
      for (uint8_t& v : b)
        v = static_cast<uint8_t>(bv(rng));
      for (int32_t& z : zb)
        z = b_signed ? 127 : 0;
      QGemmI16(m, n, k, a.data(), k2, b.data(), b_signed, n, zb.data(), c.data(), n);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          int64_t want = 0;
          for (int64_t p = 0; p < k; ++p) {
            const uint8_t raw = b[static_cast<size_t>(p * n + j)];
            const int64_t bvv = b_signed ? static_cast<int8_t>(raw) : raw;
            want += a[static_cast<size_t>(i * k2 + p)] * (bvv - zb[static_cast<size_t>(j)]);
          }
          ASSERT_EQ(c[static_cast<size_t>(i * n + j)], want)
              << SimdTargetNameOf(GetParam()) << " m=" << m << " n=" << n << " k=" << k;
        }
      }
    }
  }
}

// Constant weights packed once (SgemmPackB) and read by PrepackedGemm (math/gemm.h): the
// packed product on AVX-512, the in-place kernel's tile on the panels elsewhere, and 1-3
// rows through the few-rows kernel (4 interleaved sums along k); edge panels, k not a
// multiple of 4 nor of a block, one and three threads; c += a * b into a non-zero c.
TEST_P(PackedSgemm, PrepackedMatchesDoubleReference) {
  struct Case {
    int64_t m, n, k;
  };
  const Case cases[] = {{1, 1, 1},    {1, 33, 2400}, {2, 100, 7},    {3, 64, 257},
                        {4, 17, 300}, {7, 70, 513},  {32, 1030, 64}, {70, 40, 600}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  ThreadPool pool(3);
  for (const Case& cs : cases) {
    std::vector<float> a(static_cast<size_t>(cs.m * cs.k)), b(static_cast<size_t>(cs.k * cs.n));
    std::vector<float> c0(static_cast<size_t>(cs.m * cs.n));
    for (float& v : a)
      v = u(rng);
    for (float& v : b)
      v = u(rng);
    for (float& v : c0)
      v = u(rng);
    std::vector<float> storage;
    const float* packed = PackedB(cs.k, cs.n, b, &storage);
    for (const bool overwrite : {false, true}) {
      for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        // overwrite: c = a * b, whatever c held (NaN here)
        std::vector<float> c(c0.size(), std::numeric_limits<float>::quiet_NaN());
        if (!overwrite) c = c0;
        ASSERT_TRUE(
            PrepackedGemm(a.data(), cs.k, packed, c.data(), cs.m, cs.n, cs.k, p, true, overwrite));
        for (int64_t i = 0; i < cs.m; ++i) {
          for (int64_t j = 0; j < cs.n; ++j) {
            const size_t at = static_cast<size_t>(i * cs.n + j);
            const double start = overwrite ? 0.0 : c0[at];
            const Dot dot = DoubleDot(a, b, cs.k, i, j, cs.n, 1);
            ASSERT_NEAR(c[at], start + dot.sum, 1e-5 * (std::fabs(start) + dot.mag) + 1e-6)
                << SimdTargetNameOf(GetParam()) << " m=" << cs.m << " n=" << cs.n << " k=" << cs.k
                << " at " << i << "," << j << (p != nullptr ? " (3 threads)" : "")
                << (overwrite ? " overwrite" : "");
          }
        }
      }
    }
  }
}

// c = a * b through Gemm2DOverwrite (math/gemm.h): c's old contents (NaN) never read,
// whether the packed kernel stores its first block of k (large products, b stored either
// way, k past one block, rows or columns split between threads) or c is cleared for
// another path (small ones), and k = 0 gives zeros.
TEST_P(PackedSgemm, OverwriteNeverReadsC) {
  struct Case {
    int64_t m, n, k;
    bool b_trans;
  };
  const Case cases[] = {{300, 200, 40, false}, {70, 1500, 64, false}, {130, 300, 600, true},
                        {5, 7, 3, false},      {40, 64, 0, false},    {600, 70, 90, false}};
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(-1, 1);
  ThreadPool pool(3);
  for (const Case& cs : cases) {
    std::vector<float> a(static_cast<size_t>(cs.m * cs.k)), b(static_cast<size_t>(cs.k * cs.n));
    for (float& v : a)
      v = u(rng);
    for (float& v : b)
      v = u(rng);
    // b(p, j) at b[p * n + j], or stored transposed at b[j * k + p]
    const int64_t ldb_row = cs.b_trans ? 1 : cs.n, ldb_col = cs.b_trans ? cs.k : 1;
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      std::vector<float> c(static_cast<size_t>(cs.m * cs.n),
                           std::numeric_limits<float>::quiet_NaN());
      Gemm2DOverwrite<float>(a.data(), cs.k, 1, b.data(), ldb_row, ldb_col, c.data(), cs.m, cs.n,
                             cs.k, p);
      for (int64_t i = 0; i < cs.m; ++i) {
        for (int64_t j = 0; j < cs.n; ++j) {
          const Dot dot = DoubleDot(a, b, cs.k, i, j, ldb_row, ldb_col);
          ASSERT_NEAR(c[static_cast<size_t>(i * cs.n + j)], dot.sum, 1e-5 * dot.mag + 1e-6)
              << SimdTargetNameOf(GetParam()) << " m=" << cs.m << " n=" << cs.n << " k=" << cs.k
              << " at " << i << "," << j;
        }
      }
    }
  }
}

// Packing b from its transpose bt [n, k] (b_trans: a Gemm's transB weights, packed without
// a transposed copy) gives the same floats as packing b [k, n], bit for bit, whole or in
// slices of whole panels (as PackedWeights packs a mapped matrix, giving pages back).
TEST_P(PackedSgemm, PackingTheTransposeMatchesPackingTheMatrix) {
  const int64_t sizes[][2] = {{1, 1}, {7, 33}, {300, 64}, {257, 130}, {64, 1030}};
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const auto& kn : sizes) {
    const int64_t k = kn[0], n = kn[1];
    std::vector<float> b(static_cast<size_t>(k * n)), bt(b.size());
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t j = 0; j < n; ++j) {
        b[static_cast<size_t>(p * n + j)] = u(rng);
        bt[static_cast<size_t>(j * k + p)] = b[static_cast<size_t>(p * n + j)];
      }
    }
    const size_t floats = SgemmPackedBFloats(k, n);
    std::vector<float> want(floats + 16, -7.0f), got(floats + 16, -7.0f), sliced = got;
    SgemmPackB(k, n, b.data(), n, want.data());
    SgemmPackB(k, n, bt.data(), k, got.data(), /*b_trans=*/true);
    const auto nr = static_cast<int64_t>(SgemmPackedTileColumns());
    for (int64_t j0 = 0; j0 < n; j0 += 2 * nr) {
      SgemmPackB(k, std::min(2 * nr, n - j0), bt.data() + j0 * k, k, sliced.data() + j0 * k,
                 /*b_trans=*/true);
    }
    EXPECT_EQ(got, want) << SimdTargetNameOf(GetParam()) << " k=" << k << " n=" << n;
    EXPECT_EQ(sliced, want) << SimdTargetNameOf(GetParam()) << " k=" << k << " n=" << n;
  }
}

// The product with a read through offsets (a convolution computed transposed:
// a(r, p) = x[roff[r] + koff[p]]) against a double reference: row counts that split into
// tiles of 3 to 6 rows (1, 2, 4, 7, 13, 14, 21, 32), panels of 1 to 4 vectors and their
// partial last ones, k beyond one 256-deep block, offsets that overlap (neighbouring
// windows share taps) and a c that is added to.
TEST_P(PackedSgemm, GatherAMatchesDoubleReference) {
  struct Case {
    int64_t m, n, k;
  };
  const Case cases[] = {{1, 16, 5},    {2, 33, 40},    {4, 200, 32},  {7, 64, 300},
                        {13, 100, 96}, {14, 150, 352}, {21, 37, 600}, {32, 48, 17}};
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const Case& cs : cases) {
    // Window r starts at 3r; tap p lies at (p / 5) * 211 + p % 5 in it.
    std::vector<int64_t> roff(static_cast<size_t>(cs.m)), koff(static_cast<size_t>(cs.k));
    for (int64_t r = 0; r < cs.m; ++r)
      roff[static_cast<size_t>(r)] = 3 * r;
    for (int64_t p = 0; p < cs.k; ++p)
      koff[static_cast<size_t>(p)] = p / 5 * 211 + p % 5;
    std::vector<float> x(static_cast<size_t>(3 * cs.m + (cs.k / 5 + 1) * 211));
    std::vector<float> b(static_cast<size_t>(cs.k * cs.n)), c0(static_cast<size_t>(cs.m * cs.n));
    for (float& v : x)
      v = u(rng);
    for (float& v : b)
      v = u(rng);
    for (float& v : c0)
      v = u(rng);
    std::vector<float> storage;
    const float* packed = PackedB(cs.k, cs.n, b, &storage);
    std::vector<float> c = c0;
    SgemmGatherA(cs.m, cs.n, cs.k, x.data(), roff.data(), koff.data(), packed, c.data(), cs.n);
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t j = 0; j < cs.n; ++j) {
        const size_t at = static_cast<size_t>(i * cs.n + j);
        double want = c0[at], mag = std::fabs(c0[at]);
        for (int64_t q = 0; q < cs.k; ++q) {
          const double xv =
              x[static_cast<size_t>(roff[static_cast<size_t>(i)] + koff[static_cast<size_t>(q)])];
          const double y = b[static_cast<size_t>(q * cs.n + j)];
          want += xv * y;
          mag += std::fabs(xv * y);
        }
        ASSERT_NEAR(c[at], want, 1e-5 * mag + 1e-6)
            << SimdTargetNameOf(GetParam()) << " m=" << cs.m << " n=" << cs.n << " k=" << cs.k
            << " at " << i << "," << j;
      }
    }
  }
}

// The VNNI u8 x s8 product, exact in int32, for every row count up to 9 (the one-, two- and
// four-row tiles and the eight-row one, and one of each after eight), k not a multiple of 4,
// a partial last panel, zero points per row and per column, packed and not.
TEST(QGemmVnni, ExactForEveryRowCount) {
  if (!HaveVnniQGemm()) GTEST_SKIP() << "this CPU has no AVX-512 VNNI (the kernel is not used)";
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int64_t m = 1; m <= 9; ++m) {
    for (const auto& [n, k] : {std::pair<int64_t, int64_t>{40, 13}, {64, 128}, {7, 3}}) {
      std::vector<uint8_t> a(static_cast<size_t>(m * k));
      std::vector<int8_t> b(static_cast<size_t>(k * n));
      std::vector<int32_t> za(static_cast<size_t>(m)), zb(static_cast<size_t>(n));
      for (auto& v : a)
        v = static_cast<uint8_t>(byte(rng));
      for (auto& v : b)
        v = static_cast<int8_t>(byte(rng) - 128);
      for (auto& v : za)
        v = byte(rng);
      for (auto& v : zb)
        v = byte(rng) - 128;
      const QGemmPackedB packed = QGemmVnniPackB(k, n, b.data(), n);
      for (bool use_packed : {false, true}) {
        std::vector<int32_t> c(static_cast<size_t>(m * n), -1);
        QGemmVnni(m, n, k, a.data(), k, 0, za.data(), b.data(), n, zb.data(), c.data(), n,
                  use_packed ? &packed : nullptr, 0);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            int64_t want = 0;
            for (int64_t p = 0; p < k; ++p) {
              want += (int64_t{a[static_cast<size_t>(i * k + p)]} - za[static_cast<size_t>(i)]) *
                      (int64_t{b[static_cast<size_t>(p * n + j)]} - zb[static_cast<size_t>(j)]);
            }
            ASSERT_EQ(c[static_cast<size_t>(i * n + j)], want)
                << "m=" << m << " n=" << n << " k=" << k << " packed=" << use_packed << " at " << i
                << "," << j;
          }
        }
      }
    }
  }
}

// The products' floating-point mode (simd/denormals.h): inside the scope subnormals are
// made and read as zero; after it the caller's mode is back, nested scopes included.
TEST(DenormalsAsZero, FlushesInsideAndRestoresAfter) {
  volatile float tiny = std::numeric_limits<float>::min();
  volatile float quarter = 0.25f;
  EXPECT_GT(tiny * quarter, 0.0f);  // subnormal: the default mode
  {
    const DenormalsAsZero outer;
    EXPECT_EQ(tiny * quarter, 0.0f);  // FTZ
    {
      const DenormalsAsZero inner;
      EXPECT_EQ(tiny * quarter, 0.0f);
    }
    EXPECT_EQ(tiny * quarter, 0.0f);  // the inner scope restored the outer's mode
  }
  EXPECT_GT(tiny * quarter, 0.0f);
  volatile float sub = tiny * quarter;
  EXPECT_GT(sub * 2.0f, 0.0f);  // read as it is again (no DAZ)
}

INSTANTIATE_TEST_SUITE_P(PerTarget, PackedSgemm, ::testing::ValuesIn(CompiledSimdTargets()),
                         [](const ::testing::TestParamInfo<int64_t>& p) {
                           return std::string(SimdTargetNameOf(p.param));
                         });

}  // namespace
}  // namespace onnx_light::kernels
