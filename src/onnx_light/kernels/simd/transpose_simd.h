// 2-D transposes of 4-byte items in vector code: 4 x 4 blocks through 128-bit registers
// (every target has them), as ONNX Runtime's MLAS transposes floats.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnx_light::kernels {

// d[r * ldd + c] = s[c * ld + r] for rows [r0, r1) and columns [c0, c1); 4 x 4 blocks in
// vector code, the edges element by element.
void TransposeTileU32(const uint32_t* s, uint32_t* d, int64_t r0, int64_t r1, int64_t c0,
                      int64_t c1, int64_t ld, int64_t ldd);

// The streams of an interleaved run split apart: d[r * ldd + c] = s[c * k + r] for r < k
// and c < n, k in 2..4, items of `item` bytes (1, 2, 4 or 8): an NHWC image's 3 channels
// moved to the front, SpaceToDepth's column pairs. Highway's LoadInterleaved{2,3,4}: whole
// vectors, then 128-bit ones, then item by item.
void DeinterleaveStreams(const void* s, size_t item, int64_t k, int64_t n, void* d, int64_t ldd);

}  // namespace onnx_light::kernels
