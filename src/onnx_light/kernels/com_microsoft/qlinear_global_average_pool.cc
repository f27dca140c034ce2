// com.microsoft QLinearGlobalAveragePool (ORT's quantizer, QOperator format): inputs X,
// x_scale, x_zero_point, y_scale, y_zero_point; attribute channels_last (0: X is
// [N, C, spatial...] and Y [N, C, 1, ...]; 1: X is [N, spatial..., C] and Y [N, 1, ..., C]).
// Per (n, c): the int32 sum of the S codes, then as ORT requantizes it:
// saturate(round_half_even(float(sum - S * x_zero_point) * (x_scale / (y_scale * S))) +
// y_zero_point).
#include <memory>
#include <vector>

#include "com_microsoft/qlinear.h"

namespace onnx_light::kernels {
namespace {

class QLinearGlobalAveragePool : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QLinearGlobalAveragePool>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t cl, info.GetInt("channels_last", 0));
    k->channels_last_ = cl != 0;
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams xq, TensorQParams(ctx, 1, 2, "x"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams yq, TensorQParams(ctx, 3, 4, "y"));
    const std::vector<int64_t>& d = x.shape().dims();
    ONNX_LIGHT_RETURN_IF(d.size() < 3, kInvalidArgument,
                         "X " + x.shape().ToString() + " must have rank >= 3");
    std::vector<int64_t> out = d;
    int64_t spatial = 1;
    const size_t first = channels_last_ ? 1 : 2, last = channels_last_ ? d.size() - 1 : d.size();
    for (size_t i = first; i < last; ++i) {
      spatial *= d[i];
      out[i] = 1;
    }
    const int64_t n = d[0], c = channels_last_ ? d.back() : d[1];
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    if (n * c == 0) return Status::Ok();
    ONNX_LIGHT_RETURN_IF(spatial == 0, kInvalidArgument, "X has no spatial elements to average");
    ONNX_LIGHT_RETURN_IF(spatial > (int64_t{1} << 23), kInvalidArgument,
                         "more than 2^23 spatial elements per channel overflow the int32 sum");
    const float scale = xq.scale / (yq.scale * static_cast<float>(spatial));
    const auto bias = static_cast<int32_t>(-xq.zero_point * spatial);
    if (x.dtype() == DataType::kInt8) {
      Run<int8_t>(x.data<int8_t>(), y->mutable_data<int8_t>(), n, c, spatial, scale, bias,
                  yq.zero_point, ctx.thread_pool());
    } else {
      Run<uint8_t>(x.data<uint8_t>(), y->mutable_data<uint8_t>(), n, c, spatial, scale, bias,
                   yq.zero_point, ctx.thread_pool());
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const T* x, T* y, int64_t n, int64_t c, int64_t s, float scale, int32_t bias, int32_t zp,
           ThreadPool* pool) const {
    if (!channels_last_) {
      ParallelElements(
          pool, n * c,
          [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
              int32_t acc = bias;
              for (int64_t i = 0; i < s; ++i)
                acc += x[r * s + i];
              y[r] = RequantizeAcc<T>(static_cast<float>(acc) * scale, zp);
            }
          },
          1);
      return;
    }
    ParallelElements(
        pool, n,
        [&](int64_t b0, int64_t b1) {
          std::vector<int32_t> acc(static_cast<size_t>(c));
          for (int64_t b = b0; b < b1; ++b) {
            std::fill(acc.begin(), acc.end(), bias);
            const T* xb = x + b * s * c;
            for (int64_t i = 0; i < s; ++i)
              for (int64_t ch = 0; ch < c; ++ch)
                acc[static_cast<size_t>(ch)] += xb[i * c + ch];
            for (int64_t ch = 0; ch < c; ++ch) {
              y[b * c + ch] =
                  RequantizeAcc<T>(static_cast<float>(acc[static_cast<size_t>(ch)]) * scale, zp);
            }
          }
        },
        1);
  }

  bool channels_last_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QLinearGlobalAveragePool) {
  return r.Register(MsDef("QLinearGlobalAveragePool", {{"T", {0, 2, 4}, {0}, Int8Types()}},
                          FactoryOf<QLinearGlobalAveragePool>(), {5, 5}, {1, 1},
                          (1u << 2) | (1u << 4)));
}

}  // namespace onnx_light::kernels
