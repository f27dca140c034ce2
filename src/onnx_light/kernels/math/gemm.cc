// The float/double path of Gemm2D (gemm.h): onnx-light's own Highway kernels
// (simd/gemm_simd.h) for every product, chosen by shape and target (docs/performance.md has
// the measurements against OpenBLAS that decided each path; OpenBLAS left the build when the
// own kernels matched it on AVX2 too). Products are split across the session's own pool, so
// intra_op_threads keeps its meaning.
#include "math/gemm.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "onnx_light/runtime/thread_pool.h"
#include "simd/gemm_simd.h"
#include "simd/transpose_simd.h"

namespace onnx_light::kernels {

namespace {

// The packed kernel's work space (packed panels of a and b): one buffer per thread,
// kept and grown as needed, 64-byte aligned and not zeroed. A buffer per call (megabytes
// for wide products) was fresh pages on every call.
float* GemmWork(size_t floats) {
  thread_local std::unique_ptr<float[]> buffer;
  thread_local size_t capacity = 0;
  if (capacity < floats + 16) {
    capacity = floats + 16;
    buffer.reset(new float[capacity]);
  }
  float* work = buffer.get();
  while (reinterpret_cast<uintptr_t>(work) % 64 != 0)
    ++work;
  return work;
}

}  // namespace

namespace {

// Large float products on AVX-512 take the packed Highway kernel (docs/performance.md,
// "The GEMM decision"): row-major a, b either way round, at least 64 columns, 2M
// multiply-adds, and enough rows to amortize packing b (at least 128, or a quarter of the
// columns, or 16 when b is stored [k, n] and packs by row copies): a few rows against a
// wide weight matrix stored transposed (a classifier head) would gather all of b for
// little work, and goes to the fallback below (dot products). Rows split across the pool;
// few rows against a wide b split by columns.
bool PackedGemm(const float* a, int64_t lda_row, int64_t lda_col, const float* b, int64_t ldb_row,
                int64_t ldb_col, float* c, int64_t m, int64_t n, int64_t k, ThreadPool* pool,
                bool overwrite = false) {
  static const bool avx512 = PreferPackedSgemm();
  // b stored [k, n] packs by whole rows (copies), cheap enough for 16 rows and more; b
  // stored transposed packs by gathers, worth it only for many rows.
  const bool wide_b = m < 128 && 4 * m < n;
  if (!avx512 || lda_col != 1 || n < 64 || (wide_b && (ldb_col != 1 || m < 16)) ||
      m * n * k < (int64_t{1} << 21)) {
    return false;
  }
  bool trans;
  int64_t ldb;
  if (ldb_col == 1) {
    trans = false;
    ldb = ldb_row;
  } else if (ldb_row == 1) {
    trans = true;
    ldb = ldb_col;
  } else {
    return false;
  }
  auto rows = [&](int64_t begin, int64_t end) {
    SgemmPacked(end - begin, n, k, a + begin * lda_row, lda_row, b, ldb, c + begin * n, n,
                GemmWork(SgemmPackedWorkFloats(n)), nullptr, trans, nullptr, overwrite);
  };
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  if (workers > 1 && (wide_b || m < 256) && n >= 256) {
    // Fewer rows than columns or than 256: each thread packs and multiplies its own
    // columns (rows would make every thread pack all of b: all-MiniLM's 128 x 384 by
    // 384 x 1536 products ran slower on two threads than on one).
    pool->ParallelFor(n, std::max<int64_t>(128, n / workers), [&](int64_t j0, int64_t j1) {
      SgemmPacked(m, j1 - j0, k, a, lda_row, trans ? b + j0 * ldb : b + j0, ldb, c + j0, n,
                  GemmWork(SgemmPackedWorkFloats(j1 - j0)), nullptr, trans, nullptr, overwrite);
    });
  } else if (workers > 1 && m >= 32) {
    pool->ParallelFor(m, std::max<int64_t>(16, m / workers), rows);
  } else {
    rows(0, m);
  }
  return true;
}

// Float products on AVX-512 with b stored [k, n] that read a and b in place
// (SgemmIndirectB: nothing packed, no scratch), where packing b would cost as much as the
// product: small ones (attention heads, 64 x 64 x 64: 26.9 -> 17.5 us for six, ORT 17.2),
// and few rows against a wide b with a short k (at most 96 rows and 256 k: one block of
// the kernel, so b is read once, from memory, as packing would read it; PP-OCRv4's
// classifier, 40 x 120 by 120 x 6625: 806 -> 516 us, 686 -> 289 at two threads; with a
// longer k the packed kernel's wider tile wins). A last partial tile of columns goes through a
// zero-padded copy (the kernel reads whole tiles). Columns split between threads in whole tiles.
// On AVX2 (16 registers, a 6 x 16 tile) every such product takes it: 1.00-1.16x OpenBLAS
// on the benchmark models' convolution shapes where the packed kernel is 0.51-0.98x
// (packing all of b costs more than it gains with 16 registers); constant weights are
// packed once per session instead (PrepackedGemm, 1.02-5.25x; bench/gemm_vs_blas.cc,
// docs/performance.md).
// The in-place kernel (SgemmIndirectB, DgemmIndirectB) over c = c + a * b, a and b
// row-major: columns split between threads in whole tiles (or rows, when there are few
// tiles), a last partial tile through a zero-padded copy (the kernel reads whole tiles).
void IndirectB(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
               const int64_t* boff, float* c, int64_t ldc) {
  SgemmIndirectB(m, n, k, a, lda, b, boff, c, ldc, nullptr, /*accumulate=*/true);
}
void IndirectB(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
               const int64_t* boff, double* c, int64_t ldc) {
  DgemmIndirectB(m, n, k, a, lda, b, boff, c, ldc, nullptr, /*accumulate=*/true);
}

template <typename T>
void RunInPlace(const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t m, int64_t n,
                int64_t k, int64_t tile, ThreadPool* pool) {
  const int64_t work = m * n * k;
  // B's row offsets: on the stack for up to 256 rows (a small product in a loop body paid
  // an allocation for them at every step).
  int64_t local[256];
  std::vector<int64_t> heap(k > 256 ? static_cast<size_t>(k) : 0);
  int64_t* const boff = k > 256 ? heap.data() : local;
  for (int64_t p = 0; p < k; ++p)
    boff[p] = p * ldb;
  const int64_t full = n / tile * tile;
  auto columns = [&](int64_t j0, int64_t j1) {
    if (j1 > j0) IndirectB(m, j1 - j0, k, a, lda, b + j0, boff, c + j0, n);
  };
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  const int64_t tiles = full / tile;
  // One or two rows against a b of 512 KiB or more: bound by reading b, which two cores
  // read faster ([2,768] x [768,768] at 2 threads: 161 -> 99 us, ORT 109).
  const bool big = work >= (int64_t{1} << 21) || (m <= 2 && n * k >= (int64_t{1} << 17));
  if (workers > 1 && big && tiles >= 2 * workers) {
    const int64_t per = (tiles + workers - 1) / workers;
    pool->ParallelFor(workers, 1, [&](int64_t w0, int64_t w1) {
      for (int64_t w = w0; w < w1; ++w)
        columns(std::min(full, w * per * tile), std::min(full, (w + 1) * per * tile));
    });
  } else if (workers > 1 && work >= (int64_t{1} << 21) && m >= 16 * workers && full > 0) {
    // Few tiles of columns and many rows (a convolution's few channels over a large
    // image, transposed): the rows split instead.
    pool->ParallelFor(m, std::max<int64_t>(8, m / workers), [&](int64_t i0, int64_t i1) {
      IndirectB(i1 - i0, full, k, a + i0 * lda, lda, b, boff, c + i0 * n, n);
    });
  } else {
    columns(0, full);
  }
  if (full < n) {  // the last columns, from a copy padded to a whole tile
    const int64_t rest = n - full;
    std::vector<T> pad(static_cast<size_t>(k * tile), T(0));
    std::vector<int64_t> poff(static_cast<size_t>(k));
    for (int64_t p = 0; p < k; ++p) {
      std::memcpy(pad.data() + p * tile, b + p * ldb + full, static_cast<size_t>(rest) * sizeof(T));
      poff[static_cast<size_t>(p)] = p * tile;
    }
    IndirectB(m, rest, k, a, lda, pad.data(), poff.data(), c + full, n);
  }
}

bool InPlaceGemm(const float* a, int64_t lda_row, int64_t lda_col, const float* b, int64_t ldb_row,
                 int64_t ldb_col, float* c, int64_t m, int64_t n, int64_t k, ThreadPool* pool) {
  static const bool avx512 = PreferPackedSgemm();
  static const auto tile = static_cast<int64_t>(SgemmTileColumns());
  const int64_t work = m * n * k;
  const bool small = work < (int64_t{1} << 21) && n % tile == 0;
  // One or two rows take it at any size (FewRowsInPlace reads b once; the packed kernel
  // read it, wrote a packed copy and read that: [1,1024] x [1024,4096] 1.85 -> 0.61 ms,
  // ORT 0.66).
  if (lda_col != 1 || ldb_col != 1 || n == 0 || k == 0 || work < (int64_t{1} << 14) ||
      (avx512 && !small && m > 2 && (m > 96 || k > 256))) {
    return false;
  }
  RunInPlace(a, lda_row, b, ldb_row, c, m, n, k, tile, pool);
  return true;
}

// A few rows against a large weight matrix stored [n, k] (Gemm with transB, a classifier
// head) on AVX-512: the product computed transposed by SgemmNarrow, so the weights stream
// from memory once and are never packed; c's transpose is written in place through its
// strides. 1.38-1.78x OpenBLAS for 8-64 rows (bench/gemm_vs_blas.cc); slower on AVX2,
// where the fallback takes it (constant weights are transposed and packed once per session
// there: transpose_gemm_weights). The weight rows split across the pool.
bool WeightsBoundGemm(const float* a, int64_t lda_row, int64_t lda_col, const float* b,
                      int64_t ldb_row, int64_t ldb_col, float* c, int64_t m, int64_t n, int64_t k,
                      ThreadPool* pool) {
  static const bool avx512 = PreferPackedSgemm();
  if (!avx512 || lda_col != 1 || ldb_row != 1 || m > 64 || n < 4 * m ||
      m * n * k < (int64_t{1} << 21)) {
    return false;
  }
  auto rows = [&](int64_t j0, int64_t j1) {
    SgemmNarrow(j1 - j0, m, k, b + j0 * ldb_col, ldb_col, a, lda_row, c + j0, 1, n);
  };
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  if (workers > 1 && n >= 128) {
    pool->ParallelFor(n, std::max<int64_t>(64, n / workers), rows);
  } else {
    rows(0, n);
  }
  return true;
}

// The fallback for what the paths above do not take: any strides, on the
// kernels above. a is made row-major first when it is not (Gemm with transA: rare, and
// m x k is small next to the product). b stored transposed: float takes dot products
// (SgemmNarrow) for a few rows, so a wide weight matrix streams once, and the packed
// kernel's gather otherwise; double copies it row-major. Row-major b: the in-place kernel.
template <typename T>
std::vector<T> RowMajor(const T* x, int64_t row, int64_t col, int64_t rows, int64_t cols) {
  std::vector<T> out(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j)
      out[static_cast<size_t>(i * cols + j)] = x[i * row + j * col];
  }
  return out;
}

template <typename T>
bool OwnGemm(const T* a, int64_t lda_row, int64_t lda_col, const T* b, int64_t ldb_row,
             int64_t ldb_col, T* c, int64_t m, int64_t n, int64_t k, ThreadPool* pool) {
  if (m == 0 || n == 0 || k == 0) return true;  // c += nothing
  std::vector<T> a_rows;
  if (lda_col != 1) {
    a_rows = RowMajor(a, lda_row, lda_col, m, k);
    a = a_rows.data();
    lda_row = k;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (ldb_row == 1 && ldb_col != 1 && (m <= 8 || n == 1)) {
      // b transposed: b(p, j) = b[j * ldb_col + p], row j of b^T.
      SgemmNarrow(m, n, k, a, lda_row, b, ldb_col, c, n);
      return true;
    }
    static const bool avx512 = PreferPackedSgemm();
    if (ldb_row == 1 && ldb_col != 1 && !avx512 && k * n <= (int64_t{1} << 20)) {
      // Below AVX-512 b^T up to 4 MiB is transposed (4 x 4 vector blocks) for the in-place
      // kernel, which beats the packed kernel's gathers there: attention's Q @ K^T, 12 heads
      // of [128,64] x [64,128], ran 1.61x ORT's time that way against MatMul's 1.11x.
      std::vector<float> b_rows(static_cast<size_t>(k * n));
      TransposeTileU32(reinterpret_cast<const uint32_t*>(b),
                       reinterpret_cast<uint32_t*>(b_rows.data()), 0, k, 0, n, ldb_col, n);
      RunInPlace(a, lda_row, b_rows.data(), n, c, m, n, k, static_cast<int64_t>(SgemmTileColumns()),
                 pool);
      return true;
    }
    if (ldb_row == 1 && ldb_col != 1) {
      auto rows = [&](int64_t i0, int64_t i1) {
        SgemmPacked(i1 - i0, n, k, a + i0 * lda_row, lda_row, b, ldb_col, c + i0 * n, n,
                    GemmWork(SgemmPackedWorkFloats(n)), nullptr, /*b_trans=*/true);
      };
      const int64_t workers = pool != nullptr ? pool->threads() : 1;
      if (workers > 1 && m >= 32 && m * n * k >= (int64_t{1} << 21)) {
        pool->ParallelFor(m, std::max<int64_t>(16, m / workers), rows);
      } else {
        rows(0, m);
      }
      return true;
    }
    if (n == 1 && ldb_row == 1) {  // a matrix times a contiguous vector: dot products
      SgemmNarrow(m, 1, k, a, lda_row, b, k, c, 1);
      return true;
    }
  }
  std::vector<T> b_rows;
  if (ldb_col != 1) {
    b_rows = RowMajor(b, ldb_row, ldb_col, k, n);
    b = b_rows.data();
    ldb_row = n;
  }
  const auto tile =
      static_cast<int64_t>(std::is_same_v<T, float> ? SgemmTileColumns() : DgemmTileColumns());
  RunInPlace(a, lda_row, b, ldb_row, c, m, n, k, tile, pool);
  return true;
}

}  // namespace

