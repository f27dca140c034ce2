// com.microsoft QLinearAveragePool (ORT's static quantizer, QOperator format): inputs X,
// x_scale, x_zero_point (optional), y_scale, y_zero_point (optional); AveragePool's
// attributes (kernel_shape, strides, pads, auto_pad, ceil_mode, count_include_pad) and
// channels_last (X and Y [N, spatial..., C]). As ORT's CPU kernel: each tap dequantized in
// float (x_scale * (x - x_zp)), summed in row-major tap order, divided by the count (the
// kernel's size with count_include_pad, else the taps inside X), quantized
// saturate(round_half_even(v / y_scale + y_zp)).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "com_microsoft/qlinear.h"
#include "common/window.h"

namespace onnx_light::kernels {
namespace {

class QLinearAveragePool : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QLinearAveragePool>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->attrs_, ReadWindowAttrs(info, true));
    ONNX_LIGHT_RETURN_IF(!k->attrs_.dilations.empty(), kInvalidModel,
                         "QLinearAveragePool has no dilations");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->include_pad_, GetFlag(info, "count_include_pad", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->channels_last_, GetFlag(info, "channels_last", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams xq, TensorQParams(ctx, 1, 2, "x"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams yq, TensorQParams(ctx, 3, 4, "y"));
    const std::vector<int64_t>& d = x.shape().dims();
    ONNX_LIGHT_RETURN_IF(d.size() < 3, kInvalidArgument,
                         "X " + x.shape().ToString() + " must have rank >= 3");
    const std::vector<int64_t> spatial = channels_last_
                                             ? std::vector<int64_t>(d.begin() + 1, d.end() - 1)
                                             : std::vector<int64_t>(d.begin() + 2, d.end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Window w, MakeWindow(attrs_, spatial, attrs_.kernel));
    const int64_t batch = d[0], channels = channels_last_ ? d.back() : d[1];
    std::vector<int64_t> out = {batch};
    if (!channels_last_) out.push_back(channels);
    out.insert(out.end(), w.out.begin(), w.out.end());
    if (channels_last_) out.push_back(channels);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    if (y->num_elements() == 0) return Status::Ok();
    if (x.dtype() == DataType::kInt8) {
      Run(x.data<int8_t>(), y->mutable_data<int8_t>(), w, batch, channels, xq, yq);
    } else {
      Run(x.data<uint8_t>(), y->mutable_data<uint8_t>(), w, batch, channels, xq, yq);
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const T* x, T* y, const Window& w, int64_t batch, int64_t channels, QParams xq,
           QParams yq) const {
    const size_t n = w.in.size();
    const int64_t in_count = w.InCount(), out_count = w.OutCount(), taps = w.KernelCount();
    constexpr auto kLo = static_cast<int32_t>(std::numeric_limits<T>::min());
    constexpr auto kHi = static_cast<int32_t>(std::numeric_limits<T>::max());
    // Each code's dequantized value, once (the same float as computing it per tap).
    std::array<float, 256> value{};
    for (int i = 0; i < 256; ++i) {
      const auto code = static_cast<int32_t>(static_cast<T>(static_cast<uint8_t>(i)));
      value[static_cast<size_t>(i)] = xq.scale * static_cast<float>(code - xq.zero_point);
    }
    auto quantize = [&](float sum, int64_t inside) {
      const float avg = sum / static_cast<float>(include_pad_ ? taps : inside);
      const auto q =
          static_cast<int32_t>(std::nearbyint(avg / yq.scale + static_cast<float>(yq.zero_point)));
      return static_cast<T>(std::max(kLo, std::min(q, kHi)));
    };
    std::vector<int64_t> pos(n), offsets;
    offsets.reserve(static_cast<size_t>(taps));
    std::vector<float> sums(channels_last_ ? static_cast<size_t>(channels) : 0);
    for (int64_t b = 0; b < batch; ++b) {
      ForEachOutput(w, [&](int64_t o, const std::vector<int64_t>& start) {
        // The output's taps inside the input, in tap order, once for all channels (each
        // channel's sum then adds them in that order, as before).
        offsets.clear();
        for (int64_t t = 0; t < taps; ++t) {
          int64_t rest = t, offset = 0;
          bool ok = true;
          for (size_t i = n; i-- > 0;) {
            pos[i] = start[i] + rest % w.kernel[i];
            rest /= w.kernel[i];
            ok = ok && pos[i] >= 0 && pos[i] < w.in[i];
          }
          if (!ok) continue;
          for (size_t i = 0; i < n; ++i)
            offset = offset * w.in[i] + pos[i];
          offsets.push_back(offset);
        }
        const auto inside = static_cast<int64_t>(offsets.size());
        if (channels_last_) {
          std::fill(sums.begin(), sums.end(), 0.0f);
          for (int64_t off : offsets) {
            const T* xr = x + (b * in_count + off) * channels;
            for (int64_t c = 0; c < channels; ++c)
              sums[static_cast<size_t>(c)] += value[static_cast<uint8_t>(xr[c])];
          }
          T* yr = y + (b * out_count + o) * channels;
          for (int64_t c = 0; c < channels; ++c)
            yr[c] = quantize(sums[static_cast<size_t>(c)], inside);
          return;
        }
        for (int64_t c = 0; c < channels; ++c) {
          const T* xc = x + (b * channels + c) * in_count;
          float sum = 0.0f;
          for (int64_t off : offsets)
            sum += value[static_cast<uint8_t>(xc[off])];
          y[(b * channels + c) * out_count + o] = quantize(sum, inside);
        }
      });
    }
  }

  WindowAttrs attrs_;
  bool include_pad_ = false, channels_last_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QLinearAveragePool) {
  return r.Register(MsDef("QLinearAveragePool", {{"T", {0, 2, 4}, {0}, Int8Types()}},
                          FactoryOf<QLinearAveragePool>(), {4, 5}, {1, 1}, (1u << 2) | (1u << 4)));
}

}  // namespace onnx_light::kernels
