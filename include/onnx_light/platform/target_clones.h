// ONNX_LIGHT_VECTOR_CLONES: before a small plain loop (a byte-wise OR or XOR over a buffer)
// in code compiled for the x86-64 baseline (SSE2), compile it also for AVX2 and AVX-512 and
// pick the clone for the running CPU when the library loads (GCC and Clang function
// multi-versioning, an ifunc). The SIMD kernels use Highway instead; this is for loops in
// the runtime and the kernels that the compiler vectorizes by itself. Elsewhere (another
// architecture, another compiler) it expands to nothing.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__linux__)
#define ONNX_LIGHT_VECTOR_CLONES \
  __attribute__((target_clones("arch=skylake-avx512", "avx2", "default")))
#else
#define ONNX_LIGHT_VECTOR_CLONES
#endif
