// GridSample: X sampled at the normalized coordinates of a grid, with the interpolation
// taps Resize uses (nearest, linear, cubic) and three padding modes.
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/saturate.h"
#include "nn/resize_planes.h"

namespace onnx_light::kernels {
namespace {

// GridSample (opset 16 2-D, 20+ N-D): X [N, C, D1..Dr] sampled at grid [N, O1..Or, r]
// (normalized coordinates in [-1, 1], the last spatial dim first), nearest (half to
// even) / linear / cubic (a = -0.75), padding zeros / border / reflection, as the ONNX
// reference defines them; coordinates are denormalized in float like the reference.
class GridSample : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<GridSample>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string mode,
                                info.GetString("mode", info.opset() < 20 ? "bilinear" : "linear"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string padding, info.GetString("padding_mode", "zeros"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->align_, GetFlag(info, "align_corners", false));
    if (mode == "nearest") {
      k->mode_ = Mode::kNearest;
    } else if (mode == "linear" || mode == "bilinear") {
      k->mode_ = Mode::kLinear;
    } else if (mode == "cubic" || mode == "bicubic") {
      k->mode_ = Mode::kCubic;
    } else {
      return Status(StatusCode::kInvalidModel, "unknown mode '" + mode + "'");
    }
    if (padding == "zeros") {
      k->padding_ = Padding::kZeros;
    } else if (padding == "border") {
      k->padding_ = Padding::kBorder;
    } else if (padding == "reflection") {
      k->padding_ = Padding::kReflection;
    } else {
      return Status(StatusCode::kInvalidModel, "unknown padding_mode '" + padding + "'");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& grid = *ctx.input(1);
    const size_t rank = x.shape().rank();
    ONNX_LIGHT_RETURN_IF(
        rank < 3 || grid.shape().rank() != rank || grid.shape()[0] != x.shape()[0] ||
            grid.shape()[rank - 1] != static_cast<int64_t>(rank - 2),
        kInvalidArgument,
        "X " + x.shape().ToString() + " and grid " + grid.shape().ToString() +
            " do not fit: grid must be [N, out..., " + std::to_string(rank - 2) + "]");
    const size_t r = rank - 2;
    ONNX_LIGHT_RETURN_IF(
        r > 8, kInvalidArgument,
        "GridSample supports up to 8 spatial dimensions, got " + std::to_string(r));
    const int64_t batch = x.shape()[0], channels = x.shape()[1];
    std::vector<int64_t> in(x.shape().dims().begin() + 2, x.shape().dims().end());
    std::vector<int64_t> dims = {batch, channels};
    for (size_t i = 1; i + 1 < rank; ++i)
      dims.push_back(grid.shape()[i]);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    int64_t points = 1, in_count = 1;
    for (size_t i = 2; i < dims.size(); ++i)
      points *= dims[i];
    for (int64_t d : in)
      in_count *= d;
    const std::vector<double> g = ToDoubles(&grid);
    const std::vector<int64_t> st = RowMajorStrides(in);
    // Every point's taps in K slots (K = taps per dim ^ r), those with a nonzero weight that
    // read the input first (padding adds nothing, not even 0 * an infinity): built once per batch,
    // points split between the threads, and shared by every channel, which sums its slots in float
    // (double for double). (Lists built point by point on one thread, each dim's taps a new vector,
    // summed in double: 2.1x ORT's time on [1,64,56,56] by [1,56,56,2].)
    const int64_t per_dim = mode_ == Mode::kNearest ? 1 : mode_ == Mode::kLinear ? 2 : 4;
    int64_t slots = 1;
    for (size_t i = 0; i < r; ++i)
      slots *= per_dim;
    // Tasks of whole channel blocks (at least 16k points a task).
    const int64_t task_grain =
        std::max<int64_t>(kChannelBlock, (int64_t{1} << 14) / std::max<int64_t>(points, 1));
    std::vector<int64_t> offs(static_cast<size_t>(points * slots));
    std::vector<int32_t> used(static_cast<size_t>(points));
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
      std::vector<Acc> ws(static_cast<size_t>(points * slots));
      T* yp = y->mutable_data<T>();
      const T* xp = x.data<T>();
      for (int64_t n = 0; n < batch; ++n) {
        ParallelElements(
            ctx.thread_pool(), points,
            [&](int64_t p0, int64_t p1) {
              for (int64_t p = p0; p < p1; ++p) {
                used[static_cast<size_t>(p)] =
                    PointSlots(g.data() + (n * points + p) * static_cast<int64_t>(r), in, st,
                               per_dim, offs.data() + p * slots, ws.data() + p * slots);
              }
            },
            std::max<int64_t>(1, 1024 / slots));
        ParallelElements(
            ctx.thread_pool(), channels,
            [&](int64_t c0, int64_t c1) {
              int64_t c = c0;
              for (; c + kChannelBlock <= c1; c += kChannelBlock)
                SampleChannels<kChannelBlock>(xp + (n * channels + c) * in_count, in_count,
                                              yp + (n * channels + c) * points, points, slots,
                                              used.data(), offs.data(), ws.data());
              for (; c < c1; ++c)
                SampleChannels<1>(xp + (n * channels + c) * in_count, in_count,
                                  yp + (n * channels + c) * points, points, slots, used.data(),
                                  offs.data(), ws.data());
            },
            task_grain);
      }
    });
    return Status::Ok();
  }

