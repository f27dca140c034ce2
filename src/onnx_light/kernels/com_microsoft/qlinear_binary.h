// The com.microsoft QLinear binary ops (QLinearAdd, QLinearMul): inputs A, A_scale,
// A_zero_point (optional), B, B_scale, B_zero_point (optional), C_scale, C_zero_point
// (optional); numpy broadcasting; the arithmetic in float as ORT's reference kernels (MLAS's
// scalar paths) do it, rounded half to even and saturated (qlinear.h).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

#include "com_microsoft/qlinear.h"
#include "common/broadcast.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/qlinear_simd.h"

namespace onnx_light::kernels {

// Op::Make(a, b, c) returns the float functor of two centered codes (a - a_zp, b - b_zp)
// giving the output value in C's units (before C's zero point); Op::kKind and
// Op::Ratio(a, b, c, i) give the same arithmetic to the vector loop.
template <typename Op>
class QLinearBinary : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(std::make_unique<QLinearBinary>());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(3);
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams aq, TensorQParams(ctx, 1, 2, "A"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams bq, TensorQParams(ctx, 4, 5, "B"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams cq, TensorQParams(ctx, 6, 7, "C"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> dims, BroadcastDims(a.shape(), b.shape()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * c, ctx.AllocateOutput(0, dims));
    if (a.dtype() == DataType::kInt8) {
      Run<int8_t>(a, b, aq, bq, cq, dims, c, ctx.thread_pool());
    } else {
      Run<uint8_t>(a, b, aq, bq, cq, dims, c, ctx.thread_pool());
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(const Tensor& a, const Tensor& b, QParams aq, QParams bq, QParams cq,
                  const std::vector<int64_t>& dims, Tensor* c, ThreadPool* pool) {
    const auto f = Op::Make(aq, bq, cq);
    const int32_t za = aq.zero_point, zb = bq.zero_point, zc = cq.zero_point;
    // Same shapes (a residual Add) or one B value (a scale): a flat vector loop
    // (simd/qlinear_simd.h, the same arithmetic), in parts across the pool.
    const int64_t n = c->num_elements();
    if (a.shape() == b.shape() || (b.num_elements() == 1 && a.shape().dims() == dims)) {
      const T* ap = a.data<T>();
      const T* bp = b.data<T>();
      const bool one_b = b.num_elements() == 1;
      T* cp = c->mutable_data<T>();
      auto run = [&](int64_t i0, int64_t i1) {
        QLinearBinaryFlat(Op::kKind, std::is_same_v<T, int8_t>, ap + i0, one_b ? bp : bp + i0,
                          one_b, cp + i0, i1 - i0, Op::Ratio(aq, bq, cq, 0),
                          Op::Ratio(aq, bq, cq, 1), za, zb, zc);
      };
      if (pool != nullptr && pool->threads() > 1 && n >= (int64_t{1} << 14)) {
        pool->ParallelFor(n, int64_t{1} << 13, run);
      } else {
        run(0, n);
      }
      return;
    }
    BroadcastApply(a.data<T>(), a.shape(), b.data<T>(), b.shape(), c->mutable_data<T>(), dims, pool,
                   [&](T x, T y) {
                     return RequantizeAcc<T>(f(static_cast<float>(static_cast<int32_t>(x) - za),
                                               static_cast<float>(static_cast<int32_t>(y) - zb)),
                                             zc);
                   });
  }
};

template <typename Op>
KernelDef QLinearBinaryDef(const char* op) {
  return MsDef(op, {{"T", {0, 2, 3, 5, 7}, {0}, Int8Types()}}, FactoryOf<QLinearBinary<Op>>(),
               {7, 8}, {1, 1}, (1u << 2) | (1u << 5) | (1u << 7));
}

}  // namespace onnx_light::kernels
