#pragma once

#include <nanobind/nanobind.h>

namespace onnx_light::python {

// Registers onnx_light._core.onnx: the ONNX message classes and file functions.
void BindOnnx(nanobind::module_& parent);

}  // namespace onnx_light::python
