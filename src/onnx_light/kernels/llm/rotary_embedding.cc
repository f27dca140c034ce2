// RotaryEmbedding (opset 23): rotary position embedding of the heads' first features.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "llm/rotary.h"
#include "math/gemm.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {

Status RotaryCompute(KernelContext& ctx, const Tensor& x, const Tensor& cos_t, const Tensor& sin_t,
                     const std::vector<int64_t>* positions, int64_t heads_attr, int64_t dim_attr,
                     bool interleaved) {
  const Shape& s = x.shape();
  int64_t batch, heads, seq, hs, sb, sh, ss;
  if (s.rank() == 4) {
    batch = s[0], heads = s[1], seq = s[2], hs = s[3];
    ss = hs, sh = seq * hs, sb = heads * sh;
  } else if (s.rank() == 3) {
    if (heads_attr <= 0 || s[2] % heads_attr != 0) {
      return Status(StatusCode::kInvalidArgument,
                    "a 3-D input needs num_heads dividing its hidden size " + std::to_string(s[2]));
    }
    batch = s[0], seq = s[1], heads = heads_attr, hs = s[2] / heads_attr;
    sh = hs, ss = s[2], sb = seq * ss;
  } else {
    return Status(StatusCode::kInvalidArgument, "input must be 3-D or 4-D, got " + s.ToString());
  }
  const int64_t dim = dim_attr == 0 ? hs : dim_attr;
  ONNX_LIGHT_RETURN_IF(dim > hs || dim % 2 != 0, kInvalidArgument,
                       "rotary_embedding_dim " + std::to_string(dim) +
                           " must be even and at most the head size " + std::to_string(hs));
  const int64_t half = dim / 2;
  if (positions != nullptr) {
    ONNX_LIGHT_RETURN_IF(
        (static_cast<int64_t>(positions->size()) != batch * seq || cos_t.shape().rank() != 2 ||
         cos_t.shape()[1] != half || sin_t.shape() != cos_t.shape()),
        kInvalidArgument,
        "with position_ids [" + std::to_string(batch) + ", " + std::to_string(seq) +
            "] the caches must be [max_position, " + std::to_string(half) + "], got " +
            cos_t.shape().ToString() + " and " + sin_t.shape().ToString());
    for (int64_t p : *positions) {
      ONNX_LIGHT_RETURN_IF(p < 0 || p >= cos_t.shape()[0], kInvalidArgument,
                           "position id " + std::to_string(p) + " is outside the cache of " +
                               std::to_string(cos_t.shape()[0]));
    }
  } else if (cos_t.shape().dims() != std::vector<int64_t>{batch, seq, half} ||
             sin_t.shape() != cos_t.shape()) {
    return Status(StatusCode::kInvalidArgument,
                  "without position_ids the caches must be [" + std::to_string(batch) + ", " +
                      std::to_string(seq) + ", " + std::to_string(half) + "], got " +
                      cos_t.shape().ToString() + " and " + sin_t.shape().ToString());
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, s.dims()));
  ForFloat(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data<T>();
    const T* cp = cos_t.data<T>();
    const T* sp = sin_t.data<T>();
    T* yp = y->mutable_data<T>();
    // The (batch, position) rows split between the threads (all on one, 2x ORT's time at
    // two threads).
    auto rows = [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / seq, t = r % seq;
        const int64_t row = positions != nullptr ? (*positions)[static_cast<size_t>(r)] : r;
        for (int64_t h = 0; h < heads; ++h) {
          const int64_t base = b * sb + h * sh + t * ss;
          RotateHead(xp + base, yp + base, cp + row * half, sp + row * half, dim, hs, interleaved);
        }
      }
    };
    ParallelElements(ctx.thread_pool(), batch * seq, rows,
                     std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, heads * hs)));
  });
  return Status::Ok();
}

namespace {

// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim features of each head
// by the cached angles of its position: pairs (i, i + d/2), or (2i, 2i + 1) when
// interleaved, become (x1 cos - x2 sin, x1 sin + x2 cos). Input [B, H, S, hs] or
// [B, S, H * hs] (num_heads then required); the caches are [max_pos, d/2] indexed by
// position_ids [B, S], or [B, S, d/2] without them.
class RotaryEmbedding : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<RotaryEmbedding>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->interleaved_, GetFlag(info, "interleaved", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->dim_, info.GetInt("rotary_embedding_dim", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->heads_, info.GetInt("num_heads", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor* pos = ctx.input(3);
    std::vector<int64_t> positions;
    if (pos != nullptr) {
      const Shape& s = ctx.input(0)->shape();
      const int64_t batch = s.rank() > 0 ? s[0] : 0;
      const int64_t seq = s.rank() == 4 ? s[2] : s.rank() == 3 ? s[1] : 0;
      ONNX_LIGHT_RETURN_IF((pos->shape().dims() != std::vector<int64_t>{batch, seq}),
                           kInvalidArgument,
                           "position_ids " + pos->shape().ToString() + " must be [" +
                               std::to_string(batch) + ", " + std::to_string(seq) + "]");
      positions = IndexValues(*pos);
    }
    return RotaryCompute(ctx, *ctx.input(0), *ctx.input(1), *ctx.input(2),
                         pos != nullptr ? &positions : nullptr, heads_, dim_, interleaved_);
  }

 private:
  bool interleaved_ = false;
  int64_t dim_ = 0, heads_ = 0;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, RotaryEmbedding) {
  return r.Register(Def("RotaryEmbedding", 23,
                        {{"T", {0, 1, 2}, {0}, FloatTypes()}, {"M", {3}, {}, {DataType::kInt64}}},
                        FactoryOf<RotaryEmbedding>()));
}

}  // namespace onnx_light::kernels
