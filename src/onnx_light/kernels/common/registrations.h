// Declarations of every kernel's registration function (from the full kernel list).
#pragma once

#include "onnx_light/runtime/kernel_registry.h"

namespace onnx_light::kernels {
#define ONNX_LIGHT_KERNEL(domain, op) Status RegisterKernel_##domain##_##op(KernelRegistry& r);
#include "kernel_list.inc"
#undef ONNX_LIGHT_KERNEL
}  // namespace onnx_light::kernels

// Defines, inside namespace onnx_light::kernels, the registration function of one kernel
// of kernel_list.inc, its body registering with `r`. Every kernel is registered this way,
// so a search for "ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Gather)" finds the Gather kernel's
// file (tests/python/test_source_layout.py checks that each listed op has exactly one):
//   ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Gather) { return r.Register(...); }
#define ONNX_LIGHT_REGISTER_KERNEL(domain, op) \
  Status RegisterKernel_##domain##_##op(KernelRegistry& r)
