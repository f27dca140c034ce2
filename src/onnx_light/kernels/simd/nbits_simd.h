// Vector kernels of MatMulNBits (kernels/com_microsoft/matmul_nbits.cc), dispatched at run
// time to the CPU's widest Highway target.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnx_light::kernels {

// Over `blocks` blocks of 4-bit codes (`bytes` bytes each, two codes a byte, the low
// nibble first): sum_b scale[b] * sum_i (low(i) * a_even[i] + high(i) * a_odd[i]), where
// a_even / a_odd hold a row of A's even and odd elements (block b's at b * bytes). The
// codes are unpacked in registers and the scales applied in vector accumulators: one
// horizontal sum per column.
float DotQ4Column(const uint8_t* codes, size_t blocks, size_t bytes, const float* a_even,
                  const float* a_odd, const float* scale);

// The same blocks dequantized: block b's (low - zero_point[b]) * scale[b] values at
// out[b * 2 * bytes, + bytes), its high nibbles' after them (A's elements must be split the
// same way, even ones then odd ones per block, for the product).
void DequantQ4Blocks(const uint8_t* codes, size_t blocks, size_t bytes, const float* scale,
                     const float* zero_point, float* out);

// accuracy_level 4 (ORT's CompInt8): a row of A quantized per block of `block` values
// (the last block zero-padded): scale = max|a| / 127, codes round_half_even(a * (127 /
// max|a|)) (0 for an all-zero block), kept as int16 with the even elements of each block
// before its odd ones (the codes' nibble order) in q [blocks * block]; scales[b] the
// block's scale, sums[b] = scales[b] * (the sum of block b's codes).
void QuantizeRowQ8(const float* a, int64_t k, int64_t block, int16_t* q, float* scales,
                   float* sums);

// For up to 4 rows of quantized A (q[r], a_scales[r], sums[r]) and one column's 4-bit
// blocks (`bytes` bytes each, low nibble first) with scales w_scales and zs[b] = the
// block's scale times its zero point:
// out[r] = sum_b a_scales[r][b] * w_scales[b] * dot_b(q[r], codes) - sum_b zs[b] * sums[r][b],
// each block's dot exact in int32. The codes are unpacked once for all the rows.
void DotQ4Q8Column(const uint8_t* codes, int64_t blocks, int64_t bytes, int rows,
                   const int16_t* const* q, const float* const* a_scales, const float* const* sums,
                   const float* w_scales, const float* zs, float* out);

}  // namespace onnx_light::kernels
