// Tile: a tensor repeated along each axis, every tensor type: whole-byte types as x
// broadcast over interleaved repeat axes, copied in rows; strings element by element.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/broadcast_rows.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

class Tile : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Tile());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto reps, Int64Values(ctx.input(1), "repeats"));
    const std::vector<int64_t>& in = x.shape().dims();
    ONNX_LIGHT_RETURN_IF(reps.size() != in.size(), kInvalidArgument,
                         "repeats has " + std::to_string(reps.size()) + " values for rank " +
                             std::to_string(in.size()));
    std::vector<int64_t> out(in.size());
    for (size_t d = 0; d < in.size(); ++d) {
      ONNX_LIGHT_RETURN_IF(reps[d] < 0, kInvalidArgument, "negative repeat");
      ONNX_LIGHT_RETURN_IF(__builtin_mul_overflow(in[d], reps[d], &out[d]), kOutOfRange,
                           "dimension " + std::to_string(d) + " (" + std::to_string(in[d]) +
                               ") repeated " + std::to_string(reps[d]) + " times overflows");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const std::vector<int64_t> strides = RowMajorStrides(in);
    const size_t item = ItemSize(x.dtype());
    if (item > 0 && y->num_elements() > 0) {  // whole bytes (not strings, not 4-bit)
      // The output [r0 * d0, r1 * d1, ...] is [r0, d0, r1, d1, ...] in row-major order: x
      // broadcast over the repeat axes (stride 0), copied in rows.
      std::vector<int64_t> dims, st;
      for (size_t d = 0; d < in.size(); ++d) {
        dims.insert(dims.end(), {reps[d], in[d]});
        st.insert(st.end(), {0, strides[d]});
      }
      BroadcastCopy(dims, st, x.raw_data(), y->mutable_raw_data(), item, ctx.thread_pool());
      return Status::Ok();
    }
    std::vector<int64_t> pos(in.size(), 0);
    for (int64_t j = 0; j < y->num_elements(); ++j) {
      int64_t src = 0;
      for (size_t d = 0; d < in.size(); ++d)
        src += (pos[d] % in[d]) * strides[d];
      CopyElement(x, src, y, j, item);
      for (size_t d = out.size(); d-- > 0;) {
        if (++pos[d] < out[d]) break;
        pos[d] = 0;
      }
    }
    return Status::Ok();
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Tile) {
  return r.Register(Def("Tile", 6,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"T1", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<Tile>()));
}

}  // namespace onnx_light::kernels
