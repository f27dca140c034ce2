// Declarations of every kernel's registration function (from the full kernel list).
#pragma once

#include "onnx_light/runtime/kernel_registry.h"

namespace onnx_light::kernels {
#define ONNX_LIGHT_KERNEL(domain, op) Status RegisterKernel_##domain##_##op(KernelRegistry& r);
#include "kernel_list.inc"
#undef ONNX_LIGHT_KERNEL
}  // namespace onnx_light::kernels
