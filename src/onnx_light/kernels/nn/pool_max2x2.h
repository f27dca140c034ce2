// MaxPool's most common window, 2 x 2 at stride 2 without padding or dilation (the
// downsampling of VGG-, U-Net- and MTCNN-style CNNs), on float planes. pool.cc's general
// 2-D paths keep per-plane row buffers and tap lists whose cost swamps small planes (a
// 10 x 10 plane of MTCNN's P-Net); this reads each input row pair once and writes the
// output row.
#pragma once

#include <cstdint>

#include "common/window.h"

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

// max(v, best) by MaxPool's order (a NaN wins over a number; otherwise the larger, the
// earlier of equals), written so that a loop of it vectorizes: v when greater or NaN.
inline float MaxNaN(float v, float best) {
  return (v > best || v != v) ? v : best;
}

// Runs the pool when `w` is that window (2-D, kernel and strides 2, no dilation, no pad
// before, every window inside the input), or 1 x 2 at stride (1, 2) (audio models halve
// only the time axis: the general path took 2.7 ns an output there), and returns true;
// false, writing nothing, otherwise. The taps are taken in the separable path's order:
// the same results.
bool MaxPool2x2Stride2F32(const Window& w, const float* x, float* y, int64_t planes,
                          ThreadPool* pool);

}  // namespace onnx_light::kernels
