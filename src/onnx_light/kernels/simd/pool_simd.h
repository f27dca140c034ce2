// The row passes of separable 2-D (and 1-D) float pooling, in vector code (Highway,
// runtime dispatch): a window's maximum or sum along a row at any stride, and the
// row-into-row steps of the vertical pass. nn/pool_rows.cc builds the padded rows and
// counts around them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnx_light::kernels {

// For each of `count` rows (row r at rows + r * pitch), out[r * out_pitch + o] (out_pitch
// 0: n) = the maximum of
// row[o * stride + k] over k < taps by MaxPool's order (taps in ascending k, a NaN wins
// over a number, ties keep the earlier), or with !max their sum in ascending k, o < n.
// Each row must have WindowRowReach(n, taps, stride) floats readable from its start (the
// vector loads of a row shorter than a vector read past its last tap).
void WindowRowsF32(const float* rows, size_t pitch, size_t count, size_t n, size_t taps,
                   size_t stride, bool max, float* out, size_t out_pitch = 0);
// For each output row o < out_rows: out[o * n + i] = the fold of rows[r * pitch + i] over r
// in [first[o], first[o] + count[o]) (count >= 1) in ascending r, by MaxPool's order or
// (!max) as a sum then divided by divisor[o * n + i] (or by one_divisor when divisor is
// nullptr), i < n. (n > pitch folds a run of several rows of a plane at once.)
void FoldRowsF32(const float* rows, size_t pitch, size_t n, size_t out_rows, const int32_t* first,
                 const int32_t* count, bool max, const float* divisor, float one_divisor,
                 float* out);

// The floats that WindowRowsF32 may read from a row's start: at least (n - 1) * stride +
// taps, up to a vector more.
size_t WindowRowReach(size_t n, size_t taps, size_t stride);

// The most float lanes of any compiled target (AVX-512).
constexpr size_t kPoolMaxLanes = 16;

}  // namespace onnx_light::kernels
