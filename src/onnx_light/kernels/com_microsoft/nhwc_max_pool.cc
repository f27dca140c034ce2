// com.microsoft NhwcMaxPool (ORT's NHWC transformer writes it for 8-bit MaxPool in quantized
// CNNs): MaxPool over X [N, spatial..., C] (uint8 or int8) with MaxPool's window attributes
// (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode); Y [N, out spatial..., C].
// Pads never win (a window wholly in the padding cannot occur: MakeWindow refuses it).
#include <algorithm>
#include <memory>
#include <vector>

#include "com_microsoft/ms_def.h"
#include "common/window.h"

namespace onnx_light::kernels {
namespace {

class NhwcMaxPool : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<NhwcMaxPool>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->attrs_, ReadWindowAttrs(info, true));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t>& d = x.shape().dims();
    ONNX_LIGHT_RETURN_IF(d.size() < 3, kInvalidArgument,
                         "X " + x.shape().ToString() + " must be [N, spatial..., C]");
    const std::vector<int64_t> spatial(d.begin() + 1, d.end() - 1);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Window w, MakeWindow(attrs_, spatial, attrs_.kernel));
    std::vector<int64_t> out = {d[0]};
    out.insert(out.end(), w.out.begin(), w.out.end());
    out.push_back(d.back());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    if (y->num_elements() == 0) return Status::Ok();
    if (x.dtype() == DataType::kInt8) {
      Run(x.data<int8_t>(), y->mutable_data<int8_t>(), w, d[0], d.back());
    } else {
      Run(x.data<uint8_t>(), y->mutable_data<uint8_t>(), w, d[0], d.back());
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(const T* x, T* y, const Window& w, int64_t batch, int64_t channels) {
    const size_t n = w.in.size();
    const int64_t in_count = w.InCount(), taps = w.KernelCount();
    std::vector<int64_t> pos(n);
    for (int64_t b = 0; b < batch; ++b) {
      const T* xb = x + b * in_count * channels;
      T* yb = y + b * w.OutCount() * channels;
      ForEachOutput(w, [&](int64_t o, const std::vector<int64_t>& start) {
        T* dst = yb + o * channels;
        bool first = true;
        for (int64_t t = 0; t < taps; ++t) {
          int64_t rest = t, offset = 0;
          bool inside = true;
          for (size_t i = n; i-- > 0;) {
            const int64_t k = rest % w.kernel[i];
            rest /= w.kernel[i];
            pos[i] = start[i] + k * w.dilations[i];
            inside = inside && pos[i] >= 0 && pos[i] < w.in[i];
          }
          if (!inside) continue;
          for (size_t i = 0; i < n; ++i)
            offset = offset * w.in[i] + pos[i];
          const T* src = xb + offset * channels;
          if (first) {
            std::copy(src, src + channels, dst);
            first = false;
          } else {
            for (int64_t c = 0; c < channels; ++c)
              dst[c] = std::max(dst[c], src[c]);
          }
        }
      });
    }
  }

  WindowAttrs attrs_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, NhwcMaxPool) {
  return r.Register(MsDef("NhwcMaxPool", {{"T", {0}, {0}, {DataType::kUint8, DataType::kInt8}}},
                          FactoryOf<NhwcMaxPool>(), {1, 1}));
}

}  // namespace onnx_light::kernels
