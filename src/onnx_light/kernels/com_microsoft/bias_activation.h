// Y = act(X + bias), bias (optional) a vector over X's last dimension: the kernel behind
// com.microsoft Gelu, BiasGelu, FastGelu and QuickGelu (one file each registers it). float
// only, as ORT's CPU kernels; the activation runs in the vector code of simd/conv_simd.h.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "common/kernel_util.h"
#include "simd/conv_simd.h"

namespace onnx_light::kernels {

class BiasActivation : public KernelBase {
 public:
  explicit BiasActivation(Activation act) : act_(act) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor* bias = ctx.input_count() > 1 ? ctx.input(1) : nullptr;
    const int64_t cols = x.shape().rank() == 0 ? 1 : x.shape().dims().back();
    if (bias != nullptr) {
      ONNX_LIGHT_RETURN_IF(
          bias->shape().rank() != 1 || bias->shape()[0] != cols || x.shape().rank() == 0,
          kInvalidArgument,
          "bias " + bias->shape().ToString() + " must be 1-D, the size of the last dimension of " +
              x.shape().ToString());
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const float* xp = x.data<float>();
    const float* bp = bias != nullptr ? bias->data<float>() : nullptr;
    float* yp = y->mutable_data<float>();
    const int64_t rows = cols == 0 ? 0 : x.num_elements() / cols;
    // ~30 operations per element (erf, tanh): worth two threads from 8k elements.
    const int64_t min_rows = std::max<int64_t>(1, (int64_t{1} << 13) / std::max<int64_t>(cols, 1));
    ParallelElements(
        ctx.thread_pool(), rows,
        [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const float* in = xp + r * cols;
            float* out = yp + r * cols;
            if (bp != nullptr) {
              for (int64_t i = 0; i < cols; ++i)
                out[i] = in[i] + bp[i];
              in = out;
            }
            ActivationF32(in, out, static_cast<size_t>(cols), act_);
          }
        },
        min_rows);
    return Status::Ok();
  }

 private:
  Activation act_;
};

// The factory of a BiasActivation kernel with a fixed activation.
inline KernelFactory BiasActivationOf(ActivationKind kind) {
  return [kind](const KernelInfo&) -> Result<std::unique_ptr<KernelBase>> {
    return std::unique_ptr<KernelBase>(std::make_unique<BiasActivation>(Activation{kind}));
  };
}

}  // namespace onnx_light::kernels
