// A packed single-precision matrix product written with Highway (runtime dispatch), for
// the CPUs where it beats the BLAS: c[m x n] += a[m x k] * b[k x n], all row-major with
// leading dimensions lda, ldb, ldc. GotoBLAS blocking: panels of b (k-block x 4 vectors
// on AVX-512, 2 elsewhere) are packed, a is read in place (or packed once beforehand,
// SgemmPackA), and a 6-row register tile accumulates.
// docs/performance.md has the benchmark that decides where it is used.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnx_light::kernels {

// `work` holds at least SgemmPackedWorkFloats(n) floats, 64-byte aligned. `a_packed`, if
// not null, is `a` already packed by SgemmPackA (then `a` is not read): a matrix used for
// several products (a convolution's weights over its bands) is packed once. `b_trans`: b
// is stored transposed, b(p, j) = b[j * ldb + p]. `b_packed`, if not null, is b packed by
// SgemmPackB (then b is not read): a constant weight matrix packed once per session; for
// columns j0.. of it (a multiple of SgemmPackedTileColumns() = nr), pass
// b_packed + j0 / nr * k * nr.
// `overwrite`: c = a * b, c not read (no zero fill before: a [1500,64] x [64,1500] product
// wrote, read and wrote its 9 MB output once each).
void SgemmPacked(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                 int64_t ldb, float* c, int64_t ldc, float* work, const float* a_packed = nullptr,
                 bool b_trans = false, const float* b_packed = nullptr, bool overwrite = false);
// Packs all of b [k x n] (row-major, rows ldb apart) for SgemmPacked into
// SgemmPackedBFloats(k, n) floats, 64-byte aligned.
size_t SgemmPackedBFloats(int64_t k, int64_t n);
void SgemmPackB(int64_t k, int64_t n, const float* b, int64_t ldb, float* out,
                bool b_trans = false);
// The work floats SgemmPacked needs when b is packed already (64-byte aligned).
size_t SgemmPrepackedWorkFloats();
size_t SgemmPackedWorkFloats(int64_t n);
// Packs all of a [m x k] for SgemmPacked into SgemmPackedAFloats(m, k) floats.
size_t SgemmPackedAFloats(int64_t m, int64_t k);
void SgemmPackA(int64_t m, int64_t k, const float* a, int64_t lda, float* out);

// Narrow products (a few columns: convolutions with a few output positions, as the
// 1-D convolutions of audio models; a few rows against a large weight matrix, computed
// transposed): c[m x n] += a[m x k] * bt[n x k]^T, i.e. m * n dot products of length k,
// with b given transposed (row j of bt is column j of b), c(i, j) at c[i * ldc + j *
// ldc_col]. Each block of rows of a is read once, from memory, while every column passes
// it in the L1 cache; no packing.
void SgemmNarrow(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* bt,
                 int64_t ldbt, float* c, int64_t ldc, int64_t ldc_col = 1);

// c[m x n] = bias + a[m x k] * b (bias[i] for row i, 0 when bias is null; c is not read),
// a read in place (rows lda apart: no packing), row p of b read in place at b + boff[p]
// for columns 0 .. n (and up to the next multiple of SgemmTileColumns(), read but not
// used: the memory must be there). An implicit convolution: the rows of b are the input
// shifted by each tap, no columns built, and neither operand packed.
// `accumulate`: c += a * b instead (c read, bias ignored).
void SgemmIndirectB(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                    const int64_t* boff, float* c, int64_t ldc, const float* bias,
                    bool accumulate = false);
// c[m x n] += a * b, a row-major (rows lda apart, read in place) and b packed whole by
// SgemmPackB: where !PreferPackedSgemm() (the packed panels are then this kernel's tile
// width), the product of constant weights packed once per session.
void SgemmPrepackedInPlaceA(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                            const float* b_packed, float* c, int64_t ldc);
// The same for 1 to 3 rows of a (any target): a batch-1 layer's product with its weights.
void SgemmPrepackedFewRows(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                           const float* b_packed, float* c, int64_t ldc);
// c[m x n] += a * b for a few dozen rows of a, a read through offsets, a(r, p) =
// x[roff[r] + koff[p]] (simd/gemm_gather_simd.cc: a convolution computed transposed, its
// windows read in place), b packed whole by SgemmPackB. The rows go in tiles of nearly
// equal height, none computed and thrown away.
void SgemmGatherA(int64_t m, int64_t n, int64_t k, const float* x, const int64_t* roff,
                  const int64_t* koff, const float* b_packed, float* c, int64_t ldc);
// The columns of SgemmIndirectB's register tile on the running CPU (2 vectors).
size_t SgemmTileColumns();
// SgemmIndirectB in double precision (the same kernel, half the columns per tile).
void DgemmIndirectB(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
                    const int64_t* boff, double* c, int64_t ldc, const double* bias,
                    bool accumulate = false);
size_t DgemmTileColumns();
// The columns of SgemmPacked's register tile (4 vectors on AVX-512, else 2).
size_t SgemmPackedTileColumns();

// True when the running CPU's target is one where SgemmPacked is the faster choice
// (AVX-512); elsewhere the in-place kernel (SgemmIndirectB) is.
bool PreferPackedSgemm();

}  // namespace onnx_light::kernels
