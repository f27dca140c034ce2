// com.microsoft FusedGemm: Gemm followed by an activation, which ORT's saved optimized graphs
// and its Gemm+activation fusion write. Attributes: Gemm's, `activation` (the op's name)
// and its parameters as activation_alpha / activation_beta / activation_gamma, required
// where the activation has them (as ORT requires them). float only, as ORT's CPU kernel.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "com_microsoft/ms_def.h"
#include "math/linalg.h"
#include "simd/conv_simd.h"

namespace onnx_light::kernels {
namespace {

enum class Kind {
  kRelu,
  kSigmoid,
  kTanh,
  kLeakyRelu,
  kHardSigmoid,
  kElu,
  kSelu,
  kCelu,
  kThresholdedRelu,
  kSoftsign,
  kSoftplus,
  kParametricSoftplus,
  kScaledTanh
};

// The activation's name, kind, and which of alpha, beta, gamma it reads (bits 0, 1, 2).
struct Known {
  const char* name;
  Kind kind;
  unsigned params;
};
constexpr Known kKnown[] = {{"Relu", Kind::kRelu, 0},
                            {"Sigmoid", Kind::kSigmoid, 0},
                            {"Tanh", Kind::kTanh, 0},
                            {"LeakyRelu", Kind::kLeakyRelu, 1},
                            {"HardSigmoid", Kind::kHardSigmoid, 3},
                            {"Elu", Kind::kElu, 1},
                            {"Selu", Kind::kSelu, 0b101},
                            {"Celu", Kind::kCelu, 1},
                            {"ThresholdedRelu", Kind::kThresholdedRelu, 1},
                            {"Softsign", Kind::kSoftsign, 0},
                            {"Softplus", Kind::kSoftplus, 0},
                            {"ParametricSoftplus", Kind::kParametricSoftplus, 3},
                            {"ScaledTanh", Kind::kScaledTanh, 3}};

struct Act {
  Kind kind = Kind::kRelu;
  float alpha = 0, beta = 0, gamma = 0;
};

float Softplus(float v) {
  return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
}

// The activations without a vector form in simd/conv_simd.h, one value at a time.
float Apply(const Act& a, float x) {
  switch (a.kind) {
    case Kind::kElu:
      return x >= 0 ? x : a.alpha * std::expm1(x);
    case Kind::kSelu:
      return a.gamma * (x > 0 ? x : a.alpha * std::expm1(x));
    case Kind::kCelu:
      return std::max(0.0f, x) + std::min(0.0f, a.alpha * std::expm1(x / a.alpha));
    case Kind::kThresholdedRelu:
      return x > a.alpha ? x : 0.0f;
    case Kind::kSoftsign:
      return x / (1.0f + std::fabs(x));
    case Kind::kSoftplus:
      return Softplus(x);
    case Kind::kParametricSoftplus:
      return a.alpha * Softplus(a.beta * x);
    case Kind::kScaledTanh:
      return a.alpha * std::tanh(a.beta * x);
    default:
      return x;  // the vector ones never come here
  }
}

// The vector form of the activation, or kind kNone when there is none.
Activation Vector(const Act& a) {
  switch (a.kind) {
    case Kind::kRelu:
      return {ActivationKind::kRelu};
    case Kind::kSigmoid:
      return {ActivationKind::kSigmoid};
    case Kind::kTanh:
      return {ActivationKind::kTanh};
    case Kind::kLeakyRelu:
      return {ActivationKind::kLeakyRelu, a.alpha};
    case Kind::kHardSigmoid:
      return {ActivationKind::kHardSigmoid, a.alpha, a.beta};
    default:
      return {};
  }
}

Result<Act> ReadAct(const KernelInfo& info) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::string name, info.GetString("activation", ""));
  for (const Known& k : kKnown) {
    if (name != k.name) continue;
    Act act;
    act.kind = k.kind;
    const char* attrs[] = {"activation_alpha", "activation_beta", "activation_gamma"};
    float* values[] = {&act.alpha, &act.beta, &act.gamma};
    for (unsigned i = 0; i < 3; ++i) {
      if (((k.params >> i) & 1u) == 0) continue;
      ONNX_LIGHT_RETURN_IF(!info.HasAttribute(attrs[i]), kInvalidModel,
                           "activation " + name + " needs attribute " + attrs[i]);
      ONNX_LIGHT_ASSIGN_OR_RETURN(*values[i], info.GetFloat(attrs[i]));
    }
    ONNX_LIGHT_RETURN_IF(act.kind == Kind::kCelu && act.alpha == 0, kInvalidModel,
                         "activation Celu needs a nonzero activation_alpha");
    return act;
  }
  return Status(StatusCode::kInvalidModel,
                "unknown activation '" + name +
                    "' (Relu, Sigmoid, Tanh, LeakyRelu, HardSigmoid, Elu, Selu, Celu, "
                    "ThresholdedRelu, Softsign, Softplus, ParametricSoftplus, ScaledTanh)");
}

Result<std::unique_ptr<KernelBase>> CreateFusedGemm(const KernelInfo& info) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(Act act, ReadAct(info));
  const Activation vec = Vector(act);
  if (vec.kind != ActivationKind::kNone) {
    return CreateGemm(
        info, [vec](float* y, int64_t n) { ActivationF32(y, y, static_cast<size_t>(n), vec); });
  }
  return CreateGemm(info, [act](float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      y[i] = Apply(act, y[i]);
  });
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, FusedGemm) {
  return r.Register(MsDef("FusedGemm", {{"T", {0, 1, 2}, {0}, {DataType::kFloat}}},
                          &CreateFusedGemm, {2, 3}, {1, 1}, 1u << 2));
}

}  // namespace onnx_light::kernels
