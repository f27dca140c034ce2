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

// QLinearAdd / QLinearMul over n codes of one type (int8 when is_signed, else uint8), b
// either n codes or one (one_b): with x = a - za and y = b - zb in float,
// add: ra * x + rb * y; mul: x * y * ra (rb unused); then requantized with zc.
enum class QLinearBinaryKind { kAdd, kMul };
void QLinearBinaryFlat(QLinearBinaryKind kind, bool is_signed, const void* a, const void* b,
                       bool one_b, void* c, int64_t n, float ra, float rb, int32_t za, int32_t zb,
                       int32_t zc);

}  // namespace onnx_light::kernels
