// Element-wise math: Abs, Neg, Exp, Sqrt, Reciprocal, Floor, Ceil, Round (half to even,
// the default rounding mode), Sin, Cos, Tan, their inverses and hyperbolics, Tanh,
// Sigmoid, Erf, Softplus, Sign, and the parameterized Elu, HardSigmoid, HardSwish, Selu,
// Celu, ThresholdedRelu, Shrink, Mish, Swish. Float16/bfloat16 compute in float and round once;
// float in float; double in double.
#include <algorithm>
#include <cmath>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/conv_simd.h"
#include "simd/elementwise_simd.h"
#include "simd/unary_simd.h"

namespace onnx_light::kernels {
namespace {

struct Params {
  float a = 0;
  float b = 0;
};

template <typename C>
using Fn = C (*)(C, const Params&);

template <typename T, typename C>
void Apply(const Tensor& x, Tensor* y, Fn<C> f, const Params& p) {
  const T* in = x.data<T>();
  T* out = y->mutable_data<T>();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    out[i] = T(f(static_cast<C>(in[i]), p));
  }
}

// The integer form of an op, for the three ops defined on integers.
enum class IntOp { kNone, kAbs, kNeg, kSign };

class MathUnary : public KernelBase {
 public:
  MathUnary(Fn<float> f, Fn<double> d, Params p, IntOp int_op, Activation simd, int vec)
      : f_(f), d_(d), p_(p), int_op_(int_op), simd_(simd), vec_(vec) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t n = x.num_elements();
    switch (x.dtype()) {
      case DataType::kFloat: {
        // In chunks of at least 16k elements across the intra-op pool.
        const float* in = x.data<float>();
        float* out = y->mutable_data<float>();
        ParallelElements(
            ctx.thread_pool(), n, [&](int64_t b, int64_t e) { RunF32(in + b, out + b, e - b); },
            int64_t{1} << 14);
        break;
      }
      case DataType::kDouble:
        Apply<double, double>(x, y, d_, p_);
        break;
      case DataType::kFloat16:
        Blocks<float16>(x, y, ctx.thread_pool());
        break;
      case DataType::kBFloat16:
        Blocks<bfloat16>(x, y, ctx.thread_pool());
        break;
      default:
        return IntCompute(x, y);
    }
    return Status::Ok();
  }

 private:
  // out = op(in) in float32: the vector form where the op has one, else the scalar loop.
  void RunF32(const float* in, float* out, int64_t n) const {
    if (simd_.kind != ActivationKind::kNone) {
      ActivationF32(in, out, static_cast<size_t>(n), simd_);
    } else if (vec_ >= 0) {
      UnaryF32(static_cast<UnaryOpF32>(vec_), in, out, static_cast<size_t>(n), p_.a, p_.b);
    } else {
      for (int64_t i = 0; i < n; ++i)
        out[i] = f_(in[i], p_);
    }
  }

  // 16-bit floats through the float32 path: widened in blocks of 4k, computed, rounded
  // once (the same value as computing each element in float and rounding it).
  template <typename T>
  void Blocks(const Tensor& x, Tensor* y, ThreadPool* pool) const {
    constexpr int64_t kBlock = 4096;
    const T* in = x.data<T>();
    T* out = y->mutable_data<T>();
    const int64_t n = x.num_elements();
    const int64_t blocks = (n + kBlock - 1) / kBlock;
    ParallelElements(
        pool, blocks,
        [&](int64_t b0, int64_t b1) {
          std::vector<float> buf(static_cast<size_t>(kBlock));
          for (int64_t b = b0; b < b1; ++b) {
            const int64_t i0 = b * kBlock, len = std::min(kBlock, n - i0);
            if constexpr (std::is_same_v<T, float16>) {
              Float16ToFloat32(reinterpret_cast<const uint16_t*>(in + i0), buf.data(),
                               static_cast<size_t>(len));
            } else {
              for (int64_t i = 0; i < len; ++i)
                buf[static_cast<size_t>(i)] = static_cast<float>(in[i0 + i]);
            }
            RunF32(buf.data(), buf.data(), len);
            if constexpr (std::is_same_v<T, float16>) {
              Float32ToFloat16(buf.data(), reinterpret_cast<uint16_t*>(out + i0),
                               static_cast<size_t>(len));
            } else {
              for (int64_t i = 0; i < len; ++i)
                out[i0 + i] = T(buf[static_cast<size_t>(i)]);
            }
          }
        },
        4);
  }

