// What the recurrent kernels (recurrent.cc) offer other kernels.
#pragma once

#include <memory>

#include "onnx_light/core/tensor.h"
#include "onnx_light/runtime/kernel.h"
#include "rnn/lstm_quantized.h"

namespace onnx_light::kernels {

// The ai.onnx LSTM kernel for `info`'s attributes, with W [dirs, 4H, input] and R
// [dirs, 4H, H] given as float tensors in ONNX's layout instead of read from inputs 1 and 2
// (com.microsoft:DynamicQuantizeLSTM dequantizes its 8-bit weights into them once), and
// the 8-bit weights packed (rnn/lstm_quantized.h): where both are usable(), the common
// configuration's products quantize X and the hidden state as ORT does; the float weights
// serve the others.
Result<std::unique_ptr<KernelBase>> CreateLstmWithWeights(const KernelInfo& info, Tensor w,
                                                          Tensor r, QuantizedMatrix wq,
                                                          QuantizedMatrix rq);

}  // namespace onnx_light::kernels