bool FloatGemm2D(const float* a, int64_t lda_row, int64_t lda_col, const float* b, int64_t ldb_row,
                 int64_t ldb_col, float* c, int64_t m, int64_t n, int64_t k, ThreadPool* pool) {
  // a stored transposed (Gemm's transA, TransposeMatMul's A^T) made row-major first, by the
  // 4 x 4 vector transpose, so that every kernel below can take it (the packed one reads
  // only row-major a; the fallback copied it element by element): [768,128]^T x
  // [768,768]: 1 thread 1.18x -> 1.09x ORT, 2 threads 1.52x -> 1.26x.
  std::vector<float> a_rows;
  if (lda_row == 1 && lda_col != 1 && m > 1 && k > 1) {
    a_rows.resize(static_cast<size_t>(m * k));
    TransposeTileU32(reinterpret_cast<const uint32_t*>(a),
                     reinterpret_cast<uint32_t*>(a_rows.data()), 0, m, 0, k, lda_col, k);
    a = a_rows.data();
    lda_row = k;
    lda_col = 1;
  }
  if (WeightsBoundGemm(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool)) return true;
  if (InPlaceGemm(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool)) return true;
  if (PackedGemm(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool)) return true;
  return OwnGemm(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool);
}

// Double takes the in-place kernel in double on every target (1.27-2.14x OpenBLAS's dgemm on
// AVX-512, 0.86-1.14x on AVX2: docs/performance.md); transposed operands are copied first.
bool FloatGemm2D(const double* a, int64_t lda_row, int64_t lda_col, const double* b,
                 int64_t ldb_row, int64_t ldb_col, double* c, int64_t m, int64_t n, int64_t k,
                 ThreadPool* pool) {
  return OwnGemm(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool);
}