 private:
  Status IntCompute(const Tensor& x, Tensor* y) const {
    // Integer Abs / Neg / Sign get their own loop: through double would lose int64
    // precision.
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<T>();
      T* out = y->mutable_data<T>();
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        const T v = in[i];
        // Negation through uint64_t wraps (the minimum stays itself, as in numpy) without
        // signed-overflow undefined behaviour.
        const T negated = static_cast<T>(uint64_t{0} - static_cast<uint64_t>(v));
        if (int_op_ == IntOp::kAbs) {
          out[i] = v < T(0) ? negated : v;
        } else if (int_op_ == IntOp::kSign) {
          out[i] = v > T(0) ? T(1) : (v < T(0) ? T(-1) : T(0));
        } else {  // kNeg
          out[i] = negated;
        }
      }
    };
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) run(tag);
    });
    return Status::Ok();
  }
  Fn<float> f_;
  Fn<double> d_;
  Params p_;
  IntOp int_op_;
  Activation simd_;  // kNone: no vector form here
  int vec_;          // a UnaryOpF32, or -1: no vector form in simd/unary_simd.h
};

// One op: its float and double functions, its attributes with defaults, and its types.
struct OpSpec {
  const char* name;
  int since;
  Fn<float> f;
  Fn<double> d;
  const char* attr_a;
  float default_a;
  const char* attr_b;
  float default_b;
  IntOp int_op;  // kNone: float types only
};

#define ONNX_LIGHT_UNARY_FN(name, expr) \
  template <typename C>                 \
  C name(C x, const Params& p) {        \
    (void)p;                            \
    return expr;                        \
  }

ONNX_LIGHT_UNARY_FN(AbsF, std::fabs(x))
ONNX_LIGHT_UNARY_FN(NegF, -x)
ONNX_LIGHT_UNARY_FN(ExpF, std::exp(x))
ONNX_LIGHT_UNARY_FN(SqrtF, std::sqrt(x))
ONNX_LIGHT_UNARY_FN(ReciprocalF, C(1) / x)
ONNX_LIGHT_UNARY_FN(FloorF, std::floor(x))
ONNX_LIGHT_UNARY_FN(CeilF, std::ceil(x))
ONNX_LIGHT_UNARY_FN(SinF, std::sin(x))
ONNX_LIGHT_UNARY_FN(CosF, std::cos(x))
ONNX_LIGHT_UNARY_FN(TanF, std::tan(x))
ONNX_LIGHT_UNARY_FN(AcosF, std::acos(x))
ONNX_LIGHT_UNARY_FN(AsinF, std::asin(x))
ONNX_LIGHT_UNARY_FN(AtanF, std::atan(x))
ONNX_LIGHT_UNARY_FN(SinhF, std::sinh(x))
ONNX_LIGHT_UNARY_FN(CoshF, std::cosh(x))
ONNX_LIGHT_UNARY_FN(AsinhF, std::asinh(x))
ONNX_LIGHT_UNARY_FN(AcoshF, std::acosh(x))
ONNX_LIGHT_UNARY_FN(AtanhF, std::atanh(x))
ONNX_LIGHT_UNARY_FN(RoundF, std::nearbyint(x))
ONNX_LIGHT_UNARY_FN(TanhF, std::tanh(x))
ONNX_LIGHT_UNARY_FN(SigmoidF,
                    x >= C(0) ? C(1) / (C(1) + std::exp(-x)) : std::exp(x) / (C(1) + std::exp(x)))
ONNX_LIGHT_UNARY_FN(ErfF, std::erf(x))
ONNX_LIGHT_UNARY_FN(SoftplusF, x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)))
ONNX_LIGHT_UNARY_FN(SoftsignF, x / (C(1) + std::fabs(x)))
ONNX_LIGHT_UNARY_FN(SignF, x > C(0) ? C(1) : (x < C(0) ? C(-1) : x))
ONNX_LIGHT_UNARY_FN(EluF, x >= C(0) ? x : C(p.a) * (std::exp(x) - C(1)))
ONNX_LIGHT_UNARY_FN(HardSigmoidF, std::fmax(C(0), std::fmin(C(1), C(p.a) * x + C(p.b))))
ONNX_LIGHT_UNARY_FN(HardSwishF, x* std::fmax(C(0), std::fmin(C(1), x / C(6) + C(0.5))))
ONNX_LIGHT_UNARY_FN(SeluF, x > C(0) ? C(p.b) * x : C(p.b) * (C(p.a) * std::exp(x) - C(p.a)))
ONNX_LIGHT_UNARY_FN(CeluF,
                    std::fmax(C(0), x) + std::fmin(C(0), C(p.a) * (std::exp(x / C(p.a)) - C(1))))
