// com.microsoft RotaryEmbedding (the transformer optimizer's rotary fusion for Phi/Llama,
// the GenAI model builder): inputs input ([B, S, N * H] with num_heads, or [B, N, S, H]),
// position_ids (int64: [B, S], or one value, the position of the first token: positions
// start + s), cos_cache and sin_cache ([max_position, rotary_dim / 2]); attributes
// interleaved, num_heads, rotary_embedding_dim (0: the head size), scale (kept: it only
// scales caches ORT would rebuild, which it does not on CPU). The rotation is ai.onnx
// RotaryEmbedding's (llm/rotary.h).
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/ms_def.h"
#include "llm/rotary.h"

namespace onnx_light::kernels {
namespace {

class MsRotaryEmbedding : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<MsRotaryEmbedding>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->interleaved_, GetFlag(info, "interleaved", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->dim_, info.GetInt("rotary_embedding_dim", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->heads_, info.GetInt("num_heads", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t packed, info.GetInt("is_packed_batching", 0));
    ONNX_LIGHT_RETURN_IF(packed != 0, kNotImplemented, "is_packed_batching is not supported");
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& pos = *ctx.input(1);
    const Shape& s = x.shape();
    const int64_t batch = s.rank() > 0 ? s[0] : 0;
    const int64_t seq = s.rank() == 4 ? s[2] : s.rank() == 3 ? s[1] : 0;
    // A 3-D input without num_heads: one head per rotary width, as ORT takes it.
    int64_t heads = heads_;
    if (s.rank() == 3 && heads == 0) {
      const Tensor& cos_t = *ctx.input(2);
      const int64_t width = cos_t.shape().rank() == 2 ? 2 * cos_t.shape()[1] : 0;
      ONNX_LIGHT_RETURN_IF(width == 0 || s[2] % width != 0, kInvalidArgument,
                           "a 3-D input needs num_heads (or caches whose width divides it)");
      heads = s[2] / width;
    }
    const std::vector<int64_t> ids = IndexValues(pos);
    std::vector<int64_t> positions(static_cast<size_t>(batch * seq));
    if (pos.num_elements() == 1 && !(batch == 1 && seq == 1 && pos.shape().rank() == 2)) {
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t t = 0; t < seq; ++t)
          positions[static_cast<size_t>(b * seq + t)] = ids[0] + t;
    } else {
      ONNX_LIGHT_RETURN_IF(
          (pos.shape().dims() != std::vector<int64_t>{batch, seq}), kInvalidArgument,
          "position_ids " + pos.shape().ToString() + " must be [" + std::to_string(batch) + ", " +
              std::to_string(seq) + "] or one start position");
      positions = ids;
    }
    return RotaryCompute(ctx, x, *ctx.input(2), *ctx.input(3), &positions, heads, dim_,
                         interleaved_);
  }

 private:
  bool interleaved_ = false;
  int64_t dim_ = 0, heads_ = 0;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, RotaryEmbedding) {
  return r.Register(MsDef("RotaryEmbedding",
                          {{"T", {0, 2, 3}, {0}, FloatTypes()}, {"M", {1}, {}, {DataType::kInt64}}},
                          FactoryOf<MsRotaryEmbedding>(), {4, 4}));
}

}  // namespace onnx_light::kernels
