// The com.microsoft QLinear unary ops (QLinearSigmoid, QLinearLeakyRelu): inputs X,
// X_scale, X_zero_point (optional), Y_scale, Y_zero_point (optional); Y = the code table
// of the op (qlinear.h) applied to X, as ORT's CPU kernels do.
#pragma once

#include <functional>
#include <memory>
#include <utility>

#include "com_microsoft/qlinear.h"

namespace onnx_light::kernels {

class QLinearUnary : public KernelBase {
 public:
  explicit QLinearUnary(std::function<float(float)> fn) : fn_(std::move(fn)) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams xq, TensorQParams(ctx, 1, 2, "X"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams yq, TensorQParams(ctx, 3, 4, "Y"));
    const std::array<uint8_t, 256> table = x.dtype() == DataType::kInt8
                                               ? CodeTable<int8_t>(xq, yq, fn_)
                                               : CodeTable<uint8_t>(xq, yq, fn_);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    ApplyCodeTable(table, static_cast<const uint8_t*>(x.raw_data()),
                   static_cast<uint8_t*>(y->mutable_raw_data()), x.num_elements(),
                   ctx.thread_pool());
    return Status::Ok();
  }

 private:
  std::function<float(float)> fn_;
};

inline KernelDef QLinearUnaryDef(const char* op, KernelFactory f) {
  return MsDef(op, {{"T", {0, 2, 4}, {0}, Int8Types()}}, std::move(f), {4, 5}, {1, 1},
               (1u << 2) | (1u << 4));
}

}  // namespace onnx_light::kernels
