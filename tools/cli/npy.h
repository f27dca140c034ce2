// Reading and writing numpy .npy files (format 1.0/2.0/3.0, little-endian, C order).
#pragma once

#include <string>

#include "onnx_light/core/tensor.h"

namespace onnx_light::cli {

// Supports the numeric dtypes, bool and bfloat16 (written by ml_dtypes as 'V2' is not
// portable, so bfloat16 files are read as '<u2' into a bfloat16 tensor only when
// `expected` is BFLOAT16).
Result<Tensor> ReadNpy(const std::string& path, DataType expected = DataType::kUndefined);
Status WriteNpy(const Tensor& tensor, const std::string& path);

}  // namespace onnx_light::cli
