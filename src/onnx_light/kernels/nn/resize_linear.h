// Linear Resize on float32 as ONNX Runtime computes it, for the shapes ORT's CPU kernel
// takes: bilinear on [H, W], [N, C, H, W] (scales 1, 1, s, s) and [N, H, W, C] (1, s, s, 1);
// trilinear on [D, H, W] and [N, C, D, H, W] (1, 1, s, s, s). Coordinates in float with
// ORT's formula per coordinate_transformation_mode (an axis of scale 1 maps straight
// through), clamped, the two neighbours and their distances per axis, and each output the
// sum of corner values times distance products in ORT's order: the results equal ORT's bit
// for bit (tests/python/kernels/nn/test_resize_ort_exact.py).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

struct ResizeLinearSpec {
  std::vector<int64_t> in, out;
  std::vector<float> scale, roi_start, roi_end;  // per axis, as ORT holds them (float)
  std::string coord;                             // coordinate_transformation_mode
  float extrapolation = 0;                       // tf_crop_and_resize outside the input
};

// Writes y and returns true when ORT's bilinear/trilinear kernel covers the shape and its
// sizes fit int32 indices as ORT's do; returns false, writing nothing, otherwise.
bool ResizeLinearF32(const float* x, float* y, const ResizeLinearSpec& spec, ThreadPool* pool);

}  // namespace onnx_light::kernels
