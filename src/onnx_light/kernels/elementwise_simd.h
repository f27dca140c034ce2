// Vectorized element-wise kernels (Highway, runtime CPU dispatch). Every function works at
// any length (tails included) and in place (x == y).
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnx_light::kernels {

void LeakyReluF32(const float* x, float* y, size_t n, float alpha);
void LeakyReluF64(const double* x, double* y, size_t n, double alpha);
// float16 / bfloat16 (as raw bits): computed in float32, rounded once to nearest-even.
void LeakyReluF16(const uint16_t* x, uint16_t* y, size_t n, float alpha);
void LeakyReluBF16(const uint16_t* x, uint16_t* y, size_t n, float alpha);

// Natural log: log(0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, NaN stays NaN;
// subnormal inputs are exact-ranged (no flush to zero).
void LogF32(const float* x, float* y, size_t n);
void LogF64(const double* x, double* y, size_t n);
void LogF16(const uint16_t* x, uint16_t* y, size_t n);
void LogBF16(const uint16_t* x, uint16_t* y, size_t n);

void ReluF32(const float* x, float* y, size_t n);

// y = exp(x - shift) (Highway Exp, within 1 ULP of float exp), returning the sum of y:
// the body of a softmax row. x == -inf gives 0; NaN propagates. In place allowed.
float ExpShiftedF32(const float* x, float* y, size_t n, float shift);

// Lanes of the widest float32 vector on this CPU (for tests of tails).
size_t Float32Lanes();
// Name of the SIMD target chosen at run time, e.g. "AVX2".
const char* SimdTargetName();

}  // namespace onnx_light::kernels
