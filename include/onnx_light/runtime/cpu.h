#pragma once

namespace onnx_light {

// The SIMD instruction set the kernels dispatch to on this CPU, e.g. "AVX2", "AVX3".
// (Defined in the SIMD library, which is compiled with hidden visibility: exported from
// libonnx_light.so by this attribute.)
__attribute__((visibility("default"))) const char* SimdTargetName();

// Physical cores this process may run on: the CPUs of its affinity mask counted once per
// core (SMT siblings together), from /sys; the logical CPU count where that is unreadable.
// At least 1. What intra_op_threads = 0 means, as in ONNX Runtime.
int PhysicalCores();

}  // namespace onnx_light