 private:
  enum class Mode { kNearest, kLinear, kCubic };
  enum class Padding { kZeros, kBorder, kReflection };
  struct DimTap {
    int64_t index;  // -1: padding (reads zero)
    double weight;
  };

  // Channels sampled together (kC planes of x, kC of y): each point's slots read once for
  // all of them, kC independent sums.
  static constexpr int64_t kChannelBlock = 8;
  template <int64_t kC, typename T, typename Acc>
  static void SampleChannels(const T* x, int64_t in_count, T* y, int64_t points, int64_t slots,
                             const int32_t* used, const int64_t* offs, const Acc* ws) {
    for (int64_t p = 0; p < points; ++p) {
      const int64_t* o = offs + p * slots;
      const Acc* w = ws + p * slots;
      Acc v[kC] = {};
      for (int32_t j = 0; j < used[p]; ++j) {
        const T* xj = x + o[j];
        for (int64_t q = 0; q < kC; ++q)
          v[q] += w[j] * static_cast<Acc>(xj[q * in_count]);
      }
      for (int64_t q = 0; q < kC; ++q)
        y[q * points + p] = static_cast<T>(v[q]);
    }
  }

  // One point's slots: every combination of its per-dim taps (the last dim fastest) with a
  // nonzero weight (the product of the per-dim weights in dim order) whose taps all read
  // the input; returns how many.
  template <typename Acc>
  int32_t PointSlots(const double* coords, const std::vector<int64_t>& in,
                     const std::vector<int64_t>& st, int64_t per_dim, int64_t* offs,
                     Acc* ws) const {
    const size_t r = in.size();
    DimTap taps[8][4];
    for (size_t i = 0; i < r; ++i)
      DimTaps(coords[r - 1 - i], in[i], taps[i]);
    size_t k[8] = {0};  // (r <= 8: checked by the caller's rank limit)
    int32_t used = 0;
    for (;;) {
      double w = 1;
      int64_t off = 0;
      for (size_t i = 0; i < r; ++i) {
        const DimTap& t = taps[i][k[i]];
        w *= t.weight;
        if (t.index < 0) w = 0;
        off += t.index * st[i];
      }
      if (w != 0) {
        offs[used] = off;
        ws[used++] = static_cast<Acc>(w);
      }
      size_t i = r;
      while (i-- > 0) {
        if (++k[i] < static_cast<size_t>(per_dim)) break;
        k[i] = 0;
      }
      if (i == static_cast<size_t>(-1)) break;
    }
    return used;
  }

