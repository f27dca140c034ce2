// com.microsoft DynamicQuantizeLSTM, what ORT's dynamic quantizer makes of an LSTM: inputs
// X, W, R, B?, sequence_lens?, initial_h?, initial_c?, P? as ai.onnx LSTM's, except that W
// [dirs, input, 4H] and R [dirs, H, 4H] are 8-bit and transposed, then W_scale,
// W_zero_point, R_scale, R_zero_point (per direction [dirs], or per gate row [dirs, 4H]).
// As ORT computes it: the 8-bit weights packed once for the exact integer kernels, and X
// (once) and the hidden state (at every step) quantized to uint8 as DynamicQuantizeLinear
// does, each product scaled back by x_scale * w_scale in float (rnn/lstm_quantized.h); the
// cell in float. For what the quantized products do not take (a sequence shorter than
// the others, a scalar build, an operand with a NaN or an infinity) the weights are
// dequantized, w = (q - zero_point) * scale, into float in ONNX's layout: at once in a
// scalar build, else on the first run that needs them (rnn/recurrent.h), so a session does
// not hold float copies four times the 8-bit weights' size that it never reads. The
// weights, scales and zero points must be constants, as the quantizer writes them.
#include <cstdint>
#include <memory>
#include <string>

#include "com_microsoft/ms_def.h"
#include "onnx_light/platform/mapped_file.h"
#include "rnn/recurrent.h"

namespace onnx_light::kernels {
namespace {

// q [dirs, rows, cols] (8-bit, one quantization per direction or per column: the gate row
// of the float matrix) to float [dirs, cols, rows].
template <typename Q>
void DequantizeTransposed(const Tensor& q, const Tensor& scale, const Tensor& zp, float* out) {
  const int64_t dirs = q.shape()[0], rows = q.shape()[1], cols = q.shape()[2];
  const bool per_col = scale.shape().rank() == 2;
  const Q* src = q.data<Q>();
  const float* s = scale.data<float>();
  const Q* z = zp.data<Q>();
  for (int64_t d = 0; d < dirs; ++d) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t at = per_col ? d * cols + j : d;
      const float sj = s[at];
      const auto zj = static_cast<int32_t>(z[at]);
      for (int64_t p = 0; p < rows; ++p) {
        const auto v = static_cast<int32_t>(src[(d * rows + p) * cols + j]);
        out[(d * cols + j) * rows + p] = static_cast<float>(v - zj) * sj;
      }
    }
  }
}

// W (q_at 1) or R (2) with its scale and zero point: constants of matching shapes.
struct QuantizedWeight {
  Tensor q, scale, zp;
  Shape float_shape;  // [dirs, 4H, rows]: ONNX's layout of the float weight
};

Result<QuantizedWeight> ReadQuantized(const KernelInfo& info, size_t q_at, const char* what) {
  const Tensor* q = info.constant_input(q_at);
  const Tensor* scale = info.constant_input(q_at == 1 ? 8 : 10);
  const Tensor* zp = info.constant_input(q_at == 1 ? 9 : 11);
  ONNX_LIGHT_RETURN_IF(q == nullptr || scale == nullptr || zp == nullptr, kNotImplemented,
                       std::string(what) +
                           ", its scale and its zero point must be constants (initializers), "
                           "as ONNX Runtime's quantizer writes them");
  ONNX_LIGHT_RETURN_IF(q->shape().rank() != 3, kInvalidModel,
                       std::string(what) + " must be 3-D [dirs, rows, 4 * hidden_size], got " +
                           q->shape().ToString());
  const int64_t dirs = q->shape()[0], cols = q->shape()[2];
  const bool per_dir = scale->shape().dims() == std::vector<int64_t>{dirs};
  const bool per_col = scale->shape().dims() == std::vector<int64_t>{dirs, cols};
  ONNX_LIGHT_RETURN_IF(!per_dir && !per_col, kInvalidModel,
                       std::string(what) + "'s scale must be [" + std::to_string(dirs) + "] or [" +
                           std::to_string(dirs) + ", " + std::to_string(cols) + "], got " +
                           scale->shape().ToString());
  ONNX_LIGHT_RETURN_IF(
      zp->shape() != scale->shape() || zp->dtype() != q->dtype(), kInvalidModel,
      std::string(what) + "'s zero point must have its scale's shape and its own type");
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create({dirs, cols, q->shape()[1]}));
  return QuantizedWeight{*q, *scale, *zp, std::move(shape)};
}

Result<Tensor> Dequantize(const QuantizedWeight& w) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(DataType::kFloat, w.float_shape));
  if (w.q.dtype() == DataType::kInt8) {
    DequantizeTransposed<int8_t>(w.q, w.scale, w.zp, out.mutable_data<float>());
  } else {
    DequantizeTransposed<uint8_t>(w.q, w.scale, w.zp, out.mutable_data<float>());
  }
  return out;
}

Result<std::unique_ptr<KernelBase>> CreateDynamicQuantizeLstm(const KernelInfo& info) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(QuantizedWeight w, ReadQuantized(info, 1, "W"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(QuantizedWeight r, ReadQuantized(info, 2, "R"));
  QuantizedMatrix wq = PackQuantized(w.q, w.scale, w.zp);
  QuantizedMatrix rq = PackQuantized(r.q, r.scale, r.zp);
  if (wq.usable() && rq.usable()) {
    // Packed: the model file's pages of the 8-bit weights go back to the kernel (read
    // again from the file if the float weights are ever made).
    ReleaseMappedPages(w.q.raw_data(), w.q.byte_size());
    ReleaseMappedPages(r.q.raw_data(), r.q.byte_size());
  }
  Shape w_shape = w.float_shape, r_shape = r.float_shape;
  auto float_weights = [w = std::move(w), r = std::move(r)](size_t input) {
    return Dequantize(input == 1 ? w : r);
  };
  return CreateLstmWithWeights(info, std::move(w_shape), std::move(r_shape),
                               std::move(float_weights), std::move(wq), std::move(rq));
}

}  // namespace

// Inputs X, W, R, B?, sequence_lens?, initial_h?, initial_c?, P?, W_scale, W_zero_point,
// R_scale, R_zero_point; outputs Y?, Y_h?, Y_c?.
ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, DynamicQuantizeLSTM) {
  return r.Register(MsDef("DynamicQuantizeLSTM",
                          {{"T", {0, 3, 5, 6, 7, 8, 10}, {0, 1, 2}, {DataType::kFloat}},
                           {"T1", {4}, {}, {DataType::kInt32}},
                           {"T2", {1, 2, 9, 11}, {}, {DataType::kInt8, DataType::kUint8}}},
                          CreateDynamicQuantizeLstm, {12, 12}, {1, 3}, 0b11111000, 0b111));
}

}  // namespace onnx_light::kernels
