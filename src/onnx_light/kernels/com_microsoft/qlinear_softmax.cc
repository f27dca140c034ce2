// com.microsoft QLinearSoftmax (ORT's quantizer, QOperator format): inputs X, X_scale,
// X_zero_point (optional), Y_scale, Y_zero_point (optional); attributes axis and opset (the
// Softmax opset it replaces: below 13 the rows are everything from `axis` on, from 13 the
// one axis). ORT's CPU arithmetic, reproduced exactly: a float table
// e[d] = exp((d + shift) * X_scale) over code distances d = x - max(row) (shift =
// max(0, ln(FLT_MAX / row length) - 5) / X_scale keeps the row sum finite), the row sum in
// float in order, y = round_half_even(e * floor(1 / Y_scale) / sum) + Y_zero_point,
// saturated to the output type as ORT 1.30 does (X's zero point cancels out).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "com_microsoft/qlinear.h"

namespace onnx_light::kernels {
namespace {

class QLinearSoftmax : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QLinearSoftmax>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->opset_, info.GetInt("opset", -1));
    ONNX_LIGHT_RETURN_IF(k->opset_ < 1, kInvalidModel,
                         "QLinearSoftmax needs its 'opset' attribute (the Softmax opset)");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", k->opset_ < 13 ? 1 : -1));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams xq, TensorQParams(ctx, 1, 2, "X"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams yq, TensorQParams(ctx, 3, 4, "Y"));
    const auto rank = static_cast<int64_t>(x.shape().rank());
    ONNX_LIGHT_RETURN_IF(rank == 0, kInvalidArgument, "X must have rank >= 1");
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const std::vector<int64_t>& d = x.shape().dims();
    // rows of `len` codes `stride` apart: [outer, len, inner]
    int64_t outer = 1, len = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t v = d[static_cast<size_t>(i)];
      if (i < axis) {
        outer *= v;
      } else if (i == axis || opset_ < 13) {
        len *= v;
      } else {
        inner *= v;
      }
    }
    if (x.num_elements() == 0) return Status::Ok();
    // exp(distance * scale) for distance -255..0, at index distance + 255.
    double shift =
        std::log(static_cast<double>(std::numeric_limits<float>::max() / static_cast<float>(len)));
    shift = std::max(0.0, shift - 5.0) / static_cast<double>(xq.scale);
    std::array<float, 256> table{};
    for (int i = 0; i < 256; ++i) {
      table[static_cast<size_t>(i)] = static_cast<float>(
          std::exp((static_cast<double>(i) - 255.0 + shift) * static_cast<double>(xq.scale)));
    }
    const float y_scale = std::floor(1.0f / yq.scale);
    const bool is_signed = x.dtype() == DataType::kInt8;
    const auto* xs = static_cast<const uint8_t*>(x.raw_data());
    auto* ys = static_cast<uint8_t*>(y->mutable_raw_data());
    auto code = [is_signed](uint8_t byte) {
      return is_signed ? static_cast<int32_t>(static_cast<int8_t>(byte))
                       : static_cast<int32_t>(byte);
    };
    ParallelElements(ctx.thread_pool(), outer * inner, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t base = (r / inner) * len * inner + r % inner;
        int32_t xmax = std::numeric_limits<int32_t>::min();
        for (int64_t j = 0; j < len; ++j)
          xmax = std::max(xmax, code(xs[base + j * inner]));
        float sum = 0.0f;
        for (int64_t j = 0; j < len; ++j)
          sum += table[static_cast<size_t>(code(xs[base + j * inner]) - xmax + 255)];
        if (sum == 0.0f) continue;  // ORT leaves such a row unwritten; here it stays 0
        for (int64_t j = 0; j < len; ++j) {
          const float e = table[static_cast<size_t>(code(xs[base + j * inner]) - xmax + 255)];
          float v = e * y_scale / sum;
          // A row of one code with a small X_scale overflows e * y_scale to inf (ORT then
          // converts NaN to an integer); in double it is the intended 1 / Y_scale.
          if (!std::isfinite(v)) {
            v = static_cast<float>(static_cast<double>(e) * y_scale / static_cast<double>(sum));
          }
          const int32_t q = static_cast<int32_t>(std::nearbyint(v)) + yq.zero_point;
          // q >= zero point; only the top can overflow
          ys[base + j * inner] = is_signed
                                     ? static_cast<uint8_t>(static_cast<int8_t>(std::min(q, 127)))
                                     : static_cast<uint8_t>(std::min(q, 255));
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t opset_ = -1, axis_ = -1;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QLinearSoftmax) {
  return r.Register(MsDef("QLinearSoftmax", {{"T", {0, 2, 4}, {0}, Int8Types()}},
                          FactoryOf<QLinearSoftmax>(), {4, 5}, {1, 1}, (1u << 2) | (1u << 4)));
}

}  // namespace onnx_light::kernels
