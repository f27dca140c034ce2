// The int32 products of the integer matrix kernels (MatMulInteger, QLinearMatMul and the
// com.microsoft QGemm, MatMulIntegerToFloat, DynamicQuantizeMatMul): (a - a_zp) @
// (b - b_zp) of 8-bit operands with numpy batch broadcasting; a's zero point is a scalar or
// one per row ([M]), b's a scalar or one per column ([N]). Exact in int32
// (simd/qgemm_simd.h).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common/kernel_util.h"
#include "simd/qgemm_simd.h"

namespace onnx_light::kernels {

// `output(dims)` returns where the products go (the output tensor itself for
// MatMulInteger, no copy).
using IntegerProductsFn = std::function<Result<int32_t*>(const std::vector<int64_t>&)>;

// Writes the products through `output` and returns their dims. `packed` is B packed once
// (QGemmVnniPackB) when B is a constant, or null.
Result<std::vector<int64_t>> IntegerMatMul(const Tensor& a, const Tensor* a_zp, const Tensor& b,
                                           const Tensor* b_zp, ThreadPool* pool,
                                           const IntegerProductsFn& output,
                                           const QGemmPackedB* packed = nullptr);

}  // namespace onnx_light::kernels
