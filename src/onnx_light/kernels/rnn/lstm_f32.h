// The float32 LSTM of the common configuration (default activations Sigmoid/Tanh/Tanh, no
// clip, no peepholes, no input_forget, every sequence full length, layout 0), computed as
// ONNX Runtime does: the input projection of all time steps as one matrix product, then
// per step the recurrent product and a vectorized cell. The two directions of a
// bidirectional LSTM run side by side on a pool of two threads or more. Other
// configurations run the general double-precision path in recurrent.cc.
#pragma once

#include <cstdint>
#include <vector>

#include "rnn/lstm_quantized.h"

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

// What one direction works in, kept between runs (the node's state).
struct LstmScratch {
  struct Direction {
    std::vector<float> f;  // the input projection, gates, hidden, cell, tanh(cell)
    QuantizedOperand hq;   // the hidden state quantized (DynamicQuantizeLSTM)
    std::vector<int32_t> acc;
  };
  Direction dir[2];
  QuantizedOperand xq;  // X quantized (DynamicQuantizeLSTM)
};

struct LstmF32Args {
  const float *x, *w, *r, *b, *h0, *c0;  // b, h0, c0 may be null
  int64_t seq, batch, input, hidden, dirs;
  bool reverse;          // direction "reverse" (bidirectional: the second one is)
  float *y, *y_h, *y_c;  // any may be null
  LstmScratch* scratch;
  ThreadPool* pool;
  // Each direction's W^T packed by SgemmPackB (w_packed + d * w_packed_stride), or null.
  const float* w_packed = nullptr;
  int64_t w_packed_stride = 0;
  // DynamicQuantizeLSTM's 8-bit W and R (both usable(), or both null): the products
  // quantize X and the hidden state as ORT does; w and r (dequantized) serve a step
  // whose operand has no finite range.
  const QuantizedMatrix* wq = nullptr;
  const QuantizedMatrix* rq = nullptr;
};

void LstmF32(const LstmF32Args& a);

}  // namespace onnx_light::kernels