ONNX_LIGHT_UNARY_FN(ThresholdedReluF, x > C(p.a) ? x : C(0))
ONNX_LIGHT_UNARY_FN(SwishF, x / (C(1) + std::exp(-C(p.a) * x)))
ONNX_LIGHT_UNARY_FN(ShrinkF, x < -C(p.b) ? x + C(p.a) : (x > C(p.b) ? x - C(p.a) : C(0)))
ONNX_LIGHT_UNARY_FN(MishF,
                    x* std::tanh(x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x))))
#undef ONNX_LIGHT_UNARY_FN

#define SPEC(name, since, fn, a, da, b, db, int_op)                   \
  OpSpec {                                                            \
    name, since, &fn<float>, &fn<double>, a, da, b, db, IntOp::int_op \
  }

const OpSpec kSpecs[] = {
    SPEC("Abs", 6, AbsF, nullptr, 0, nullptr, 0, kAbs),
    SPEC("Neg", 6, NegF, nullptr, 0, nullptr, 0, kNeg),
    SPEC("Sign", 9, SignF, nullptr, 0, nullptr, 0, kSign),
    SPEC("Exp", 6, ExpF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Sqrt", 6, SqrtF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Reciprocal", 6, ReciprocalF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Floor", 6, FloorF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Ceil", 6, CeilF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Sin", 7, SinF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Cos", 7, CosF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Tan", 7, TanF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Acos", 7, AcosF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Asin", 7, AsinF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Atan", 7, AtanF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Sinh", 9, SinhF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Cosh", 9, CoshF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Asinh", 9, AsinhF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Acosh", 9, AcoshF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Atanh", 9, AtanhF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Round", 11, RoundF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Tanh", 6, TanhF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Sigmoid", 6, SigmoidF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Erf", 9, ErfF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Softplus", 1, SoftplusF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Softsign", 1, SoftsignF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Elu", 6, EluF, "alpha", 1.0f, nullptr, 0, kNone),
    SPEC("HardSigmoid", 6, HardSigmoidF, "alpha", 0.2f, "beta", 0.5f, kNone),
    SPEC("HardSwish", 14, HardSwishF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Selu", 6, SeluF, "alpha", 1.67326319217681884765625f, "gamma", 1.05070102214813232421875f,
         kNone),
    SPEC("Celu", 12, CeluF, "alpha", 1.0f, nullptr, 0, kNone),
    SPEC("ThresholdedRelu", 10, ThresholdedReluF, "alpha", 1.0f, nullptr, 0, kNone),
    SPEC("Shrink", 9, ShrinkF, "bias", 0.0f, "lambd", 0.5f, kNone),
    SPEC("Mish", 18, MishF, nullptr, 0, nullptr, 0, kNone),
    SPEC("Swish", 24, SwishF, "alpha", 1.0f, nullptr, 0, kNone),
};
#undef SPEC

const OpSpec& Find(const char* name) {
  for (const OpSpec& s : kSpecs) {
    if (std::string(s.name) == name) return s;
  }
  return kSpecs[0];
}

