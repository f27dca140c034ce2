// Vectorized element-wise kernels (Highway, runtime CPU dispatch). Every function works at
// any length (tails included) and in place (x == y).
//
// The environment variable ONNX_LIGHT_SIMD_TARGET (e.g. AVX2, SSE4, EMU128), read once when
// the library loads, caps the dispatch at that target, so a machine with AVX-512 can run
// what an AVX2-only machine runs. An unknown or unsupported name is reported on stderr
// and ignored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

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

// float32 -> float16 bits (rounded to nearest-even) and back, exactly as the core's
// float16 conversions (NaN payloads included), with F16C where the CPU has it.
void Float32ToFloat16(const float* x, uint16_t* y, size_t n);
void Float16ToFloat32(const uint16_t* x, float* y, size_t n);
// int64 -> float32 rounded once (static_cast<float>); float32 -> int64 toward zero,
// saturating at int64's range, NaN -> 0 (Cast's rules).
void Int64ToFloat32(const int64_t* x, float* y, size_t n);
void Float32ToInt64(const float* x, int64_t* y, size_t n);

// y = exp(x - shift) (Highway Exp, within 1 ULP of float exp), returning the sum of y:
// the body of a softmax row. x == -inf gives 0; NaN propagates. In place allowed.
float ExpShiftedF32(const float* x, float* y, size_t n, float shift);

// Reductions of float32 in double (rounded by the caller): the sum of x - center (or of its
// square: a variance's sum with center = the mean), and
// column sums out[i] = sum over r < rows of x[r * stride + i] (or its square), rows added
// in order.
double SumF32InF64(const float* x, size_t n, bool squares, double center = 0.0);
void SumRowsF32InF64(const float* x, size_t stride, size_t rows, size_t n, bool squares,
                     double* out);

// y[i] = a[i] (op) b[i], or b (op) a when `swap`; b is one value when `b_scalar`. IEEE
// results, the same as the scalar operators'. In place allowed (y == a).
enum class BinaryOpF32 { kAdd, kSub, kMul, kDiv };
void BinaryF32(const float* a, const float* b, float* y, size_t n, BinaryOpF32 op, bool b_scalar,
               bool swap);

// MaxPool's sliding maximum, one pass: t[i] = max(t[i], t[i + step]) for i < n by
// MaxPool's order (a NaN wins, ties keep t[i]), in place, ascending (t[i + step] is read
// before any store reaches it). t holds n + step floats.
void MaxAheadF32(float* t, size_t n, size_t step);

// Lanes of the widest float32 vector on this CPU (for tests of tails).
size_t Float32Lanes();
// Name of the SIMD target chosen at run time, e.g. "AVX2".
const char* SimdTargetName();

// The Highway targets compiled into these kernels that the running CPU supports (and
// ONNX_LIGHT_SIMD_TARGET leaves enabled), best first, e.g. {AVX3, AVX2, SSE4, SSSE3,
// EMU128} on an AVX-512 machine.
std::vector<int64_t> CompiledSimdTargets();
const char* SimdTargetNameOf(int64_t target);
// Makes every kernel above dispatch to `target` (one of CompiledSimdTargets()) until
// called again; 0 restores the normal choice. For tests: not thread-safe.
void ForceSimdTargetForTest(int64_t target);

}  // namespace onnx_light::kernels
