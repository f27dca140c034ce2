// The affine map shared by LinearRegressor and LinearClassifier: scores[N, T] =
// X[N, C] W[T, C]^T + b[T], through the GEMM MatMul uses.
#pragma once

#include "math/gemm.h"
#include "ml/ml_common.h"

namespace onnx_light::kernels {

// Checks the coefficient count against X's features; fills `scores` (rows * targets).
inline Status MlAffine(const float* x, int64_t rows, int64_t cols, const std::vector<float>& w,
                       const std::vector<float>& b, int64_t targets, float* scores,
                       ThreadPool* pool) {
  if (static_cast<int64_t>(w.size()) != targets * cols) {
    return Status(StatusCode::kInvalidArgument, std::to_string(w.size()) +
                                                    " coefficients do not make " +
                                                    std::to_string(targets) + " rows of X's " +
                                                    std::to_string(cols) + " features");
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t t = 0; t < targets; ++t)
      scores[r * targets + t] = b.empty() ? 0.0f : b[static_cast<size_t>(t)];
  }
  if (rows == 0 || targets == 0 || cols == 0) return Status::Ok();
  // b(p, j) = W[j, p]: W read transposed in place.
  if (!BlasGemm2D(x, cols, 1, w.data(), 1, cols, scores, rows, targets, cols, pool)) {
    Gemm2DLoop(x, cols, 1, w.data(), 1, cols, scores, rows, targets, cols);
  }
  return Status::Ok();
}

}  // namespace onnx_light::kernels
