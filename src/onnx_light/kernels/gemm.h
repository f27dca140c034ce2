// The matrix-product inner loop shared by MatMul, Gemm and Conv (after im2col).
#pragma once

#include <cstdint>

namespace onnx_light::kernels {

// c[m x n] (+)= a[m x k] * b[k x n], with element strides for transposed operands.
template <typename C>
inline void Gemm2D(const C* a, int64_t lda_row, int64_t lda_col, const C* b, int64_t ldb_row,
                   int64_t ldb_col, C* c, int64_t m, int64_t n, int64_t k) {
  for (int64_t i = 0; i < m; ++i) {
    C* crow = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const C av = a[i * lda_row + p * lda_col];
      const C* brow = b + p * ldb_row;
      if (ldb_col == 1) {
        for (int64_t j = 0; j < n; ++j)
          crow[j] += av * brow[j];
      } else {
        for (int64_t j = 0; j < n; ++j)
          crow[j] += av * brow[j * ldb_col];
      }
    }
  }
}

}  // namespace onnx_light::kernels
