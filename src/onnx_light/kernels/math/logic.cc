// The bool logic ops: And, Or, Xor (with numpy broadcasting) and Not.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/platform/target_clones.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

enum class Logic { kAnd, kOr, kXor };

// Same-shape operands as bytes, in restrict functions of their own, cloned for the CPU's
// widest vectors (not templates: Clang clones no template): through the bool lambda of
// BroadcastApply the loop stayed scalar (a bool store may alias; 1.9x ORT on [256,1024]).
ONNX_LIGHT_VECTOR_CLONES void AndBytes(const uint8_t* __restrict a, const uint8_t* __restrict b,
                                       uint8_t* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = a[i] & b[i];
}
ONNX_LIGHT_VECTOR_CLONES void OrBytes(const uint8_t* __restrict a, const uint8_t* __restrict b,
                                      uint8_t* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = a[i] | b[i];
}
ONNX_LIGHT_VECTOR_CLONES void XorBytes(const uint8_t* __restrict a, const uint8_t* __restrict b,
                                       uint8_t* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = a[i] ^ b[i];
}

template <Logic kLogic>
class LogicOp : public BroadcastingBinary {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    return CreateBroadcasting<LogicOp>(info);
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Operands ops, Prepare(ctx));
    const Tensor& b = ops.b;
    const std::vector<int64_t>& dims = ops.dims;
    Tensor* y = ops.y;
    if (a.shape().dims() == dims && b.shape().dims() == dims) {
      const auto* pa = static_cast<const uint8_t*>(a.raw_data());
      const auto* pb = static_cast<const uint8_t*>(b.raw_data());
      auto* py = static_cast<uint8_t*>(y->mutable_raw_data());
      auto run = [&](int64_t i0, int64_t i1) {
        if constexpr (kLogic == Logic::kAnd) AndBytes(pa + i0, pb + i0, py + i0, i1 - i0);
        if constexpr (kLogic == Logic::kOr) OrBytes(pa + i0, pb + i0, py + i0, i1 - i0);
        if constexpr (kLogic == Logic::kXor) XorBytes(pa + i0, pb + i0, py + i0, i1 - i0);
      };
      ThreadPool* pool = ctx.thread_pool();
      const int64_t n = y->num_elements();
      if (pool != nullptr && pool->threads() > 1 && n >= (int64_t{1} << 18)) {
        pool->ParallelFor(n, int64_t{1} << 16, run);
      } else {
        run(0, n);
      }
      return Status::Ok();
    }
    BroadcastApply(a.data<bool>(), a.shape(), b.data<bool>(), b.shape(), y->mutable_data<bool>(),
                   dims, ctx.thread_pool(), [](bool u, bool v) -> bool {
                     // bitwise, not short-circuit: both loads unconditional, the loop
                     // vectorizes (bools are the bytes 0 and 1)
                     if constexpr (kLogic == Logic::kAnd) return u & v;
                     if constexpr (kLogic == Logic::kOr) return u | v;
                     if constexpr (kLogic == Logic::kXor) return u ^ v;
                   });
    return Status::Ok();
  }
};

// As bytes, the count hoisted (a bool store may alias the tensor's own fields, which kept
// the loop from vectorizing: 0.9 ns a byte), in the CPU's widest vectors.
ONNX_LIGHT_VECTOR_CLONES void NotBytes(const uint8_t* __restrict in, uint8_t* __restrict out,
                                       int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = in[i] ^ 1u;
}

class Not : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Not());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    NotBytes(static_cast<const uint8_t*>(x.raw_data()),
             static_cast<uint8_t*>(y->mutable_raw_data()), x.num_elements());
    return Status::Ok();
  }
};

template <Logic kind>
Status RegisterLogic(KernelRegistry& r, const char* op) {
  return r.Register(
      Def(op, 1, {{"T", {0, 1}, {0}, {DataType::kBool}}}, FactoryOf<LogicOp<kind>>()));
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, And) {
  return RegisterLogic<Logic::kAnd>(r, "And");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Or) {
  return RegisterLogic<Logic::kOr>(r, "Or");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Xor) {
  return RegisterLogic<Logic::kXor>(r, "Xor");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Not) {
  return r.Register(Def("Not", 1, {{"T", {0}, {0}, {DataType::kBool}}}, FactoryOf<Not>()));
}

}  // namespace onnx_light::kernels
