#include "nn/col2im_rows.h"

#include <algorithm>
#include <vector>

#include "onnx_light/platform/target_clones.h"

namespace onnx_light::kernels {
namespace {

// d[i] += s[i]: a block row added into an image row (unit stride).
ONNX_LIGHT_VECTOR_CLONES void AddRowF32(float* __restrict d, const float* __restrict s, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    d[i] += s[i];
}

// Column strides above 1: each block row lands on every sw-th image column, one phase
// (image column mod sw) per tap column. The sums go into sw phase planes, where every run
// is contiguous (vector adds), then into the image, each phase's columns to theirs. (Added
// straight into the image at stride 2, ConvTranspose 4x4 s2 spent a third of its time on
// scalar adds.) Each image value: what img held, plus its taps' sum in tap order.
void AddColumnsByPhase(const Col2ImGeometry& g, const float* x, float* img) {
  const int64_t sw = g.sw, pc = (g.width + sw - 1) / sw;  // columns per phase, at most
  std::vector<float> phases(static_cast<size_t>(sw * g.height * pc), 0.0f);
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) {
      const float* tap = x + (i * g.kw + j) * g.rows * g.cols;
      const int64_t shift = j * g.dw - g.pw;
      const int64_t ow0 = shift >= 0 ? 0 : (-shift + sw - 1) / sw;
      const int64_t ow1 =
          g.width - 1 - shift < 0 ? 0 : std::min(g.cols, (g.width - 1 - shift) / sw + 1);
      if (ow0 >= ow1) continue;
      const int64_t phase = ((shift % sw) + sw) % sw, first = (shift - phase) / sw;
      float* plane = phases.data() + phase * g.height * pc + first;
      for (int64_t oh = 0; oh < g.rows; ++oh) {
        const int64_t ih = oh * g.sh - g.ph + i * g.dh;
        if (ih < 0 || ih >= g.height) continue;
        AddRowF32(plane + ih * pc + ow0, tap + oh * g.cols + ow0, ow1 - ow0);
      }
    }
  }
  for (int64_t ih = 0; ih < g.height; ++ih) {
    float* row = img + ih * g.width;
    for (int64_t phase = 0; phase < sw; ++phase) {
      const float* src = phases.data() + (phase * g.height + ih) * pc;
      for (int64_t c = 0; c * sw + phase < g.width; ++c)
        row[c * sw + phase] += src[c];
    }
  }
}

}  // namespace

// For a tap and a block row, the block columns that land inside the image are one run of
// the image row. (A per-element table of tap offsets, summed in double, ran 2.3x ORT's
// time for Col2Im on [1,576,3136] -> [1,64,56,56]; as a table of targets with a check per
// element, ConvTranspose 4x4 s2 1.5x.)
void AddColumnsIntoPlane2D(const Col2ImGeometry& g, const float* x, float* img) {
  if (g.sw > 1) return AddColumnsByPhase(g, x, img);
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) {
      const float* tap = x + (i * g.kw + j) * g.rows * g.cols;
      // Block columns whose image column ow * sw + shift is inside [0, width).
      const int64_t shift = j * g.dw - g.pw;
      const int64_t ow0 = shift >= 0 ? 0 : (-shift + g.sw - 1) / g.sw;
      const int64_t ow1 =
          g.width - 1 - shift < 0 ? 0 : std::min(g.cols, (g.width - 1 - shift) / g.sw + 1);
      if (ow0 >= ow1) continue;
      for (int64_t oh = 0; oh < g.rows; ++oh) {
        const int64_t ih = oh * g.sh - g.ph + i * g.dh;
        if (ih < 0 || ih >= g.height) continue;
        const float* s = tap + oh * g.cols;
        float* d = img + ih * g.width + shift;
        if (g.sw == 1) {
          AddRowF32(d + ow0, s + ow0, ow1 - ow0);
        } else {
          for (int64_t ow = ow0; ow < ow1; ++ow)
            d[ow * g.sw] += s[ow];
        }
      }
    }
  }
}

}  // namespace onnx_light::kernels
