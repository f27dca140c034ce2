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

// Writes the products through `output` and returns their dims. `packed` and `packed16`
// are B packed once when B is a constant (QGemmVnniPackB for AVX-512 VNNI CPUs,
// QGemmI16PackB for the others), or null.
// `epilogue`, if given, is called for each part of the products as soon as it is
// computed, on the thread that computed it: (batch index t, columns [j0, j1)) of every row
// of product t (QLinearMatMul requantizes there, reading what that core just wrote).
using IntegerEpilogueFn = std::function<void(int64_t t, int64_t j0, int64_t j1)>;
Result<std::vector<int64_t>> IntegerMatMul(const Tensor& a, const Tensor* a_zp, const Tensor& b,
                                           const Tensor* b_zp, ThreadPool* pool,
                                           const IntegerProductsFn& output,
                                           const QGemmPackedB* packed = nullptr,
                                           const QGemmI16PackedB* packed16 = nullptr,
                                           const IntegerEpilogueFn* epilogue = nullptr);

// B (input `index` of the node) packed once when it is a constant 8-bit matrix: for the
// VNNI kernel (int8 B, uint8 A, on VNNI CPUs) or the int16 one; the model file's pages
// under B are given back (B is not read again).
struct PackedIntegerB {
  QGemmPackedB vnni;
  QGemmI16PackedB i16;
};
// `a_type`: A's type when it is not input 0's (a kernel that quantizes a float A itself);
// `transposed`: the constant is B^T ([n x k], QGemm's transB).
PackedIntegerB PackConstantB(const KernelInfo& info, size_t index = 1,
                             DataType a_type = DataType::kUndefined, bool transposed = false);

}  // namespace onnx_light::kernels
