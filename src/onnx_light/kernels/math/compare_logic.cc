// Comparisons (Equal, Less, Greater, LessOrEqual, GreaterOrEqual -> bool), logic (And, Or,
// Xor, Not), and the variadic Min, Max, Sum, Mean; all with numpy broadcasting.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

std::vector<DataType> NumericAndBool() {
  std::vector<DataType> t = NumericTypes();
  t.push_back(DataType::kBool);
  return t;
}

enum class Cmp { kEq, kLt, kGt, kLe, kGe };

template <Cmp kCmp>
class Compare : public BroadcastingBinary {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    return CreateBroadcasting<Compare>(info);
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Operands ops, Prepare(ctx));
    const Tensor& b = ops.b;
    const std::vector<int64_t>& dims = ops.dims;
    Tensor* y = ops.y;
    bool* out = y->mutable_data<bool>();
    if (a.dtype() == DataType::kString) {  // Equal only (opset 19)
      BroadcastApply(a.data<std::string>(), a.shape(), b.data<std::string>(), b.shape(), out, dims,
                     nullptr, [](const std::string& u, const std::string& v) { return u == v; });
      return Status::Ok();
    }
    DispatchNumeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      BroadcastApply(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out, dims, ctx.thread_pool(),
                     [](T u, T v) {
                       const auto x = Widen(u);
                       const auto z = Widen(v);
                       if constexpr (kCmp == Cmp::kEq) return x == z;
                       if constexpr (kCmp == Cmp::kLt) return x < z;
                       if constexpr (kCmp == Cmp::kGt) return x > z;
                       if constexpr (kCmp == Cmp::kLe) return x <= z;
                       if constexpr (kCmp == Cmp::kGe) return x >= z;
                     });
    });
    return Status::Ok();
  }
};

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
                   dims, ctx.thread_pool(), [](bool u, bool v) {
                     if constexpr (kLogic == Logic::kAnd) return u && v;
                     if constexpr (kLogic == Logic::kOr) return u || v;
                     if constexpr (kLogic == Logic::kXor) return u != v;
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
    const bool* in = x.data<bool>();
    bool* out = y->mutable_data<bool>();
    for (int64_t i = 0; i < x.num_elements(); ++i)
      out[i] = !in[i];
    return Status::Ok();
  }
};

enum class Fold { kMin, kMax, kSum, kMean };

// Min, Max, Sum, Mean over any number of broadcast inputs, folded pairwise.
template <Fold kFold>
class Variadic : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Variadic());
  }
  Status Compute(KernelContext& ctx) const override {
    if (ctx.input_count() == 0) {
      return Status(StatusCode::kInvalidModel, ctx.info().Describe() + ": needs an input");
    }
    Tensor acc = *ctx.input(0);
    Status status;
    for (size_t k = 1; k < ctx.input_count() && status.ok(); ++k) {
      const Tensor& b = *ctx.input(k);
      ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(acc.shape(), b.shape(), ctx.info()));
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor next, ctx.AllocateTemporary(acc.dtype(), dims));
      DispatchNumeric(acc.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) {
          BroadcastApply(acc.data<T>(), acc.shape(), b.data<T>(), b.shape(), next.mutable_data<T>(),
                         dims, ctx.thread_pool(), [](T u, T v) {
                           const auto x = Widen(u);
                           const auto z = Widen(v);
                           using C = decltype(x);
                           if constexpr (kFold == Fold::kMin) {
                             return T(std::isnan(static_cast<double>(x)) || x < z ? x : z);
                           } else if constexpr (kFold == Fold::kMax) {
                             return T(std::isnan(static_cast<double>(x)) || x > z ? x : z);
                           } else {
                             return T(static_cast<C>(x + z));
                           }
                         });
        }
      });
      acc = std::move(next);
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, acc.shape().dims()));
    if constexpr (kFold == Fold::kMean) {
      const double count = static_cast<double>(ctx.input_count());
      DispatchNumeric(acc.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) {
          for (int64_t i = 0; i < acc.num_elements(); ++i) {
            y->mutable_data<T>()[i] = T(static_cast<double>(acc.data<T>()[i]) / count);
          }
        }
      });
    } else if (acc.byte_size()) {
      std::memcpy(y->mutable_raw_data(), acc.raw_data(), acc.byte_size());
    }
    return status;
  }
};

