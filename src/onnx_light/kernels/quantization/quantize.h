// QuantizeLinear and DequantizeLinear kernels for other domains' registrations (ORT's
// com.microsoft QuantizeLinear / DequantizeLinear are the same ops at version 1).
#pragma once

#include <vector>

#include "common/kernel_util.h"

namespace onnx_light::kernels {

KernelFactory QuantizeLinearFactory();
KernelFactory DequantizeLinearFactory();
// QuantizeLinear's output type: the zero point's, else output_dtype, else uint8.
Status QuantizeLinearOutputType(const onnx::NodeProto& node, int opset,
                                const std::vector<DataType>& in, std::vector<DataType>* out,
                                const NodeSubgraphs& subgraphs);

}  // namespace onnx_light::kernels