Status RegisterMath(KernelRegistry& r, const char* name) {
  const OpSpec& spec = Find(name);
  std::vector<DataType> types = FloatTypes();
  if (spec.int_op != IntOp::kNone) types = NumericTypes();
  KernelFactory factory = [&spec](const KernelInfo& info) -> Result<std::unique_ptr<KernelBase>> {
    Params p;
    if (spec.attr_a) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(p.a, info.GetFloat(spec.attr_a, spec.default_a));
    }
    if (spec.attr_b) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(p.b, info.GetFloat(spec.attr_b, spec.default_b));
    }
    // float32 ops with a vector form (simd/conv_simd.h).
    Activation simd;
    const std::string n = spec.name;
    if (n == "Tanh") simd = {ActivationKind::kTanh, 0, 0};
    if (n == "Sigmoid") simd = {ActivationKind::kSigmoid, 0, 0};
    if (n == "Exp") simd = {ActivationKind::kExp, 0, 0};
    if (n == "Erf") simd = {ActivationKind::kErf, 0, 0};
    if (n == "HardSigmoid") simd = {ActivationKind::kHardSigmoid, p.a, p.b};
    if (n == "HardSwish") simd = {ActivationKind::kHardSwish, 0, 0};
    if (n == "Swish") simd = {ActivationKind::kQuickGelu, p.a, 0};  // x * sigmoid(alpha x)
    static const std::pair<const char*, UnaryOpF32> kVec[] = {
        {"Sqrt", UnaryOpF32::kSqrt},
        {"Abs", UnaryOpF32::kAbs},
        {"Neg", UnaryOpF32::kNeg},
        {"Reciprocal", UnaryOpF32::kReciprocal},
        {"Floor", UnaryOpF32::kFloor},
        {"Ceil", UnaryOpF32::kCeil},
        {"Round", UnaryOpF32::kRound},
        {"Elu", UnaryOpF32::kElu},
        {"Selu", UnaryOpF32::kSelu},
        {"Celu", UnaryOpF32::kCelu},
        {"Softplus", UnaryOpF32::kSoftplus},
        {"Softsign", UnaryOpF32::kSoftsign},
        {"ThresholdedRelu", UnaryOpF32::kThresholdedRelu},
        {"Shrink", UnaryOpF32::kShrink},
        {"Sign", UnaryOpF32::kSign},
        {"Sin", UnaryOpF32::kSin},
        {"Cos", UnaryOpF32::kCos},
        {"Mish", UnaryOpF32::kMish},
        {"Asin", UnaryOpF32::kAsin},
        {"Acos", UnaryOpF32::kAcos},
        {"Atan", UnaryOpF32::kAtan},
    };
    int vec = -1;
    for (const auto& [vname, op] : kVec)
      if (n == vname) vec = static_cast<int>(op);
    return std::unique_ptr<KernelBase>(new MathUnary(spec.f, spec.d, p, spec.int_op, simd, vec));
  };
  return r.Register(UnaryDef("", spec.name, spec.since, std::move(types), std::move(factory)));
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Abs) {
  return RegisterMath(r, "Abs");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Neg) {
  return RegisterMath(r, "Neg");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Sign) {
  return RegisterMath(r, "Sign");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Exp) {
  return RegisterMath(r, "Exp");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Sqrt) {
  return RegisterMath(r, "Sqrt");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Reciprocal) {
  return RegisterMath(r, "Reciprocal");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Floor) {
  return RegisterMath(r, "Floor");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Ceil) {
  return RegisterMath(r, "Ceil");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Sin) {
  return RegisterMath(r, "Sin");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Cos) {
  return RegisterMath(r, "Cos");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Tan) {
  return RegisterMath(r, "Tan");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Acos) {
  return RegisterMath(r, "Acos");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Asin) {
  return RegisterMath(r, "Asin");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Atan) {
  return RegisterMath(r, "Atan");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Sinh) {
  return RegisterMath(r, "Sinh");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Cosh) {
  return RegisterMath(r, "Cosh");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Asinh) {
  return RegisterMath(r, "Asinh");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Acosh) {
  return RegisterMath(r, "Acosh");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Atanh) {
  return RegisterMath(r, "Atanh");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Round) {
  return RegisterMath(r, "Round");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Tanh) {
  return RegisterMath(r, "Tanh");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Sigmoid) {
  return RegisterMath(r, "Sigmoid");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Erf) {
  return RegisterMath(r, "Erf");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Softplus) {
  return RegisterMath(r, "Softplus");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Softsign) {
  return RegisterMath(r, "Softsign");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Elu) {
  return RegisterMath(r, "Elu");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, HardSigmoid) {
  return RegisterMath(r, "HardSigmoid");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, HardSwish) {
  return RegisterMath(r, "HardSwish");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Selu) {
  return RegisterMath(r, "Selu");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Celu) {
  return RegisterMath(r, "Celu");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ThresholdedRelu) {
  return RegisterMath(r, "ThresholdedRelu");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Shrink) {
  return RegisterMath(r, "Shrink");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Mish) {
  return RegisterMath(r, "Mish");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Swish) {
  return RegisterMath(r, "Swish");
}

}  // namespace onnx_light::kernels
