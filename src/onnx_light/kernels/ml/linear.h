// The affine map shared by LinearRegressor and LinearClassifier: scores[N, T] =
// X[N, C] W[T, C]^T + b[T], through the GEMM MatMul uses.
#pragma once

#include "math/gemm.h"
#include "ml/ml_common.h"

namespace onnx_light::kernels {

// W [T, C] as W^T [C, T] (made once, when the kernel is): the GEMM then reads B row by row.
// A count that makes no [T, C] is returned as it is, for MlAffine's check to report.
inline std::vector<float> MlTransposed(const std::vector<float>& w, int64_t targets) {
  if (w.empty() || targets <= 0 || w.size() % static_cast<size_t>(targets) != 0) return w;
  const size_t t = static_cast<size_t>(targets), c = w.size() / t;
  std::vector<float> wt(w.size());
  for (size_t k = 0; k < w.size(); ++k)  // over the coefficients: t alone may be huge
    wt[(k % c) * t + k / c] = w[k];
  return wt;
}

// Checks the coefficient count (of `wt`, W transposed) against X's features; fills `scores`
// (rows * targets).
inline Status MlAffine(const float* x, int64_t rows, int64_t cols, const std::vector<float>& wt,
                       const std::vector<float>& b, int64_t targets, float* scores,
                       ThreadPool* pool) {
  if (static_cast<int64_t>(wt.size()) != targets * cols) {
    return Status(StatusCode::kInvalidArgument, std::to_string(wt.size()) +
                                                    " coefficients do not make " +
                                                    std::to_string(targets) + " rows of X's " +
                                                    std::to_string(cols) + " features");
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t t = 0; t < targets; ++t)
      scores[r * targets + t] = b.empty() ? 0.0f : b[static_cast<size_t>(t)];
  }
  if (rows == 0 || targets == 0 || cols == 0) return Status::Ok();
  // Blocks of rows split between the threads, each block's product on its thread (with a
  // few targets the product itself did not split: 1.9x ORT's time at two threads).
  auto block = [&](int64_t r0, int64_t r1) {
    const float* xb = x + r0 * cols;
    float* sb = scores + r0 * targets;
    if (!FloatGemm2D(xb, cols, 1, wt.data(), targets, 1, sb, r1 - r0, targets, cols, nullptr)) {
      Gemm2DLoop(xb, cols, 1, wt.data(), targets, 1, sb, r1 - r0, targets, cols);
    }
  };
  ParallelElements(
      pool, rows, block,
      std::max<int64_t>(64, (int64_t{1} << 15) / std::max<int64_t>(1, cols * targets)));
  return Status::Ok();
}

}  // namespace onnx_light::kernels
