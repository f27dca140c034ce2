// com.microsoft QEmbedLayerNormalization (ORT's dynamic quantizer writes it for a fused
// EmbedLayerNormalization): EmbedLayerNormalization over 8-bit tables, each value
// dequantized (q - zero_point) * scale with its table's one scale and zero point. Inputs
// input_ids, segment_ids?, word_embedding, position_embedding, segment_embedding?, gamma,
// beta, mask?, then the scales of word, position, segment?, gamma, beta and their zero
// points in that order; attribute epsilon. Positions are 0..S-1. Outputs the layer norm
// (float) and mask_index (int32 [B]: the count of the mask's ones, 0 without a mask). As
// ORT's CPU kernel: the sums, mean and variance in float, row by row in order.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/qlinear.h"

namespace onnx_light::kernels {
namespace {

class QEmbedLayerNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QEmbedLayerNorm>();
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
    ONNX_LIGHT_RETURN_IF(ids.shape().rank() != 2, kInvalidArgument,
                         "input_ids " + ids.shape().ToString() + " must be [batch, sequence]");
    ONNX_LIGHT_RETURN_IF((seg_ids == nullptr) != (seg == nullptr), kInvalidArgument,
                         "segment_ids and segment_embedding come together");
    const int64_t batch = ids.shape()[0], seq = ids.shape()[1];
    ONNX_LIGHT_RETURN_IF(word.shape().rank() != 2, kInvalidArgument,
                         "word_embedding must be [vocabulary, hidden]");
    const int64_t hidden = word.shape()[1];
    for (const Tensor* t : {&pos, seg}) {
      ONNX_LIGHT_RETURN_IF(t != nullptr && (t->shape().rank() != 2 || t->shape()[1] != hidden),
                           kInvalidArgument, "embedding tables must be [rows, hidden]");
    }
    for (const Tensor* t : {&gamma, &beta}) {
      ONNX_LIGHT_RETURN_IF(t->num_elements() != hidden, kInvalidArgument,
                           "gamma and beta must be [hidden]");
    }
    for (const Tensor* t : {seg_ids, mask}) {
      ONNX_LIGHT_RETURN_IF(t != nullptr && t->shape() != ids.shape(), kInvalidArgument,
                           "segment_ids and mask must be the shape of input_ids");
    }
    ONNX_LIGHT_RETURN_IF(seq > pos.shape()[0], kInvalidArgument,
                         "position " + std::to_string(seq - 1) + " is outside the " +
                             std::to_string(pos.shape()[0]) + " position embeddings");
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams wq, TensorQParams(ctx, 8, 13, "word_embedding"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams pq, TensorQParams(ctx, 9, 14, "position_embedding"));
    QParams sq;
    if (seg != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(sq, TensorQParams(ctx, 10, 15, "segment_embedding"));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams gq, TensorQParams(ctx, 11, 16, "gamma"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams bq, TensorQParams(ctx, 12, 17, "beta"));
    const bool is_signed = word.dtype() == DataType::kInt8;
    auto value = [is_signed](const Tensor& t, int64_t i, QParams q) {
      const uint8_t byte = static_cast<const uint8_t*>(t.raw_data())[i];
      const int32_t code = is_signed ? static_cast<int32_t>(static_cast<int8_t>(byte)) : byte;
      return static_cast<float>(code - q.zero_point) * q.scale;
    };
    const int32_t* id = ids.data<int32_t>();
    for (int64_t t = 0; t < batch * seq; ++t) {
      ONNX_LIGHT_RETURN_IF(id[t] < 0 || id[t] >= word.shape()[0], kInvalidArgument,
                           "input_ids " + std::to_string(id[t]) + " is outside [0, " +
                               std::to_string(word.shape()[0]) + ")");
      if (seg_ids != nullptr) {
        const int32_t g = seg_ids->data<int32_t>()[t];
        ONNX_LIGHT_RETURN_IF(g < 0 || g >= seg->shape()[0], kInvalidArgument,
                             "segment_ids " + std::to_string(g) + " is outside [0, " +
                                 std::to_string(seg->shape()[0]) + ")");
      }
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {batch, seq, hidden}));
    float* out = y->mutable_data<float>();
    // Tokens split between the threads (each row's sums stay in order, as ORT's).
    auto tokens = [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        float* row = out + t * hidden;
        const int64_t w0 = id[t] * hidden, p0 = (t % seq) * hidden;
        const int64_t s0 = seg_ids != nullptr ? seg_ids->data<int32_t>()[t] * hidden : 0;
        float sum = 0.0f;
        for (int64_t i = 0; i < hidden; ++i) {
          float v = value(word, w0 + i, wq) + value(pos, p0 + i, pq);
          if (seg != nullptr) v += value(*seg, s0 + i, sq);
          row[i] = v;
          sum += v;
        }
        const float mean = sum / static_cast<float>(hidden);
        sum = 0.0f;
        for (int64_t i = 0; i < hidden; ++i) {
          row[i] -= mean;
          sum += row[i] * row[i];
        }
        const float e = std::sqrt(sum / static_cast<float>(hidden) + epsilon_);
        for (int64_t i = 0; i < hidden; ++i)
          row[i] = row[i] / e * value(gamma, i, gq) + value(beta, i, bq);
      }
    };
    ParallelElements(ctx.thread_pool(), batch * seq, tokens,
                     std::max<int64_t>(1, (int64_t{1} << 13) / std::max<int64_t>(1, hidden)));
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * mi, ctx.AllocateOutput(1, {batch}));
      for (int64_t b = 0; b < batch; ++b) {
        int32_t count = 0;
        for (int64_t s = 0; mask != nullptr && s < seq; ++s)
          count += mask->data<int32_t>()[b * seq + s] == 1 ? 1 : 0;
        mi->mutable_data<int32_t>()[b] = count;
      }
    }
    return Status::Ok();
  }

 private:
  float epsilon_ = 1e-12f;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QEmbedLayerNormalization) {
  return r.Register(MsDef("QEmbedLayerNormalization",
                          {{"T1", {0, 1, 7}, {1}, {DataType::kInt32}},
                           {"T2", {2, 3, 4, 5, 6, 13, 14, 15, 16, 17}, {}, Int8Types()},
                           {"T", {8, 9, 10, 11, 12}, {0}, {DataType::kFloat}}},
                          FactoryOf<QEmbedLayerNorm>(), {18, 18}, {1, 2},
                          (1u << 1) | (1u << 4) | (1u << 7) | (1u << 10) | (1u << 15), 1u << 1));
}

}  // namespace onnx_light::kernels
