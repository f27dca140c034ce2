// DepthToSpace and SpaceToDepth: channels moved into spatial blocks and back, as
// transposes of 6-D views (tensor/permute.h); strings element by element.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "tensor/permute.h"

namespace onnx_light::kernels {
namespace {

// DepthToSpace (DCR or CRD) and SpaceToDepth on [N, C, H, W].
template <bool kToSpace>
class DepthSpace : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<DepthSpace>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->block_, info.GetInt("blocksize"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string mode, info.GetString("mode", "DCR"));
    ONNX_LIGHT_RETURN_IF(k->block_ < 1 || (mode != "DCR" && mode != "CRD"), kInvalidModel,
                         "blocksize must be >= 1 and mode DCR or CRD");
    k->crd_ = mode == "CRD";
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF(x.shape().rank() != 4, kInvalidArgument, "input must be [N, C, H, W]");
    const int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    const int64_t bs = block_;
    // Every product of the blocksize with a dimension is checked: the blocksize comes
    // from the model and may be as large as INT64_MAX.
    int64_t bb = 0, hb = 0, wb = 0, cb = 0;
    ONNX_LIGHT_RETURN_IF(__builtin_mul_overflow(bs, bs, &bb), kOutOfRange,
                         "blocksize^2 overflows int64 (blocksize " + std::to_string(bs) + ")");
    std::vector<int64_t> dims;
    if (kToSpace) {
      ONNX_LIGHT_RETURN_IF(c % bb != 0, kInvalidArgument, "channels not divisible by blocksize^2");
      ONNX_LIGHT_RETURN_IF(__builtin_mul_overflow(h, bs, &hb) || __builtin_mul_overflow(w, bs, &wb),
                           kOutOfRange, "H or W times the blocksize overflows int64");
      dims = {n, c / bb, hb, wb};
    } else {
      ONNX_LIGHT_RETURN_IF(h % bs != 0 || w % bs != 0, kInvalidArgument,
                           "H and W must be divisible by blocksize");
      ONNX_LIGHT_RETURN_IF(__builtin_mul_overflow(c, bb, &cb), kOutOfRange,
                           "C times blocksize^2 overflows int64");
      dims = {n, cb, h / bs, w / bs};
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    // Both are transposes of a 6-D view: DepthToSpace DCR [N, b, b, C', H, W] -> [N, C', H,
    // b, W, b], CRD [N, C', b, b, H, W] -> the same; SpaceToDepth [N, C, H', b, W', b] ->
    // [N, b, b, C, H', W'].
    bool done = false;
    if (kToSpace) {
      const int64_t co = dims[1];
      done = crd_ ? PermuteInto(x, {n, co, bs, bs, h, w}, {0, 1, 4, 2, 5, 3}, y, ctx.thread_pool())
                  : PermuteInto(x, {n, bs, bs, co, h, w}, {0, 3, 4, 1, 5, 2}, y, ctx.thread_pool());
    } else {
      done =
          PermuteInto(x, {n, c, h / bs, bs, w / bs, bs}, {0, 3, 5, 1, 2, 4}, y, ctx.thread_pool());
    }
    if (done) return Status::Ok();
    const size_t item = ItemSize(x.dtype());
    // Walk the "space" layout [N, C', H', W'] and compute the matching "depth" element.
    const int64_t cs = kToSpace ? dims[1] : c;  // channels on the space side
    const int64_t hs = kToSpace ? dims[2] : h, ws = kToSpace ? dims[3] : w;
    const int64_t cd = cs * bs * bs, hd = hs / bs, wd = ws / bs;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < cs; ++ch)
        for (int64_t i = 0; i < hs; ++i)
          for (int64_t k = 0; k < ws; ++k) {
            const int64_t bi = i % bs, bk = k % bs;
            const int64_t dc = crd_ ? (ch * bs + bi) * bs + bk : (bi * bs + bk) * cs + ch;
            const int64_t depth = ((b * cd + dc) * hd + i / bs) * wd + k / bs;
            const int64_t space = ((b * cs + ch) * hs + i) * ws + k;
            if (kToSpace) {
              CopyElement(x, depth, y, space, item);
            } else {
              CopyElement(x, space, y, depth, item);
            }
          }
    return Status::Ok();
  }

 private:
  int64_t block_ = 1;
  bool crd_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, DepthToSpace) {
  return r.Register(
      UnaryDef("", "DepthToSpace", 1, AllTensorTypes(), FactoryOf<DepthSpace<true>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, SpaceToDepth) {
  return r.Register(
      UnaryDef("", "SpaceToDepth", 1, AllTensorTypes(), FactoryOf<DepthSpace<false>>()));
}

}  // namespace onnx_light::kernels
