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
#include <type_traits>
#include <vector>

#include "com_microsoft/qlinear.h"
#include "common/window.h"
#include "simd/qlinear_simd.h"

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
      Run(x.data<int8_t>(), y->mutable_data<int8_t>(), w, batch, channels, xq, yq,
          ctx.thread_pool());
    } else {
      Run(x.data<uint8_t>(), y->mutable_data<uint8_t>(), w, batch, channels, xq, yq,
          ctx.thread_pool());
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const T* x, T* y, const Window& w, int64_t batch, int64_t channels, QParams xq,
           QParams yq, ThreadPool* pool) const {
    const size_t n = w.in.size();
    const int64_t in_count = w.InCount(), out_count = w.OutCount(), taps = w.KernelCount();
    // Each code's dequantized value, once (the same float as computing it per tap).
    std::array<float, 256> value{};
    for (int i = 0; i < 256; ++i) {
      const auto code = static_cast<int32_t>(static_cast<T>(static_cast<uint8_t>(i)));
      value[static_cast<size_t>(i)] = xq.scale * static_cast<float>(code - xq.zero_point);
    }
    auto quantize = [&](float sum, int64_t inside) {
      return Quantize<T>(sum, include_pad_ ? taps : inside, yq);
    };
    if (!channels_last_ && n == 2 && w.strides[1] == 1) {
      Rows2D(x, y, w, batch * channels, xq, yq, value, pool);
      return;
    }
    // Outputs split between the threads (each output's taps found once for all its
    // channels, as before; a sum adds its taps in tap order whatever the split).
    ParallelElements(
        pool, batch * out_count,
        [&](int64_t q0, int64_t q1) {
          std::vector<int64_t> pos(n), start(n), offsets;
          offsets.reserve(static_cast<size_t>(taps));
          std::vector<float> sums(channels_last_ ? static_cast<size_t>(channels) : 0);
          for (int64_t q = q0; q < q1; ++q) {
            const int64_t b = q / out_count, o = q % out_count;
            int64_t rest_o = o;
            for (size_t i = n; i-- > 0;) {
              start[i] = (rest_o % w.out[i]) * w.strides[i] - w.pad_begin[i];
              rest_o /= w.out[i];
            }
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
              for (int64_t off : offsets)
                AddTap(x + (b * in_count + off) * channels, sums.data(), channels, xq);
              T* yr = y + q * channels;
              for (int64_t c = 0; c < channels; ++c)
                yr[c] = quantize(sums[static_cast<size_t>(c)], inside);
              continue;
            }
            // (Locals, not the vector and the table through references: the stores of T,
            // a char type, would make the compiler reload them after every output.)
            const int64_t* const offs = offsets.data();
            const float* const table = value.data();
            for (int64_t c = 0; c < channels; ++c) {
              const T* xc = x + (b * channels + c) * in_count;
              float sum = 0.0f;
              for (int64_t t = 0; t < inside; ++t)
                sum += table[static_cast<uint8_t>(xc[offs[t]])];
              y[(b * channels + c) * out_count + o] = quantize(sum, inside);
            }
          }
        },
        std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(taps * channels, 1)));
  }

  // An output's code from its sum: saturate(round_half_even(sum / divisor / y_scale + y_zp)),
  // each step rounded in float as ORT's kernel rounds it.
  template <typename T>
  static T Quantize(float sum, int64_t divisor, QParams yq) {
    constexpr auto kLo = static_cast<int32_t>(std::numeric_limits<T>::min());
    constexpr auto kHi = static_cast<int32_t>(std::numeric_limits<T>::max());
    const float avg = sum / static_cast<float>(divisor);
    const auto q =
        static_cast<int32_t>(std::nearbyint(avg / yq.scale + static_cast<float>(yq.zero_point)));
    return static_cast<T>(std::max(kLo, std::min(q, kHi)));
  }

  // sums[c] += scale * (x[c] - zero point) for a tap's channels (the value table's
  // product, computed: the loop vectorizes; this file is compiled without FP contraction,
  // so the product is rounded before the add as ORT's kernel rounds it).
  template <typename T>
  static void AddTap(const T* __restrict x, float* __restrict sums, int64_t channels, QParams xq) {
    for (int64_t c = 0; c < channels; ++c)
      sums[c] += xq.scale * static_cast<float>(static_cast<int32_t>(x[c]) - xq.zero_point);
  }

  // NCHW with two spatial axes and stride 1 along W: each output row's interior (windows
  // wholly inside along W) one call of the vector kernel (simd/qlinear_simd.h QAvgPoolRow:
  // the same sums in the same order, the same roundings), its ends one output at a time;
  // planes x output rows split between the threads. [1,64,56,56] 3x3 (Xeon): 1 thread 1.54 ->
  // 0.36 ms (ORT 1.72), 2 threads 1.55 -> 0.18 ms (ORT 0.90).
  template <typename T>
  void Rows2D(const T* x, T* y, const Window& w, int64_t planes, QParams xq, QParams yq,
              const std::array<float, 256>& value, ThreadPool* pool) const {
    const int64_t h = w.in[0], wd = w.in[1], oh_count = w.out[0], ow_count = w.out[1];
    const int64_t kh_count = w.kernel[0], kw_count = w.kernel[1], sh = w.strides[0];
    const int64_t ph = w.pad_begin[0], pw = w.pad_begin[1], taps = kh_count * kw_count;
    // Interior columns: ow - pw >= 0 and ow - pw + kw_count <= wd.
    const int64_t lo = std::min(ow_count, pw);
    const int64_t hi = std::max(lo, std::min(ow_count, wd - kw_count + pw + 1));
    auto one = [&](const T* plane, int64_t ih0, int64_t ow) {  // as Run computes it
      float sum = 0.0f;
      int64_t inside = 0;
      for (int64_t kh = 0; kh < kh_count; ++kh) {
        const int64_t ih = ih0 + kh;
        if (ih < 0 || ih >= h) continue;
        for (int64_t kw = 0; kw < kw_count; ++kw) {
          const int64_t iw = ow - pw + kw;
          if (iw < 0 || iw >= wd) continue;
          sum += value[static_cast<uint8_t>(plane[ih * wd + iw])];
          ++inside;
        }
      }
      return Quantize<T>(sum, include_pad_ ? taps : inside, yq);
    };
    ParallelElements(
        pool, planes * oh_count,
        [&](int64_t r0, int64_t r1) {
          std::vector<const void*> rows(static_cast<size_t>(kh_count));
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t oh = r % oh_count;
            const T* plane = x + r / oh_count * h * wd;
            T* yrow = y + r * ow_count;
            const int64_t ih0 = oh * sh - ph;
            int64_t nrows = 0;
            for (int64_t kh = 0; kh < kh_count; ++kh) {
              const int64_t ih = ih0 + kh;
              if (ih >= 0 && ih < h) rows[static_cast<size_t>(nrows++)] = plane + ih * wd + lo - pw;
            }
            const bool vector = nrows > 0 && hi > lo;
            for (int64_t ow = 0; ow < ow_count; ++ow) {
              if (vector && ow == lo) ow = hi;
              if (ow < ow_count) yrow[ow] = one(plane, ih0, ow);
            }
            if (!vector) continue;
            const auto divisor = static_cast<float>(include_pad_ ? taps : nrows * kw_count);
            QAvgPoolRow(std::is_signed_v<T>, rows.data(), nrows, kw_count, hi - lo, xq.scale,
                        xq.zero_point, divisor, yq.scale, yq.zero_point, yrow + lo);
          }
        },
        std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(ow_count * taps, 1)));
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
