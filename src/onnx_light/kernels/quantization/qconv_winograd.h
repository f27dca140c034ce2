// Winograd F(2x2, 3x3) for quantized 3x3 convolutions (stride 1, dilation 1, group 1), in
// exact integer arithmetic: 16 multiplies per 2x2 output pixels and channel pair instead
// of 36 (the int16 GEMM is the bound of the direct path: 2.25x fewer products).
//
// With G2 = 2G (integer: [[2,0,0],[1,1,1],[1,-1,1],[0,0,2]]) each 3x3 filter g (centered
// by its zero point) becomes U = G2 g G2^T = 4 G g G^T (|U| <= 9 max|g| <= 2295: int16);
// each 4x4 input patch d (centered codes) becomes V = B^T d B (entries 0, +-1: |V| <= 1020,
// int16); per transformed position the channels' products sum in int32 (one GEMM each);
// Y4 = A^T M A is then 4 times the convolution's sums, exactly, wherever 4 times the
// largest possible sum stays below 2^31 (checked when the weights are packed: a wider
// layer takes the direct path). Intermediate sums may wrap: every step is linear, so the
// result is right modulo 2^32, and Y4 / 4 is exact. The requantization that follows is the
// direct path's, so both give the same codes.
#pragma once

#include <cstdint>
#include <vector>

#include "onnx_light/core/tensor.h"
#include "quantization/qconv_image.h"
#include "simd/qgemm_simd.h"

namespace onnx_light::kernels {

struct WinogradWeights {
  int64_t c_pad = 0, m = 0;
  std::vector<QGemmI16PackedB> u;  // per transformed position: U [c_pad x m], packed
  bool usable() const { return u.size() == 16; }
};

// W [M, C, 3, 3] (int8 or uint8) with its zero points wz (null, one, or one per output
// channel); empty (not usable) where the path does not apply or could overflow, or on a
// build without the packed int16 kernel.
WinogradWeights MakeWinogradWeights(const Tensor& w, const Tensor* wz);

// Tiles of 2x2 output pixels per block of rows: how many tile rows make one unit of work.
int64_t WinogradTileRowsPerBlock(int64_t ow);

// Output rows [2 * tr0, min(oh, 2 * tr1)) of the convolution of `img` (made for
// 2 * ceil(oh / 2) x 2 * ceil(ow / 2) output pixels) into acc [pixels x m] (rows m apart,
// the block's first pixel first): the int32 sums, before bias and requantization.
void WinogradRows(const PaddedImage& img, const WinogradWeights& ww, int64_t oh, int64_t ow,
                  int64_t tr0, int64_t tr1, QConvWorker* scratch, int32_t* acc);

}  // namespace onnx_light::kernels