bool OwnGemm2D(const float* a, int64_t lda_row, int64_t lda_col, const float* b, int64_t ldb_row,
               int64_t ldb_col, float* c, int64_t m, int64_t n, int64_t k, ThreadPool* pool) {
  return OwnGemm(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool);
}
bool OwnGemm2D(const double* a, int64_t lda_row, int64_t lda_col, const double* b, int64_t ldb_row,
               int64_t ldb_col, double* c, int64_t m, int64_t n, int64_t k, ThreadPool* pool) {
  return OwnGemm(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool);
}

bool PackedGemmOverwrite(const float* a, int64_t lda_row, int64_t lda_col, const float* b,
                         int64_t ldb_row, int64_t ldb_col, float* c, int64_t m, int64_t n,
                         int64_t k, ThreadPool* pool) {
  return PackedGemm(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool,
                    /*overwrite=*/true);
}

bool PrepackedGemm(const float* a, int64_t lda, const float* b_packed, float* c, int64_t m,
                   int64_t n, int64_t k, ThreadPool* pool, bool force, bool overwrite) {
  if (b_packed == nullptr || (!force && m * n * k < (int64_t{1} << 18))) return false;
  PrepackedGemmLd(a, lda, b_packed, c, n, m, n, k, pool, overwrite);
  return true;
}

