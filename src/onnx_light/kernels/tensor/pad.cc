// Pad: constant, reflect, edge and wrap modes, negative pads (cropping), axes.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// Pad (constant, reflect, edge, wrap). Before opset 11 pads/value are attributes; from 11
// on inputs (pads, optional constant_value, optional axes from 18). Negative pads crop.
class Pad : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Pad>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->mode_name_, info.GetString("mode", "constant"));
    const std::string& m = k->mode_name_;
    if (m == "constant") {
      k->mode_ = Mode::kConstant;
    } else if (m == "reflect") {
      k->mode_ = Mode::kReflect;
    } else if (m == "edge") {
      k->mode_ = Mode::kEdge;
    } else if (m == "wrap") {
      k->mode_ = Mode::kWrap;
    } else {
      return Status(StatusCode::kInvalidModel, "unknown mode '" + m + "'");
    }
    k->legacy_ = info.opset() < 11;
    if (k->legacy_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->pads_, info.GetInts(info.opset() < 2 ? "paddings" : "pads"));
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->value_, info.GetFloat("value", 0.0f));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    const auto rank = static_cast<int64_t>(in.size());
    std::vector<int64_t> pads = pads_;
    std::vector<int64_t> axes;
    if (!legacy_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(pads, Int64Values(ctx.input(1), "pads"));
      if (const Tensor* a = ctx.input(3)) axes = IndexValues(*a);
    }
    if (axes.empty()) {
      axes.resize(static_cast<size_t>(rank));
      std::iota(axes.begin(), axes.end(), int64_t{0});
    }
    ONNX_LIGHT_RETURN_IF(pads.size() != 2 * axes.size(), kInvalidArgument,
                         "pads has " + std::to_string(pads.size()) + " values, expected " +
                             std::to_string(2 * axes.size()));
    std::vector<int64_t> begin(in.size(), 0), out = in;
    for (size_t i = 0; i < axes.size(); ++i) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axes[i], rank));
      const auto u = static_cast<size_t>(ax);
      begin[u] = pads[i];
      ONNX_LIGHT_RETURN_IF(__builtin_add_overflow(in[u], pads[i], &out[u]) ||
                               __builtin_add_overflow(out[u], pads[i + axes.size()], &out[u]),
                           kOutOfRange, "pads of axis " + std::to_string(ax) + " overflow int64");
      ONNX_LIGHT_RETURN_IF(out[u] < 0, kInvalidArgument,
                           "pads crop axis " + std::to_string(ax) + " below zero");
      ONNX_LIGHT_RETURN_IF(mode_ != Mode::kConstant && in[u] == 0 && out[u] > 0, kInvalidArgument,
                           "mode " + mode_name_ + " cannot pad an empty axis");
      ONNX_LIGHT_RETURN_IF(mode_ == Mode::kReflect && in[u] == 1 && out[u] > 1, kInvalidArgument,
                           "reflect needs at least 2 elements on axis " + std::to_string(ax));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const std::vector<int64_t> st = RowMajorStrides(in);
    const size_t item = ItemSize(x.dtype());
    // The fill value for constant mode, as one element of x's type.
    Tensor fill;
    if (mode_ == Mode::kConstant) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(fill, Tensor::Allocate(x.dtype(), Shape()));
      const Tensor* cv = legacy_ ? nullptr : ctx.input(2);
      if (cv != nullptr && cv->num_elements() == 1) {
        CopyElement(*cv, 0, &fill, 0, item);
      } else {
        DispatchNumeric(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          fill.mutable_data<T>()[0] = static_cast<T>(legacy_ ? value_ : 0.0f);
        });
      }
    }
    // Row by row: each output row (all axes but the last) has one source row, or none
    // (constant mode, outside the input); its middle is one copy and its pads are filled
    // element by element from the mapped positions.
    if (out.empty()) {
      CopyElement(x, 0, y, 0, item);
      return Status::Ok();
    }
    const size_t last = out.size() - 1;
    const int64_t inner_out = out[last], inner_in = in[last], b = begin[last];
    const int64_t lo = std::clamp<int64_t>(b, 0, inner_out);
    const int64_t hi = std::clamp<int64_t>(b + inner_in, lo, inner_out);
    const int64_t rows = inner_out == 0 ? 0 : y->num_elements() / inner_out;
    std::vector<int64_t> pos(last, 0);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t src = 0;
      bool inside = true;
      for (size_t d = 0; d < last && inside; ++d) {
        const int64_t p = SourceIndex(pos[d] - begin[d], in[d]);
        inside = p >= 0;
        src += p * st[d];
      }
      const int64_t dst = r * inner_out;
      auto element = [&](int64_t j) {
        const int64_t p = inside ? SourceIndex(j - b, inner_in) : -1;
        if (p < 0) {
          CopyElement(fill, 0, y, dst + j, item);
        } else {
          CopyElement(x, src + p, y, dst + j, item);
        }
      };
      if (!inside) {
        for (int64_t j = 0; j < inner_out; ++j)
          element(j);
      } else {
        for (int64_t j = 0; j < lo; ++j)
          element(j);
        if (hi > lo) CopyElements(x, src + lo - b, y, dst + lo, item, hi - lo);
        for (int64_t j = hi; j < inner_out; ++j)
          element(j);
      }
      for (size_t d = last; d-- > 0;) {
        if (++pos[d] < out[d]) break;
        pos[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  enum class Mode { kConstant, kReflect, kEdge, kWrap };

  // Where output position p - begin (p) reads on an axis of n input elements: the index,
  // or -1 for the fill value (constant mode).
  int64_t SourceIndex(int64_t p, int64_t n) const {
    if (p >= 0 && p < n) return p;
    if (mode_ == Mode::kConstant) return -1;
    if (mode_ == Mode::kEdge) return p < 0 ? 0 : n - 1;
    if (mode_ == Mode::kWrap) return ((p % n) + n) % n;
    if (n == 1) return 0;  // reflect: one element mirrors itself (a cropped axis)
    const int64_t period = 2 * n - 2;
    p = ((p % period) + period) % period;
    return p >= n ? period - p : p;
  }

  std::string mode_name_ = "constant";
  Mode mode_ = Mode::kConstant;
  bool legacy_ = false;
  std::vector<int64_t> pads_;
  float value_ = 0;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Pad) {
  return r.Register(Def("Pad", 2, {{"T", {0, 2}, {0}, AllTensorTypes()}}, FactoryOf<Pad>()));
}

}  // namespace onnx_light::kernels
