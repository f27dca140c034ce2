// Element-wise float32 math in vector code (Highway, runtime dispatch) for the ops of
// math/math_unary.cc that had only a scalar loop through a function pointer: the exact ones
// (Sqrt, Abs, Neg, Reciprocal, Floor, Ceil, Round half to even: bit for bit the C library's)
// and the exponential family (Elu, Selu, Celu, Softplus: Highway's Exp/Expm1/Log1p, within
// 4 ULP), with Softsign, ThresholdedRelu and Shrink. NaN in gives NaN out wherever the scalar
// formula gives NaN (ThresholdedRelu and Shrink give 0, as theirs do). Sign, Sin, Cos and
// Mish too (Sign exact; Sin and Cos within 3 ULP; Mish from Softplus and Highway's Tanh).
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnx_light::kernels {

enum class UnaryOpF32 : uint8_t {
  kSqrt,
  kAbs,
  kNeg,
  kReciprocal,
  kFloor,
  kCeil,
  kRound,
  kElu,              // a = alpha
  kSelu,             // a = alpha, b = gamma
  kCelu,             // a = alpha
  kSoftplus,         // log(1 + exp(x))
  kSoftsign,         // x / (1 + |x|)
  kThresholdedRelu,  // a = alpha
  kShrink,           // a = bias, b = lambd
  kSign,             // -1, 1, or x itself (±0, NaN)
  kSin,              // Highway's Sin (3 ULP) for |x| <= 39000, the C library's beyond
  kCos,              // likewise
  kMish,             // x * tanh(softplus(x))
  kAsin,             // Highway's (2 ULP) on [-1, 1], the C library's outside (NaN)
  kAcos,             // likewise
  kAtan,             // Highway's (3 ULP) on finite x, the C library's for inf and NaN
};

// y[i] = op(x[i]) for i < n; in place allowed.
void UnaryF32(UnaryOpF32 op, const float* x, float* y, size_t n, float a, float b);

}  // namespace onnx_light::kernels
