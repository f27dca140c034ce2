// CenterCropPad: axes cropped or zero-padded, centered, to the requested sizes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// CenterCropPad: each listed axis is cropped (centered, the extra element at the end) or
// zero-padded (centered likewise) to the requested size.
class CenterCropPad : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<CenterCropPad>();
    if (info.HasAttribute("axes")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->axes_, info.GetInts("axes"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> shape, Int64Values(ctx.input(1), "shape"));
    const auto rank = static_cast<int64_t>(x.shape().rank());
    std::vector<int64_t> axes = axes_;
    if (axes.empty())
      for (int64_t d = 0; d < rank; ++d)
        axes.push_back(d);
    ONNX_LIGHT_RETURN_IF(axes.size() != shape.size(), kInvalidArgument,
                         "shape has " + std::to_string(shape.size()) + " entries for " +
                             std::to_string(axes.size()) + " axes");
    std::vector<int64_t> out = x.shape().dims();
    std::vector<int64_t> src0(static_cast<size_t>(rank), 0), dst0(static_cast<size_t>(rank), 0);
    std::vector<int64_t> count = out;
    for (size_t i = 0; i < axes.size(); ++i) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axes[i], rank));
      const auto d = static_cast<size_t>(a);
      ONNX_LIGHT_RETURN_IF(shape[i] < 0, kInvalidArgument,
                           "negative size " + std::to_string(shape[i]));
      const int64_t dim = out[d], want = shape[i];
      src0[d] = dim > want ? (dim - want) / 2 : 0;
      dst0[d] = want > dim ? (want - dim) / 2 : 0;
      count[d] = std::min(dim, want);
      out[d] = want;
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const size_t item = ItemSize(x.dtype());
    if (item != 0 && y->byte_size() != 0) std::memset(y->mutable_raw_data(), 0, y->byte_size());
    // Row by row: the last axis's kept run is one copy (element by element, with the index
    // recomputed for each, it ran 12x ORT's time on an image).
    const int64_t run = rank == 0 ? 1 : count.back();
    int64_t rows = 1;
    for (int64_t d = 0; d + 1 < rank; ++d)
      rows *= count[static_cast<size_t>(d)];
    if (run == 0) rows = 0;
    const std::vector<int64_t> sst = RowMajorStrides(x.shape().dims()), dst = RowMajorStrides(out);
    std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t si = 0, di = 0;
      for (size_t d = 0; d < pos.size(); ++d) {
        si += (src0[d] + pos[d]) * sst[d];
        di += (dst0[d] + pos[d]) * dst[d];
      }
      CopyElements(x, si, y, di, item, run);
      for (size_t d = pos.size() - (rank > 0 ? 1 : 0); d-- > 0;) {
        if (++pos[d] < count[d]) break;
        pos[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, CenterCropPad) {
  return r.Register(Def("CenterCropPad", 18,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"I", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<CenterCropPad>()));
}

}  // namespace onnx_light::kernels
