// What the recurrent kernels (recurrent.cc) offer other kernels.
#pragma once

#include <functional>
#include <memory>

#include "onnx_light/core/tensor.h"
#include "onnx_light/runtime/kernel.h"
#include "rnn/lstm_quantized.h"

namespace onnx_light::kernels {

// Makes DynamicQuantizeLSTM's float W (input 1: [dirs, 4H, input]) or R (input 2:
// [dirs, 4H, H]) in ONNX's layout.
using FloatWeightsFn = std::function<Result<Tensor>(size_t input)>;

// The ai.onnx LSTM kernel for `info`'s attributes, with W and R of shapes `w_shape` and
// `r_shape` made by `float_weights` instead of read from inputs 1 and 2, and the 8-bit
// weights packed (rnn/lstm_quantized.h): where both are usable(), the common
// configuration's products quantize X and the hidden state as ORT does, and the float
// weights are made on the first run that needs them (a shorter sequence, or an operand
// that is not finite), not kept four times the 8-bit weights' size for nothing; otherwise
// they are made at once.
Result<std::unique_ptr<KernelBase>> CreateLstmWithWeights(const KernelInfo& info, Shape w_shape,
                                                          Shape r_shape,
                                                          FloatWeightsFn float_weights,
                                                          QuantizedMatrix wq, QuantizedMatrix rq);

}  // namespace onnx_light::kernels
