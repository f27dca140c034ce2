// Float32 weight matrices B [k, n] of MatMul and Gemm packed once per session
// (simd/gemm_simd.h): read by the packed product on AVX-512, by the in-place kernel's tile
// (whose width the panels then have) on AVX2 and below.
//
// Two ways in:
//  - PackWeightsInPlace (the prepack_matmul_weights pass; PackTransposedWeightsInPlace, the
//    transpose_gemm_weights pass): a constant read only as MatMul's (Gemm's) B is replaced
//    by a view of its packed form, so the session holds one copy of the
//    weights, packed (the original, a copy or the mapped file's pages, goes);
//  - PackedWeights::Of (MatMul's kernel, when it is made): finds such a view, or packs a
//    constant that lies in the mapped model file and gives the file's pages back.
// Nodes that read one matrix share one packed copy (a process-wide registry by address:
// every holder keeps the matrix, so the address, alive).
#pragma once

#include <cstdint>
#include <memory>

#include "onnx_light/core/tensor.h"
#include "onnx_light/runtime/kernel.h"

namespace onnx_light::kernels {

class PackedWeights {
 public:
  struct Packed;

  static PackedWeights Of(const KernelInfo& info, size_t input);
  // The packed matrix when it is b's [k, n]; null otherwise.
  const float* For(int64_t k, int64_t n) const;
  // True when the session's constant is the packed form itself: its bytes are not the
  // row-major matrix, and only the packed product may read it.
  bool is_view() const { return view_; }

 private:
  std::shared_ptr<const Packed> packed_;
  int64_t k_ = 0, n_ = 0;
  bool view_ = false;
};

// Replaces *b (float32 [k, n], at least 16k values) by a view of its packed form; false,
// leaving it as it was, where the packed product is not used or b does not qualify.
// A view packed already counts as packed (true, unchanged).
bool PackWeightsInPlace(Tensor* b);
// The same for bt [n, k] holding B transposed (a Gemm's transB weights): replaced by a view
// [k, n] of the packed form of its transpose, packed straight from bt (no transposed copy:
// the session's peak memory holds the weights once more, not twice). False, unchanged,
// where bt does not qualify.
bool PackTransposedWeightsInPlace(Tensor* bt);

}  // namespace onnx_light::kernels
