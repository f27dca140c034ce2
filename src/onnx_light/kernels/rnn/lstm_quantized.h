// The 8-bit products of com.microsoft:DynamicQuantizeLSTM, computed as ONNX Runtime does:
// the float operand (X for the input projection, the hidden state at each step) quantized
// to uint8 over its range as DynamicQuantizeLinear does, multiplied exactly in int32 by
// the constant 8-bit weights (simd/qgemm_simd.h: VNNI where the CPU has it, the int16
// kernel elsewhere), then scaled by a_scale * w_scale[column] in float. Reading 1 byte a
// weight instead of 4 is what makes the recurrence fast: ddddocr's 2 x 512 x 2048 R is 4 MB
// a direction in float, read at each of 32 steps.
#pragma once

#include <cstdint>
#include <vector>

#include "onnx_light/core/tensor.h"
#include "simd/qgemm_simd.h"

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

// A constant 8-bit matrix per direction, [k x n] (the quantizer's transposed W or R),
// packed for the integer kernels, with a zero point and a scale per column.
struct QuantizedMatrix {
  int64_t dirs = 0, k = 0, n = 0;
  std::vector<QGemmPackedB> vnni;    // one per direction (int8 weights, VNNI CPUs), or empty
  std::vector<QGemmI16PackedB> i16;  // one per direction (the others), or empty
  // A scalar build (nothing packed): the weights as they are, [dirs, k, n], read in place
  // by the int16 kernel, so that every build computes the same products.
  std::vector<uint8_t> raw;
  bool raw_signed = false;
  std::vector<int32_t> zero;  // [dirs * n]
  std::vector<float> scale;   // [dirs * n]
  bool usable() const { return !vnni.empty() || !i16.empty() || !raw.empty(); }
};

// q [dirs, k, n] int8 or uint8, scale and zero point [dirs] or [dirs, n] (checked by the
// caller).
QuantizedMatrix PackQuantized(const Tensor& q, const Tensor& scale, const Tensor& zp);

// A float operand quantized to uint8.
struct QuantizedOperand {
  std::vector<uint8_t> q;
  std::vector<int16_t> centered;  // for the int16 kernel: q - zero, rows padded to even
  float scale = 1.0f;
  int32_t zero = 0;
};

// a [m x k] quantized into `op` as DynamicQuantizeLinear does; false when a holds a NaN or
// an infinity (no range: the caller takes its float path).
bool QuantizeOperand(const float* a, int64_t m, int64_t k, bool centered, QuantizedOperand* op);

// c [m x n] += float((a_q - a_zero) (b_d - zero)) * (a_scale * scale[column]) for direction
// d of b, `a` quantized by QuantizeOperand (with `centered` where b has no VNNI packing);
// `acc` holds the int32 sums. Columns split across `pool` (may be null) for large products.
void AddQuantizedProduct(const QuantizedMatrix& b, int64_t d, const QuantizedOperand& a, int64_t m,
                         float* c, std::vector<int32_t>* acc, ThreadPool* pool);

}  // namespace onnx_light::kernels
