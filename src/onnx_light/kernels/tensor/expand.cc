// Expand: a tensor broadcast to a shape, every tensor type: the output in rows (runs of the
// input copied whole or one value repeated), strings element by element.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/broadcast.h"
#include "common/broadcast_rows.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/tensor_proto.h"

namespace onnx_light::kernels {
namespace {

class Expand : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Expand());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto target, Int64Values(ctx.input(1), "shape"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape ts, Shape::Create(target));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(x.shape(), ts));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const std::vector<int64_t> st = BroadcastStrides(x.shape(), dims);
    const size_t item = ItemSize(x.dtype());
    if (item > 0 && y->num_elements() > 0) {  // whole bytes (not strings, not 4-bit)
      BroadcastCopy(dims, st, x.raw_data(), y->mutable_raw_data(), item, ctx.thread_pool());
      return Status::Ok();
    }
    std::vector<int64_t> idx(dims.size(), 0);
    int64_t off = 0;
    for (int64_t j = 0; j < y->num_elements(); ++j) {
      CopyElement(x, off, y, j, item);
      for (size_t d = dims.size(); d-- > 0;) {
        off += st[d];
        if (++idx[d] < dims[d]) break;
        off -= st[d] * dims[d];
        idx[d] = 0;
      }
    }
    return Status::Ok();
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Expand) {
  return r.Register(Def("Expand", 8,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"S", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<Expand>()));
}

}  // namespace onnx_light::kernels
