// The GEMM decision: onnx-light's Highway sgemm kernels (simd/gemm_simd.h) against OpenBLAS
// (the yardstick: Debian's pthread build, linked to this benchmark only, when installed) on
// the matrix shapes of the benchmark models, single-threaded. Prints GFLOP/s for both and the SIMD
// target; run it once per target with ONNX_LIGHT_SIMD_TARGET (e.g. AVX2) to see an AVX2-only CPU's
// numbers.
//   cmake --build build --target gemm_vs_blas && build/bench/gemm_vs_blas ["480 x 480"]
// (an argument keeps only the shapes whose label contains it). Each variant's time is its best
// batch over interleaved rounds (BestSeconds).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <utility>
#include <vector>

#if GEMM_VS_BLAS_OPENBLAS
#include <cblas.h>
#endif

#include <cmath>

#include "math/gemm.h"
#include "simd/elementwise_simd.h"
#include "simd/gemm_simd.h"

namespace {

// Matrices on 64-byte boundaries, as the runtime's tensors and scratch are: a large
// std::vector lands wherever malloc puts it (an mmap'd block 16 bytes past a page), and b's
// rows read in place then split cache lines or not from one run to the next (256^3 in place
// at AVX2 read 0.87x or 1.02x OpenBLAS depending on it).
template <class T>
struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <class U>
  explicit Aligned64(const Aligned64<U>&) {}
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{64}));
  }
  void deallocate(T* p, size_t) { ::operator delete (p, std::align_val_t{64}); }
  template <class U>
  bool operator==(const Aligned64<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const Aligned64<U>&) const {
    return false;
  }
};
template <class T>
using Vec = std::vector<T, Aligned64<T>>;

// Seconds per call of each of fns (a nullptr: NaN), compared fairly on a noisy machine:
// rounds of one batch of calls (at least 20 ms) of each in turn, and for each the best batch.
// Another process or a change of clock only ever adds time, and the interleaving puts the
// two libraries under the same conditions (one 0.3 s run of each, one after the other, had
// ratios move by 0.15 between runs of this benchmark).
std::vector<double> BestSeconds(const std::vector<std::function<void()>>& fns, int rounds = 7) {
  std::vector<double> best(fns.size(), std::nan(""));
  std::vector<int> reps(fns.size(), 1);
  for (size_t f = 0; f < fns.size(); ++f) {
    if (!fns[f]) continue;
    const auto t0 = std::chrono::steady_clock::now();
    fns[f]();  // warm: and the batch size from one call
    const double once =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    reps[f] = std::max(1, static_cast<int>(0.02 / std::max(once, 1e-7)));
  }
  for (int round = 0; round < rounds; ++round) {
    for (size_t f = 0; f < fns.size(); ++f) {
      if (!fns[f]) continue;
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps[f]; ++r)
        fns[f]();
      const double t =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps[f];
      if (!(t >= best[f])) best[f] = t;
    }
  }
  return best;
}

#if GEMM_VS_BLAS_OPENBLAS
constexpr bool kHaveOpenBlas = true;
// c += a * b on one OpenBLAS thread; b stored [k, n] (ldb apart) or, trans_b, [n, k].
void Blas(const float* a, const float* b, int64_t ldb, float* c, int64_t m, int64_t n, int64_t k,
          bool trans_b = false) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, int(m), int(n),
              int(k), 1.0f, a, int(k), b, int(ldb), 1.0f, c, int(n));
}
void Blas(const double* a, const double* b, int64_t ldb, double* c, int64_t m, int64_t n, int64_t k,
          bool trans_b = false) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, int(m), int(n),
              int(k), 1.0, a, int(k), b, int(ldb), 1.0, c, int(n));
}
#else
constexpr bool kHaveOpenBlas = false;
template <typename T>
void Blas(const T*, const T*, int64_t, T*, int64_t, int64_t, int64_t, bool = false) {}
#endif

// The yardstick's call, or none (its times print as nan) without OpenBLAS.
std::function<void()> Yardstick(std::function<void()> fn) {
  return kHaveOpenBlas ? std::move(fn) : std::function<void()>();
}

