// Subnormal operands and results read as zero while a product kernel runs: FTZ and DAZ set
// in MXCSR on the calling thread for the scope, the caller's mode restored after (x86; a
// no-op elsewhere). A multiply-add that reads or makes a subnormal takes a microcode
// assist on Intel cores, about 100x slower: an EEG net whose trained 96x3 filters are 30%
// below 1e-30 (dead filters keep their sums subnormal through every tap) ran 390 ms in
// onnx-light and in ONNX Runtime, 14 ms in OpenVINO (which runs with FTZ/DAZ). The
// difference is in values below FLT_MIN (1.2e-38), far below the rounding of any sum that
// is not itself subnormal. Only the products (GEMM, convolution) and the recurrences of
// RNN/GRU/LSTM take it: elementwise kernels keep subnormals exact (elementwise_simd.h), and
// the mode never outlives a kernel.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace onnx_light::kernels {

class DenormalsAsZero {
 public:
#if defined(__x86_64__) || defined(__i386__)
  DenormalsAsZero() : saved_(_mm_getcsr()) {
    if ((saved_ & kBits) != kBits) _mm_setcsr(saved_ | kBits);
  }
  ~DenormalsAsZero() {
    if ((saved_ & kBits) != kBits) _mm_setcsr(saved_);
  }
#else
  DenormalsAsZero() = default;
#endif
  DenormalsAsZero(const DenormalsAsZero&) = delete;
  DenormalsAsZero& operator=(const DenormalsAsZero&) = delete;

 private:
#if defined(__x86_64__) || defined(__i386__)
  static constexpr unsigned kBits = 0x8040;  // FTZ (bit 15) and DAZ (bit 6)
  unsigned saved_;
#endif
};

}  // namespace onnx_light::kernels
