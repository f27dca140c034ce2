// The reference integer convolution (quantization/conv_integer.cc) that ConvInteger runs
// and QLinearConv falls back to outside its 2-D fast path: im2col and an int32 product
// that wraps, as the ONNX reference computes it.
#pragma once

#include <cstdint>
#include <vector>

#include "common/kernel_util.h"
#include "common/window.h"

namespace onnx_light::kernels {

// A uint8/int8 tensor's values as int32 minus a zero point: scalar, or one per `axis0`
// slice (a per-output-channel weight zero point).
Result<std::vector<int32_t>> Centered(const Tensor& t, const Tensor* zp, const char* what);

// The int32 convolution of centered x and w. Returns the output [N, M, spatial...] values
// and sets *dims.
Result<std::vector<int32_t>> IntegerConv(const KernelContext& ctx, const WindowAttrs& attrs,
                                         int64_t group, const Tensor& xt,
                                         const std::vector<int32_t>& x, const Tensor& wt,
                                         const std::vector<int32_t>& wv,
                                         std::vector<int64_t>* dims);

}  // namespace onnx_light::kernels
