// QLinearConv's kernel for ORT's com.microsoft QLinearConv registration (the same op with
// a channels_last attribute; quantization/conv_integer.cc).
#pragma once

#include "common/kernel_util.h"

namespace onnx_light::kernels {

KernelFactory QLinearConvFactory();

}  // namespace onnx_light::kernels
