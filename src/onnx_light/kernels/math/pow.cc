// Pow with numpy broadcasting: floats through std::pow, integers exact and wrapping.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/saturate.h"

namespace onnx_light::kernels {
namespace {

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

// The exponents of b as E (int64, uint64 or double: Widen's value converted).
template <typename E>
std::vector<E> ExponentsAs(const Tensor& b) {
  std::vector<E> out(static_cast<size_t>(b.num_elements()));
  DispatchNumeric(b.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* p = b.data<T>();
      for (size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<E>(Widen(p[i]));
    }
  });
  return out;
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
    const double e = b.num_elements() == 1 ? ToDoubles(&b)[0] : 0.0;
    if (a.dtype() == DataType::kFloat && a.shape() == y->shape() && (e == 2.0 || e == 3.0)) {
      // x^2 (RMS and layer norms) and x^3 (the tanh form of GELU) as products: x * x is
      // what powf rounds to; x * x * x in double rounds once to float (x * x is exact in
      // double), powf's value but for the rare double rounding. Loops that vectorize.
      const float* x = a.data<float>();
      float* out = y->mutable_data<float>();
      ParallelElements(ctx.thread_pool(), a.num_elements(), [&](int64_t i0, int64_t i1) {
        if (e == 2.0) {
          for (int64_t i = i0; i < i1; ++i)
            out[i] = x[i] * x[i];
        } else {
          for (int64_t i = i0; i < i1; ++i) {
            const double v = x[i];
            out[i] = static_cast<float>(v * v * v);
          }
        }
      });
      return Status::Ok();
    }
    // The exponent read as one of three types, the values unchanged: double for a floating
    // exponent (each base reads it as its compute type, as before), int64 or uint64 for an
    // integer one (exact). 11 bases x 3 instantiations of the broadcast loop instead of
    // 11 x 11 (pow.cc was 0.8 MB of the library).
    switch (b.dtype()) {
      case DataType::kFloat16:
      case DataType::kBFloat16:
      case DataType::kFloat:
      case DataType::kDouble:
        Apply(ctx, a, ExponentsAs<double>(b), b.shape(), dims, y);
        break;
      case DataType::kUint8:
      case DataType::kUint16:
      case DataType::kUint32:
      case DataType::kUint64:
        Apply(ctx, a, ExponentsAs<uint64_t>(b), b.shape(), dims, y);
        break;
      default:
        Apply(ctx, a, ExponentsAs<int64_t>(b), b.shape(), dims, y);
    }
    return Status::Ok();
  }

 private:
  template <typename E>
  static void Apply(KernelContext& ctx, const Tensor& a, const std::vector<E>& e,
                    const Shape& e_shape, const std::vector<int64_t>& dims, Tensor* y) {
    DispatchNumeric(a.dtype(), [&](auto base_tag) {
      using T = decltype(base_tag);
      if constexpr (!std::is_same_v<T, bool>) {
        BroadcastApply(a.data<T>(), a.shape(), e.data(), e_shape, y->mutable_data<T>(), dims,
                       ctx.thread_pool(), [](T u, E v) {
                         if constexpr (std::is_integral_v<T> && std::is_integral_v<E>) {
                           return IntPow(u, v);
                         } else if constexpr (std::is_integral_v<T>) {
                           return SaturatingInt<T>(std::pow(static_cast<double>(u), v));
                         } else {
                           using C = typename ComputeType<T>::type;
                           return T(std::pow(static_cast<C>(u), static_cast<C>(v)));
                         }
                       });
      }
    });
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Pow) {
  return r.Register(Def("Pow", 1,  // opset 1-6: the legacy broadcast attribute
                        {{"T", {0}, {0}, NumericTypes()}, {"T1", {1}, {}, NumericTypes()}},
                        FactoryOf<Pow>()));
}

}  // namespace onnx_light::kernels
