// com.microsoft EmbedLayerNormalization: BERT's embedding layer as ORT's transformer optimizer
// fuses it. Per token (b, s): sum = word_embedding[input_ids] + position_embedding[position]
// (+ segment_embedding[segment_ids]), position = position_ids[b or 0, s] or s; output =
// LayerNorm(sum) * gamma + beta (epsilon 1e-12); mask_index [B] (int32) counts the mask's
// ones per batch (0 without a mask), as ORT's CPU kernel; embedding_sum is the sum. Ids
// outside their table are refused, naming the id.
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/ms_def.h"
#include "nn/layer_norm.h"

namespace onnx_light::kernels {
namespace {

class EmbedLayerNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<EmbedLayerNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->epsilon_, info.GetFloat("epsilon", 1e-12f));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& ids = *ctx.input(0);
    const Tensor* seg_ids = OptionalInput(ctx, 1);
    const Tensor& word = *ctx.input(2);
    const Tensor& pos = *ctx.input(3);
    const Tensor* seg = OptionalInput(ctx, 4);
    const Tensor& gamma = *ctx.input(5);
    const Tensor& beta = *ctx.input(6);
    const Tensor* mask = OptionalInput(ctx, 7);
    const Tensor* pos_ids = OptionalInput(ctx, 8);
    ONNX_LIGHT_RETURN_IF(ids.shape().rank() != 2, kInvalidArgument,
                         "input_ids " + ids.shape().ToString() + " must be [batch, sequence]");
    const int64_t batch = ids.shape()[0], seq = ids.shape()[1];
    ONNX_LIGHT_RETURN_IF(word.shape().rank() != 2, kInvalidArgument,
                         "word_embedding must be 2-D [vocabulary, hidden]");
    const int64_t hidden = word.shape()[1];
    auto table = [&](const Tensor& t, const char* what) -> Status {
      ONNX_LIGHT_RETURN_IF(t.shape().rank() != 2 || t.shape()[1] != hidden, kInvalidArgument,
                           std::string(what) + " " + t.shape().ToString() + " must be [rows, " +
                               std::to_string(hidden) + "]");
      return Status::Ok();
    };
    ONNX_LIGHT_RETURN_IF_ERROR(table(pos, "position_embedding"));
    ONNX_LIGHT_RETURN_IF((seg_ids == nullptr) != (seg == nullptr), kInvalidArgument,
                         "segment_ids and segment_embedding come together");
    if (seg != nullptr) ONNX_LIGHT_RETURN_IF_ERROR(table(*seg, "segment_embedding"));
    for (const Tensor* v : {&gamma, &beta}) {
      ONNX_LIGHT_RETURN_IF(v->shape().rank() != 1 || v->shape()[0] != hidden, kInvalidArgument,
                           std::string(v == &gamma ? "gamma" : "beta") + " must be [" +
                               std::to_string(hidden) + "]");
    }
    for (const Tensor* t : {seg_ids, mask}) {
      ONNX_LIGHT_RETURN_IF(
          t != nullptr && t->shape().dims() != ids.shape().dims(), kInvalidArgument,
          std::string(t == mask ? "mask " : "segment_ids ") + t->shape().ToString() +
              " must be the shape of input_ids " + ids.shape().ToString());
    }
    ONNX_LIGHT_RETURN_IF(
        pos_ids != nullptr && (pos_ids->shape().rank() != 2 ||
                               (pos_ids->shape()[0] != batch && pos_ids->shape()[0] != 1) ||
                               pos_ids->shape()[1] != seq),
        kInvalidArgument,
        "position_ids " + (pos_ids ? pos_ids->shape().ToString() : "") + " must be [" +
            std::to_string(batch) + " or 1, " + std::to_string(seq) + "]");
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {batch, seq, hidden}));
    Tensor* sum_out = nullptr;
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * mi, ctx.AllocateOutput(1, {batch}));
      int32_t* m = mi->mutable_data<int32_t>();
      for (int64_t b = 0; b < batch; ++b) {
        int32_t count = 0;
        for (int64_t s = 0; mask != nullptr && s < seq; ++s)
          count += mask->data<int32_t>()[b * seq + s] == 1 ? 1 : 0;
        m[b] = count;
      }
    }
    if (ctx.output_count() > 2) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(sum_out, ctx.AllocateOutput(2, {batch, seq, hidden}));
    }
    std::vector<float> scratch(sum_out == nullptr ? static_cast<size_t>(batch * seq * hidden) : 0);
    float* sums = sum_out != nullptr ? sum_out->mutable_data<float>() : scratch.data();
    const int32_t* id = ids.data<int32_t>();
    for (int64_t t = 0; t < batch * seq; ++t) {
      const int64_t b = t / seq, s = t % seq;
      int64_t p = s;
      if (pos_ids != nullptr)
        p = pos_ids->data<int32_t>()[(pos_ids->shape()[0] == 1 ? 0 : b) * seq + s];
      ONNX_LIGHT_RETURN_IF_ERROR(Row(word, id[t], "input_ids"));
      ONNX_LIGHT_RETURN_IF_ERROR(Row(pos, p, "position"));
      const float* w = word.data<float>() + id[t] * hidden;
      const float* q = pos.data<float>() + p * hidden;
      float* out = sums + t * hidden;
      for (int64_t i = 0; i < hidden; ++i)
        out[i] = w[i] + q[i];
      if (seg != nullptr) {
        const int32_t g = seg_ids->data<int32_t>()[t];
        ONNX_LIGHT_RETURN_IF_ERROR(Row(*seg, g, "segment_ids"));
        const float* sp = seg->data<float>() + g * hidden;
        for (int64_t i = 0; i < hidden; ++i)
          out[i] += sp[i];
      }
    }
    LayerNormRowsF32(sums, gamma.data<float>(), beta.data<float>(), y->mutable_data<float>(),
                     batch * seq, hidden, epsilon_, false, nullptr, nullptr);
    return Status::Ok();
  }

 private:
  static Status Row(const Tensor& table, int64_t index, const char* what) {
    ONNX_LIGHT_RETURN_IF(index < 0 || index >= table.shape()[0], kInvalidArgument,
                         std::string(what) + " " + std::to_string(index) + " is outside [0, " +
                             std::to_string(table.shape()[0]) + ")");
    return Status::Ok();
  }

  float epsilon_ = 1e-12f;
};

}  // namespace

// Inputs input_ids, segment_ids?, word_embedding, position_embedding, segment_embedding?,
// gamma, beta, mask?, position_ids?; outputs output, mask_index?, embedding_sum?.
ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, EmbedLayerNormalization) {
  return r.Register(MsDef("EmbedLayerNormalization",
                          {{"T1", {0, 1, 7, 8}, {1}, {DataType::kInt32}},
                           {"T", {2, 3, 4, 5, 6}, {0, 2}, {DataType::kFloat}}},
                          FactoryOf<EmbedLayerNorm>(), {7, 9}, {1, 3}, 0b110010010, 0b110));
}

}  // namespace onnx_light::kernels