  // Reflects x into [lo, hi] by the nearer border, repeatedly (the reference's rule).
  static double Reflect(double x, double lo, double hi) {
    const double range = hi - lo;
    // A range of one point (align_corners over a length of 1) reflects everything onto it;
    // dividing by its zero width made NaN, which was cast to an index.
    if (!(range > 0)) return lo;
    // In doubles: a grid value far out (1e25) has no int64 count of reflections.
    if (x < lo) {
      const double dx = lo - x;
      const double n = std::floor(dx / range);
      const double rest = dx - n * range;
      return std::fmod(n, 2.0) == 0 ? lo + rest : hi - rest;
    }
    if (x > hi) {
      const double dx = x - hi;
      const double n = std::floor(dx / range);
      const double rest = dx - n * range;
      return std::fmod(n, 2.0) == 0 ? hi - rest : lo + rest;
    }
    return x;
  }

  // The input index a tap at integer position i reads (-1: zero padding).
  int64_t Pixel(int64_t i, int64_t len, double lo, double hi) const {
    if (padding_ == Padding::kZeros) return i >= 0 && i < len ? i : -1;
    if (padding_ == Padding::kBorder) return std::min(std::max<int64_t>(i, 0), len - 1);
    if (len <= 0) return -1;
    const double r = Reflect(static_cast<double>(i), lo, hi);
    return std::min(std::max<int64_t>(static_cast<int64_t>(std::max(r, -1.0)), 0), len - 1);
  }

  // The taps of one coordinate on one dim (1, 2 or 4 of them, by the mode) into `out`.
  void DimTaps(double normalized, int64_t len, DimTap* out) const {
    const auto nf = static_cast<float>(normalized);
    const auto lf = static_cast<float>(len);
    float xf = align_ ? (nf + 1) / 2.0f * (lf - 1) : ((nf + 1) * lf - 1) / 2.0f;
    const double lo = align_ ? 0.0 : -0.5;
    const double hi = align_ ? static_cast<double>(len) - 1 : static_cast<double>(len) - 0.5;
    double xd = static_cast<double>(xf);
    const int n = mode_ == Mode::kNearest ? 1 : mode_ == Mode::kLinear ? 2 : 4;
    // NaN reads nothing (zero); infinities only the border mode can place.
    if (std::isnan(xd) || (std::isinf(xd) && padding_ != Padding::kBorder)) {
      for (int j = 0; j < n; ++j)
        out[j] = {-1, j == 0 ? 1.0 : 0.0};
      return;
    }
    if (mode_ == Mode::kNearest) xd = std::nearbyint(xd);
    if (xd < lo || xd > hi) {
      if (padding_ == Padding::kBorder) {
        xd = std::min(std::max(xd, 0.0), static_cast<double>(len - 1));
      } else if (padding_ == Padding::kReflection) {
        xd = Reflect(xd, lo, hi);
      }
    }
    // Far outside, every tap reads padding: clamped so that the indices stay in int64.
    xd = std::min(std::max(xd, lo - 4.0), hi + 4.0);
    if (mode_ == Mode::kNearest) {
      out[0] = {Pixel(static_cast<int64_t>(xd), len, lo, hi), 1.0};
      return;
    }
    const double f = std::floor(xd);
    const auto i0 = static_cast<int64_t>(f);
    const double t = xd - f;
    if (mode_ == Mode::kLinear) {
      out[0] = {Pixel(i0, len, lo, hi), 1 - t};
      out[1] = {Pixel(i0 + 1, len, lo, hi), t};
      return;
    }
    const double a = -0.75;
    auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
    auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
    out[0] = {Pixel(i0 - 1, len, lo, hi), far(t + 1)};
    out[1] = {Pixel(i0, len, lo, hi), near(t)};
    out[2] = {Pixel(i0 + 1, len, lo, hi), near(1 - t)};
    out[3] = {Pixel(i0 + 2, len, lo, hi), far(2 - t)};
  }

  Mode mode_ = Mode::kLinear;
  Padding padding_ = Padding::kZeros;
  bool align_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GridSample) {
  return r.Register(
      Def("GridSample", 16, {{"T", {0, 1}, {0}, FloatTypes()}}, FactoryOf<GridSample>()));
}

}  // namespace onnx_light::kernels
