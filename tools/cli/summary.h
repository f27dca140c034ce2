// How `onnx-light run` prints an output: a tensor's range, mean and first elements; a map's
// or a sequence's size and first entries.
#pragma once

#include <string>

#include "onnx_light/runtime/value.h"

namespace onnx_light::cli {

// "min 0 max 1 mean 0.5 first [0, 1]" ("(empty)"; "first: \"text\"" for strings).
std::string Summary(const Tensor& t);
// "tensor FLOAT [2, 3]", "sequence of 3 FLOAT", "map INT64 -> FLOAT (3 entries)",
// "sequence of 5 maps INT64 -> FLOAT".
std::string TypeText(const Value& v);
// Summary() for a tensor; for a map its first entries ("{0: 0.25, 1: 0.75}"), for maps the
// first map's, for a sequence its first element's summary.
std::string ValueSummary(const Value& v);

}  // namespace onnx_light::cli
