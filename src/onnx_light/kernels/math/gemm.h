// The matrix product shared by MatMul, Gemm and Conv (after im2col).
//
// float and double go to FloatGemm2D (gemm.cc): onnx-light's own Highway kernels, the path
// chosen by shape and target against OpenBLAS as the yardstick (docs/performance.md has the
// numbers; no BLAS is linked). Integer types use Gemm2DLoop, a plain i-k-j loop the compiler
// vectorizes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

// c[m x n] += a[m x k] * b[k x n], with element strides for transposed operands:
// a(i, p) = a[i * lda_row + p * lda_col], b(p, j) = b[p * ldb_row + j * ldb_col].
template <typename C>
inline void Gemm2DLoop(const C* a, int64_t lda_row, int64_t lda_col, const C* b, int64_t ldb_row,
                       int64_t ldb_col, C* c, int64_t m, int64_t n, int64_t k) {
  // Columns in blocks that stay in L1 while every p adds to them (the same sums, in the
  // same order, as one pass per p over the whole row).
  constexpr int64_t kBlock = 1024;
  for (int64_t i = 0; i < m; ++i) {
    C* crow = c + i * n;
    for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
      const int64_t j1 = n - j0 < kBlock ? n : j0 + kBlock;
      for (int64_t p = 0; p < k; ++p) {
        const C av = a[i * lda_row + p * lda_col];
        const C* brow = b + p * ldb_row;
        if (ldb_col == 1) {
          for (int64_t j = j0; j < j1; ++j)
            crow[j] += av * brow[j];
        } else {
          for (int64_t j = j0; j < j1; ++j)
            crow[j] += av * brow[j * ldb_col];
        }
      }
    }
  }
}

// The float/double path for the Gemm2D contract below: the own kernels, chosen by shape
// and target (always true, having done the product). Rows of c are split across `pool` when
// given.
bool FloatGemm2D(const float* a, int64_t lda_row, int64_t lda_col, const float* b, int64_t ldb_row,
                 int64_t ldb_col, float* c, int64_t m, int64_t n, int64_t k, ThreadPool* pool);
bool FloatGemm2D(const double* a, int64_t lda_row, int64_t lda_col, const double* b,
                 int64_t ldb_row, int64_t ldb_col, double* c, int64_t m, int64_t n, int64_t k,
                 ThreadPool* pool);
// The fallback for any strides that FloatGemm2D ends with (tests call it directly).
bool OwnGemm2D(const float* a, int64_t lda_row, int64_t lda_col, const float* b, int64_t ldb_row,
               int64_t ldb_col, float* c, int64_t m, int64_t n, int64_t k, ThreadPool* pool);
bool OwnGemm2D(const double* a, int64_t lda_row, int64_t lda_col, const double* b, int64_t ldb_row,
               int64_t ldb_col, double* c, int64_t m, int64_t n, int64_t k, ThreadPool* pool);

// c[m x n] += a[m x k] * b, with b [k x n] packed once by SgemmPackB (simd/gemm_simd.h)
// and a row-major (rows lda apart): the packed product on AVX-512, the in-place kernel
// reading the packed panels elsewhere (for products of at least 256k multiply-adds, unless
// `force`: b exists only packed); false, having done nothing, otherwise.
// `overwrite`: c = a * b instead, c's old values not read.
bool PrepackedGemm(const float* a, int64_t lda, const float* b_packed, float* c, int64_t m,
                   int64_t n, int64_t k, ThreadPool* pool, bool force = false,
                   bool overwrite = false);
// The same product, always done, with c's rows ldc apart (columns of a wider output).
void PrepackedGemmLd(const float* a, int64_t lda, const float* b_packed, float* c, int64_t ldc,
                     int64_t m, int64_t n, int64_t k, ThreadPool* pool, bool overwrite = false);
// c = a * b through the packed kernel where FloatGemm2D would take it (c not read: the
// kernel stores its first block of k); false, having done nothing, otherwise.
bool PackedGemmOverwrite(const float* a, int64_t lda_row, int64_t lda_col, const float* b,
                         int64_t ldb_row, int64_t ldb_col, float* c, int64_t m, int64_t n,
                         int64_t k, ThreadPool* pool);

// c[m x n] += a[m x k] * b[k x n] (strides as Gemm2DLoop; c is dense, row-major).
template <typename C>
inline void Gemm2D(const C* a, int64_t lda_row, int64_t lda_col, const C* b, int64_t ldb_row,
                   int64_t ldb_col, C* c, int64_t m, int64_t n, int64_t k,
                   ThreadPool* pool = nullptr) {
  if constexpr (std::is_same_v<C, float> || std::is_same_v<C, double>) {
    if (FloatGemm2D(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool)) return;
  }
  Gemm2DLoop(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k);
}

// c[m x n] = a * b (strides as Gemm2D; c's old values not read): the packed kernel writes
// c once where it applies (a [1500,64] x [64,1500] attention product had cleared its 9 MB
// output, then read and written it again); elsewhere c is cleared, then Gemm2D adds.
template <typename C>
inline void Gemm2DOverwrite(const C* a, int64_t lda_row, int64_t lda_col, const C* b,
                            int64_t ldb_row, int64_t ldb_col, C* c, int64_t m, int64_t n, int64_t k,
                            ThreadPool* pool = nullptr) {
  if constexpr (std::is_same_v<C, float>) {
    if (PackedGemmOverwrite(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool)) return;
  }
  std::fill(c, c + (m * n > 0 ? m * n : 0), C(0));
  Gemm2D(a, lda_row, lda_col, b, ldb_row, ldb_col, c, m, n, k, pool);
}

}  // namespace onnx_light::kernels
