// Split: a tensor cut into pieces along an axis (sizes given, or equal parts), every
// tensor type.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "tensor/copy_box.h"

namespace onnx_light::kernels {
namespace {

class Split : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Split>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    if (info.HasAttribute("split")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->split_, info.GetInts("split"));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->num_outputs_, info.GetInt("num_outputs", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis,
                                NormalizeAxis(axis_, static_cast<int64_t>(in.size())));
    const auto ax = static_cast<size_t>(axis);
    const auto n = static_cast<int64_t>(ctx.output_count());
    std::vector<int64_t> split = split_;
    if (const Tensor* s = ctx.input(1)) split = IndexValues(*s);
    if (split.empty()) {
      // Equal parts; with num_outputs (opset 18) the last part may be smaller.
      const int64_t chunk = (in[ax] + n - 1) / n;
      ONNX_LIGHT_RETURN_IF(num_outputs_ == 0 && in[ax] % n != 0, kInvalidArgument,
                           "dimension " + std::to_string(in[ax]) + " does not split into " +
                               std::to_string(n) + " equal parts");
      for (int64_t i = 0, left = in[ax]; i < n; ++i, left -= chunk)
        split.push_back(std::max<int64_t>(0, std::min(chunk, left)));
    }
    int64_t total = 0;
    for (int64_t s : split) {
      ONNX_LIGHT_RETURN_IF(s < 0, kInvalidArgument, "negative split");
      ONNX_LIGHT_RETURN_IF(__builtin_add_overflow(total, s, &total), kInvalidArgument,
                           "split sizes overflow int64");
    }
    ONNX_LIGHT_RETURN_IF(static_cast<int64_t>(split.size()) != n || total != in[ax],
                         kInvalidArgument,
                         "split sizes do not match " + std::to_string(n) + " outputs summing to " +
                             std::to_string(in[ax]));
    std::vector<int64_t> start(in.size(), 0), step(in.size(), 1);
    for (size_t k = 0; k < split.size(); ++k) {
      std::vector<int64_t> dims = in;
      dims[ax] = split[k];
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(k, dims));
      if (y->num_elements() > 0) CopyBox(x, start, step, y, ctx.thread_pool());
      start[ax] += split[k];
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  int64_t num_outputs_ = 0;
  std::vector<int64_t> split_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Split) {
  return r.Register(
      Def("Split", 2, {{"T", {0}, UpTo(64), AllTensorTypes()}, {"S", {1}, {}, {DataType::kInt64}}},
          FactoryOf<Split>()));
}

}  // namespace onnx_light::kernels
