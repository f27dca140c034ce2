// Col2Im (opset 18): the adjoint of im2col.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/window.h"
#include "math/gemm.h"
#include "nn/col2im_rows.h"
#include "nn/conv2d_f32.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

// Col2Im (opset 18): the adjoint of im2col. Input [N, C * prod(block), L] holds, for every
// block position, the block's values; they are summed back into an image [N, C, image...]
// (overlaps add). The geometry is Conv's window with the block as the kernel.
class Col2Im : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Col2Im>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->attrs_, ReadWindowAttrs(info, false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> image,
                                Int64Values(ctx.input(1), "image_shape"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> block,
                                Int64Values(ctx.input(2), "block_shape"));
    ONNX_LIGHT_RETURN_IF(x.shape().rank() != 3 || image.size() != block.size() || image.empty(),
                         kInvalidArgument,
                         "input must be [N, C * prod(block), L] and image_shape and "
                         "block_shape of one length");
    ONNX_LIGHT_ASSIGN_OR_RETURN(Window w, MakeWindow(attrs_, image, block));
    const int64_t k_sz = w.KernelCount(), blocks = w.OutCount(), in_sz = w.InCount();
    const int64_t batch = x.shape()[0];
    ONNX_LIGHT_RETURN_IF(
        k_sz == 0 || x.shape()[1] % k_sz != 0 || x.shape()[2] != blocks, kInvalidArgument,
        "input " + x.shape().ToString() + " does not hold " + std::to_string(blocks) +
            " blocks of " + std::to_string(k_sz) + " values per channel");
    const int64_t channels = x.shape()[1] / k_sz;
    std::vector<int64_t> dims = {batch, channels};
    dims.insert(dims.end(), image.begin(), image.end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    if (x.dtype() == DataType::kFloat && image.size() == 2) {
      // 2-D float planes summed in float, tap by tap in ORT's order, into the output
      // (nn/col2im_rows.h).
      Col2ImGeometry g;
      g.height = w.in[0], g.width = w.in[1], g.rows = w.out[0], g.cols = w.out[1];
      g.kh = w.kernel[0], g.kw = w.kernel[1], g.sh = w.strides[0], g.sw = w.strides[1];
      g.dh = w.dilations[0], g.dw = w.dilations[1], g.ph = w.pad_begin[0], g.pw = w.pad_begin[1];
      const float* xp = x.data<float>();
      float* yp = y->mutable_data<float>();
      ParallelElements(
          ctx.thread_pool(), batch * channels,
          [&](int64_t p0, int64_t p1) {
            for (int64_t p = p0; p < p1; ++p) {
              std::fill(yp + p * in_sz, yp + (p + 1) * in_sz, 0.0f);
              AddColumnsIntoPlane2D(g, xp + p * k_sz * blocks, yp + p * in_sz);
            }
          },
          1);
      return Status::Ok();
    }
    const std::vector<int64_t> taps = TapOffsets(w);
    // One image plane at a time, summed in double in a buffer of the plane's size and
    // rounded once; the input read in its own type, planes spread over the pool. (A double
    // copy of the whole input first ran 3.7x ORT's time.)
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      T* yp = y->mutable_data<T>();
      ParallelElements(
          ctx.thread_pool(), batch * channels,
          [&](int64_t p0, int64_t p1) {
            std::vector<double> img(static_cast<size_t>(in_sz));
            for (int64_t p = p0; p < p1; ++p) {
              std::fill(img.begin(), img.end(), 0.0);
              for (int64_t t = 0; t < k_sz; ++t) {
                const T* row = xp + (p * k_sz + t) * blocks;
                const int64_t* off = taps.data() + t * blocks;
                for (int64_t o = 0; o < blocks; ++o)
                  if (off[o] >= 0) img[static_cast<size_t>(off[o])] += static_cast<double>(row[o]);
              }
              for (int64_t i = 0; i < in_sz; ++i)
                yp[p * in_sz + i] = static_cast<T>(img[static_cast<size_t>(i)]);
            }
          },
          1);
    });
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Col2Im) {
  return r.Register(Def("Col2Im", 18,
                        {{"T", {0}, {0}, FloatTypes()}, {"I", {1, 2}, {}, {DataType::kInt64}}},
                        FactoryOf<Col2Im>()));
}

}  // namespace onnx_light::kernels
