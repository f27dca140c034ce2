// com.microsoft NhwcMaxPool (ORT's NHWC transformer writes it for 8-bit MaxPool in quantized
// CNNs): MaxPool over X [N, spatial..., C] (uint8 or int8) with MaxPool's window attributes
// (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode); Y [N, out spatial..., C].
// Pads never win (a window wholly in the padding cannot occur: MakeWindow refuses it).
#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "com_microsoft/ms_def.h"
#include "common/window.h"
#include "onnx_light/platform/target_clones.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

// dst[c] = the maximum of src[t][c] over the `count` taps (count >= 1), c < n: 64 channels
// at a time held in a local block across the taps (one 512-bit register at AVX-512), the
// rest one by one. Cloned for AVX-512 and AVX2: the baseline's 16-byte steps, a signed max
// emulated without SSE4.1, and a store per tap ran 1.7x ORT's time. Two copies, for uint8
// and int8: Clang clones no template, and one function ordering int8 as uint8 by an XOR
// with 0x80 ran 10% slower.
ONNX_LIGHT_VECTOR_CLONES void MaxOfTapsU8(const uint8_t* const* src, int64_t count, int64_t n,
                                          uint8_t* __restrict dst) {
  int64_t c0 = 0;
  for (; c0 + 64 <= n; c0 += 64) {
    uint8_t acc[64];
    for (int c = 0; c < 64; ++c)
      acc[c] = src[0][c0 + c];
    for (int64_t t = 1; t < count; ++t) {
      const uint8_t* s = src[t] + c0;
      for (int c = 0; c < 64; ++c)
        acc[c] = acc[c] > s[c] ? acc[c] : s[c];
    }
    for (int c = 0; c < 64; ++c)
      dst[c0 + c] = acc[c];
  }
  for (; c0 < n; ++c0) {
    uint8_t m = src[0][c0];
    for (int64_t t = 1; t < count; ++t)
      m = m > src[t][c0] ? m : src[t][c0];
    dst[c0] = m;
  }
}
ONNX_LIGHT_VECTOR_CLONES void MaxOfTapsI8(const int8_t* const* src, int64_t count, int64_t n,
                                          int8_t* __restrict dst) {
  int64_t c0 = 0;
  for (; c0 + 64 <= n; c0 += 64) {
    int8_t acc[64];
    for (int c = 0; c < 64; ++c)
      acc[c] = src[0][c0 + c];
    for (int64_t t = 1; t < count; ++t) {
      const int8_t* s = src[t] + c0;
      for (int c = 0; c < 64; ++c)
        acc[c] = acc[c] > s[c] ? acc[c] : s[c];
    }
    for (int c = 0; c < 64; ++c)
      dst[c0 + c] = acc[c];
  }
  for (; c0 < n; ++c0) {
    int8_t m = src[0][c0];
    for (int64_t t = 1; t < count; ++t)
      m = m > src[t][c0] ? m : src[t][c0];
    dst[c0] = m;
  }
}
void MaxOfTaps(const uint8_t* const* src, int64_t count, int64_t n, uint8_t* dst) {
  MaxOfTapsU8(src, count, n, dst);
}
void MaxOfTaps(const int8_t* const* src, int64_t count, int64_t n, int8_t* dst) {
  MaxOfTapsI8(src, count, n, dst);
}

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
      Run(x.data<int8_t>(), y->mutable_data<int8_t>(), w, d[0], d.back(), ctx.thread_pool());
    } else {
      Run(x.data<uint8_t>(), y->mutable_data<uint8_t>(), w, d[0], d.back(), ctx.thread_pool());
    }
    return Status::Ok();
  }

 private:
  // 2-D windows: the taps inside the image per output row and column found once, then
  // each output pixel's channels the maximum over its taps' channel runs (MaxOfTaps).
  template <typename T>
  static void Run2D(const T* x, T* y, const Window& w, int64_t batch, int64_t channels,
                    ThreadPool* pool) {
    auto inside = [&](size_t d, int64_t o) {
      const int64_t start = o * w.strides[d] - w.pad_begin[d], step = w.dilations[d];
      int64_t first = 0, last = w.kernel[d];
      while (first < last && start + first * step < 0)
        ++first;
      while (last > first && start + (last - 1) * step >= w.in[d])
        --last;
      return std::array<int64_t, 3>{start, first, last};
    };
    std::vector<std::array<int64_t, 3>> cols(static_cast<size_t>(w.out[1]));
    for (int64_t ox = 0; ox < w.out[1]; ++ox)
      cols[static_cast<size_t>(ox)] = inside(1, ox);
    const int64_t width = w.in[1];
    // Output rows (of every image) split across the pool from 16k output values.
    auto rows = [&](int64_t r0, int64_t r1) {
      // (locals, not captured references: byte stores may alias those, and the channel
      // loop would reload its bound instead of vectorizing)
      const int64_t nc = channels, out_h = w.out[0], out_w = w.out[1];
      const int64_t dil_y = w.dilations[0], dil_x = w.dilations[1], in_count = w.InCount();
      std::vector<const T*> taps(static_cast<size_t>(w.kernel[0] * w.kernel[1]));
      for (int64_t row = r0; row < r1; ++row) {
        const int64_t b = row / out_h, oy = row % out_h;
        const T* xb = x + b * in_count * nc;
        const auto [y0, ty0, ty1] = inside(0, oy);
        for (int64_t ox = 0; ox < out_w; ++ox) {
          const auto [x0, c0, c1] = cols[static_cast<size_t>(ox)];
          T* dst = y + ((b * out_h + oy) * out_w + ox) * nc;
          int64_t count = 0;
          for (int64_t ty = ty0; ty < ty1; ++ty) {
            const T* row_in = xb + (y0 + ty * dil_y) * width * nc;
            for (int64_t tx = c0; tx < c1; ++tx)
              taps[static_cast<size_t>(count++)] = row_in + (x0 + tx * dil_x) * nc;
          }
          MaxOfTaps(taps.data(), count, nc, dst);
        }
      }
    };
    const int64_t total = batch * w.out[0];
    const int64_t per_row = std::max<int64_t>(1, w.out[1] * channels);
    if (pool != nullptr && pool->threads() > 1 && total * per_row >= (1 << 14)) {
      pool->ParallelFor(total, std::max<int64_t>(1, (int64_t{1} << 13) / per_row), rows);
    } else {
      rows(0, total);
    }
  }

  template <typename T>
  static void Run(const T* x, T* y, const Window& w, int64_t batch, int64_t channels,
                  ThreadPool* pool) {
    if (w.in.size() == 2) return Run2D(x, y, w, batch, channels, pool);
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
