// Concat: tensors joined along an axis, every tensor type.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/tensor_proto.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

// Inputs whose blocks are a few elements (stacking [.., 64, 1] maps on a new last axis):
// each input's blocks written at the output's stride by a typed loop, outer rows split
// between threads, instead of a copy call per block (76,800 calls of one float each cost
// 8x ORT's time).
template <typename T>
void Interleave(const T* x, T* y, int64_t outer, int64_t block, int64_t stride, ThreadPool* pool) {
  ParallelElements(
      pool, outer,
      [&](int64_t o0, int64_t o1) {
        for (int64_t o = o0; o < o1; ++o) {
          const T* src = x + o * block;
          T* dst = y + o * stride;
          for (int64_t j = 0; j < block; ++j)
            dst[j] = src[j];
        }
      },
      std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, block)));
}

template <typename T>
void InterleaveAll(KernelContext& ctx, Tensor* y, const std::vector<int64_t>& starts, int64_t outer,
                   int64_t inner, int64_t total) {
  for (size_t k = 0; k < ctx.input_count(); ++k) {
    const int64_t len = starts[k + 1] - starts[k];
    Interleave(static_cast<const T*>(ctx.input(k)->raw_data()),
               static_cast<T*>(y->mutable_raw_data()) + starts[k] * inner, outer, len * inner,
               total * inner, ctx.thread_pool());
  }
}

class Concat : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Concat>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis"));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& first = *ctx.input(0);
    const auto rank = static_cast<int64_t>(first.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    std::vector<int64_t> dims = first.shape().dims();
    dims[static_cast<size_t>(axis)] = 0;
    for (size_t k = 0; k < ctx.input_count(); ++k) {
      const auto& d = ctx.input(k)->shape().dims();
      for (int64_t i = 0; i < rank; ++i) {
        ONNX_LIGHT_RETURN_IF(
            static_cast<int64_t>(d.size()) != rank ||
                (i != axis && d[static_cast<size_t>(i)] != dims[static_cast<size_t>(i)]),
            kInvalidArgument,
            "input " + std::to_string(k) + " has shape " + ctx.input(k)->shape().ToString());
      }
      dims[static_cast<size_t>(axis)] += d[static_cast<size_t>(axis)];
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i)
      outer *= dims[static_cast<size_t>(i)];
    for (int64_t i = axis + 1; i < rank; ++i)
      inner *= dims[static_cast<size_t>(i)];
    const size_t item = ItemSize(first.dtype());
    const int64_t total = dims[static_cast<size_t>(axis)];
    // Every (input, outer index) block is one contiguous copy; from 256 KiB of fixed-size
    // elements the blocks are split across the pool (a decoder's KV cache grows by a Concat
    // of the past a step: memory-bound, and each core streams its own part).
    std::vector<int64_t> starts(ctx.input_count() + 1, 0);  // offsets along the axis
    for (size_t k = 0; k < ctx.input_count(); ++k)
      starts[k + 1] = starts[k] + ctx.input(k)->shape()[static_cast<size_t>(axis)];
    if (total * inner * static_cast<int64_t>(item) <= 256 && outer > 1 &&
        ForFixedItem(item, [&](auto tag) {
          InterleaveAll<decltype(tag)>(ctx, y, starts, outer, inner, total);
        })) {
      return Status::Ok();
    }
    auto copy = [&](size_t k, int64_t o) {
      const Tensor& x = *ctx.input(k);
      const int64_t len = starts[k + 1] - starts[k];
      CopyElements(x, o * len * inner, y, (o * total + starts[k]) * inner, item, len * inner);
    };
    const int64_t blocks = outer * static_cast<int64_t>(ctx.input_count());
    ThreadPool* pool = ctx.thread_pool();
    if (pool != nullptr && pool->threads() > 1 && item != 0 && blocks > 1 &&
        y->num_elements() * static_cast<int64_t>(item) >= (int64_t{1} << 18)) {
      pool->ParallelFor(blocks, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b)
          copy(static_cast<size_t>(b % static_cast<int64_t>(ctx.input_count())),
               b / static_cast<int64_t>(ctx.input_count()));
      });
      return Status::Ok();
    }
    for (size_t k = 0; k < ctx.input_count(); ++k)
      for (int64_t o = 0; o < outer; ++o)
        copy(k, o);
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Concat) {
  return r.Register(
      Def("Concat", 4, {{"T", UpTo(64), {0}, AllTensorTypes()}}, FactoryOf<Concat>()));
}

}  // namespace onnx_light::kernels
