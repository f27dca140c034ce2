// com.microsoft QuantizeLinear (ORT's quantizers write it for 16-bit and 4-bit activations
// and older QDQ models): ai.onnx QuantizeLinear's kernel (quantization/quantize.cc) at
// version 1 of the domain: inputs x, y_scale, y_zero_point (optional); attribute axis;
// per-tensor or per-axis; round half to even, saturate.
#include "com_microsoft/ms_def.h"
#include "quantization/quantize.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QuantizeLinear) {
  KernelDef def = MsDef("QuantizeLinear",
                        {{"T1", {0, 1}, {}, {DataType::kFloat, DataType::kFloat16}},
                         {"T2",
                          {2},
                          {},
                          {DataType::kUint8, DataType::kInt8, DataType::kUint16, DataType::kInt16,
                           DataType::kInt4, DataType::kUint4}}},
                        QuantizeLinearFactory(), {2, 3}, {1, 1}, 1u << 2);
  def.output_types = &QuantizeLinearOutputType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
