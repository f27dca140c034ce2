// The float32 LSTM of the common configuration (default activations Sigmoid/Tanh/Tanh, no
// clip, no peepholes, no input_forget, every sequence full length, layout 0), computed as
// ONNX Runtime does: the input projection of all time steps as one matrix product, then
// per step the recurrent product and a vectorized cell. Other configurations run the
// general double-precision path in recurrent.cc.
#pragma once

#include <cstdint>
#include <vector>

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

struct LstmF32Args {
  const float *x, *w, *r, *b, *h0, *c0;  // b, h0, c0 may be null
  int64_t seq, batch, input, hidden, dirs;
  bool reverse;          // direction "reverse" (bidirectional: the second one is)
  float *y, *y_h, *y_c;  // any may be null
  std::vector<float>* scratch;
  ThreadPool* pool;
  // Each direction's W^T packed by SgemmPackB (w_packed + d * w_packed_stride), or null.
  const float* w_packed = nullptr;
  int64_t w_packed_stride = 0;
};

void LstmF32(const LstmF32Args& a);

}  // namespace onnx_light::kernels
