#pragma once

#include <nanobind/nanobind.h>

namespace onnx_light::python {

// Registers onnx_light._core.RuntimeSession.
void BindRuntime(nanobind::module_& m);

}  // namespace onnx_light::python
