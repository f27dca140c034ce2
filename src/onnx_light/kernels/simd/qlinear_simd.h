// 8-bit quantized arithmetic in vector code (Highway, runtime dispatch), bit for bit the
// scalar float arithmetic of ORT's reference kernels (MLAS's scalar paths): each value
// computed in float32 with the same operations in the same order (no fused multiply-add),
// clamped to the code range minus the zero point (a NaN to the lowest code), rounded half
// to even, the zero point added.
#pragma once

#include <cstdint>

namespace onnx_light::kernels {

// int32 sums [rows x n] (rows ldc apart) plus bias[j], times scale[j], as 8-bit codes
// [rows x n] (rows ldo apart; int8 when out_signed, else uint8):
// saturate(round_half_even(.) + zero). The sum wraps in int32.
void RequantizeRows(const int32_t* acc, int64_t ldc, int64_t rows, int64_t n, const int32_t* bias,
                    const float* scale, int32_t zero, bool out_signed, void* out, int64_t ldo);

// One row of int32 sums as 8-bit codes in double, as the ONNX reference requantizes
// (QLinearMatMul): saturate(round_half_even(acc[j] * scale[j] + zero)), a NaN to the lowest
// code; int8 when out_signed, else uint8.
void RequantizeRowF64(const int32_t* acc, int64_t n, const double* scale, double zero,
                      bool out_signed, void* out);

// int32 products [rows x n] held in the float buffer y, turned in place into
// float(product) * scale (+ bias where bias is not null), two roundings (no fused
// multiply-add), as ORT's MLAS output processor computes them; scale and bias one value
// (one_scale, one_bias) or one per column.
void ProductsToFloat(float* y, int64_t rows, int64_t n, const float* scale, bool one_scale,
                     const float* bias, bool one_bias);

// QLinearAdd / QLinearMul over n codes of one type (int8 when is_signed, else uint8), b
// either n codes or one (one_b): with x = a - za and y = b - zb in float,
// add: ra * x + rb * y; mul: x * y * ra (rb unused); then requantized with zc.
enum class QLinearBinaryKind { kAdd, kMul };
void QLinearBinaryFlat(QLinearBinaryKind kind, bool is_signed, const void* a, const void* b,
                       bool one_b, void* c, int64_t n, float ra, float rb, int32_t za, int32_t zb,
                       int32_t zc);

// QLinearAveragePool's windows that lie inside the input (com_microsoft/
// qlinear_average_pool.cc), `count` outputs of one row at stride 1: output j sums, in tap
// order (row r, then column t), scale * float(rows[r][j + t] - zp) for r < nrows, t < kw,
// then its code is clamp(round_half_even(sum / divisor / y_scale + y_zp)) in int8
// (is_signed) or uint8, each rounding as ORT's scalar kernel makes it.
void QAvgPoolRow(bool is_signed, const void* const* rows, int64_t nrows, int64_t kw, int64_t count,
                 float scale, int32_t zp, float divisor, float y_scale, int32_t y_zp, void* out);

// Winograd F(2x2, 3x3)'s transforms (quantization/qconv_winograd.h), vectorized over
// channels. Input: for tile rows [tr0, tr1) of tw tiles, the 4x4 patch of tile (r, t) at
// img + ((2r + y) * wp + 2t + x) * cp (c channels from there) becomes V = B^T d B in
// v[(i * tiles + tile) * c + ch] (i = 4 * row + column of V; tile counted from tr0).
void WinogradInputTiles(const int16_t* img, int64_t wp, int64_t cp, int64_t tr0, int64_t tr1,
                        int64_t tw, int64_t c, int16_t* v);
// Output: M at prod[(i * tiles + tile) * m + j] becomes Y = A^T M A / 4 (int32, the sums
// wrapping before the exact division), tile (r, t)'s four pixels written to
// acc[((2r + y - 2 tr0) * ow + 2t + x) * m + j] where 2r + y < oh and 2t + x < ow.
void WinogradOutputTiles(const int32_t* prod, int64_t tr0, int64_t tr1, int64_t tw, int64_t m,
                         int64_t oh, int64_t ow, int32_t* acc);

}  // namespace onnx_light::kernels
