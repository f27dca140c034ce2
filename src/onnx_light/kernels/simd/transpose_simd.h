// 2-D transposes of 4-byte items in vector code: 4 x 4 blocks through 128-bit registers
// (every target has them), as ONNX Runtime's MLAS transposes floats.
#pragma once

#include <cstdint>

namespace onnx_light::kernels {

// d[r * ldd + c] = s[c * ld + r] for rows [r0, r1) and columns [c0, c1); 4 x 4 blocks in
// vector code, the edges element by element.
void TransposeTileU32(const uint32_t* s, uint32_t* d, int64_t r0, int64_t r1, int64_t c0,
                      int64_t c1, int64_t ld, int64_t ldd);

}  // namespace onnx_light::kernels
