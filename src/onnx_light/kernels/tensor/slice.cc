// Slice: the strided box (starts, ends, axes, steps) of a tensor, every tensor type.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "tensor/copy_box.h"

namespace onnx_light::kernels {
namespace {

class Slice : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Slice>();
    k->legacy_ = info.opset() < 10;
    if (k->legacy_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->starts_, info.GetInts("starts"));
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->ends_, info.GetInts("ends"));
      if (info.HasAttribute("axes")) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(k->axes_, info.GetInts("axes"));
      }
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    std::vector<int64_t> starts = starts_, ends = ends_, axes = axes_, steps;
    if (!legacy_) {
      starts = IndexValues(*ctx.input(1));
      ends = IndexValues(*ctx.input(2));
      axes.clear();
      if (const Tensor* a = ctx.input(3)) axes = IndexValues(*a);
      if (const Tensor* s = ctx.input(4)) steps = IndexValues(*s);
    }
    const std::vector<int64_t>& in = x.shape().dims();
    const auto rank = static_cast<int64_t>(in.size());
    if (axes.empty()) {
      for (size_t i = 0; i < starts.size(); ++i)
        axes.push_back(static_cast<int64_t>(i));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    ONNX_LIGHT_RETURN_IF(ends.size() != starts.size() || axes.size() != starts.size() ||
                             steps.size() != starts.size(),
                         kInvalidArgument, "starts, ends, axes and steps differ in length");
    std::vector<int64_t> out = in, start(in.size(), 0), step(in.size(), 1);
    std::vector<bool> seen(in.size(), false);
    for (size_t i = 0; i < starts.size(); ++i) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axes[i], rank));
      const auto u = static_cast<size_t>(ax);
      ONNX_LIGHT_RETURN_IF(seen[u], kInvalidArgument, "repeated axis");
      seen[u] = true;
      const int64_t len = in[u], st = steps[i];
      ONNX_LIGHT_RETURN_IF(st == 0, kInvalidArgument, "step is 0");
      int64_t b = starts[i], e = ends[i];
      if (b < 0) b += len;
      if (e < 0) e += len;
      // The count is 1 + (span - 1) / |step|, in unsigned arithmetic: a step near the
      // int64 extremes made (span + step - 1) and -step overflow.
      const uint64_t magnitude =
          st > 0 ? static_cast<uint64_t>(st) : static_cast<uint64_t>(-(st + 1)) + 1;
      if (st > 0) {
        b = std::clamp<int64_t>(b, 0, len);
        e = std::clamp<int64_t>(e, 0, len);
        out[u] = e > b ? static_cast<int64_t>(1 + static_cast<uint64_t>(e - b - 1) / magnitude) : 0;
      } else {
        b = std::clamp<int64_t>(b, -1, len - 1);
        e = std::clamp<int64_t>(e, -1, len - 1);
        out[u] = b > e ? static_cast<int64_t>(1 + static_cast<uint64_t>(b - e - 1) / magnitude) : 0;
      }
      start[u] = out[u] > 0 ? b : 0;
      // With one element along the axis the step is never taken (and a huge one would
      // overflow the copy's offsets); with more, |step| * (count - 1) < len.
      step[u] = out[u] > 1 ? st : 1;
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    if (y->num_elements() > 0) CopyBox(x, start, step, y, ctx.thread_pool());
    return Status::Ok();
  }

 private:
  bool legacy_ = false;
  std::vector<int64_t> starts_, ends_, axes_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Slice) {
  return r.Register(
      Def("Slice", 1, {{"T", {0}, {0}, AllTensorTypes()}, {"Tind", {1, 2, 3, 4}, {}, IndexTypes()}},
          FactoryOf<Slice>()));
}

}  // namespace onnx_light::kernels
