// Resize (opset 11+): nearest (four rounding modes), N-d linear and cubic, every
// coordinate_transformation_mode, scales or sizes, axes, exclude_outside and
// tf_crop_and_resize's extrapolation. Separable: each output axis gets a list of (input
// index, weight) taps and an output element sums the product over its axes' taps.
// antialias (linear/cubic) and keep_aspect_ratio_policy follow the ONNX reference. Upsample
// (opset 7-9) runs on the same code with asymmetric coordinates.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/saturate.h"
#include "nn/resize_linear.h"
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
    ONNX_LIGHT_RETURN_IF(policy != "stretch" && policy != "not_larger" && policy != "not_smaller",
                         kInvalidModel, "unknown keep_aspect_ratio_policy '" + policy + "'");
    k->policy_ = policy;
    ONNX_LIGHT_RETURN_IF(k->mode_ != "nearest" && k->mode_ != "linear" && k->mode_ != "cubic",
                         kInvalidModel, "unknown mode '" + k->mode_ + "'");
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  // Per input axis: the scale, the roi and the output size, from scales or sizes (and
  // keep_aspect_ratio_policy) for the resized axes.
  struct AxisPlan {
    std::vector<double> scale, roi_start, roi_end;
    std::vector<int64_t> out;
    bool from_sizes = false;  // the scales are out / in (ORT divides those in float)
  };
  Status PlanAxes(const KernelContext& ctx, const std::vector<int64_t>& in, AxisPlan* p) const {
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
    ONNX_LIGHT_RETURN_IF((scales_in.empty() == sizes_in.empty()) ||
                             (!scales_in.empty() && scales_in.size() != na) ||
                             (!sizes_in.empty() && sizes_in.size() != na),
                         kInvalidArgument,
                         "give exactly one of scales and sizes, one value "
                         "per resized axis");
    // Per input axis: scale, output size, roi.
    std::vector<double>& scale = p->scale;
    std::vector<double>& roi_start = p->roi_start;
    std::vector<double>& roi_end = p->roi_end;
    std::vector<int64_t>& out = p->out;
    scale.assign(rank, 1.0);
    roi_start.assign(rank, 0.0);
    roi_end.assign(rank, 1.0);
    out = in;
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
    p->from_sizes = !sizes_in.empty() && policy_ == "stretch";
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
        ONNX_LIGHT_RETURN_IF(!(scales_in[i] > 0), kInvalidArgument, "scales must be > 0");
        scale[a] = scales_in[i];
        // ONNX: floor(in * scale), with the roi's extent for a crop. Outside a crop the
        // product is taken in float as ONNX Runtime takes it (a scale of 0.7f on 20 gives
        // 14, as PyTorch's export meant; in double it is 13.99... and 13).
        const double extent = crop ? roi_end[a] - roi_start[a] : 1.0;
        const double size = crop ? std::floor(static_cast<double>(in[a]) * extent * scale[a])
                                 : std::floor(static_cast<double>(static_cast<float>(scale[a]) *
                                                                  static_cast<float>(in[a])));
        if (!(size >= 0 && size < 9.2e18)) {  // NaN fails too (a roi of NaN or inf)
          return Status(StatusCode::kOutOfRange, "output size " + std::to_string(size) +
                                                     " of axis " + std::to_string(a) +
                                                     " is out of range");
        }
        out[a] = static_cast<int64_t>(size);
      } else {
        ONNX_LIGHT_RETURN_IF(sizes_in[i] < 0, kInvalidArgument, "negative size");
        out[a] = sizes_in[i];
        scale[a] = in[a] == 0 ? 1.0 : static_cast<double>(out[a]) / static_cast<double>(in[a]);
      }
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    const size_t rank = in.size();
    AxisPlan plan;
    ONNX_LIGHT_RETURN_IF_ERROR(PlanAxes(ctx, in, &plan));
    const std::vector<double>& scale = plan.scale;
    const std::vector<double>& roi_start = plan.roi_start;
    const std::vector<double>& roi_end = plan.roi_end;
    const std::vector<int64_t>& out = plan.out;
    const bool crop = coord_ == "tf_crop_and_resize";
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    if (y->num_elements() == 0) return Status::Ok();
    ONNX_LIGHT_RETURN_IF(x.num_elements() == 0, kInvalidArgument, "empty input");
    bool unit_scales = true;
    for (double s : scale)
      unit_scales = unit_scales && s == 1.0;
    if (unit_scales && !crop && x.dtype() != DataType::kString) {
      // Nothing resized: the input as it is (ONNX Runtime copies it too).
      std::memcpy(y->mutable_raw_data(), x.raw_data(), x.byte_size());
      return Status::Ok();
    }
    // align_corners by scales whose product with the input is not the output size: the
    // spec divides by the unrounded in * scale (its conformance cases test it), ONNX
    // Runtime by the size; the spec's way below.
    bool spec_corners = false;
    for (size_t a = 0; a < rank && coord_ == "align_corners" && !plan.from_sizes; ++a)
      spec_corners = spec_corners || scale[a] * static_cast<double>(in[a]) != out[a];
    if (mode_ == "linear" && !antialias_ && x.dtype() == DataType::kFloat && !spec_corners &&
        ResizeLinearF32(x.data<float>(), y->mutable_data<float>(), OrtLinearSpec(in, plan),
                        ctx.thread_pool())) {
      return Status::Ok();
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
        ResizeLastTwoAxes(x.data<float>(), y->mutable_data<float>(), in, out, taps,
                          ctx.thread_pool())) {
      return Status::Ok();
    }
    if (!any_outside && x.dtype() == DataType::kDouble &&
        ResizeLastTwoAxes(x.data<double>(), y->mutable_data<double>(), in, out, taps,
                          ctx.thread_pool())) {
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
  // The plan in ORT's float terms, for its linear formula (nn/resize_linear.h).
  ResizeLinearSpec OrtLinearSpec(const std::vector<int64_t>& in, const AxisPlan& plan) const {
    ResizeLinearSpec s;
    s.in = in;
    s.out = plan.out;
    s.coord = coord_;
    s.extrapolation = extrapolation_;
    for (size_t a = 0; a < in.size(); ++a) {
      s.scale.push_back(plan.from_sizes && in[a] != 0
                            ? static_cast<float>(plan.out[a]) / static_cast<float>(in[a])
                            : static_cast<float>(plan.scale[a]));
      s.roi_start.push_back(static_cast<float>(plan.roi_start[a]));
      s.roi_end.push_back(static_cast<float>(plan.roi_end[a]));
    }
    return s;
  }

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
    ONNX_LIGHT_RETURN_IF(k->mode_ != "nearest" && k->mode_ != "linear", kInvalidModel,
                         "unknown mode '" + k->mode_ + "'");
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

}  // namespace

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
