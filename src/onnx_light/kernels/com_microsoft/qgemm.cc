// com.microsoft QGemm (ORT's quantizer, QOperator format, for Gemm): inputs A, a_scale,
// a_zero_point, B, b_scale, b_zero_point, C (optional int32 bias in A*B's units),
// y_scale (optional), y_zero_point (optional); attributes transA, transB, alpha. The exact
// int32 sum (A - a_zp) @ (B - b_zp) + C, then with y_scale: saturate(round_half_even(
// sum * (alpha * a_scale * b_scale / y_scale)) + y_zero_point) in Y_zero_point's type;
// without: float(sum) * (alpha * a_scale * b_scale). b_scale and b_zero_point are one value
// or one per column; a's are one value. The scales multiply in float in ORT's order.
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/integer_to_float.h"
#include "com_microsoft/qlinear.h"
#include "simd/qlinear_simd.h"

namespace onnx_light::kernels {
namespace {

// The [rows, cols] matrix `t` transposed into a new tensor.
Result<Tensor> Transposed(const Tensor& t) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape s, Shape::Create({cols, rows}));
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.dtype(), s));
  const auto* in = static_cast<const uint8_t*>(t.raw_data());
  auto* o = static_cast<uint8_t*>(out.mutable_raw_data());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      o[c * rows + r] = in[r * cols + c];
  return out;
}

