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

}  // namespace onnx_light::kernels
