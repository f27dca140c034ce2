// MaxUnpool over N-d images: MaxPool's values put back at the positions its Indices name.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/window.h"

namespace onnx_light::kernels {
namespace {

// MaxUnpool: X's values scattered to the flat positions `I` holds (MaxPool's Indices)
// in a zero tensor of the size MaxPool's input had (or output_shape, which may add
// trailing room: the values keep the inferred layout, as the ONNX reference does).
class MaxUnpool : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<MaxUnpool>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->kernel_, info.GetInts("kernel_shape"));
    if (info.HasAttribute("strides")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->strides_, info.GetInts("strides"));
    }
    if (info.HasAttribute("pads")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->pads_, info.GetInts("pads"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& ind = *ctx.input(1);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    const size_t ns = x.shape().rank() - 2;
    ONNX_LIGHT_RETURN_IF(kernel_.size() != ns || (!strides_.empty() && strides_.size() != ns) ||
                             (!pads_.empty() && pads_.size() != 2 * ns),
                         kInvalidArgument,
                         "kernel_shape, strides and pads must match the spatial rank");
    ONNX_LIGHT_RETURN_IF(
        ind.shape() != x.shape(), kInvalidArgument,
        "I " + ind.shape().ToString() + " must have X's shape " + x.shape().ToString());
    std::vector<int64_t> inferred = {x.shape()[0], x.shape()[1]};
    for (size_t i = 0; i < ns; ++i) {
      // (d - 1) * stride - pads + kernel, every step checked: all but d come from the model.
      const int64_t st = strides_.empty() ? 1 : strides_[i];
      int64_t pad = 0, scaled = 0, size = 0;
      ONNX_LIGHT_RETURN_IF(
          (!pads_.empty() && __builtin_add_overflow(pads_[i], pads_[i + ns], &pad)) ||
              __builtin_mul_overflow(x.shape()[2 + i] - 1, st, &scaled) ||
              __builtin_sub_overflow(scaled, pad, &size) ||
              __builtin_add_overflow(size, kernel_[i], &size) || size < 0,
          kOutOfRange,
          "the unpooled size of spatial axis " + std::to_string(i) +
              " overflows int64 or is negative");
      inferred.push_back(size);
    }
    std::vector<int64_t> out = inferred;
    if (const Tensor* os = ctx.input(2)) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(out, Int64Values(os, "output_shape"));
      ONNX_LIGHT_RETURN_IF(out.size() != inferred.size(), kInvalidArgument,
                           "output_shape has the wrong rank");
      for (size_t d = 0; d < out.size(); ++d) {
        ONNX_LIGHT_RETURN_IF(out[d] < inferred[d], kInvalidArgument,
                             "output_shape is smaller than the unpooled size");
      }
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    int64_t total = 1;  // fits: out, at least as large on every axis, was allocated
    for (int64_t d : inferred)
      total *= d;
    // The indices read in place (int64 is I's only type; a copy into a vector, then a pass
    // for their range, cost more than the scatter) and checked as they are used.
    const int64_t* idx = ind.data<int64_t>();
    const auto count = static_cast<size_t>(ind.num_elements());
    int64_t bad = -1;
    // Zeros (all-zero bits for every float type), then each value copied as bits to its
    // index: mapped from the inferred layout into output_shape's larger one where that is
    // given. (Through a double image of the whole output, divided per element, it ran 58x
    // ORT's time.) A repeated index keeps the last value, as the reference does.
    std::memset(y->mutable_raw_data(), 0, y->byte_size());
    const bool same = out == inferred;
    const std::vector<int64_t> ist = RowMajorStrides(inferred), ost = RowMajorStrides(out);
    ForFixedItem(ItemSize(x.dtype()), [&](auto tag) {
      using U = decltype(tag);
      const U* xp = static_cast<const U*>(x.raw_data());
      U* yp = static_cast<U*>(y->mutable_raw_data());
      for (size_t e = 0; e < count; ++e) {
        int64_t o = idx[e];
        if (static_cast<uint64_t>(o) >= static_cast<uint64_t>(total)) {
          bad = static_cast<int64_t>(e);
          break;
        }
        if (!same) {
          int64_t rest = o;
          o = 0;
          for (size_t d = 0; d < inferred.size(); ++d) {
            o += rest / ist[d] * ost[d];
            rest %= ist[d];
          }
        }
        yp[o] = xp[e];
      }
    });
    ONNX_LIGHT_RETURN_IF(
        bad >= 0, kInvalidArgument,
        "index " + std::to_string(idx[bad]) + " is outside [0, " + std::to_string(total) + ")");
    return Status::Ok();
  }

 private:
  std::vector<int64_t> kernel_, strides_, pads_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, MaxUnpool) {
  return r.Register(Def("MaxUnpool", 9,
                        {{"T1", {0}, {0}, FloatTypes()}, {"T2", {1, 2}, {}, {DataType::kInt64}}},
                        FactoryOf<MaxUnpool>()));
}

}  // namespace onnx_light::kernels
