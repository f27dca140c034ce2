// Conv's kernel (nn/conv.cc) in its fused form, for the ops that name it otherwise:
// onnx_light:FusedConv (made by the conv passes) and com.microsoft FusedConv (written by
// ONNX Runtime's optimizer).
#pragma once

#include <memory>

#include "onnx_light/runtime/kernel.h"

namespace onnx_light::kernels {

// Inputs X, W, B?, Z? (Z added before the activation); Conv's attributes plus `activation`
// (Relu, Clip, LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Tanh, Silu or none) and
// `activation_params`.
Result<std::unique_ptr<KernelBase>> CreateFusedConv(const KernelInfo& info);

}  // namespace onnx_light::kernels
