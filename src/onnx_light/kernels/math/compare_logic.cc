// Comparisons (Equal, Less, Greater, LessOrEqual, GreaterOrEqual -> bool), logic (And, Or,
// Xor, Not), Pow, Where, and the variadic Min, Max, Sum, Mean; all with numpy broadcasting.
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

// Integer power with integer exponent, exact and wrapping modulo 2^bits like numpy.
// A negative exponent gives the truncated quotient 1 / base^-e: 1 for base 1, +-1 for
// base -1, 0 otherwise (division by zero for base 0 gives 0 rather than trapping).
template <typename T, typename E>
T IntPow(T base, E e) {
  if constexpr (std::is_signed_v<E>) {
    if (e < 0) {
      if (base == 1) return 1;
      if constexpr (std::is_signed_v<T>) {
        if (base == -1) return (e % 2 == 0) ? T(1) : T(-1);
      }
      return 0;
    }
  }
  // uint64_t arithmetic wraps without undefined behaviour; truncating it to T keeps the
  // value modulo 2^bits(T).
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (auto n = static_cast<uint64_t>(e); n != 0; n >>= 1) {
    if (n & 1) result *= b;
    b *= b;
  }
  return static_cast<T>(result);
}

// A double converted to an integer type without undefined behaviour: NaN gives 0, values
// beyond the range saturate.
template <typename T>
T SaturatingInt(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

// Pow: base and exponent may have different types (opset 12+).
class Pow : public BroadcastingBinary {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    return CreateBroadcasting<Pow>(info);
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Operands ops, Prepare(ctx));
    const Tensor& b = ops.b;
    const std::vector<int64_t>& dims = ops.dims;
    Tensor* y = ops.y;
    DispatchNumeric(a.dtype(), [&](auto base_tag) {
      using T = decltype(base_tag);
      if constexpr (!std::is_same_v<T, bool>) {
        DispatchNumeric(b.dtype(), [&](auto exp_tag) {
          using E = decltype(exp_tag);
          if constexpr (!std::is_same_v<E, bool>) {
            BroadcastApply(a.data<T>(), a.shape(), b.data<E>(), b.shape(), y->mutable_data<T>(),
                           dims, ctx.thread_pool(), [](T u, E v) {
                             if constexpr (std::is_integral_v<T> && std::is_integral_v<E>) {
                               return IntPow(u, v);
                             } else if constexpr (std::is_integral_v<T>) {
                               return SaturatingInt<T>(
                                   std::pow(static_cast<double>(u), static_cast<double>(Widen(v))));
                             } else {
                               using C = typename ComputeType<T>::type;
                               return T(std::pow(static_cast<C>(u), static_cast<C>(Widen(v))));
                             }
                           });
          }
        });
      }
    });
    return Status::Ok();
  }
};

// Where(condition, X, Y) with three-way broadcasting.
class Where : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Where());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& c = *ctx.input(0);
    const Tensor& x = *ctx.input(1);
    const Tensor& z = *ctx.input(2);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto xz, BroadcastDims(x.shape(), z.shape(), ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape sxz, Shape::Create(xz));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(c.shape(), sxz, ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const std::vector<int64_t> sc = BroadcastStrides(c.shape(), dims);
    const std::vector<int64_t> sx = BroadcastStrides(x.shape(), dims);
    const std::vector<int64_t> sz = BroadcastStrides(z.shape(), dims);
    const int64_t n = y->num_elements();
    const bool* pc = c.data<bool>();
    const size_t item =
        y->dtype() == DataType::kString ? 0 : static_cast<size_t>(DataTypeBitWidth(y->dtype()) / 8);
    std::vector<int64_t> idx(dims.size(), 0);
    int64_t oc = 0, ox = 0, oz = 0;
    for (int64_t i = 0; i < n; ++i) {
      const bool take_x = pc[oc];
      if (item == 0) {
        y->mutable_data<std::string>()[i] =
            take_x ? x.data<std::string>()[ox] : z.data<std::string>()[oz];
      } else {
        const auto* src = static_cast<const char*>(take_x ? x.raw_data() : z.raw_data()) +
                          (take_x ? ox : oz) * static_cast<int64_t>(item);
        std::memcpy(static_cast<char*>(y->mutable_raw_data()) + i * static_cast<int64_t>(item), src,
                    item);
      }
      for (size_t d = dims.size(); d-- > 0;) {  // advance the index
        oc += sc[d];
        ox += sx[d];
        oz += sz[d];
        if (++idx[d] < dims[d]) break;
        oc -= sc[d] * dims[d];
        ox -= sx[d] * dims[d];
        oz -= sz[d] * dims[d];
        idx[d] = 0;
      }
    }
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
      ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims));
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor next, Tensor::Allocate(acc.dtype(), std::move(shape)));
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

Status RegisterKernel_ai_onnx_Pow(KernelRegistry& r) {
  return r.Register(Def("Pow", 1,  // opset 1-6: the legacy broadcast attribute
                        {{"T", {0}, {0}, NumericTypes()}, {"T1", {1}, {}, NumericTypes()}},
                        FactoryOf<Pow>()));
}

Status RegisterKernel_ai_onnx_Where(KernelRegistry& r) {
  return r.Register(Def("Where", 9,
                        {{"B", {0}, {}, {DataType::kBool}}, {"T", {1, 2}, {0}, AllTensorTypes()}},
                        FactoryOf<Where>()));
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
