#pragma once

namespace onnx_light {

// The SIMD instruction set the kernels dispatch to on this CPU, e.g. "AVX2", "AVX3".
const char* SimdTargetName();

}  // namespace onnx_light
