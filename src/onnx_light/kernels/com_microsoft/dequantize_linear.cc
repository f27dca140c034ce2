// com.microsoft DequantizeLinear (ORT's quantizers write it for 16-bit and 4-bit activations
// and older QDQ models): ai.onnx DequantizeLinear's kernel (quantization/quantize.cc) at
// version 1 of the domain: inputs x, x_scale, x_zero_point (optional); attribute axis;
// y = (x - x_zero_point) * x_scale, per tensor or per axis.
#include "com_microsoft/ms_def.h"
#include "quantization/quantize.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, DequantizeLinear) {
  return r.Register(MsDef("DequantizeLinear",
                          {{"T1",
                            {0, 2},
                            {},
                            {DataType::kUint8, DataType::kInt8, DataType::kUint16, DataType::kInt16,
                             DataType::kInt32, DataType::kInt4, DataType::kUint4}},
                           {"T2", {1}, {0}, {DataType::kFloat, DataType::kFloat16}}},
                          DequantizeLinearFactory(), {2, 3}, {1, 1}, 1u << 2));
}

}  // namespace onnx_light::kernels
