// A 1x1 integer convolution with unit strides and no pads, channels first, as one product
// per image, the way ORT runs ConvInteger: Y [M x HW] = (W - w_zero) (X - x_zero), W [M x C]
// the left operand, the image's C channel planes [C x HW] the right one, read in place. No
// gathering and no transposes (through the windowed engine, qconv_2d.h, a 24 -> 24 1x1
// layer at 32x128 was 6x ORT's time: the sums were a few copies' worth of work).
#pragma once

#include <cstdint>
#include <vector>

#include "onnx_light/core/tensor.h"

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

// W [M, C, 1, 1] 8-bit with its zero point (null, a scalar or one per output channel),
// made once: uint8 rows for the VNNI kernel (int8 weights shifted by 128, their zero points
// with them), centered int16 rows for the int16 kernel.
struct PointwiseQWeights {
  int64_t m = 0, k = 0;
  bool vnni = false;
  std::vector<uint8_t> a8;
  std::vector<int32_t> za;   // per row (VNNI)
  std::vector<int16_t> a16;  // rows lda16 apart (an odd k's rows end with a 0)
  int64_t lda16 = 0;
};
PointwiseQWeights MakePointwiseQWeights(const Tensor& w, const Tensor* wz);

// y [N, M, HW] int32 from x [N, C, HW] (int8 or uint8) and its zero point; columns split
// across `pool` (may be null) for large products.
void PointwiseQConv(const PointwiseQWeights& pw, const Tensor& x, int32_t x_zero, int32_t* y,
                    ThreadPool* pool);

}  // namespace onnx_light::kernels
