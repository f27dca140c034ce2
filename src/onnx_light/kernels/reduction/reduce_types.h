// The element types the Reduce* ops and ArgMax/ArgMin take.
#pragma once

#include <vector>

#include "onnx_light/core/data_type.h"

namespace onnx_light::kernels {

inline std::vector<DataType> ReduceTypes() {
  return {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat,  DataType::kDouble,
          DataType::kInt32,   DataType::kInt64,    DataType::kUint32, DataType::kUint64,
          DataType::kInt8,    DataType::kUint8};
}

}  // namespace onnx_light::kernels
