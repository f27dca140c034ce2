// Einsum's fast path (math/einsum.cc): a two-operand equation that is a contraction
// (every label either in both operands, or in one operand and the output) lowered to a
// batched matrix product, as ONNX Runtime and numpy lower it. Labels shared by both
// operands and the output are the batch, shared labels not in the output are K, the labels
// of A alone are M and those of B alone N; each group is read in place when its strides
// collapse to one, else its operand is gathered once into [batch, M, K] / [batch, K, N]
// order, and the product lands in the output directly (or transposed) when the output's
// order allows, else in a scratch block scattered once.
#pragma once

#include <cstdint>
#include <vector>

#include "onnx_light/runtime/kernel.h"

namespace onnx_light::kernels {

// A bound two-operand equation: per label its size and its element stride in A, in B
// (0 where the operand lacks it or broadcasts it) and the output labels in order (the
// output is dense, row-major in that order).
struct EinsumContraction {
  std::vector<int64_t> size, stride_a, stride_b;
  std::vector<int> out;
};

// Whether the equation is a contraction the batched product can run: no label summed
// within one operand alone (those need a reduction first and take the generic loop).
bool IsGemmContraction(const EinsumContraction& c);

// y = the contraction of a and b for float, double, float16 and bfloat16 (16-bit floats
// computed in float, rounded once). false, having done nothing, for other types or for an
// equation IsGemmContraction rejects.
bool RunGemmContraction(const EinsumContraction& c, const Tensor& a, const Tensor& b, Tensor* y,
                        ThreadPool* pool);

}  // namespace onnx_light::kernels
