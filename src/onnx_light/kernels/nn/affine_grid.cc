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
    // Each axis's normalized coordinates computed once (with the division per point it ran
    // 15x ORT's time); per line of the last axis (x) the other axes' terms are summed once,
    // then each point is theta's x column times x plus that.
    std::vector<std::vector<double>> coords(r);
    for (size_t d = 0; d < r; ++d) {
      const int64_t len = spatial[d];
      for (int64_t i = 0; i < len; ++i) {
        const auto fi = static_cast<double>(i), fl = static_cast<double>(len);
        coords[d].push_back(align_ ? (len == 1 ? -1.0 : -1.0 + 2.0 * fi / (fl - 1.0))
                                   : -1.0 + (2.0 * fi + 1.0) / fl);
      }
    }
    const int64_t width = spatial[r - 1];
    int64_t lines = 1;
    for (size_t d = 0; d + 1 < r; ++d)
      lines *= spatial[d];
    const std::vector<double> th = ToDoubles(&theta);
    const auto ri = static_cast<int64_t>(r);
    ForFloat(theta.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* out = y->mutable_data<T>();
      std::vector<int64_t> pos(r - 1, 0);
      std::vector<double> base(r);
      for (int64_t n = 0; n < size[0]; ++n) {
        std::fill(pos.begin(), pos.end(), 0);
        const double* t = th.data() + n * static_cast<int64_t>(r * (r + 1));
        for (int64_t line = 0; line < lines; ++line) {
          // homogeneous coordinates: x (column 0), then y (and z), then 1
          for (size_t row = 0; row < r; ++row) {
            double v = t[row * (r + 1) + r];
            for (size_t c = 1; c < r; ++c)
              v += t[row * (r + 1) + c] * coords[r - 1 - c][static_cast<size_t>(pos[r - 1 - c])];
            base[row] = v;
          }
          T* o = out + (n * lines + line) * width * ri;
          if (r == 2) {  // the 2-D grid unrolled: the compiler vectorizes it
            const double a0 = t[0], a1 = t[3], b0 = base[0], b1 = base[1];
            const double* cx = coords[1].data();
            for (int64_t w = 0; w < width; ++w) {
              o[2 * w] = static_cast<T>(a0 * cx[w] + b0);
              o[2 * w + 1] = static_cast<T>(a1 * cx[w] + b1);
            }
          }
          for (int64_t w = 0; r != 2 && w < width; ++w) {
            const double x = coords[r - 1][static_cast<size_t>(w)];
            for (size_t row = 0; row < r; ++row)
              o[w * ri + static_cast<int64_t>(row)] =
                  static_cast<T>(t[row * (r + 1)] * x + base[row]);
          }
          for (size_t d = r - 1; d-- > 0;) {
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
