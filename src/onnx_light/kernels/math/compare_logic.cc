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
      return Status(StatusCode::kInvalidModel, "needs an input");
    }
    Tensor acc = *ctx.input(0);
    Status status;
    for (size_t k = 1; k < ctx.input_count() && status.ok(); ++k) {
      const Tensor& b = *ctx.input(k);
      ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(acc.shape(), b.shape()));
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

template <Cmp kind>
Status RegisterCompare(KernelRegistry& r, const char* op, int since) {
  return r.Register(
      Def(op, since, {{"T", {0, 1}, {}, NumericAndBool()}, BoolOut()}, FactoryOf<Compare<kind>>()));
}

template <Logic kind>
Status RegisterLogic(KernelRegistry& r, const char* op) {
  return r.Register(
      Def(op, 1, {{"T", {0, 1}, {0}, {DataType::kBool}}}, FactoryOf<LogicOp<kind>>()));
}

// Min, Max, Sum, Mean: any number of inputs (up to 64 bound by T), broadcast together.
template <Fold kind>
Status RegisterFold(KernelRegistry& r, const char* op, std::vector<DataType> types) {
  std::vector<int> inputs;
  for (int i = 0; i < 64; ++i)
    inputs.push_back(i);
  return r.Register(
      Def(op, 6, {{"T", inputs, {0}, std::move(types)}}, FactoryOf<Variadic<kind>>()));
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Equal) {  // opset 1-6: legacy broadcast
  std::vector<DataType> types = NumericAndBool();
  types.push_back(DataType::kString);  // opset 19
  return r.Register(
      Def("Equal", 1, {{"T", {0, 1}, {}, types}, BoolOut()}, FactoryOf<Compare<Cmp::kEq>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Less) {
  return RegisterCompare<Cmp::kLt>(r, "Less", 1);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Greater) {
  return RegisterCompare<Cmp::kGt>(r, "Greater", 1);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LessOrEqual) {
  return RegisterCompare<Cmp::kLe>(r, "LessOrEqual", 12);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GreaterOrEqual) {
  return RegisterCompare<Cmp::kGe>(r, "GreaterOrEqual", 12);
}
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
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Min) {
  return RegisterFold<Fold::kMin>(r, "Min", NumericTypes());
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Max) {
  return RegisterFold<Fold::kMax>(r, "Max", NumericTypes());
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Sum) {
  return RegisterFold<Fold::kSum>(r, "Sum", FloatTypes());
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Mean) {
  return RegisterFold<Fold::kMean>(r, "Mean", FloatTypes());
}

}  // namespace onnx_light::kernels
