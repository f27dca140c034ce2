// The output type of the window functions and MelWeightMatrix.
#pragma once

#include <vector>

#include "onnx_light/runtime/kernel.h"

namespace onnx_light::kernels {

// The output type of the windows and MelWeightMatrix: `output_datatype` (float default).
inline Status OutputDatatype(const onnx::NodeProto& node, int, const std::vector<DataType>&,
                             std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = DataType::kFloat;
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "output_datatype") {
      ONNX_LIGHT_ASSIGN_OR_RETURN((*out)[0], DataTypeFromInt(static_cast<int32_t>(a.i.get())));
    }
  }
  return Status::Ok();
}

}  // namespace onnx_light::kernels
