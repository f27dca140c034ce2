// com.microsoft QLinearSoftmax (ORT's quantizer, QOperator format): inputs X, X_scale,
// X_zero_point (optional), Y_scale, Y_zero_point (optional); attributes axis and opset (the
// Softmax opset it replaces: below 13 the rows are everything from `axis` on, from 13 the
// one axis). ORT's CPU arithmetic, reproduced exactly: a float table
// e[d] = exp((d + shift) * X_scale) over code distances d = x - max(row) (shift =
// max(0, ln(FLT_MAX / row length) - 5) / X_scale keeps the row sum finite), the row sum in
// float in order, y = round_half_even(e * floor(1 / Y_scale) / sum) + Y_zero_point,
// saturated to the output type as ORT 1.30 does (X's zero point cancels out).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "com_microsoft/qlinear.h"

namespace onnx_light::kernels {
namespace {

// The row's sum of e[code - max], in float, in order (as ORT sums it: the sum is one chain
// of dependent adds). Not inlined: inlined, GCC kept the sum in the caller's lambda's slot in
// memory, a store and a load per add (1.9x ORT's time).
template <typename Code>
__attribute__((noinline)) float RowSum(const uint8_t* x, int64_t len, int64_t inner, int32_t xmax,
                                       const float* table) {
  float sum = 0.0f;
  for (int64_t j = 0; j < len; ++j) {
    Code v;
    std::memcpy(&v, x + j * inner, 1);
    sum += table[static_cast<size_t>(static_cast<int32_t>(v) - xmax + 255)];
  }
  return sum;
}

// y[j] = codes[x[j] - max + 255] along the row.
template <typename Code>
void Lookup(const uint8_t* x, int64_t len, int64_t inner, int32_t xmax, const uint8_t* codes,
            uint8_t* y) {
  for (int64_t j = 0; j < len; ++j) {
    Code v;
    std::memcpy(&v, x + j * inner, 1);
    y[j * inner] = codes[static_cast<size_t>(static_cast<int32_t>(v) - xmax + 255)];
  }
}

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
    // Rows split between the threads from ~16k codes a task.
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(len, 1));
    ParallelElements(
        ctx.thread_pool(), outer * inner,
        [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t base = (r / inner) * len * inner + r % inner;
            int32_t xmax = std::numeric_limits<int32_t>::min();
            for (int64_t j = 0; j < len; ++j)
              xmax = std::max(xmax, code(xs[base + j * inner]));
            const float sum = is_signed
                                  ? RowSum<int8_t>(xs + base, len, inner, xmax, table.data())
                                  : RowSum<uint8_t>(xs + base, len, inner, xmax, table.data());
            if (sum == 0.0f) continue;  // ORT leaves such a row unwritten; here it stays 0
            // The output code of a distance from the row's maximum (the sum captured by value:
            // by reference it lived in memory, and the sum's loop above stored it at every step).
            auto out_code = [&table, y_scale, sum, zero = yq.zero_point, is_signed](size_t at) {
              const float e = table[at];
              float v = e * y_scale / sum;
              // A row of one code with a small X_scale overflows e * y_scale to inf (ORT then
              // converts NaN to an integer); in double it is the intended 1 / Y_scale.
              if (!std::isfinite(v)) {
                v = static_cast<float>(static_cast<double>(e) * y_scale / static_cast<double>(sum));
              }
              const int32_t q = static_cast<int32_t>(std::nearbyint(v)) + zero;
              // q >= zero point; only the top can overflow
              return is_signed ? static_cast<uint8_t>(static_cast<int8_t>(std::min(q, 127)))
                               : static_cast<uint8_t>(std::min(q, 255));
            };
            if (len >= 256) {
              // A long row: the code of each of the 256 distances made once (the same float
              // operations), then every element a lookup (a division per element ran 1.5x
              // ORT's time on rows of 1,000).
              std::array<uint8_t, 256> codes;
              for (size_t at = 0; at < 256; ++at)
                codes[at] = out_code(at);
              if (is_signed) {
                Lookup<int8_t>(xs + base, len, inner, xmax, codes.data(), ys + base);
              } else {
                Lookup<uint8_t>(xs + base, len, inner, xmax, codes.data(), ys + base);
              }
            } else {
              for (int64_t j = 0; j < len; ++j)
                ys[base + j * inner] =
                    out_code(static_cast<size_t>(code(xs[base + j * inner]) - xmax + 255));
            }
          }
        },
        grain);
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