// "m x n x k": the label a row prints, and what the command line's filter matches.
std::string Label(int64_t m, int64_t n, int64_t k) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld x %lld x %lld", static_cast<long long>(m),
                static_cast<long long>(n), static_cast<long long>(k));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  // An argument keeps only the shapes whose label ("480 x 480 x 480") contains it.
  const char* only = argc > 1 ? argv[1] : nullptr;
  auto skip = [&](const std::string& label) {
    return only != nullptr && label.find(only) == std::string::npos;
  };
#if GEMM_VS_BLAS_OPENBLAS
  openblas_set_num_threads(1);
#else
  std::printf(
      "OpenBLAS is not linked (apt-get install libopenblas-pthread-dev, then reconfigure):"
      " the own kernels' numbers alone\n");
#endif
  namespace k = onnx_light::kernels;
  struct Shape {
    int64_t m, n, k;
    const char* what;
  };
  const Shape shapes[] = {
      {480, 480, 480, "PP-OCRv4 rec 1x1 conv 480->480 at 6x80"},
      {24, 2560, 864, "PP-OCRv4 det 3x3 conv 96->24, a band of 32x80"},
      {64, 1600, 576, "YOLOv8n 3x3 conv 64->64 at 40x40"},
      {128, 400, 1152, "YOLOv8n 3x3 conv 128->128 at 20x20"},
      {32, 6400, 144, "3x3 conv 16->32 at 80x80 (below AVX-512: direct)"},
      // Below AVX-512, Conv2DF32 builds a 3x3 layer's columns a band of output rows at a
      // time (about 512 KiB of columns, 256 outputs or more: Plan2D) and multiplies each
      // band in place: these are the products it runs for the three layers above.
      {24, 320, 864, "the same 96->24, as run below AVX-512 (bands of 4x80)"},
      {64, 280, 576, "the same 64->64, as run below AVX-512 (bands of 7x40)"},
      {128, 260, 1152, "the same 128->128, as run below AVX-512 (13x20)"},
      {256, 256, 256, "square 256"},
      {64, 3072, 1024, "rxnmap transformer FFN up, 64 atoms"},
      {64, 1024, 3072, "rxnmap transformer FFN down, 64 atoms"},
      {64, 1024, 1024, "rxnmap transformer projection, 64 atoms"},
      {16, 2816, 1024, "LLM prefill of 16 tokens, MLP up (hidden 1024)"},
      {16, 1024, 2816, "LLM prefill of 16 tokens, MLP down"},
      {128, 2816, 1024, "LLM prefill of 128 tokens, MLP up"},
  };
  std::printf("SIMD target %s; packed kernel preferred here: %s\n", k::SimdTargetName(),
              k::PreferPackedSgemm() ? "yes" : "no");
  std::printf("%-46s %10s %10s %7s %8s %7s %9s %7s\n", "shape (m x n x k)", "BLAS GF/s", "packed",
              "ratio", "in place", "ratio", "prepacked", "ratio");
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  auto fill = [&](Vec<float>& v) {
    for (float& x : v)
      x = u(rng);
  };
  Vec<float> scratch;
  for (const Shape& s : shapes) {
    const std::string label = Label(s.m, s.n, s.k);
    if (skip(label)) continue;
    Vec<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n));
    Vec<float> c1(static_cast<size_t>(s.m * s.n)), c2(c1.size());
    fill(a);
    fill(b);
    scratch.resize(k::SgemmPackedWorkFloats(s.n));
    float* work = scratch.data();  // aligned (Vec), as SgemmPacked's loads need
    // In place: a and b read where they are, as a convolution's band runs it (Conv2DF32
    // calls SgemmIndirectB with its n columns, rows n apart, the buffer readable a tile past
    // its end): a last partial tile of columns is computed at its own width. (Until the
    // runtime's call was copied here, n was padded to whole tiles and the padded columns'
    // work went uncounted: 4.6% of 128 x 260 x 1152, 2.9% of 64 x 280 x 576.)
    const int64_t tile = static_cast<int64_t>(k::SgemmTileColumns());
    Vec<float> bp(static_cast<size_t>(s.k * s.n + tile), 0.0f), c3(c1.size());
    std::copy(b.begin(), b.end(), bp.begin());
    std::vector<int64_t> boff(static_cast<size_t>(s.k));
    for (int64_t p = 0; p < s.k; ++p)
      boff[static_cast<size_t>(p)] = p * s.n;
    // Prepacked: b as constant weights, packed once (SgemmPackB) and read by the product the
    // sessions use for them (math/gemm.h PrepackedGemm: the packed kernel on AVX-512, the
    // in-place kernel's tile on the panels elsewhere).
    Vec<float> bw(k::SgemmPackedBFloats(s.k, s.n));
    float* bwp = bw.data();
    k::SgemmPackB(s.k, s.n, b.data(), s.n, bwp);
    const std::vector<double> t = BestSeconds({
        Yardstick([&] { Blas(a.data(), b.data(), s.n, c1.data(), s.m, s.n, s.k); }),
        [&] { k::SgemmPacked(s.m, s.n, s.k, a.data(), s.k, b.data(), s.n, c2.data(), s.n, work); },
        [&] {
          k::SgemmIndirectB(s.m, s.n, s.k, a.data(), s.k, bp.data(), boff.data(), c3.data(), s.n,
                            nullptr, false);
        },
        [&] {
          k::PrepackedGemm(a.data(), s.k, bwp, c2.data(), s.m, s.n, s.k, nullptr, /*force=*/true);
        },
    });
    const double flop = 2.0 * static_cast<double>(s.m * s.n * s.k);
    std::printf("%-46s %10.1f %10.1f %6.2fx %8.1f %6.2fx %9.1f %6.2fx  %s\n", label.c_str(),
                flop / t[0] / 1e9, flop / t[1] / 1e9, t[0] / t[1], flop / t[2] / 1e9, t[0] / t[2],
                flop / t[3] / 1e9, t[0] / t[3], s.what);
  }
  // Double precision: the BLAS's dgemm against the in-place kernel in double
  // (DgemmIndirectB), n padded to whole tiles.
  std::printf("\n%-46s %10s %10s %7s\n", "double (m x n x k)", "BLAS GF/s", "in place", "ratio");
  std::uniform_real_distribution<double> ud(-1, 1);
  for (const Shape& s : shapes) {
    const std::string label = Label(s.m, s.n, s.k);
    if (skip(label)) continue;
    const int64_t tile = static_cast<int64_t>(k::DgemmTileColumns());
    const int64_t np = (s.n + tile - 1) / tile * tile;
    Vec<double> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * np), 0.0);
    Vec<double> c1(static_cast<size_t>(s.m * np)), c2(c1.size());
    for (double& x : a)
      x = ud(rng);
    for (double& x : b)
      x = ud(rng);
    std::vector<int64_t> boff(static_cast<size_t>(s.k));
    for (int64_t p = 0; p < s.k; ++p)
      boff[static_cast<size_t>(p)] = p * np;
    const std::vector<double> t = BestSeconds({
        Yardstick([&] { Blas(a.data(), b.data(), np, c1.data(), s.m, np, s.k); }),
        [&] {
          k::DgemmIndirectB(s.m, np, s.k, a.data(), s.k, b.data(), boff.data(), c2.data(), np,
                            nullptr, false);
        },
    });
    const double flop = 2.0 * static_cast<double>(s.m * s.n * s.k);
    std::printf("%-46s %10.1f %10.1f %6.2fx  %s\n", label.c_str(), flop / t[0] / 1e9,
                flop / t[1] / 1e9, t[0] / t[1], s.what);
  }
  // Narrow products: a few columns (1-D convolutions with a few output positions, as in
  // the Silero VAD encoders), BLAS against SgemmNarrow including the transpose of b that
  // the convolution does first.
  std::printf("\n%-46s %10s %10s %7s\n", "narrow (m x n x k)", "BLAS GF/s", "narrow", "ratio");
  const Shape narrow[] = {
      {128, 0, 387, "Silero encoder conv 129->128, k 3"},
      {258, 0, 256, "Silero STFT conv 1->258, k 256"},
      {64, 0, 384, "Silero encoder conv 128->64, k 3"},
  };
  for (const Shape& base : narrow) {
    for (int64_t n : {1, 2, 3, 4, 8, 16, 32, 64}) {
      const Shape sh{base.m, n, base.k, base.what};
      const std::string label = Label(sh.m, n, sh.k);
      if (skip(label)) continue;
      Vec<float> a(static_cast<size_t>(sh.m * sh.k)), b(static_cast<size_t>(sh.k * n));
      Vec<float> bt(b.size()), c1(static_cast<size_t>(sh.m * n)), c2(c1.size());
      fill(a);
      fill(b);
      const std::vector<double> t = BestSeconds({
          Yardstick([&] { Blas(a.data(), b.data(), n, c1.data(), sh.m, n, sh.k); }),
          [&] {
            for (int64_t p = 0; p < sh.k; ++p) {
              for (int64_t j = 0; j < n; ++j)
                bt[static_cast<size_t>(j * sh.k + p)] = b[static_cast<size_t>(p * n + j)];
            }
            k::SgemmNarrow(sh.m, n, sh.k, a.data(), sh.k, bt.data(), sh.k, c2.data(), n);
          },
      });
      const double flop = 2.0 * static_cast<double>(sh.m * n * sh.k);
      std::printf("%-46s %10.1f %10.1f %6.2fx  %s\n", label.c_str(), flop / t[0] / 1e9,
                  flop / t[1] / 1e9, t[0] / t[1], sh.what);
    }
  }
  // A few rows against a large weight matrix stored [n, k] (a classifier head, Gemm with
  // transB): the BLAS against SgemmNarrow computing the product transposed, so that the
  // weights stream from memory once.
  std::printf("\n%-46s %10s %10s %7s %9s %7s\n", "weights-bound (m x n x k)", "BLAS GF/s",
              "narrow^T", "ratio", "prepacked", "ratio");
  const Shape heads[] = {
      {32, 8210, 1024, "ddddocr rec classifier head"},
      {8, 8210, 1024, "the same, 8 rows"},
      {1, 8210, 1024, "the same, 1 row"},
      {64, 8210, 1024, "the same, 64 rows"},
      {32, 1000, 1024, "ImageNet-style head"},
  };
  for (const Shape& sh : heads) {
    const std::string label = Label(sh.m, sh.n, sh.k);
    if (skip(label)) continue;
    Vec<float> a(static_cast<size_t>(sh.m * sh.k)), w(static_cast<size_t>(sh.n * sh.k));
    Vec<float> c1(static_cast<size_t>(sh.m * sh.n)), c2(c1.size());
    fill(a);
    fill(w);
    // The weights transposed once and packed (transpose_gemm_weights, then the packing).
    Vec<float> wt(static_cast<size_t>(sh.k * sh.n));
    for (int64_t j = 0; j < sh.n; ++j)
      for (int64_t p = 0; p < sh.k; ++p)
        wt[static_cast<size_t>(p * sh.n + j)] = w[static_cast<size_t>(j * sh.k + p)];
    Vec<float> bw(k::SgemmPackedBFloats(sh.k, sh.n));
    float* bwp = bw.data();
    k::SgemmPackB(sh.k, sh.n, wt.data(), sh.n, bwp);
    const std::vector<double> t = BestSeconds({
        Yardstick(
            [&] { Blas(a.data(), w.data(), sh.k, c1.data(), sh.m, sh.n, sh.k, /*trans_b=*/true); }),
        [&] {
          k::SgemmNarrow(sh.n, sh.m, sh.k, w.data(), sh.k, a.data(), sh.k, c2.data(), 1, sh.n);
        },
        [&] { k::PrepackedGemm(a.data(), sh.k, bwp, c2.data(), sh.m, sh.n, sh.k, nullptr, true); },
    });
    const double flop = 2.0 * static_cast<double>(sh.m * sh.n * sh.k);
    std::printf("%-46s %10.1f %10.1f %6.2fx %9.1f %6.2fx  %s\n", label.c_str(), flop / t[0] / 1e9,
                flop / t[1] / 1e9, t[0] / t[1], flop / t[2] / 1e9, t[0] / t[2], sh.what);
  }
  return 0;
}
