// Resize (opset 11+): nearest (four rounding modes), N-d linear and cubic, every
// coordinate_transformation_mode, scales or sizes, axes, exclude_outside and
// tf_crop_and_resize's extrapolation. Separable: each output axis gets a list of (input
// index, weight) taps and an output element sums the product over its axes' taps.
// antialias (linear/cubic) and keep_aspect_ratio_policy follow the ONNX reference. Upsample
// (opset 7-9) runs on the same code with asymmetric coordinates. GridSample and AffineGrid
// are here too: they sample with the same interpolation taps as Resize.
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

class Resize : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Resize>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->mode_, info.GetString("mode", "nearest"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->coord_,
                                info.GetString("coordinate_transformation_mode", "half_pixel"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->nearest_, info.GetString("nearest_mode", "round_prefer_floor"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->cubic_a_, info.GetFloat("cubic_coeff_a", -0.75f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->exclude_outside_, GetFlag(info, "exclude_outside", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->extrapolation_, info.GetFloat("extrapolation_value", 0.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t antialias, info.GetInt("antialias", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string policy,
                                info.GetString("keep_aspect_ratio_policy", "stretch"));
    if (info.HasAttribute("axes")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->axes_, info.GetInts("axes"));
    }
    k->antialias_ = antialias != 0;
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
      return Status(StatusCode::kInvalidModel, "unknown keep_aspect_ratio_policy '" + policy + "'");
    }
    k->policy_ = policy;
    if (k->mode_ != "nearest" && k->mode_ != "linear" && k->mode_ != "cubic") {
      return Status(StatusCode::kInvalidModel, "unknown mode '" + k->mode_ + "'");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    const size_t rank = in.size();
    std::vector<int64_t> axes = axes_;
    if (axes.empty()) {
      for (size_t i = 0; i < rank; ++i)
        axes.push_back(static_cast<int64_t>(i));
    }
    for (int64_t& a : axes) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(a, NormalizeAxis(a, static_cast<int64_t>(rank)));
    }
    std::vector<double> roi_in, scales_in;
    std::vector<int64_t> sizes_in;
    if (upsample_) {  // Upsample: scales from the attribute (opset 7) or input 1 (opset 9)
      scales_in = upsample_scales_.empty() ? ToDoubles(ctx.input(1)) : upsample_scales_;
    } else {
      roi_in = ToDoubles(ctx.input(1));
      scales_in = ToDoubles(ctx.input(2));
      if (const Tensor* s = ctx.input(3)) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(sizes_in, Int64Values(s, "sizes"));
      }
    }
    const size_t na = axes.size();
    if ((scales_in.empty() == sizes_in.empty()) || (!scales_in.empty() && scales_in.size() != na) ||
        (!sizes_in.empty() && sizes_in.size() != na)) {
      return Status(StatusCode::kInvalidArgument,
                    "give exactly one of scales and sizes, one value "
                    "per resized axis");
    }
    // Per input axis: scale, output size, roi.
    std::vector<double> scale(rank, 1.0), roi_start(rank, 0.0), roi_end(rank, 1.0);
    std::vector<int64_t> out = in;
    if (roi_in.size() == 2 * na) {
      for (size_t i = 0; i < na; ++i) {
        roi_start[static_cast<size_t>(axes[i])] = roi_in[i];
        roi_end[static_cast<size_t>(axes[i])] = roi_in[i + na];
      }
    } else if (roi_in.size() == 2 * rank) {
      for (size_t i = 0; i < rank; ++i) {
        roi_start[i] = roi_in[i];
        roi_end[i] = roi_in[i + rank];
      }
    }
    const bool crop = coord_ == "tf_crop_and_resize";
    if (!sizes_in.empty() && policy_ != "stretch") {
      // One scale for every resized axis: the smallest (not_larger) or largest
      // (not_smaller) of sizes / input, and sizes rounded half up from it.
      double common = policy_ == "not_larger" ? std::numeric_limits<double>::infinity() : 0.0;
      for (size_t i = 0; i < na; ++i) {
        const double r =
            static_cast<double>(sizes_in[i]) /
            static_cast<double>(std::max<int64_t>(1, in[static_cast<size_t>(axes[i])]));
        common = policy_ == "not_larger" ? std::min(common, r) : std::max(common, r);
      }
      for (size_t i = 0; i < na; ++i) {
        const auto a = static_cast<size_t>(axes[i]);
        scale[a] = common;
        const double size = common * static_cast<double>(in[a]) + 0.5;
        if (!(size < 9.2e18)) {  // NaN fails too
          return Status(StatusCode::kOutOfRange, "output size " + std::to_string(size) +
                                                     " of axis " + std::to_string(a) +
                                                     " is out of range");
        }
        out[a] = static_cast<int64_t>(size);
      }
    }
    for (size_t i = 0; i < na && !(!sizes_in.empty() && policy_ != "stretch"); ++i) {
      const auto a = static_cast<size_t>(axes[i]);
      if (!scales_in.empty()) {
        if (!(scales_in[i] > 0)) {
          return Status(StatusCode::kInvalidArgument, "scales must be > 0");
        }
        scale[a] = scales_in[i];
        const double extent = crop ? roi_end[a] - roi_start[a] : 1.0;
        const double size = std::floor(static_cast<double>(in[a]) * extent * scale[a]);
        if (!(size >= 0 && size < 9.2e18)) {  // NaN fails too (a roi of NaN or inf)
          return Status(StatusCode::kOutOfRange, "output size " + std::to_string(size) +
                                                     " of axis " + std::to_string(a) +
                                                     " is out of range");
        }
        out[a] = static_cast<int64_t>(size);
      } else {
        if (sizes_in[i] < 0) {
          return Status(StatusCode::kInvalidArgument, "negative size");
        }
        out[a] = sizes_in[i];
        scale[a] = in[a] == 0 ? 1.0 : static_cast<double>(out[a]) / static_cast<double>(in[a]);
      }
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    if (y->num_elements() == 0) return Status::Ok();
    if (x.num_elements() == 0) {
      return Status(StatusCode::kInvalidArgument, "empty input");
    }
    // Taps per axis and output index; `outside` marks crop coordinates beyond the input.
    std::vector<std::vector<std::vector<Tap>>> taps(rank);
    std::vector<std::vector<bool>> outside(rank);
    for (size_t a = 0; a < rank; ++a) {
      taps[a].resize(static_cast<size_t>(out[a]));
      outside[a].assign(static_cast<size_t>(out[a]), false);
      for (int64_t o = 0; o < out[a]; ++o) {
        const double xo = Original(o, in[a], out[a], scale[a], roi_start[a], roi_end[a]);
        if (crop && (xo < 0 || xo > static_cast<double>(in[a] - 1))) {
          outside[a][static_cast<size_t>(o)] = true;
        }
        taps[a][static_cast<size_t>(o)] = AxisTaps(xo, in[a], scale[a]);
      }
    }
    bool any_outside = false;
    for (const std::vector<bool>& o : outside)
      for (bool b : o)
        any_outside = any_outside || b;
    if (!any_outside && x.dtype() == DataType::kFloat &&
        ResizeLastTwoAxes(x.data<float>(), y->mutable_data<float>(), in, out, taps)) {
      return Status::Ok();
    }
    if (!any_outside && x.dtype() == DataType::kDouble &&
        ResizeLastTwoAxes(x.data<double>(), y->mutable_data<double>(), in, out, taps)) {
      return Status::Ok();
    }
    const std::vector<int64_t> st = RowMajorStrides(in);
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* xp = x.data<T>();
        T* yp = y->mutable_data<T>();
        std::vector<int64_t> pos(rank, 0);
        for (int64_t j = 0; j < y->num_elements(); ++j) {
          bool out_of_roi = false;
          for (size_t a = 0; a < rank; ++a)
            out_of_roi = out_of_roi || outside[a][static_cast<size_t>(pos[a])];
          double v = 0;
          if (out_of_roi) {
            v = static_cast<double>(extrapolation_);
          } else {
            v = Accumulate(xp, st, taps, pos, 0, 0);
          }
          if constexpr (std::is_integral_v<T>) {
            yp[j] = SaturatingInt<T>(std::nearbyint(v));  // (uint64's max rounds up to 2^64)
          } else {
            yp[j] = static_cast<T>(v);
          }
          for (size_t d = rank; d-- > 0;) {
            if (++pos[d] < out[d]) break;
            pos[d] = 0;
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  template <typename T>
  static double Accumulate(const T* xp, const std::vector<int64_t>& st,
                           const std::vector<std::vector<std::vector<Tap>>>& taps,
                           const std::vector<int64_t>& pos, size_t axis, int64_t offset) {
    if (axis == st.size()) return static_cast<double>(xp[offset]);
    double sum = 0;
    for (const Tap& t : taps[axis][static_cast<size_t>(pos[axis])]) {
      if (t.weight == 0) continue;
      sum += t.weight * Accumulate(xp, st, taps, pos, axis + 1, offset + t.index * st[axis]);
    }
    return sum;
  }

  // The input coordinate of output index o.
  double Original(int64_t o, int64_t in, int64_t out, double s, double r0, double r1) const {
    const auto xr = static_cast<double>(o);
    const auto len_in = static_cast<double>(in), len_out = static_cast<double>(out);
    if (coord_ == "asymmetric") return xr / s;
    if (coord_ == "align_corners") {
      // The unrounded resized length (in * scale), as the spec's reference uses.
      const double resized = s * len_in;
      return resized == 1 ? 0.0 : xr * (len_in - 1) / (resized - 1);
    }
    if (coord_ == "pytorch_half_pixel") return out > 1 ? (xr + 0.5) / s - 0.5 : 0.0;
    if (coord_ == "tf_crop_and_resize") {
      return out > 1 ? r0 * (len_in - 1) + xr * (r1 - r0) * (len_in - 1) / (len_out - 1)
                     : 0.5 * (r0 + r1) * (len_in - 1);
    }
    if (coord_ == "half_pixel_symmetric") {
      const double adjustment = len_out / (s * len_in);
      const double center = len_in / 2;
      const double offset = center * (1 - adjustment);
      return offset + (xr + 0.5) / s - 0.5;
    }
    return (xr + 0.5) / s - 0.5;  // half_pixel
  }

  std::vector<Tap> AxisTaps(double xo, int64_t in, double s) const {
    auto clampi = [in](int64_t i) { return std::min(std::max<int64_t>(i, 0), in - 1); };
    if (mode_ == "nearest") {
      double r;
      const double f = std::floor(xo);
      if (nearest_ == "floor") {
        r = f;
      } else if (nearest_ == "ceil") {
        r = std::ceil(xo);
      } else if (xo - f == 0.5) {
        r = nearest_ == "round_prefer_ceil" ? f + 1 : f;
      } else {
        r = std::round(xo);
      }
      return {{clampi(static_cast<int64_t>(r)), 1.0}};
    }
    if (antialias_) return AntialiasTaps(xo, in, s);
    const auto i0 = static_cast<int64_t>(std::floor(xo));
    const double r = xo - static_cast<double>(i0);
    if (mode_ == "linear") return {{clampi(i0), 1 - r}, {clampi(i0 + 1), r}};
    const double a = cubic_a_;
    auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
    auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
    std::vector<Tap> t = {
        {i0 - 1, far(r + 1)}, {i0, near(r)}, {i0 + 1, near(1 - r)}, {i0 + 2, far(2 - r)}};
    if (exclude_outside_) {
      double total = 0;
      for (Tap& tap : t) {
        if (tap.index < 0 || tap.index >= in) tap.weight = 0;
        total += tap.weight;
      }
      for (Tap& tap : t)
        tap.weight = total != 0 ? tap.weight / total : 0;
    }
    for (Tap& tap : t)
      tap.index = clampi(tap.index);
    return t;
  }

  // antialias=1 (linear and cubic): when downsampling, the filter is stretched by 1/scale
  // so every input sample contributes, and its weights are normalized; upsampling keeps
  // the plain filter. The window is the n input indices nearest xo (edge-clamped).
  std::vector<Tap> AntialiasTaps(double xo, int64_t in, double s) const {
    const double scale = std::min(s, 1.0);
    const double fl = std::floor(xo);
    const double ratio = xo == fl ? 1.0 : xo - fl;  // an exact integer takes the left pixel
    std::vector<double> w;
    const double a = cubic_a_;
    if (mode_ == "linear") {
      const auto start = static_cast<int64_t>(std::floor(-1 / scale) + 1);
      const int64_t n = 2 - 2 * start;
      for (int64_t k = 0; k < n; ++k) {
        const double arg = (static_cast<double>(start + k) - ratio) * scale;
        w.push_back(std::min(1.0, std::max(0.0, 1 - std::fabs(arg))));
      }
    } else {
      const auto i_start = static_cast<int64_t>(std::floor(-2 / scale) + 1);
      const int64_t i_end = 2 - i_start;
      for (int64_t i = i_start; i < i_end; ++i) {
        const double x = std::fabs(scale * (static_cast<double>(i) - ratio));
        const double x2 = x * x, x3 = x2 * x;
        w.push_back(x <= 1 ? (a + 2) * x3 - (a + 3) * x2 + 1
                           : (x < 2 ? a * x3 - 5 * a * x2 + 8 * a * x - 4 * a : 0.0));
      }
    }
    double total = 0;
    for (double v : w)
      total += v;
    for (double& v : w)
      v /= total;
    const auto n = static_cast<int64_t>(w.size());
    const int64_t pad = (n + 1) / 2;
    const double xp = xo + static_cast<double>(pad);
    const double pf = std::floor(xp);
    const double frac = xp - pf;
    int64_t offset;
    if (n % 2 == 0) {
      offset = frac == 0 ? -(n / 2) : -(n / 2) + 1;
    } else {
      offset = frac <= 0.5 ? -((n - 1) / 2) : -((n - 1) / 2) + 1;
    }
    const int64_t start = static_cast<int64_t>(pf) + offset - pad;
    std::vector<Tap> t;
    for (int64_t k = 0; k < n; ++k)
      t.push_back({start + k, w[static_cast<size_t>(k)]});
    if (exclude_outside_) {
      double sum = 0;
      for (Tap& tap : t) {
        if (tap.index < 0 || tap.index >= in) tap.weight = 0;
        sum += tap.weight;
      }
      for (Tap& tap : t)
        tap.weight = sum != 0 ? tap.weight / sum : 0;
    }
    for (Tap& tap : t)
      tap.index = std::min(std::max<int64_t>(tap.index, 0), in - 1);
    return t;
  }

 public:
  // Upsample (opset 7-9): nearest (floor) or linear with asymmetric coordinates, scales
  // from the attribute (opset 7) or the second input (opset 9).
  static Result<std::unique_ptr<KernelBase>> CreateUpsample(const KernelInfo& info) {
    auto k = std::make_unique<Resize>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->mode_, info.GetString("mode", "nearest"));
    if (k->mode_ == "bilinear") k->mode_ = "linear";
    if (k->mode_ != "nearest" && k->mode_ != "linear") {
      return Status(StatusCode::kInvalidModel, "unknown mode '" + k->mode_ + "'");
    }
    k->coord_ = "asymmetric";
    k->nearest_ = "floor";
    k->upsample_ = true;
    if (info.HasAttribute("scales")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<float> sc, info.GetFloats("scales"));
      k->upsample_scales_.assign(sc.begin(), sc.end());
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }

 private:
  bool antialias_ = false, upsample_ = false;
  std::string policy_ = "stretch";
  std::vector<double> upsample_scales_;
  std::string mode_, coord_, nearest_;
  float cubic_a_ = -0.75f, extrapolation_ = 0;
  bool exclude_outside_ = false;
  std::vector<int64_t> axes_;
};

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
    if (k->mode_ != "nearest" && k->mode_ != "linear" && k->mode_ != "cubic") {
      return Status(StatusCode::kInvalidModel, "unknown mode '" + k->mode_ + "'");
    }
    if (k->padding_ != "zeros" && k->padding_ != "border" && k->padding_ != "reflection") {
      return Status(StatusCode::kInvalidModel, "unknown padding_mode '" + k->padding_ + "'");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& grid = *ctx.input(1);
    const size_t rank = x.shape().rank();
    if (rank < 3 || grid.shape().rank() != rank || grid.shape()[0] != x.shape()[0] ||
        grid.shape()[rank - 1] != static_cast<int64_t>(rank - 2)) {
      return Status(StatusCode::kInvalidArgument,
                    "X " + x.shape().ToString() + " and grid " + grid.shape().ToString() +
                        " do not fit: grid must be [N, out..., " + std::to_string(rank - 2) + "]");
    }
    const size_t r = rank - 2;
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
    const std::vector<double> g = ToDoubles(&grid), xv = ToDoubles(&x);
    const std::vector<int64_t> st = RowMajorStrides(in);
    std::vector<std::vector<Tap>> taps(r);
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* yp = y->mutable_data<T>();
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t p = 0; p < points; ++p) {
          const double* coords = g.data() + (n * points + p) * static_cast<int64_t>(r);
          for (size_t i = 0; i < r; ++i)
            taps[i] = DimTaps(coords[r - 1 - i], in[i]);
          for (int64_t c = 0; c < channels; ++c) {
            const double* xc = xv.data() + (n * channels + c) * in_count;
            double v = 0;
            // Sum over every combination of the per-dim taps.
            std::vector<size_t> k(r, 0);
            for (;;) {
              double w = 1;
              int64_t off = 0;
              for (size_t i = 0; i < r && w != 0; ++i) {
                const Tap& t = taps[i][k[i]];
                w *= t.weight;
                if (t.index < 0) w = 0;  // zeros padding
                off += t.index * st[i];
              }
              if (w != 0) v += w * xc[off];
              size_t i = r;
              while (i-- > 0) {
                if (++k[i] < taps[i].size()) break;
                k[i] = 0;
              }
              if (i == static_cast<size_t>(-1)) break;
            }
            yp[(n * channels + c) * points + p] = static_cast<T>(v);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
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

// AffineGrid (opset 20): the sampling grid of an affine transform for GridSample. theta
// [N, 2, 3] (2-D) or [N, 3, 4] (3-D) maps each output position's normalized coordinates
// (x the last spatial dim; align_corners picks pixel corners or centres) to input ones.
class AffineGrid : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<AffineGrid>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->align_, GetFlag(info, "align_corners", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& theta = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> size, Int64Values(ctx.input(1), "size"));
    const size_t r = size.size() - 2;
    if ((size.size() != 4 && size.size() != 5) || theta.shape().rank() != 3 ||
        theta.shape()[0] != size[0] || theta.shape()[1] != static_cast<int64_t>(r) ||
        theta.shape()[2] != static_cast<int64_t>(r + 1)) {
      return Status(StatusCode::kInvalidArgument,
                    "theta must be [N, 2, 3] with size [N, C, H, W] or [N, 3, 4] with "
                    "size [N, C, D, H, W], got " +
                        theta.shape().ToString());
    }
    const std::vector<int64_t> spatial(size.begin() + 2, size.end());
    for (int64_t d : spatial) {
      if (d < 1) return Status(StatusCode::kInvalidArgument, "sizes must be >= 1");
    }
    std::vector<int64_t> dims = {size[0]};
    dims.insert(dims.end(), spatial.begin(), spatial.end());
    dims.push_back(static_cast<int64_t>(r));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    auto coord = [&](int64_t i, int64_t len) {
      if (align_)
        return len == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(len - 1);
      return -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(len);
    };
    int64_t points = 1;
    for (int64_t d : spatial)
      points *= d;
    const std::vector<double> th = ToDoubles(&theta);
    ForFloat(theta.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* out = y->mutable_data<T>();
      std::vector<int64_t> pos(r, 0);
      std::vector<double> homo(r + 1, 1.0);
      for (int64_t n = 0; n < size[0]; ++n) {
        std::fill(pos.begin(), pos.end(), 0);
        const double* t = th.data() + n * static_cast<int64_t>(r * (r + 1));
        for (int64_t p = 0; p < points; ++p) {
          for (size_t i = 0; i < r; ++i)  // x first: the last spatial dim
            homo[i] = coord(pos[r - 1 - i], spatial[r - 1 - i]);
          for (size_t row = 0; row < r; ++row) {
            double v = 0;
            for (size_t c = 0; c <= r; ++c)
              v += t[row * (r + 1) + c] * homo[c];
            out[(n * points + p) * static_cast<int64_t>(r) + static_cast<int64_t>(row)] =
                static_cast<T>(v);
          }
          for (size_t d = r; d-- > 0;) {
            if (++pos[d] < spatial[d]) break;
            pos[d] = 0;
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool align_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, AffineGrid) {
  return r.Register(Def("AffineGrid", 20,
                        {{"T1", {0}, {0}, FloatTypes()}, {"T2", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<AffineGrid>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GridSample) {
  return r.Register(
      Def("GridSample", 16, {{"T", {0, 1}, {0}, FloatTypes()}}, FactoryOf<GridSample>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Upsample) {
  KernelDef def = Def("Upsample", 7, {{"T", {0}, {0}, NumericTypes()}}, &Resize::CreateUpsample);
  def.end_version = 9;
  return r.Register(std::move(def));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Resize) {
  return r.Register(Def("Resize", 11,
                        {{"T1",
                          {0},
                          {0},
                          {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat,
                           DataType::kDouble, DataType::kInt8, DataType::kUint8}}},
                        FactoryOf<Resize>()));
}

}  // namespace onnx_light::kernels
