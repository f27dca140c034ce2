// The float32 engine of RNN, GRU and LSTM, every configuration ONNX defines (forward,
// reverse, bidirectional; per-entry sequence_lens; layout 0 and 1; initial states; clip;
// any activations; GRU linear_before_reset; LSTM peepholes and input_forget), computed as
// ONNX Runtime does: the input projection of every time step as one matrix product with
// W (packed once when constant), then per step one product of the hidden state with R
// (packed once when constant: a batch-1 step reads it panel by panel) and the gates'
// activations over whole rows in SIMD. Nothing is allocated per step: the node's
// RecurrentScratch holds every buffer. The two directions of a bidirectional layer run
// side by side on a pool of two threads or more. float16 nodes convert to float32 around
// it (recurrent.cc); double keeps the reference path there.
#pragma once

#include <cstdint>
#include <vector>

#include "onnx_light/core/tensor.h"
#include "rnn/lstm_quantized.h"
#include "rnn/rnn_activation.h"

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

enum class RnnCell : uint8_t { kRnn, kGru, kLstm };

inline constexpr int RnnGates(RnnCell c) {
  return c == RnnCell::kLstm ? 4 : (c == RnnCell::kGru ? 3 : 1);
}
inline constexpr int RnnActivationsPerDirection(RnnCell c) {
  return c == RnnCell::kRnn ? 1 : (c == RnnCell::kGru ? 2 : 3);
}

// W and R of every direction packed for the products (simd/gemm_simd.h's SgemmPackB of
// W^T and R^T): w[d] [input x gh]; r[d] R's rows read by the step's first product (all
// gates; a GRU's z and r only), r_h[d] a GRU's h rows. Empty where not packed.
struct RecurrentPacked {
  Tensor w, r, r_h;
  int64_t w_stride = 0, r_stride = 0, r_h_stride = 0;  // floats per direction
  bool has_w() const { return w.byte_size() > 0; }
  bool has_r() const { return r.byte_size() > 0; }
};

// Packs W ([dirs, gh, input], when `pack_w`) and R ([dirs, gh, h]) in ONNX's layout.
RecurrentPacked PackRecurrent(RnnCell cell, const float* w, const float* r, int64_t dirs,
                              int64_t input, int64_t hidden, bool pack_w);

// What one direction works in, kept between runs (the node's state).
struct RecurrentScratch {
  struct Direction {
    std::vector<float> f;
    QuantizedOperand hq;  // the hidden state quantized (DynamicQuantizeLSTM)
    std::vector<int32_t> acc;
  };
  Direction dir[2];
  QuantizedOperand xq;  // X quantized (DynamicQuantizeLSTM)
  bool x_quantized = false;
};

struct RecurrentF32Args {
  RnnCell cell = RnnCell::kLstm;
  const float* x = nullptr;  // layout 0: [seq, batch, input]; 1: [batch, seq, input]
  int64_t layout = 0;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool reverse = false;           // direction "reverse" (bidirectional: the second one is)
  const int64_t* lens = nullptr;  // [batch], or null: every sequence is seq long
  const float* w = nullptr;       // [dirs, gh, input]
  const float* r = nullptr;       // [dirs, gh, hidden]
  const RecurrentPacked* packed = nullptr;  // may be null, or pack only some
  const float *b = nullptr, *h0 = nullptr, *c0 = nullptr, *p = nullptr;  // may be null
  float clip = 0;  // > 0: gate inputs clamped to [-clip, clip]
  bool linear_before_reset = false, input_forget = false;
  const RnnActivation* acts = nullptr;  // RnnActivationsPerDirection(cell) per direction
  float *y = nullptr, *y_h = nullptr, *y_c = nullptr;  // any may be null
  RecurrentScratch* scratch = nullptr;
  ThreadPool* pool = nullptr;
  // DynamicQuantizeLSTM's 8-bit W and R (both usable(), or both null; LSTM with every
  // sequence full only): the products quantize X and the hidden state as ORT does; w and
  // r (dequantized) serve a step whose operand has no finite range. w and r may be null
  // with them when no step can have one (finite X, B, states and P, the default
  // activations: the hidden state then stays within (-1, 1)).
  const QuantizedMatrix* wq = nullptr;
  const QuantizedMatrix* rq = nullptr;
};

void RecurrentF32(const RecurrentF32Args& a);

}  // namespace onnx_light::kernels
