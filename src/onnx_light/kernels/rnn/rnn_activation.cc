#include "rnn/rnn_activation.h"

#include <cmath>

#include "simd/conv_simd.h"

namespace onnx_light::kernels {

double RnnActivation::operator()(double x) const {
  switch (kind) {
    case RnnActKind::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case RnnActKind::kTanh:
      return std::tanh(x);
    case RnnActKind::kRelu:
      return x > 0 ? x : 0;
    case RnnActKind::kLeakyRelu:
      return x >= 0 ? x : alpha * x;
    case RnnActKind::kThresholdedRelu:
      return x > alpha ? x : 0;
    case RnnActKind::kScaledTanh:
      return alpha * std::tanh(beta * x);
    case RnnActKind::kHardSigmoid:
      return std::fmax(0.0, std::fmin(1.0, alpha * x + beta));
    case RnnActKind::kElu:
      return x >= 0 ? x : alpha * (std::exp(x) - 1);
    case RnnActKind::kSoftsign:
      return x / (1 + std::fabs(x));
    case RnnActKind::kSoftplus:
      return std::fmax(x, 0.0) + std::log1p(std::exp(-std::fabs(x)));  // no overflow
    case RnnActKind::kAffine:
      break;
  }
  return alpha * x + beta;
}

bool ParseRnnActivation(const std::string& name, RnnActivation* out) {
  struct Known {
    const char* name;
    RnnActKind kind;
    float alpha, beta;
  };
  static const Known kKnown[] = {
      {"Sigmoid", RnnActKind::kSigmoid, 0, 0},
      {"Tanh", RnnActKind::kTanh, 0, 0},
      {"Relu", RnnActKind::kRelu, 0, 0},
      {"LeakyRelu", RnnActKind::kLeakyRelu, 0.01f, 0},
      {"ThresholdedRelu", RnnActKind::kThresholdedRelu, 1.0f, 0},
      {"ScaledTanh", RnnActKind::kScaledTanh, 1.0f, 1.0f},
      {"HardSigmoid", RnnActKind::kHardSigmoid, 0.2f, 0.5f},
      {"Elu", RnnActKind::kElu, 1.0f, 0},
      {"Softsign", RnnActKind::kSoftsign, 0, 0},
      {"Softplus", RnnActKind::kSoftplus, 0, 0},
      {"Affine", RnnActKind::kAffine, 1.0f, 0},
  };
  for (const Known& k : kKnown) {
    if (name == k.name) {
      *out = {k.kind, k.alpha, k.beta};
      return true;
    }
  }
  return false;
}

bool RnnActivationTakesAlpha(RnnActKind kind) {
  switch (kind) {
    case RnnActKind::kLeakyRelu:
    case RnnActKind::kThresholdedRelu:
    case RnnActKind::kScaledTanh:
    case RnnActKind::kHardSigmoid:
    case RnnActKind::kElu:
    case RnnActKind::kAffine:
      return true;
    default:
      return false;
  }
}

bool RnnActivationTakesBeta(RnnActKind kind) {
  return kind == RnnActKind::kScaledTanh || kind == RnnActKind::kHardSigmoid ||
         kind == RnnActKind::kAffine;
}

void ApplyRnnActivation(const RnnActivation& act, float* x, size_t n) {
  Activation v;
  switch (act.kind) {
    case RnnActKind::kSigmoid:
      v.kind = ActivationKind::kSigmoid;
      break;
    case RnnActKind::kTanh:
      v.kind = ActivationKind::kTanh;
      break;
    case RnnActKind::kRelu:
      v.kind = ActivationKind::kRelu;
      break;
    case RnnActKind::kLeakyRelu:
      v = {ActivationKind::kLeakyRelu, act.alpha, 0};
      break;
    case RnnActKind::kHardSigmoid:
      v = {ActivationKind::kHardSigmoid, act.alpha, act.beta};
      break;
    case RnnActKind::kScaledTanh:  // alpha * tanh(beta * x)
      for (size_t i = 0; i < n; ++i)
        x[i] *= act.beta;
      v.kind = ActivationKind::kTanh;
      v.has_scale = true;
      v.scale = act.alpha;
      break;
    case RnnActKind::kAffine:
      v.has_scale = v.has_shift = true;
      v.scale = act.alpha;
      v.shift = act.beta;
      break;
    case RnnActKind::kThresholdedRelu:
      for (size_t i = 0; i < n; ++i)
        x[i] = x[i] > act.alpha ? x[i] : 0.0f;
      return;
    case RnnActKind::kElu:
      for (size_t i = 0; i < n; ++i)
        x[i] = x[i] >= 0 ? x[i] : act.alpha * std::expm1(x[i]);
      return;
    case RnnActKind::kSoftsign:
      for (size_t i = 0; i < n; ++i)
        x[i] = x[i] / (1.0f + std::fabs(x[i]));
      return;
    case RnnActKind::kSoftplus:
      for (size_t i = 0; i < n; ++i)
        x[i] = std::fmax(x[i], 0.0f) + std::log1p(std::exp(-std::fabs(x[i])));
      return;
  }
  ActivationF32(x, x, n, v);
}

}  // namespace onnx_light::kernels
