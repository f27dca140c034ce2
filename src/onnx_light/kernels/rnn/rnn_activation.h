// The activation functions of RNN, GRU and LSTM (ONNX's list, with their alpha and beta
// defaults): parsed once when the kernel is made, applied in float32 to a whole gate row
// (vectorized where a vector form exists) or in double by the reference path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace onnx_light::kernels {

enum class RnnActKind : uint8_t {
  kSigmoid,
  kTanh,
  kRelu,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus,
  kAffine,
};

struct RnnActivation {
  RnnActKind kind = RnnActKind::kSigmoid;
  float alpha = 0, beta = 0;
  // In double, for the double-precision path.
  double operator()(double x) const;
};

// The activation named `name` (as ONNX spells it) with ONNX's default alpha and beta;
// false for a name ONNX does not define.
bool ParseRnnActivation(const std::string& name, RnnActivation* out);

// Whether `kind` takes an alpha (LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu,
// Affine) or a beta (ScaledTanh, HardSigmoid, Affine): activation_alpha and
// activation_beta are consumed in activation order by the activations that take them, as
// ONNX Runtime reads them ([Sigmoid, LeakyRelu] with alpha [0.3] is LeakyRelu(0.3)).
bool RnnActivationTakesAlpha(RnnActKind kind);
bool RnnActivationTakesBeta(RnnActKind kind);

// x[i] = act(x[i]) for i < n in float32: Sigmoid, Tanh, Relu, LeakyRelu, HardSigmoid,
// ScaledTanh and Affine vectorized (simd/conv_simd.h's activations, within a few ULP of
// the C library), the others a scalar loop.
void ApplyRnnActivation(const RnnActivation& act, float* x, size_t n);

}  // namespace onnx_light::kernels
