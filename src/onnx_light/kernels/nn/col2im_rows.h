// The column-to-image sum of 2-D float planes, row by row: Col2Im's, and ConvTranspose's
// after its matrix product (the same geometry: a block position is an input position there).
#pragma once

#include <cstdint>

namespace onnx_light::kernels {

// An image of height x width, blocks on a rows x cols grid, a kh x kw kernel with its
// strides, dilations and begin pads (any sign).
struct Col2ImGeometry {
  int64_t height = 0, width = 0, rows = 0, cols = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, ph = 0, pw = 0;
};

// img[ih, iw] += x[t, oh * cols + ow] for every tap t = (i, j) of the kernel and block (oh,
// ow) with ih = oh * sh - ph + i * dh, iw = ow * sw - pw + j * dw inside the image; in float,
// tap by tap (ONNX Runtime's order), each block row's run added as a vector. At stride 1
// straight into img; at column strides above 1 the taps' sum first, then added to what img
// held (a bias added last, as ORT adds it).
void AddColumnsIntoPlane2D(const Col2ImGeometry& g, const float* x, float* img);

}  // namespace onnx_light::kernels
