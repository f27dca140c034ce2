// Pad: constant, reflect, edge and wrap modes, negative pads (cropping), axes.
#include <algorithm>
#include <cmath>
#include <cstring>
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
    if (out.empty()) {
      CopyElement(x, 0, y, 0, item);
      return Status::Ok();
    }
    const Plan plan{x, y, fill, in, out, begin, st, item};
    const int64_t inner = std::max<int64_t>(1, out.back());
    const int64_t rows = out.back() == 0 ? 0 : y->num_elements() / out.back();
    // rows split between threads in runs of ~32 KB of output
    ParallelElements(
        ctx.thread_pool(), rows, [&](int64_t r0, int64_t r1) { Rows(plan, r0, r1); },
        std::max<int64_t>(1, (int64_t{32} << 10) / (inner * static_cast<int64_t>(item + 1))));
    return Status::Ok();
  }

 private:
  enum class Mode { kConstant, kReflect, kEdge, kWrap };

  struct Plan {
    const Tensor& x;
    Tensor* y;
    const Tensor& fill;
    const std::vector<int64_t>& in;
    const std::vector<int64_t>& out;
    const std::vector<int64_t>& begin;
    const std::vector<int64_t>& strides;  // x's
    size_t item;                          // bytes an element (0: strings)
  };

  // Output rows [r0, r1) (all axes but the last): each has one source row, or none
  // (constant mode, outside the input); its middle is one copy, its pads are filled with
  // the constant (typed stores) or copied from the positions they map to.
  void Rows(const Plan& p, int64_t r0, int64_t r1) const {
    const size_t last = p.out.size() - 1;
    const int64_t inner_out = p.out[last], inner_in = p.in[last], b = p.begin[last];
    const int64_t lo = std::clamp<int64_t>(b, 0, inner_out);
    const int64_t hi = std::clamp<int64_t>(b + inner_in, lo, inner_out);
    std::vector<int64_t> pos(last, 0);
    for (size_t d = last, rest = static_cast<size_t>(r0); d-- > 0;) {
      pos[d] = static_cast<int64_t>(rest % static_cast<size_t>(p.out[d]));
      rest /= static_cast<size_t>(p.out[d]);
    }
    for (int64_t r = r0; r < r1; ++r) {
      int64_t src = 0;
      bool inside = true;
      for (size_t d = 0; d < last && inside; ++d) {
        const int64_t i = SourceIndex(pos[d] - p.begin[d], p.in[d]);
        inside = i >= 0;
        src += i * p.strides[d];
      }
      const int64_t dst = r * inner_out;
      if (!inside) {
        Pads(p, dst, src, 0, inner_out, false);
      } else {
        Pads(p, dst, src, 0, lo, true);
        if (hi > lo) CopyElements(p.x, src + lo - b, p.y, dst + lo, p.item, hi - lo);
        Pads(p, dst, src, hi, inner_out, true);
      }
      for (size_t d = last; d-- > 0;) {
        if (++pos[d] < p.out[d]) break;
        pos[d] = 0;
      }
    }
  }

  // Elements [j0, j1) of the output row at dst, all pads (j outside the source row's
  // middle): each the fill value or the source row's element at its mapped position.
  void Pads(const Plan& p, int64_t dst, int64_t src, int64_t j0, int64_t j1, bool inside) const {
    if (j1 <= j0) return;
    const int64_t n = p.in.back(), b = p.begin.back();
    if (mode_ == Mode::kConstant && p.item > 0) {
      char* d = static_cast<char*>(p.y->mutable_raw_data()) + dst * static_cast<int64_t>(p.item);
      FillItems(d + j0 * static_cast<int64_t>(p.item), static_cast<const char*>(p.fill.raw_data()),
                p.item, j1 - j0);
      return;
    }
    for (int64_t j = j0; j < j1; ++j) {
      const int64_t i = inside ? SourceIndex(j - b, n) : -1;
      if (i < 0) {
        CopyElement(p.fill, 0, p.y, dst + j, p.item);
      } else {
        CopyElement(p.x, src + i, p.y, dst + j, p.item);
      }
    }
  }

  // count copies of one element of `item` bytes (stores of its width).
  static void FillItems(char* d, const char* value, size_t item, int64_t count) {
    auto fill = [&](auto word) {
      std::memcpy(&word, value, sizeof(word));
      for (int64_t i = 0; i < count; ++i)
        std::memcpy(d + i * static_cast<int64_t>(sizeof(word)), &word, sizeof(word));
    };
    switch (item) {
      case 1:
        std::memset(d, value[0], static_cast<size_t>(count));
        return;
      case 2:
        return fill(uint16_t{0});
      case 4:
        return fill(uint32_t{0});
      case 8:
        return fill(uint64_t{0});
      default:
        for (int64_t i = 0; i < count; ++i)
          std::memcpy(d + i * static_cast<int64_t>(item), value, item);
    }
  }

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
