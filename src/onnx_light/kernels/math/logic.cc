// The bool logic ops: And, Or, Xor (with numpy broadcasting) and Not.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

enum class Logic { kAnd, kOr, kXor };

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

class Not : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Not());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    // As bytes, the count hoisted: a bool store may alias the tensor's own fields, which
    // kept the loop from vectorizing (0.9 ns a byte).
    const auto* __restrict in = static_cast<const uint8_t*>(x.raw_data());
    auto* __restrict out = static_cast<uint8_t*>(y->mutable_raw_data());
    const int64_t n = x.num_elements();
    for (int64_t i = 0; i < n; ++i)
      out[i] = in[i] ^ 1u;
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
