// Compress: the slices along an axis (or the elements) where a bool condition holds: each
// kept slice one copy, short ones a typed gather; every fixed-size type and string.
#include <algorithm>
#include <cstring>

#include "common/kernel_util.h"
#include "tensor/along_axis.h"

namespace onnx_light::kernels {
namespace {

// Compress(input, condition) along `axis` (flattened without one). A condition shorter
// than the axis leaves the rest out, as the spec allows; a longer one is an error.
class Compress : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Compress>();
    k->has_axis_ = info.HasAttribute("axis");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& cond = *ctx.input(1);
    ONNX_LIGHT_RETURN_IF(cond.shape().rank() != 1, kInvalidArgument,
                         "condition must be 1-D, got " + cond.shape().ToString());
    ONNX_LIGHT_ASSIGN_OR_RETURN(AxisGeometry g, AlongAxis(x, has_axis_, axis_));
    const int64_t len = g.len, outer = g.outer, inner = g.inner;
    ONNX_LIGHT_RETURN_IF(cond.num_elements() > len, kInvalidArgument,
                         "condition has " + std::to_string(cond.num_elements()) +
                             " entries, more than the " + std::to_string(len) + " along the axis");
    // The kept positions without a branch per entry (a random mask mispredicts half of
    // them: that was two thirds of the op's time).
    const auto* c = static_cast<const uint8_t*>(cond.raw_data());
    std::vector<int64_t> keep(static_cast<size_t>(cond.num_elements()));
    size_t kept = 0;
    for (int64_t i = 0, n = cond.num_elements(); i < n; ++i) {
      keep[kept] = i;
      kept += c[i] != 0;
    }
    keep.resize(kept);
    std::vector<int64_t> out = g.dims;
    out[static_cast<size_t>(g.axis)] = static_cast<int64_t>(keep.size());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const size_t item = ItemSize(x.dtype());
    if (inner <= 64 && y->num_elements() > 0 &&
        ForFixedItem(item, [&](auto tag) {  // short slices: a typed gather, no copy calls
          using U = decltype(tag);
          const auto* xp = static_cast<const U*>(x.raw_data());
          auto* yp = static_cast<U*>(y->mutable_raw_data());
          for (int64_t o = 0; o < outer; ++o) {
            for (int64_t k : keep) {
              const U* row = xp + (o * len + k) * inner;
              for (int64_t i = 0; i < inner; ++i)
                *yp++ = row[i];
            }
          }
        })) {
      return Status::Ok();
    }
    int64_t j = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k : keep) {  // each kept slice in one copy
        CopyElements(x, (o * len + k) * inner, y, j, item, inner);
        j += inner;
      }
    }
    return Status::Ok();
  }

 private:
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Compress) {
  return r.Register(Def("Compress", 9,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"T1", {1}, {}, {DataType::kBool}}},
                        FactoryOf<Compress>()));
}

}  // namespace onnx_light::kernels
