// Vectorized pieces of convolution (Highway, runtime CPU dispatch, like
// elementwise_simd.h): the rows of a direct depthwise convolution and the fused epilogue
// (bias, residual, activation) that Conv and FusedConv apply to their outputs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnx_light::kernels {

// An activation fused into a convolution or matrix product's output (ONNX semantics).
enum class ActivationKind : uint8_t {
  kNone,
  kRelu,
  kClip,       // a = min, b = max
  kLeakyRelu,  // a = alpha
  kSigmoid,
  kHardSigmoid,  // max(0, min(1, a*x + b))
  kHardSwish,    // x * max(0, min(1, x/6 + 1/2))
  kTanh,
  kSilu,  // x * sigmoid(x)
  kExp,
};
struct Activation {
  ActivationKind kind = ActivationKind::kNone;
  float a = 0, b = 0;
};

// y[i] += a * x[i * stride] for i < n (any stride; 1 and 2 vectorized).
void AxpyStridedF32(float* y, const float* x, size_t n, float a, size_t stride);
// y[i] = act(x[i]): the unary ops with a vector form (Tanh, Sigmoid, HardSigmoid,
// HardSwish, Exp, ...), within a few ULP of the C library. In place allowed.
void ActivationF32(const float* x, float* y, size_t n, const Activation& act);
// y[i] = act(y[i] + bias + (z ? z[i] : 0)): the epilogue of one output plane.
void BiasActivationF32(float* y, size_t n, float bias, const float* z, const Activation& act);

}  // namespace onnx_light::kernels
