// Tile: a tensor repeated along each axis, every tensor type: whole-byte types by block
// copies (each axis's block written once, then copied after itself), strings element by
// element.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

// The output block of axis d onwards from the input block at src: each input slice of
// the next axis tiled in turn, then the block so written copied reps[d] - 1 times after
// itself (memcpy of whole blocks: the innermost axis a single run, every outer one a few
// large copies). out_block[d] = the output's elements from axis d on, bytes `item` each.
void TileBlock(const char* src, char* dst, size_t d, const std::vector<int64_t>& in,
               const std::vector<int64_t>& reps, const std::vector<int64_t>& in_strides,
               const std::vector<int64_t>& out_block, size_t item) {
  const size_t rank = in.size();
  size_t block = 0;  // bytes of one repeat of axis d
  if (d + 1 == rank) {
    block = static_cast<size_t>(in[d]) * item;
    std::memcpy(dst, src, block);
  } else {
    const auto next = static_cast<size_t>(out_block[d + 1]) * item;
    for (int64_t i = 0; i < in[d]; ++i) {
      TileBlock(src + static_cast<size_t>(i * in_strides[d]) * item,
                dst + static_cast<size_t>(i) * next, d + 1, in, reps, in_strides, out_block, item);
    }
    block = static_cast<size_t>(in[d]) * next;
  }
  for (int64_t r = 1; r < reps[d]; ++r)
    std::memcpy(dst + static_cast<size_t>(r) * block, dst, block);
}

// Tile of whole-byte items; the first axis's input slices split across the pool when it
// has several (each slice's output block written by one task, then the axis's repeats).
void TileBytes(const char* src, char* dst, const std::vector<int64_t>& in,
               const std::vector<int64_t>& reps, size_t item, ThreadPool* pool) {
  const size_t rank = in.size();
  if (rank == 0) {
    std::memcpy(dst, src, item);
    return;
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  std::vector<int64_t> out_block(rank + 1, 1);
  for (size_t d = rank; d-- > 0;)
    out_block[d] = out_block[d + 1] * in[d] * reps[d];
  if (rank == 1 || in[0] < 2) {
    TileBlock(src, dst, 0, in, reps, in_strides, out_block, item);
    return;
  }
  const auto next = static_cast<size_t>(out_block[1]) * item;
  ParallelElements(
      pool, in[0],
      [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          TileBlock(src + static_cast<size_t>(i * in_strides[0]) * item,
                    dst + static_cast<size_t>(i) * next, 1, in, reps, in_strides, out_block, item);
        }
      },
      std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, out_block[1])));
  const size_t block = static_cast<size_t>(in[0]) * next;
  for (int64_t r = 1; r < reps[0]; ++r)
    std::memcpy(dst + static_cast<size_t>(r) * block, dst, block);
}

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
      TileBytes(static_cast<const char*>(x.raw_data()), static_cast<char*>(y->mutable_raw_data()),
                in, reps, item, ctx.thread_pool());
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