class QGemm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QGemm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ta, info.GetInt("transA", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t tb, info.GetInt("transB", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->alpha_, info.GetFloat("alpha", 1.0f));
    k->trans_a_ = ta != 0;
    k->trans_b_ = tb != 0;
    // A constant B packed once, as the product reads it (transposed first with transB).
    k->packed_ = PackConstantB(info, 3, DataType::kUndefined, k->trans_b_);
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& a_in = *ctx.input(0);
    const Tensor& b_in = *ctx.input(3);
    ONNX_LIGHT_RETURN_IF(
        a_in.shape().rank() != 2 || b_in.shape().rank() != 2, kInvalidArgument,
        "A " + a_in.shape().ToString() + " and B " + b_in.shape().ToString() + " must be matrices");
    Tensor a_t, b_t;
    if (trans_a_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(a_t, Transposed(a_in));
    }
    const bool b_packed = packed_.vnni.panels != nullptr || packed_.i16.bytes != nullptr;
    if (trans_b_ && !b_packed) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(b_t, Transposed(b_in));
    } else if (trans_b_) {  // packed: only B's shape is read, a reshaped view will do
      ONNX_LIGHT_ASSIGN_OR_RETURN(Shape s, Shape::Create({b_in.shape()[1], b_in.shape()[0]}));
      ONNX_LIGHT_ASSIGN_OR_RETURN(b_t, b_in.Reshaped(s));
    }
    const Tensor& a = trans_a_ ? a_t : a_in;
    const Tensor& b = trans_b_ ? b_t : b_in;
    const int64_t m = a.shape()[0], n = b.shape()[1];
    const Tensor& a_scale = *ctx.input(1);
    const Tensor* a_zp = ctx.input(2);
    const Tensor& b_scale = *ctx.input(4);
    const Tensor* b_zp = ctx.input(5);
    const Tensor* c = OptionalInput(ctx, 6);
    const Tensor* y_scale = OptionalInput(ctx, 7);
    const Tensor* y_zp = OptionalInput(ctx, 8);
    ONNX_LIGHT_RETURN_IF(a_scale.num_elements() != 1 || a_zp->num_elements() != 1, kInvalidArgument,
                         "a_scale and a_zero_point must be one value each");
    ONNX_LIGHT_RETURN_IF_ERROR(CheckPerColumn(&b_scale, n, "b_scale"));
    ONNX_LIGHT_RETURN_IF(b_zp->num_elements() != b_scale.num_elements(), kInvalidArgument,
                         "b_zero_point must have b_scale's shape");
    ONNX_LIGHT_RETURN_IF((y_scale == nullptr) != (y_zp == nullptr), kInvalidArgument,
                         "y_scale and y_zero_point come together (or neither: float output)");
    if (c != nullptr) {
      const std::vector<int64_t>& cd = c->shape().dims();
      const bool ok = c->num_elements() == 1 || (cd.size() == 1 && cd[0] == n) ||
                      (cd.size() == 2 && (cd[0] == 1 || cd[0] == m) && (cd[1] == 1 || cd[1] == n));
      ONNX_LIGHT_RETURN_IF(!ok, kInvalidArgument,
                           "C " + c->shape().ToString() + " does not broadcast to [" +
                               std::to_string(m) + ", " + std::to_string(n) + "]");
    }
    std::vector<float> scale(static_cast<size_t>(b_scale.num_elements()));
    for (size_t j = 0; j < scale.size(); ++j) {
      scale[j] = alpha_ * a_scale.data<float>()[0] * b_scale.data<float>()[j];
      if (y_scale != nullptr) scale[j] /= y_scale->data<float>()[0];
    }
    // (The sums in a temporary from the run's buffers, not a zero-filled vector: the kernels
    // write every one, and a fresh zeroed vector cost QLinearMatMul all its gain at 2
    // threads.)
    Tensor buffer;
    Tensor* y = nullptr;
    auto output = [&](const std::vector<int64_t>& dims) -> Result<int32_t*> {
      if (y_scale == nullptr) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(y, ctx.AllocateOutput(0, DataType::kFloat, dims));
        return reinterpret_cast<int32_t*>(y->mutable_data<float>());
      }
      ONNX_LIGHT_ASSIGN_OR_RETURN(y, ctx.AllocateOutput(0, y_zp->dtype(), dims));
      ONNX_LIGHT_ASSIGN_OR_RETURN(buffer, ctx.AllocateTemporary(DataType::kInt32, {m, n}));
      return buffer.mutable_data<int32_t>();
    };
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        std::vector<int64_t> dims,
        IntegerMatMul(a, a_zp, b, b_zp, ctx.thread_pool(), output, &packed_.vnni, &packed_.i16));
    int32_t* acc = y_scale == nullptr ? reinterpret_cast<int32_t*>(y->mutable_data<float>())
                                      : buffer.mutable_data<int32_t>();
    // C: one value per column (or one for all) goes in as the requantization's bias; per
    // row or per element it is added to the sums first (int32, wrapping as they do).
    std::vector<int32_t> col_bias(static_cast<size_t>(n), 0);
    if (c != nullptr) {
      const int32_t* cv = c->data<int32_t>();
      const std::vector<int64_t>& cd = c->shape().dims();
      const bool per_row = cd.size() == 2 && cd[0] == m && m != 1;
      const bool per_col = c->num_elements() != 1 && (cd.size() == 1 || cd.back() == n);
      if (per_row) {
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            acc[i * n + j] =
                static_cast<int32_t>(static_cast<uint32_t>(acc[i * n + j]) +
                                     static_cast<uint32_t>(cv[per_col ? i * n + j : i]));
      } else {
        for (int64_t j = 0; j < n; ++j)
          col_bias[static_cast<size_t>(j)] = cv[per_col ? j : 0];
      }
    }
    if (y_scale == nullptr) {
      if (c != nullptr) {
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            acc[i * n + j] = static_cast<int32_t>(static_cast<uint32_t>(acc[i * n + j]) +
                                                  static_cast<uint32_t>(col_bias[j]));
      }
      ScaleProductsInPlace(y, n, scale, nullptr, 0);
      return Status::Ok();
    }
    const int32_t zp =
        y_zp->dtype() == DataType::kInt8 ? y_zp->data<int8_t>()[0] : y_zp->data<uint8_t>()[0];
    std::vector<float> col_scale(static_cast<size_t>(n), scale[0]);
    if (scale.size() > 1) col_scale = scale;
    RequantizeRows(acc, n, m, n, col_bias.data(), col_scale.data(), zp,
                   y_zp->dtype() == DataType::kInt8, y->mutable_raw_data(), n);
    return Status::Ok();
  }

 private:
  bool trans_a_ = false, trans_b_ = false;
  float alpha_ = 1.0f;
  PackedIntegerB packed_;
};

// Y is float without y_zero_point, else y_zero_point's type.
Status QGemmOutputType(const onnx::NodeProto&, int, const std::vector<DataType>& in,
                       std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = in.size() > 8 && in[8] != DataType::kUndefined ? in[8] : DataType::kFloat;
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QGemm) {
  const std::vector<DataType> q = {DataType::kUint8, DataType::kInt8};
  KernelDef def = MsDef("QGemm",
                        {{"TA", {0, 2}, {}, q},
                         {"TB", {3, 5}, {}, q},
                         {"T", {1, 4, 7}, {}, {DataType::kFloat}},
                         {"TC", {6}, {}, {DataType::kInt32}},
                         {"TYZ", {8}, {}, q}},
                        FactoryOf<QGemm>(), {6, 9}, {1, 1}, (1u << 6) | (1u << 7) | (1u << 8));
  def.output_types = &QGemmOutputType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
