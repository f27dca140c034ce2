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
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->mode_, info.GetString("mode", "constant"));
    if (k->mode_ != "constant" && k->mode_ != "reflect" && k->mode_ != "edge" &&
        k->mode_ != "wrap") {
      return Status(StatusCode::kInvalidModel,
                    info.Describe() + ": unknown mode '" + k->mode_ + "'");
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
      ONNX_LIGHT_ASSIGN_OR_RETURN(pads, Int64Values(ctx.input(1), ctx.info(), "pads"));
      if (const Tensor* a = ctx.input(3)) axes = IndexValues(*a);
    }
    if (axes.empty()) {
      axes.resize(static_cast<size_t>(rank));
      std::iota(axes.begin(), axes.end(), int64_t{0});
    }
    if (pads.size() != 2 * axes.size()) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": pads has " + std::to_string(pads.size()) +
                        " values, expected " + std::to_string(2 * axes.size()));
    }
    std::vector<int64_t> begin(in.size(), 0), out = in;
    for (size_t i = 0; i < axes.size(); ++i) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axes[i], rank, ctx.info()));
      const auto u = static_cast<size_t>(ax);
      begin[u] = pads[i];
      out[u] = in[u] + pads[i] + pads[i + axes.size()];
      if (out[u] < 0) {
        return Status(StatusCode::kInvalidArgument, ctx.info().Describe() + ": pads crop axis " +
                                                        std::to_string(ax) + " below zero");
      }
      if (mode_ != "constant" && in[u] == 0 && out[u] > 0) {
        return Status(StatusCode::kInvalidArgument,
                      ctx.info().Describe() + ": mode " + mode_ + " cannot pad an empty axis");
      }
      if (mode_ == "reflect" && in[u] == 1 && out[u] > 1) {
        return Status(StatusCode::kInvalidArgument,
                      ctx.info().Describe() + ": reflect needs at least 2 elements on axis " +
                          std::to_string(ax));
      }
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const std::vector<int64_t> st = RowMajorStrides(in);
    const size_t item = ItemSize(x.dtype());
    // The fill value for constant mode, as one element of x's type.
    Tensor fill;
    if (mode_ == "constant") {
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
    std::vector<int64_t> pos(out.size(), 0);
    for (int64_t j = 0; j < y->num_elements(); ++j) {
      int64_t src = 0;
      bool inside = true;
      for (size_t d = 0; d < out.size() && inside; ++d) {
        int64_t p = pos[d] - begin[d];
        const int64_t n = in[d];
        if (p < 0 || p >= n) {
          if (mode_ == "constant") {
            inside = false;
          } else if (mode_ == "edge") {
            p = p < 0 ? 0 : n - 1;
          } else if (mode_ == "wrap") {
            p = ((p % n) + n) % n;
          } else {  // reflect, period 2n - 2
            const int64_t period = 2 * n - 2;
            p = ((p % period) + period) % period;
            if (p >= n) p = period - p;
          }
        }
        src += p * st[d];
      }
      if (inside) {
        CopyElement(x, src, y, j, item);
      } else {
        CopyElement(fill, 0, y, j, item);
      }
      for (size_t d = out.size(); d-- > 0;) {
        if (++pos[d] < out[d]) break;
        pos[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  std::string mode_ = "constant";
  bool legacy_ = false;
  std::vector<int64_t> pads_;
  float value_ = 0;
};

}  // namespace

Status RegisterKernel_ai_onnx_Pad(KernelRegistry& r) {
  return r.Register(Def("Pad", 2, {{"T", {0, 2}, {0}, AllTensorTypes()}}, FactoryOf<Pad>()));
}

}  // namespace onnx_light::kernels