void PrepackedGemmLd(const float* a, int64_t lda, const float* b_packed, float* c, int64_t ldc,
                     int64_t m, int64_t n, int64_t k, ThreadPool* pool, bool overwrite) {
  const auto nr = static_cast<int64_t>(SgemmPackedTileColumns());
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  // The kernels below that only add: with `overwrite`, each part clears its own block of c
  // first (on the thread that then adds to it).
  auto clear = [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    if (!overwrite) return;
    for (int64_t i = i0; i < i1; ++i)
      std::fill(c + i * ldc + j0, c + i * ldc + j1, 0.0f);
  };
  if (k == 0) {  // no block of k to store from
    clear(0, m, 0, n);
    return;
  }
  if (m <= 3) {  // a batch-1 layer: rows of a one at a time, panels split between threads
    const int64_t panels = (n + nr - 1) / nr;
    auto product = [&](int64_t q0, int64_t q1) {
      clear(0, m, q0 * nr, std::min(n, q1 * nr));
      SgemmPrepackedFewRows(m, std::min(n, q1 * nr) - q0 * nr, k, a, lda, b_packed + q0 * nr * k,
                            c + q0 * nr, ldc);
    };
    if (workers > 1 && panels >= 2 && n * k >= (int64_t{1} << 16)) {
      pool->ParallelFor(panels, std::max<int64_t>(1, panels / workers), product);
    } else {
      product(0, panels);
    }
    return;
  }
  static const bool avx512 = PreferPackedSgemm();
  if (m <= 32 && (avx512 || k * n <= (int64_t{1} << 18))) {
    // A few rows (a decoder step's batch, a small image's positions): a read in place
    // through the offsets of a row-major matrix, in tiles exactly as high as the rows (8 =
    // 4 + 4 where the packed kernel's tiles of 6 computed 12: [8,256] x [256,768] 1.31x ->
    // 1.00x ORT's time, [4,2048] x [2048,2048] 1.21x -> 0.90x), panels split between
    // threads. Below AVX-512 only for weights of up to 1 MiB: larger ones stream from
    // memory, and the in-place kernel's prefetch of the next panel wins there (AVX2:
    // [16,1024] x [1024,4096] 0.90x against 1.43x this way).
    int64_t roff[32];
    for (int64_t r = 0; r < m; ++r)
      roff[r] = r * lda;
    static thread_local std::vector<int64_t> iota;  // tap p at p: always 0, 1, 2, ...
    for (auto p = static_cast<int64_t>(iota.size()); p < k; ++p)
      iota.push_back(p);
    const int64_t* koff = iota.data();
    const int64_t panels = (n + nr - 1) / nr;
    auto product = [&](int64_t q0, int64_t q1) {
      const int64_t j0 = q0 * nr, j1 = std::min(n, q1 * nr);
      clear(0, m, j0, j1);
      SgemmGatherA(m, j1 - j0, k, a, roff, koff, b_packed + q0 * nr * k, c + j0, ldc);
    };
    if (workers > 1 && panels >= 2 && m * n * k >= (int64_t{1} << 18)) {
      pool->ParallelFor(panels, std::max<int64_t>(1, panels / workers), product);
    } else {
      product(0, panels);
    }
    return;
  }
  // Rows split between the threads when there are enough of them (every thread reads all
  // of b, packed already), else columns in whole panels (few rows against wide weights).
  const int64_t panels = (n + nr - 1) / nr;
  auto split = [&](bool by_rows, auto product) {
    if (workers > 1 && by_rows) {
      pool->ParallelFor(m, std::max<int64_t>(16, m / workers),
                        [&](int64_t i0, int64_t i1) { product(i0, i1, 0, n); });
    } else if (workers > 1 && panels >= 2) {
      pool->ParallelFor(
          panels, std::max<int64_t>(1, panels / workers),
          [&](int64_t q0, int64_t q1) { product(0, m, q0 * nr, std::min(n, q1 * nr)); });
    } else {
      product(0, m, 0, n);
    }
  };
  if (!PreferPackedSgemm()) {
    // The in-place kernel's tile reads the packed panels as they are (AVX2 and below):
    // a row-major, b's panels contiguous (no page-apart rows, no copy per run).
    split(m >= 64 && m >= panels, [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
      clear(i0, i1, j0, j1);
      SgemmPrepackedInPlaceA(i1 - i0, j1 - j0, k, a + i0 * lda, lda, b_packed + j0 / nr * k * nr,
                             c + i0 * ldc + j0, ldc);
    });
  } else {
    split(m >= 256, [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
      float* work = GemmWork(SgemmPrepackedWorkFloats());
      SgemmPacked(i1 - i0, j1 - j0, k, a + i0 * lda, lda, nullptr, 0, c + i0 * ldc + j0, ldc, work,
                  nullptr, false, b_packed + j0 / nr * k * nr, overwrite);
    });
  }
}

}  // namespace onnx_light::kernels
