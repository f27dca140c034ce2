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

using Tap = ResizeTap;

// GridSample (opset 16 2-D, 20+ N-D): X [N, C, D1..Dr] sampled at grid [N, O1..Or, r]
// (normalized coordinates in [-1, 1], the last spatial dim first), nearest (half to
// even) / linear / cubic (a = -0.75), padding zeros / border / reflection, as the ONNX
// reference defines them; coordinates are denormalized in float like the reference.
class GridSample : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<GridSample>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->mode_,
                                info.GetString("mode", info.opset() < 20 ? "bilinear" : "linear"));
    if (k->mode_ == "bilinear") k->mode_ = "linear";
    if (k->mode_ == "bicubic") k->mode_ = "cubic";
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->padding_, info.GetString("padding_mode", "zeros"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->align_, GetFlag(info, "align_corners", false));
    ONNX_LIGHT_RETURN_IF(k->mode_ != "nearest" && k->mode_ != "linear" && k->mode_ != "cubic",
                         kInvalidModel, "unknown mode '" + k->mode_ + "'");
    ONNX_LIGHT_RETURN_IF(
        k->padding_ != "zeros" && k->padding_ != "border" && k->padding_ != "reflection",
        kInvalidModel, "unknown padding_mode '" + k->padding_ + "'");
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
    // Per point of a batch: its taps' combinations with a nonzero weight (offset into the
    // channel, the weight as the product of the per-dim weights in dim order), listed once
    // and shared by every channel (the loop over combinations ran per channel and point).
    std::vector<int64_t> first(static_cast<size_t>(points) + 1), offs;
    std::vector<double> ws;
    std::vector<std::vector<Tap>> taps(r);
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* yp = y->mutable_data<T>();
      const T* xp = x.data<T>();
      for (int64_t n = 0; n < batch; ++n) {
        offs.clear();
        ws.clear();
        for (int64_t p = 0; p < points; ++p) {
          first[static_cast<size_t>(p)] = static_cast<int64_t>(offs.size());
          const double* coords = g.data() + (n * points + p) * static_cast<int64_t>(r);
          for (size_t i = 0; i < r; ++i)
            taps[i] = DimTaps(coords[r - 1 - i], in[i]);
          Combinations(taps, st, &offs, &ws);
        }
        first[static_cast<size_t>(points)] = static_cast<int64_t>(offs.size());
        ParallelElements(
            ctx.thread_pool(), channels,
            [&](int64_t c0, int64_t c1) {
              for (int64_t c = c0; c < c1; ++c) {
                const T* xc = xp + (n * channels + c) * in_count;
                T* yc = yp + (n * channels + c) * points;
                for (int64_t p = 0; p < points; ++p) {
                  double v = 0;
                  for (int64_t j = first[static_cast<size_t>(p)];
                       j < first[static_cast<size_t>(p) + 1]; ++j) {
                    v += ws[static_cast<size_t>(j)] *
                         static_cast<double>(xc[offs[static_cast<size_t>(j)]]);
                  }
                  yc[p] = static_cast<T>(v);
                }
              }
            },
            std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(points, 1)));
      }
    });
    return Status::Ok();
  }

 private:
  // Every combination of the per-dim taps (the last dim fastest) whose weight is nonzero and
  // whose taps all read the input: its offset and weight appended.
  static void Combinations(const std::vector<std::vector<Tap>>& taps,
                           const std::vector<int64_t>& st, std::vector<int64_t>* offs,
                           std::vector<double>* ws) {
    const size_t r = taps.size();
    size_t k[8] = {0};  // (r <= 8: checked by the caller's rank limit)
    for (;;) {
      double w = 1;
      int64_t off = 0;
      for (size_t i = 0; i < r && w != 0; ++i) {
        const Tap& t = taps[i][k[i]];
        w *= t.weight;
        if (t.index < 0) w = 0;  // zeros padding
        off += t.index * st[i];
      }
      if (w != 0) {
        offs->push_back(off);
        ws->push_back(w);
      }
      size_t i = r;
      while (i-- > 0) {
        if (++k[i] < taps[i].size()) break;
        k[i] = 0;
      }
      if (i == static_cast<size_t>(-1)) break;
    }
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
    if (padding_ == "zeros") return i >= 0 && i < len ? i : -1;
    if (padding_ == "border") return std::min(std::max<int64_t>(i, 0), len - 1);
    if (len <= 0) return -1;
    const double r = Reflect(static_cast<double>(i), lo, hi);
    return std::min(std::max<int64_t>(static_cast<int64_t>(std::max(r, -1.0)), 0), len - 1);
  }

  std::vector<Tap> DimTaps(double normalized, int64_t len) const {
    const auto nf = static_cast<float>(normalized);
    const auto lf = static_cast<float>(len);
    float xf = align_ ? (nf + 1) / 2.0f * (lf - 1) : ((nf + 1) * lf - 1) / 2.0f;
    const double lo = align_ ? 0.0 : -0.5;
    const double hi = align_ ? static_cast<double>(len) - 1 : static_cast<double>(len) - 0.5;
    double xd = static_cast<double>(xf);
    // NaN reads nothing (zero); infinities only the border mode can place.
    if (std::isnan(xd) || (std::isinf(xd) && padding_ != "border")) return {{-1, 1.0}};
    if (mode_ == "nearest") xd = std::nearbyint(xd);
    if (xd < lo || xd > hi) {
      if (padding_ == "border") {
        xd = std::min(std::max(xd, 0.0), static_cast<double>(len - 1));
      } else if (padding_ == "reflection") {
        xd = Reflect(xd, lo, hi);
      }
    }
    // Far outside, every tap reads padding: clamped so that the indices stay in int64.
    xd = std::min(std::max(xd, lo - 4.0), hi + 4.0);
    if (mode_ == "nearest") {
      return {{Pixel(static_cast<int64_t>(xd), len, lo, hi), 1.0}};
    }
    const double f = std::floor(xd);
    const auto i0 = static_cast<int64_t>(f);
    const double t = xd - f;
    if (mode_ == "linear") {
      return {{Pixel(i0, len, lo, hi), 1 - t}, {Pixel(i0 + 1, len, lo, hi), t}};
    }
    const double a = -0.75;
    auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
    auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
    return {{Pixel(i0 - 1, len, lo, hi), far(t + 1)},
            {Pixel(i0, len, lo, hi), near(t)},
            {Pixel(i0 + 1, len, lo, hi), near(1 - t)},
            {Pixel(i0 + 2, len, lo, hi), far(2 - t)}};
  }

  std::string mode_, padding_;
  bool align_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GridSample) {
  return r.Register(
      Def("GridSample", 16, {{"T", {0, 1}, {0}, FloatTypes()}}, FactoryOf<GridSample>()));
}

}  // namespace onnx_light::kernels
