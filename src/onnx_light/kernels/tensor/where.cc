// Where(condition, X, Y) with three-way numpy broadcasting.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// Where(condition, X, Y) with three-way broadcasting.
class Where : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Where());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& c = *ctx.input(0);
    const Tensor& x = *ctx.input(1);
    const Tensor& z = *ctx.input(2);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto xz, BroadcastDims(x.shape(), z.shape(), ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape sxz, Shape::Create(xz));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(c.shape(), sxz, ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const std::vector<int64_t> sc = BroadcastStrides(c.shape(), dims);
    const std::vector<int64_t> sx = BroadcastStrides(x.shape(), dims);
    const std::vector<int64_t> sz = BroadcastStrides(z.shape(), dims);
    const int64_t n = y->num_elements();
    const bool* pc = c.data<bool>();
    const size_t item =
        y->dtype() == DataType::kString ? 0 : static_cast<size_t>(DataTypeBitWidth(y->dtype()) / 8);
    std::vector<int64_t> idx(dims.size(), 0);
    int64_t oc = 0, ox = 0, oz = 0;
    for (int64_t i = 0; i < n; ++i) {
      const bool take_x = pc[oc];
      if (item == 0) {
        y->mutable_data<std::string>()[i] =
            take_x ? x.data<std::string>()[ox] : z.data<std::string>()[oz];
      } else {
        const auto* src = static_cast<const char*>(take_x ? x.raw_data() : z.raw_data()) +
                          (take_x ? ox : oz) * static_cast<int64_t>(item);
        std::memcpy(static_cast<char*>(y->mutable_raw_data()) + i * static_cast<int64_t>(item), src,
                    item);
      }
      for (size_t d = dims.size(); d-- > 0;) {  // advance the index
        oc += sc[d];
        ox += sx[d];
        oz += sz[d];
        if (++idx[d] < dims[d]) break;
        oc -= sc[d] * dims[d];
        ox -= sx[d] * dims[d];
        oz -= sz[d] * dims[d];
        idx[d] = 0;
      }
    }
    return Status::Ok();
  }
};

}  // namespace

Status RegisterKernel_ai_onnx_Where(KernelRegistry& r) {
  return r.Register(Def("Where", 9,
                        {{"B", {0}, {}, {DataType::kBool}}, {"T", {1, 2}, {0}, AllTensorTypes()}},
                        FactoryOf<Where>()));
}

}  // namespace onnx_light::kernels
