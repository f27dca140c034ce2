// Float MaxPool and AveragePool over 1-D and 2-D windows without dilation (the pools of
// nearly every CNN: 3 x 3 at stride 2 with a pad of 1, 2 x 2 averages, 1-D pools of audio
// models), separable: each input row is copied once into a padded buffer, each window's
// maximum or sum along the row is taken in vector code at the window's stride
// (simd/pool_simd.h), then the rows of each output row are folded in, vector-wide across
// the output row. pool.cc's general paths (lists of taps per output) keep what this
// refuses: dilations, windows past the input, indices.
#pragma once

#include <cstdint>

#include "common/window.h"

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

// Runs the pool when `w` is 1-D or 2-D with unit dilations, pads before and after each
// narrower than the window, and every window holding at least one input element, and
// returns true; false, writing nothing, otherwise. Max takes MaxPool's order (a NaN in a
// window wins); average divides the window's float sum by its count of input elements,
// or with `count_include_pad` of elements inside the pads (a ceil_mode window past the
// end pad counts only what lies within it, as ONNX Runtime does).
bool PoolRowsF32(const Window& w, bool max, bool count_include_pad, const float* x, float* y,
                 int64_t planes, ThreadPool* pool);

}  // namespace onnx_light::kernels
