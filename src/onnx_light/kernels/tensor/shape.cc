// Shape and Size: a tensor's dimensions (optionally a start:end range) and element count.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/tensor_proto.h"

namespace onnx_light::kernels {
namespace {

class ShapeOp : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ShapeOp>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->start_, info.GetInt("start", 0));
    k->has_end_ = info.HasAttribute("end");
    if (k->has_end_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->end_, info.GetInt("end"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const auto& dims = ctx.input(0)->shape().dims();
    const auto rank = static_cast<int64_t>(dims.size());
    auto clamp = [rank](int64_t v) {
      return std::min(rank, std::max<int64_t>(0, v < 0 ? v + rank : v));
    };
    const int64_t b = clamp(start_);
    const int64_t e = has_end_ ? clamp(end_) : rank;
    const int64_t n = std::max<int64_t>(0, e - b);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {n}));
    for (int64_t i = 0; i < n; ++i)
      y->mutable_data<int64_t>()[i] = dims[static_cast<size_t>(b + i)];
    return Status::Ok();
  }

 private:
  int64_t start_ = 0, end_ = 0;
  bool has_end_ = false;
};

class SizeOp : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new SizeOp());
  }
  Status Compute(KernelContext& ctx) const override {
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {}));
    y->mutable_data<int64_t>()[0] = ctx.input(0)->num_elements();
    return Status::Ok();
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Shape) {
  return r.Register(Def("Shape", 1,
                        {{"T", {0}, {}, AllTensorTypes()}, {"T1", {}, {0}, {DataType::kInt64}}},
                        FactoryOf<ShapeOp>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Size) {
  return r.Register(Def("Size", 1,
                        {{"T", {0}, {}, AllTensorTypes()}, {"T1", {}, {0}, {DataType::kInt64}}},
                        FactoryOf<SizeOp>()));
}

}  // namespace onnx_light::kernels
