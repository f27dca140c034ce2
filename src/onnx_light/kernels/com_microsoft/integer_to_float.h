// What the com.microsoft integer matrix kernels that produce float share (QGemm without
// y_scale, MatMulIntegerToFloat, DynamicQuantizeMatMul): the int32 products are written
// into the float output's own buffer (no second buffer) and turned there into
// float(product) * scale[column] + bias[column], the scale one value or one per column, as
// ORT's MLAS output processor does it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "com_microsoft/ms_def.h"
#include "quantization/integer_matmul.h"
#include "simd/qlinear_simd.h"

namespace onnx_light::kernels {

// A float tensor of one value or one per column (n), or absent; `what` names it.
inline Status CheckPerColumn(const Tensor* t, int64_t n, const std::string& what) {
  if (t == nullptr) return Status::Ok();
  const int64_t count = t->num_elements();
  ONNX_LIGHT_RETURN_IF(t->shape().rank() > 1 || (count != 1 && count != n), kInvalidArgument,
                       what + " " + t->shape().ToString() +
                           " must be one value or one per column (" + std::to_string(n) + ")");
  return Status::Ok();
}

// The float output (already holding int32 products, `n` per row) scaled and biased in place
// (scale and bias one value or one per column).
inline void ScaleProductsInPlace(Tensor* y, int64_t n, const std::vector<float>& scale,
                                 const float* bias, int64_t bias_count) {
  const int64_t rows = n == 0 ? 0 : y->num_elements() / n;
  ProductsToFloat(y->mutable_data<float>(), rows, n, scale.data(), scale.size() == 1, bias,
                  bias_count == 1);
}

// A's products with B (packed: B packed once when constant, or null), written into output
// 0 as float, then scaled and biased.
inline Status IntegerProductsToFloat(KernelContext& ctx, const Tensor& a, const Tensor* a_zp,
                                     const Tensor& b, const Tensor* b_zp, float a_scale,
                                     const Tensor& b_scale, const Tensor* bias,
                                     const PackedIntegerB* packed = nullptr) {
  Tensor* y = nullptr;
  auto output = [&ctx, &y](const std::vector<int64_t>& dims) -> Result<int32_t*> {
    ONNX_LIGHT_ASSIGN_OR_RETURN(y, ctx.AllocateOutput(0, dims));
    return reinterpret_cast<int32_t*>(y->mutable_data<float>());
  };
  ONNX_LIGHT_RETURN_IF(
      a.shape().rank() == 0 || b.shape().rank() == 0, kInvalidArgument,
      "inputs need rank >= 1, got A " + a.shape().ToString() + " and B " + b.shape().ToString());
  const int64_t n = b.shape().rank() == 1 ? 1 : b.shape().dims().back();
  ONNX_LIGHT_RETURN_IF_ERROR(CheckPerColumn(&b_scale, n, "b_scale"));
  ONNX_LIGHT_RETURN_IF_ERROR(CheckPerColumn(bias, n, "bias"));
  ONNX_LIGHT_RETURN_IF(b_zp != nullptr && b_zp->num_elements() != 1 &&
                           b_zp->num_elements() != b_scale.num_elements(),
                       kInvalidArgument, "b_zero_point must have b_scale's shape");
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                              IntegerMatMul(a, a_zp, b, b_zp, ctx.thread_pool(), output,
                                            packed != nullptr ? &packed->vnni : nullptr,
                                            packed != nullptr ? &packed->i16 : nullptr));
  std::vector<float> scale(static_cast<size_t>(b_scale.num_elements()));
  for (size_t j = 0; j < scale.size(); ++j)
    scale[j] = a_scale * b_scale.data<float>()[j];
  ScaleProductsInPlace(y, dims.empty() || b.shape().rank() == 1 ? 1 : dims.back(), scale,
                       bias == nullptr ? nullptr : bias->data<float>(),
                       bias == nullptr ? 0 : bias->num_elements());
  return Status::Ok();
}

}  // namespace onnx_light::kernels
