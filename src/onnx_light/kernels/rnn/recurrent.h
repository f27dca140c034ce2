// What the recurrent kernels (recurrent.cc) offer other kernels.
#pragma once

#include <memory>

#include "onnx_light/core/tensor.h"
#include "onnx_light/runtime/kernel.h"

namespace onnx_light::kernels {

// The ai.onnx LSTM kernel for `info`'s attributes, with W [dirs, 4H, input] and R
// [dirs, 4H, H] given as float tensors in ONNX's layout instead of read from inputs 1 and 2
// (com.microsoft:DynamicQuantizeLSTM dequantizes its 8-bit weights into them once).
Result<std::unique_ptr<KernelBase>> CreateLstmWithWeights(const KernelInfo& info, Tensor w,
                                                          Tensor r);

}  // namespace onnx_light::kernels
