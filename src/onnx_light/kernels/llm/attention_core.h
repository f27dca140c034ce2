// Scaled dot-product attention over float32 views, shared by the attention ops: ai.onnx
// Attention and com.microsoft Attention, MultiHeadAttention and GroupQueryAttention. Each op
// reads its own inputs (packed projections, KV caches, masks of its formats) into views and
// a row-bias callback; this core runs, per (batch, head):
//   S = scale * Q K^T; S = softcap * tanh(S / softcap) when softcap > 0;
//   bias(b, h, i, S[i, :]) (masks, causal, attention bias: the op's rules);
//   P = softmax(S) per row (with a sink logit when given); Y = P V.
// The (batch, head) pairs split between the threads, each pair's products in Gemm2D on its
// thread; with fewer pairs than threads the products themselves take the pool.
#pragma once

#include <cstdint>
#include <functional>

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

// Element (b, h, s, e) of a [batch, heads, seq, size] view is at data + b*sb + h*sh + s*ss + e.
struct HeadView {
  const float* data = nullptr;
  int64_t sb = 0, sh = 0, ss = 0;
};
struct MutableHeadView {
  float* data = nullptr;
  int64_t sb = 0, sh = 0, ss = 0;
};

struct AttentionShape {
  int64_t batch = 0, q_heads = 0, kv_heads = 0;  // q_heads a multiple of kv_heads (GQA)
  int64_t q_seq = 0, kv_seq = 0;                 // kv_seq: every key, past ones included
  int64_t head_size = 0, v_head_size = 0;
};

// Adds the op's bias to one row of scaled scores: (b, q head, query i, row[0..kv_seq)).
// -inf masks a key out; a row whose keys are all -inf becomes NaN, as ONNX's reference.
using RowBias = std::function<void(int64_t b, int64_t h, int64_t i, float* row)>;

struct AttentionRun {
  AttentionShape shape;
  HeadView q, k, v;
  MutableHeadView y;
  float scale = 1, softcap = 0;
  RowBias bias;  // optional
  // Optional, per q head: a sink logit in every row's softmax (its weight goes nowhere):
  // p_j = exp(s_j - m) / (sum_k exp(s_k - m) + exp(sink - m)), m the max of both.
  const float* sink = nullptr;
  // Optional: the softmax-ed probabilities also go here ([batch, q_heads, q_seq, kv_seq]).
  float* probs = nullptr;
  // Optional: the scores before the softmax (scaled, capped, biased: masked keys -inf), in
  // the layout of probs.
  float* scores = nullptr;
};

void RunAttentionF32(const AttentionRun& run, ThreadPool* pool);

}  // namespace onnx_light::kernels