TypeConstraint BoolOut() {
  return {"T1", {}, {0}, {DataType::kBool}};
}

}  // namespace

#define ONNX_LIGHT_CMP(Op, since, kind)                                                 \
  Status RegisterKernel_ai_onnx_##Op(KernelRegistry& r) {                               \
    return r.Register(Def(#Op, since, {{"T", {0, 1}, {}, NumericAndBool()}, BoolOut()}, \
                          FactoryOf<Compare<kind>>()));                                 \
  }
#undef ONNX_LIGHT_CMP
Status RegisterKernel_ai_onnx_Equal(KernelRegistry& r) {  // opset 1-6: legacy broadcast
  std::vector<DataType> types = NumericAndBool();
  types.push_back(DataType::kString);  // opset 19
  return r.Register(
      Def("Equal", 1, {{"T", {0, 1}, {}, types}, BoolOut()}, FactoryOf<Compare<Cmp::kEq>>()));
}
#define ONNX_LIGHT_CMP(Op, since, kind)                                                 \
  Status RegisterKernel_ai_onnx_##Op(KernelRegistry& r) {                               \
    return r.Register(Def(#Op, since, {{"T", {0, 1}, {}, NumericAndBool()}, BoolOut()}, \
                          FactoryOf<Compare<kind>>()));                                 \
  }
ONNX_LIGHT_CMP(Less, 1, Cmp::kLt)
ONNX_LIGHT_CMP(Greater, 1, Cmp::kGt)
ONNX_LIGHT_CMP(LessOrEqual, 12, Cmp::kLe)
ONNX_LIGHT_CMP(GreaterOrEqual, 12, Cmp::kGe)
#undef ONNX_LIGHT_CMP

#define ONNX_LIGHT_LOGIC(Op, kind)                                                         \
  Status RegisterKernel_ai_onnx_##Op(KernelRegistry& r) {                                  \
    return r.Register(                                                                     \
        Def(#Op, 1, {{"T", {0, 1}, {0}, {DataType::kBool}}}, FactoryOf<LogicOp<kind>>())); \
  }
ONNX_LIGHT_LOGIC(And, Logic::kAnd)
ONNX_LIGHT_LOGIC(Or, Logic::kOr)
ONNX_LIGHT_LOGIC(Xor, Logic::kXor)
#undef ONNX_LIGHT_LOGIC

Status RegisterKernel_ai_onnx_Not(KernelRegistry& r) {
  return r.Register(Def("Not", 1, {{"T", {0}, {0}, {DataType::kBool}}}, FactoryOf<Not>()));
}

#define ONNX_LIGHT_FOLD(Op, since, kind, types)                                                   \
  Status RegisterKernel_ai_onnx_##Op(KernelRegistry& r) {                                         \
    std::vector<int> inputs;                                                                      \
    for (int i = 0; i < 64; ++i)                                                                  \
      inputs.push_back(i);                                                                        \
    return r.Register(Def(#Op, since, {{"T", inputs, {0}, types}}, FactoryOf<Variadic<kind>>())); \
  }
ONNX_LIGHT_FOLD(Min, 6, Fold::kMin, NumericTypes())
ONNX_LIGHT_FOLD(Max, 6, Fold::kMax, NumericTypes())
ONNX_LIGHT_FOLD(Sum, 6, Fold::kSum, FloatTypes())
ONNX_LIGHT_FOLD(Mean, 6, Fold::kMean, FloatTypes())
#undef ONNX_LIGHT_FOLD

}  // namespace onnx_light::kernels
