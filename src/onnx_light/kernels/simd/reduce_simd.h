// Maximum and minimum reductions in vector code (Highway, runtime dispatch), for ReduceMax,
// ReduceMin and the arg-free paths that need a row's extreme. A NaN anywhere in what is
// folded gives NaN, as the scalar fold (and numpy) gives; an empty fold gives -inf for the
// maximum and +inf for the minimum.
#pragma once

#include <cstddef>

namespace onnx_light::kernels {

// The maximum (is_max) or minimum of x[0, n).
float MaxMinF32(const float* x, size_t n, bool is_max);

// out[j] = the maximum (is_max) or minimum over r < rows of x[r * stride + j], j < n
// (a middle-axis reduction: every row read whole, in order).
void MaxMinRowsF32(const float* x, size_t stride, size_t rows, size_t n, bool is_max, float* out);

// The first i < n with !(x[i] <= bound) (above) or !(x[i] >= bound) (below): a value past
// the bound, or a NaN on either side; n when there is none. TopK's scan for the few
// values that can enter its best k.
size_t FindBeyondF32(const float* x, size_t n, float bound, bool above);

}  // namespace onnx_light::kernels
