// A quantized 2-D convolution's weights as its GEMM kernels read them, made once when W is
// a constant (quantization/qlinear_conv.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "onnx_light/core/tensor.h"
#include "simd/qgemm_simd.h"

namespace onnx_light::kernels {

// The weights of a 2-D convolution as GEMM operands: per group a [K x Mg] matrix, K = taps *
// cg in (tap, channel) order, bytes as in W (int8 or uint8); packed for the VNNI kernel on
// CPUs that have it (uint8 weights shifted to int8), for the int16 kernel on the others.
struct GemmWeights {
  int64_t group = 0, mg = 0, cg = 0, taps = 0;
  int64_t cg_pad = 0;  // packed16's channels per tap: cg made even (a zero weight row)
  int64_t cg4 = 0;     // packed's (VNNI): cg made a multiple of 4
  bool is_signed = true;
  int32_t vnni_shift = 0;                 // 128 where uint8 weights were packed as int8 (w - 128)
  std::vector<uint8_t> b;                 // [K x M] per group; freed once packed (depthwise: kept)
  std::vector<QGemmPackedB> packed;       // one per group for the VNNI kernel, or empty
  std::vector<QGemmI16PackedB> packed16;  // one per group for the int16 kernel, or empty
  int64_t K() const { return taps * cg; }
};

// W [M, C/group, kh, kw] for `group` groups.
GemmWeights MakeGemmWeights(const Tensor& w, int64_t group);

}  // namespace onnx_light::kernels
