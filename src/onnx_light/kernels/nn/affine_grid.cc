// AffineGrid: the sampling grid of an affine transform, for GridSample.
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/saturate.h"
#include "nn/resize_planes.h"

namespace onnx_light::kernels {
namespace {

// AffineGrid (opset 20): the sampling grid of an affine transform for GridSample. theta
// [N, 2, 3] (2-D) or [N, 3, 4] (3-D) maps each output position's normalized coordinates
// (x the last spatial dim; align_corners picks pixel corners or centres) to input ones.
class AffineGrid : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<AffineGrid>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->align_, GetFlag(info, "align_corners", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& theta = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> size, Int64Values(ctx.input(1), "size"));
    const size_t r = size.size() - 2;
    ONNX_LIGHT_RETURN_IF((size.size() != 4 && size.size() != 5) || theta.shape().rank() != 3 ||
                             theta.shape()[0] != size[0] ||
                             theta.shape()[1] != static_cast<int64_t>(r) ||
                             theta.shape()[2] != static_cast<int64_t>(r + 1),
                         kInvalidArgument,
                         "theta must be [N, 2, 3] with size [N, C, H, W] or [N, 3, 4] with "
                         "size [N, C, D, H, W], got " +
                             theta.shape().ToString());
    const std::vector<int64_t> spatial(size.begin() + 2, size.end());
    for (int64_t d : spatial) {
      ONNX_LIGHT_RETURN_IF(d < 1, kInvalidArgument, "sizes must be >= 1");
    }
    std::vector<int64_t> dims = {size[0]};
    dims.insert(dims.end(), spatial.begin(), spatial.end());
    dims.push_back(static_cast<int64_t>(r));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    auto coord = [&](int64_t i, int64_t len) {
      if (align_)
        return len == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(len - 1);
      return -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(len);
    };
    int64_t points = 1;
    for (int64_t d : spatial)
      points *= d;
    const std::vector<double> th = ToDoubles(&theta);
    ForFloat(theta.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* out = y->mutable_data<T>();
      std::vector<int64_t> pos(r, 0);
      std::vector<double> homo(r + 1, 1.0);
      for (int64_t n = 0; n < size[0]; ++n) {
        std::fill(pos.begin(), pos.end(), 0);
        const double* t = th.data() + n * static_cast<int64_t>(r * (r + 1));
        for (int64_t p = 0; p < points; ++p) {
          for (size_t i = 0; i < r; ++i)  // x first: the last spatial dim
            homo[i] = coord(pos[r - 1 - i], spatial[r - 1 - i]);
          for (size_t row = 0; row < r; ++row) {
            double v = 0;
            for (size_t c = 0; c <= r; ++c)
              v += t[row * (r + 1) + c] * homo[c];
            out[(n * points + p) * static_cast<int64_t>(r) + static_cast<int64_t>(row)] =
                static_cast<T>(v);
          }
          for (size_t d = r; d-- > 0;) {
            if (++pos[d] < spatial[d]) break;
            pos[d] = 0;
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool align_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, AffineGrid) {
  return r.Register(Def("AffineGrid", 20,
                        {{"T1", {0}, {0}, FloatTypes()}, {"T2", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<AffineGrid>()));
}

}  // namespace onnx_light::kernels
