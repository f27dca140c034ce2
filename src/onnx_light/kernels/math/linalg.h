// MatMul and Gemm (math/linalg.cc), for the kernels that are them plus a little: com.microsoft
// FusedGemm (an activation after Gemm).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "onnx_light/runtime/kernel.h"

namespace onnx_light::kernels {

// Applied in place to a float Gemm's result (y has n values), after alpha and beta C.
using FloatEpilogue = std::function<void(float* y, int64_t n)>;

// Gemm's kernel (attributes alpha, beta, transA, transB); `epilogue`, when set, runs on the
// float result.
Result<std::unique_ptr<KernelBase>> CreateGemm(const KernelInfo& info, FloatEpilogue epilogue);

}  // namespace onnx_light::kernels
