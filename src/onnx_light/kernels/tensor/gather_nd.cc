// GatherND with batch_dims: indices [..., q] select slices of data.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// GatherND with batch_dims: indices [..., q] select slices of data.
class GatherND : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<GatherND>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->batch_dims_, info.GetInt("batch_dims", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& ind = *ctx.input(1);
    const std::vector<int64_t>& in = x.shape().dims();
    const std::vector<int64_t>& id = ind.shape().dims();
    const auto b = static_cast<size_t>(batch_dims_);
    ONNX_LIGHT_RETURN_IF(batch_dims_ < 0 || id.empty() || b >= id.size() || b >= in.size() ||
                             id.back() < 1 || static_cast<size_t>(id.back()) + b > in.size(),
                         kInvalidArgument,
                         "indices " + ind.shape().ToString() + " do not fit data " +
                             x.shape().ToString() + " with batch_dims " +
                             std::to_string(batch_dims_));
    for (size_t d = 0; d < b; ++d) {
      ONNX_LIGHT_RETURN_IF(in[d] != id[d], kInvalidArgument,
                           "batch dimensions of data and indices differ");
    }
    const auto q = static_cast<size_t>(id.back());
    std::vector<int64_t> dims(id.begin(), id.end() - 1);
    dims.insert(dims.end(), in.begin() + static_cast<int64_t>(b + q), in.end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const std::vector<int64_t> st = RowMajorStrides(in);
    const std::vector<int64_t> idx = IndexValues(ind);
    int64_t batch = 1, slice = 1;
    for (size_t d = 0; d < b; ++d)
      batch *= in[d];
    for (size_t d = b + q; d < in.size(); ++d)
      slice *= in[d];
    const int64_t per_batch = batch == 0 ? 0 : ind.num_elements() / static_cast<int64_t>(q) / batch;
    const size_t item = ItemSize(x.dtype());
    int64_t j = 0;
    for (int64_t bi = 0; bi < batch; ++bi) {
      for (int64_t t = 0; t < per_batch; ++t) {
        int64_t base = bi * (b == 0 ? 0 : st[b - 1]);
        for (size_t k = 0; k < q; ++k) {
          const int64_t at =
              (bi * per_batch + t) * static_cast<int64_t>(q) + static_cast<int64_t>(k);
          ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t p,
                                      ResolveIndex(idx[static_cast<size_t>(at)], in[b + k]));
          base += p * st[b + k];
        }
        CopyElements(x, base, y, j, item, slice);  // the slice in one copy
        j += slice;
      }
    }
    return Status::Ok();
  }

 private:
  int64_t batch_dims_ = 0;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GatherND) {
  return r.Register(Def("GatherND", 11,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"I", {1}, {}, IndexTypes()}},
                        FactoryOf<GatherND>()));
}

}  // namespace onnx_light::kernels
