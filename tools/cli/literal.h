// Small tensors written on the command line: `--input NAME=VALUE` with VALUE a number
// ("16000", "-0.5", "true") or a rectangular nested list ("[1, 2, 3]", "[[1, 2], [3, 4]]").
#pragma once

#include <string>

#include "onnx_light/core/tensor.h"

namespace onnx_light::cli {

// The literal as a tensor of `type` (a number: shape []; a list: its nesting). Errors say
// what is wrong at which character, or that the type takes no literals.
Result<Tensor> ParseLiteral(const std::string& text, DataType type);

}  // namespace onnx_light::cli
