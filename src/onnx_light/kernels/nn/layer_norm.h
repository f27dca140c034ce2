// Layer and RMS normalization, shared by LayerNormalization, RMSNormalization
// (nn/normalization.cc) and the ops ONNX Runtime registers for the same computation:
// SimplifiedLayerNormalization and com.microsoft's Skip*LayerNormalization.
#pragma once

#include <cstdint>
#include <memory>

#include "onnx_light/runtime/kernel.h"

namespace onnx_light::kernels {

// `outer` rows of `inner` values: mean and variance in double (SIMD; no mean when `rms`),
// y = (x - mean) * (inv * scale) + bias in float, scale and bias (optional) of the row's
// size. mean_out and inv_out (optional) receive one float per row.
void LayerNormRowsF32(const float* x, const float* scale, const float* bias, float* y,
                      int64_t outer, int64_t inner, float epsilon, bool rms, float* mean_out,
                      float* inv_out);

// The kernel of LayerNormalization (inputs X, Scale, B?; outputs Y, Mean?, InvStdDev?) or,
// with `rms`, of RMSNormalization (X, Scale; Y, InvStdDev?): attributes axis and epsilon.
Result<std::unique_ptr<KernelBase>> CreateLayerNorm(const KernelInfo& info, bool rms);

}  // namespace onnx_light::kernels
