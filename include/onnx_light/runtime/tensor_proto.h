// Converting an ONNX TensorProto (initializer, Constant, test data) to a Tensor.
#pragma once

#include "onnx_light/core/shape.h"
#include "onnx_light/core/tensor.h"
#include "onnx_light/onnx/onnx.h"

namespace onnx_light {

// raw_data that is aligned for its element type becomes a read-only view sharing the
// model's buffer (no copy); misaligned raw_data and the typed fields (float_data, ...) are
// copied. Errors: unknown or UNDEFINED type, a value count that does not match the dims,
// unresolved external data, segments.
Result<Tensor> TensorFromProto(const onnx::TensorProto& proto, const ShapeLimits& limits = {});

// The opposite direction, for writing outputs (raw_data, or string_data for strings).
Result<onnx::TensorProto> TensorToProto(const Tensor& tensor, const std::string& name = "");

}  // namespace onnx_light
