// Softmax and LogSoftmax of float32 rows in vector code (Highway, runtime dispatch): the
// row's maximum, exp(x - max) with its sum in one pass, then the scale (or the shift by
// log(sum)). exp is simd/exp-inl.h's ExpNonPositive (the Cephes single-precision method,
// within 2 ULP; arguments below -87.3, whose exp is under FLT_MIN, give 0): the arguments
// are never above 0, and a whole row costs one exp per element, the hot loop of attention.
#pragma once

#include <cstddef>

namespace onnx_light::kernels {

// y = softmax(x) over the n floats of one row (in place allowed). The maximum passes over
// NaN; a NaN anywhere, or a row whose maximum is ±inf, gives NaN throughout, as
// exp(x - max) / sum does in scalar code.
void SoftmaxRowF32(const float* x, float* y, size_t n);
// y = x - max - log(sum(exp(x - max))), the same rules.
void LogSoftmaxRowF32(const float* x, float* y, size_t n);
// exp(x) for x <= 0 by the same polynomial (for tests: x > 0 is not handled), and
// ExpAnywhere's exp over every float (the Exp op's, for tests).
void ExpNonPositiveF32(const float* x, float* y, size_t n);
void ExpAnywhereF32(const float* x, float* y, size_t n);

}  // namespace onnx_light::kernels
