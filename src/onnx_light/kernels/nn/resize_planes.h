// The fast path of Resize: when only the last two axes resample (the usual image case,
// [N, C, H, W] with scales [1, 1, s, s]), each plane is resized row by row from flat tap
// tables, instead of walking every axis per output element. Nearest copies values (any
// type); linear and cubic sum in double and round once, as the general path does.
#pragma once

#include <cstdint>
#include <vector>

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

struct ResizeTap {
  int64_t index;
  double weight;
};

// taps[a][o]: the taps of output index o on axis a. Planes split between the pool's
// threads when there is enough work. Returns false, writing nothing, when
// an axis other than the last two is not one-to-one; T is float or double.
template <typename T>
bool ResizeLastTwoAxes(const T* x, T* y, const std::vector<int64_t>& in,
                       const std::vector<int64_t>& out,
                       const std::vector<std::vector<std::vector<ResizeTap>>>& taps,
                       ThreadPool* pool = nullptr);

}  // namespace onnx_light::kernels
