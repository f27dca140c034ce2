// The 2-D integer convolution QLinearConv and ConvInteger share (quantized CNNs), the way
// ORT runs them: the input once as centered int16 codes channels-last inside its padding
// (qconv_image.h), the weights packed when the kernel is made (qconv_weights.h); then per
// block of output pixels one exact integer GEMM per group reading each window in place (a
// row base per pixel, an offset per tap: simd/qgemm_simd.h), 3x3 stride-1 layers through
// Winograd F(2x2, 3x3) in exact integers (qconv_winograd.h: 2.25x fewer products), uint8 x
// int8 with AVX-512 VNNI on gathered windows, depthwise convolutions as a direct loop over
// channels. Each block's int32 sums go to the caller (QLinearConv requantizes them,
// ConvInteger stores them). Output pixels are split across the pool; the working buffers
// live in the node's per-frame state, so later runs touch no new pages.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "common/kernel_util.h"
#include "common/window.h"
#include "quantization/qconv_weights.h"
#include "quantization/qconv_winograd.h"

namespace onnx_light::kernels {

// A zero point's value i (a scalar's for any i); 0 without one.
int32_t QZeroPointAt(const Tensor* zp, int64_t i);

// W as the engine reads it, made once when W is a constant: packed, and transformed for
// Winograd where its zero point is known (a constant or absent).
struct QConvWeights {
  std::unique_ptr<GemmWeights> gemm;
  std::unique_ptr<WinogradWeights> winograd;
};

// Whether the engine takes W [M, C/group, kh, kw] (4-D, M a multiple of group, matching
// kernel_shape).
bool QConv2DWeightsFit(const Tensor& w, const WindowAttrs& attrs, int64_t group);

// W (node input w_index) and its zero point (wz_index) prepared when W is a constant the
// engine takes; empty otherwise (the engine then prepares them at every run).
QConvWeights PrepareQConvWeights(const KernelInfo& info, size_t w_index, size_t wz_index,
                                 const WindowAttrs& attrs, int64_t group);

struct QConv2DArgs {
  const Tensor& x;   // [N, C, H, W] (or [N, H, W, C] channels_last), 8-bit
  const Tensor& w;   // [M, C/group, kh, kw], 8-bit; QConv2DWeightsFit
  const Tensor* xz;  // scalar or null
  const Tensor* wz;  // scalar, [M] or null
  const WindowAttrs& attrs;
  int64_t group;
  bool channels_last;
  const QConvWeights& pre;
  DataType out_type;  // the output's (Y [N, M, OH, OW], or NHWC), allocated here
};

// Receives the int32 sums of output pixels [p0, p0 + n) of image b: acc [n x m] (rows m
// apart, channel fastest), for y (planes of `plane` pixels); `tile` is the worker's scratch.
using QConvBlockFn =
    std::function<void(const int32_t* acc, int64_t n, int64_t m, int64_t b, int64_t p0,
                       int64_t plane, Tensor* y, std::vector<uint8_t>* tile)>;

Status QConv2D(KernelContext& ctx, const QConv2DArgs& a, const QConvBlockFn& write);

}  // namespace onnx_light::kernels
