// Software prefetch into the L2 cache only (x86: prefetcht1; elsewhere Highway's
// Prefetch): for data that a later tile reads, so that it does not evict what the current
// tile reads from L1.
#pragma once

#include <hwy/base.h>
#include <hwy/cache_control.h>

#if HWY_ARCH_X86
#include <xmmintrin.h>
#endif

namespace onnx_light::kernels {

template <typename T>
inline void PrefetchL2(const T* p) {
#if HWY_ARCH_X86
  _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T1);
#else
  hwy::Prefetch(p);
#endif
}

}  // namespace onnx_light::kernels
