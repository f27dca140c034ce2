// The kernel functions shared by SVMClassifier and SVMRegressor (kernel_type, kernel_params
// = [gamma, coef0, degree]): LINEAR <x, v>, POLY (gamma <x, v> + coef0)^degree, RBF
// exp(-gamma |x - v|^2), SIGMOID tanh(gamma <x, v> + coef0), of every row of X with every
// row of V, the dot products through the GEMM MatMul uses.
#pragma once

#include "math/gemm.h"
#include "ml/ml_common.h"

namespace onnx_light::kernels {

enum class SvmKernel { kLinear, kPoly, kRbf, kSigmoid };

struct SvmParams {
  SvmKernel kernel = SvmKernel::kLinear;
  float gamma = 0.0f, coef0 = 0.0f, degree = 0.0f;
};

inline Result<SvmParams> ReadSvmParams(const KernelInfo& info) {
  SvmParams p;
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::string k, info.GetString("kernel_type", "LINEAR"));
  ONNX_LIGHT_RETURN_IF_ERROR(MlCheckChoice("kernel_type", k, {"LINEAR", "POLY", "RBF", "SIGMOID"}));
  p.kernel = k == "POLY"      ? SvmKernel::kPoly
             : k == "RBF"     ? SvmKernel::kRbf
             : k == "SIGMOID" ? SvmKernel::kSigmoid
                              : SvmKernel::kLinear;
  if (info.HasAttribute("kernel_params")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<float> v, info.GetFloats("kernel_params"));
    if (!v.empty() && v.size() != 3) {
      return Status(StatusCode::kInvalidModel,
                    "kernel_params must be [gamma, coef0, degree], got " +
                        std::to_string(v.size()) + " values");
    }
    if (v.size() == 3) {
      p.gamma = v[0];
      p.coef0 = v[1];
      p.degree = v[2];
    }
  }
  return p;
}

// X's rows and features, checked against the model's feature count.
inline Result<std::pair<int64_t, int64_t>> SvmRows(const Tensor& x, int64_t features) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(auto rc, MlRows(x));
  if (rc.second != features) {
    return Status(
        StatusCode::kInvalidArgument,
        "X has " + std::to_string(rc.second) + " features, the model " + std::to_string(features));
  }
  return rc;
}

// out[m x n] = K(x_i, v_j) (+ add, for LINEAR): x is [m, k], v is [n, k].
inline void SvmKernelRows(const SvmParams& p, const float* x, const float* v, int64_t m, int64_t n,
                          int64_t k, float add, float* out, ThreadPool* pool) {
  if (p.kernel == SvmKernel::kRbf) {
    // |x - v|^2 = |x|^2 + |v|^2 - 2 <x, v>, the dot products by GEMM; the sum is clamped at
    // 0 where rounding makes a near-zero distance negative.
    std::vector<float> xn(static_cast<size_t>(m)), vn(static_cast<size_t>(n));
    for (int64_t i = 0; i < m; ++i) {
      float s = 0.0f;
      for (int64_t f = 0; f < k; ++f)
        s += x[i * k + f] * x[i * k + f];
      xn[static_cast<size_t>(i)] = s;
    }
    for (int64_t j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int64_t f = 0; f < k; ++f)
        s += v[j * k + f] * v[j * k + f];
      vn[static_cast<size_t>(j)] = s;
    }
    std::fill(out, out + m * n, 0.0f);
    if (m > 0 && n > 0 && k > 0 && !FloatGemm2D(x, k, 1, v, 1, k, out, m, n, k, pool)) {
      Gemm2DLoop(x, k, 1, v, 1, k, out, m, n, k);
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const float d2 =
            xn[static_cast<size_t>(i)] + vn[static_cast<size_t>(j)] - 2.0f * out[i * n + j];
        out[i * n + j] = std::exp(-p.gamma * std::max(d2, 0.0f));
      }
    }
    return;
  }
  std::fill(out, out + m * n, 0.0f);
  if (m > 0 && n > 0 && k > 0 && !FloatGemm2D(x, k, 1, v, 1, k, out, m, n, k, pool)) {
    Gemm2DLoop(x, k, 1, v, 1, k, out, m, n, k);
  }
  const float scale = p.kernel == SvmKernel::kLinear ? 1.0f : p.gamma;
  const float shift = p.kernel == SvmKernel::kLinear ? add : p.coef0;
  for (int64_t i = 0; i < m * n; ++i) {
    const float d = scale * out[i] + shift;
    switch (p.kernel) {
      case SvmKernel::kPoly:
        out[i] = p.degree == 2.0f ? d * d : p.degree == 3.0f ? d * d * d : std::pow(d, p.degree);
        break;
      case SvmKernel::kSigmoid:
        out[i] = std::tanh(d);
        break;
      default:
        out[i] = d;
    }
  }
}

}  // namespace onnx_light::kernels
