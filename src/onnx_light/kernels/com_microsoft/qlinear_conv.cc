// com.microsoft QLinearConv (ORT's NHWC transformer writes it into saved graphs of
// quantized CNNs, with channels_last = 1): ai.onnx QLinearConv's kernel
// (quantization/conv_integer.cc) with X and Y [N, spatial..., C] when channels_last is set.
#include "quantization/qlinear_conv.h"

#include "com_microsoft/ms_def.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QLinearConv) {
  const std::vector<DataType> q = {DataType::kUint8, DataType::kInt8};
  return r.Register(MsDef("QLinearConv",
                          {{"T1", {0, 2}, {}, q},
                           {"T2", {3, 5}, {}, q},
                           {"T3", {7}, {0}, q},
                           {"S", {1, 4, 6}, {}, {DataType::kFloat}},
                           {"T4", {8}, {}, {DataType::kInt32}}},
                          QLinearConvFactory(), {8, 9}, {1, 1}, 1u << 8));
}

}  // namespace onnx_light::kernels
