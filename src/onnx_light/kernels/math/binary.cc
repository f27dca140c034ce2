// Add, Sub, Mul, Div with numpy (multidirectional) broadcasting.
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

enum class Op { kAdd, kSub, kMul, kDiv };

// Integers wrap around (two's complement) instead of overflowing.
template <Op kOp, typename T>
inline T Apply(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // At least `unsigned` wide: uint16 * uint16 would otherwise promote to (signed) int
    // and overflow.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    if constexpr (kOp == Op::kAdd) return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    if constexpr (kOp == Op::kSub) return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
    if constexpr (kOp == Op::kMul) return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    if constexpr (kOp == Op::kDiv) {
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return static_cast<T>(U(0) - static_cast<U>(a));  // INT_MIN / -1 wraps
      }
      return static_cast<T>(a / b);
    }
  } else {
    if constexpr (kOp == Op::kAdd) return a + b;
    if constexpr (kOp == Op::kSub) return a - b;
    if constexpr (kOp == Op::kMul) return a * b;
    if constexpr (kOp == Op::kDiv) return a / b;
  }
}

// Storage type -> compute type (16-bit floats compute in float and round once).
template <typename T>
struct Compute {
  using type = T;
  static T In(T v) { return v; }
  static T Out(T v) { return v; }
};
template <>
struct Compute<float16> {
  using type = float;
  static float In(float16 v) { return static_cast<float>(v); }
  static float16 Out(float v) { return float16(v); }
};
template <>
struct Compute<bfloat16> {
  using type = float;
  static float In(bfloat16 v) { return static_cast<float>(v); }
  static bfloat16 Out(float v) { return bfloat16(v); }
};

// The type a storage type's values compute in: Add, Sub and Mul of a signed integer are
// those of the unsigned one of its width (both wrap around, bit for bit), so the two share
// one instantiation; Div differs by sign.
template <Op kOp, typename T>
using RunAs = std::conditional_t<kOp != Op::kDiv, typename UnsignedOf<T>::type, T>;

template <Op kOp, typename T>
Status Run(const Tensor& a, const Tensor& b, Tensor* y, const std::vector<int64_t>& dims,
           ThreadPool* pool) {
  using C = Compute<T>;
  const auto* pa = static_cast<const T*>(a.raw_data());
  const auto* pb = static_cast<const T*>(b.raw_data());
  T* out = static_cast<T*>(y->mutable_raw_data());
  if constexpr (kOp == Op::kDiv && std::is_integral_v<T>) {
    for (int64_t i = 0; i < b.num_elements(); ++i) {
      ONNX_LIGHT_RETURN_IF(pb[i] == T(0), kInvalidArgument, "integer division by zero");
    }
  }
  BroadcastApply(pa, a.shape(), pb, b.shape(), out, dims, pool,
                 [](T u, T v) { return C::Out(Apply<kOp>(C::In(u), C::In(v))); });
  return Status::Ok();
}

// float16: both operands widened to float32 in vector code (F16C where the CPU has it),
// the float32 operation, the result rounded once to float16 (nearest-even, as float16(v)
// rounds): the same values as the per-element conversions, which ran 9.9x ORT's time.
// Equal shapes and a single-element side go in blocks of 2k elements through stack
// buffers, split between threads (no tensor-sized temporaries: whole widened copies of
// both operands and the result cost 3x ORT's time at two threads); other broadcasts
// widen both operands whole and take the float32 broadcast.
template <Op kOp>
Status RunFloat16(const Tensor& a, const Tensor& b, Tensor* y, const std::vector<int64_t>& dims,
                  ThreadPool* pool) {
  const auto* ba = static_cast<const uint16_t*>(a.raw_data());
  const auto* bb = static_cast<const uint16_t*>(b.raw_data());
  auto* out = static_cast<uint16_t*>(y->mutable_raw_data());
  const int64_t n = y->num_elements(), na = a.num_elements(), nb = b.num_elements();
  const auto f = [](float u, float v) { return Apply<kOp>(u, v); };
  if (a.shape() == b.shape() || na == 1 || nb == 1) {
    constexpr int64_t kBlock = 2048;
    float one_a = 0.0f, one_b = 0.0f;
    if (na == 1) Float16ToFloat32(ba, &one_a, 1);
    if (nb == 1) Float16ToFloat32(bb, &one_b, 1);
    ParallelElements(
        pool, (n + kBlock - 1) / kBlock,
        [&](int64_t k0, int64_t k1) {
          alignas(64) float wa[kBlock], wb[kBlock];
          for (int64_t k = k0; k < k1; ++k) {
            const int64_t i0 = k * kBlock, len = std::min(kBlock, n - i0);
            const auto m = static_cast<size_t>(len);
            if (na != 1 || n == 1) Float16ToFloat32(ba + i0, wa, m);
            if (nb != 1 || n == 1) Float16ToFloat32(bb + i0, wb, m);
            if (na == 1 && n != 1) {
              broadcast_detail::RunVB(one_a, wb, wa, len, f);
            } else if (nb == 1 && n != 1) {
              broadcast_detail::RunAV(wa, one_b, wa, len, f);
            } else {
              broadcast_detail::RunAB(wa, wb, wa, len, f);
            }
            Float32ToFloat16(wa, out + i0, m);
          }
        },
        int64_t{4});
    return Status::Ok();
  }
  auto widen = [pool](const Tensor& t) {
    std::vector<float> w(static_cast<size_t>(t.num_elements()));
    const auto* bits = static_cast<const uint16_t*>(t.raw_data());
    ParallelElements(pool, t.num_elements(), [&](int64_t i0, int64_t i1) {
      Float16ToFloat32(bits + i0, w.data() + i0, static_cast<size_t>(i1 - i0));
    });
    return w;
  };
  const std::vector<float> fa = widen(a), fb = widen(b);
  std::vector<float> fy(static_cast<size_t>(n));
  BroadcastApply(fa.data(), a.shape(), fb.data(), b.shape(), fy.data(), dims, pool, f);
  ParallelElements(pool, n, [&](int64_t i0, int64_t i1) {
    Float32ToFloat16(fy.data() + i0, out + i0, static_cast<size_t>(i1 - i0));
  });
  return Status::Ok();
}

template <Op kOp>
class Binary : public BroadcastingBinary {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    return CreateBroadcasting<Binary>(info);
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Operands ops, Prepare(ctx));
    const Tensor& b = ops.b;
    const std::vector<int64_t>& dims = ops.dims;
    Tensor* y = ops.y;
    if (y->num_elements() == 0) return Status::Ok();
    ThreadPool* pool = ctx.thread_pool();
    switch (a.dtype()) {
      case DataType::kFloat:
        return Run<kOp, float>(a, b, y, dims, pool);
      case DataType::kDouble:
        return Run<kOp, double>(a, b, y, dims, pool);
      case DataType::kFloat16:
        return RunFloat16<kOp>(a, b, y, dims, pool);
      case DataType::kBFloat16:
        return Run<kOp, bfloat16>(a, b, y, dims, pool);
      case DataType::kInt8:
        return Run<kOp, RunAs<kOp, int8_t>>(a, b, y, dims, pool);
      case DataType::kInt16:
        return Run<kOp, RunAs<kOp, int16_t>>(a, b, y, dims, pool);
      case DataType::kInt32:
        return Run<kOp, RunAs<kOp, int32_t>>(a, b, y, dims, pool);
      case DataType::kInt64:
        return Run<kOp, RunAs<kOp, int64_t>>(a, b, y, dims, pool);
      case DataType::kUint8:
        return Run<kOp, uint8_t>(a, b, y, dims, pool);
      case DataType::kUint16:
        return Run<kOp, uint16_t>(a, b, y, dims, pool);
      case DataType::kUint32:
        return Run<kOp, uint32_t>(a, b, y, dims, pool);
      case DataType::kUint64:
        return Run<kOp, uint64_t>(a, b, y, dims, pool);
      default:
        return Status(StatusCode::kInternal, "unexpected type");
    }
  }
};

template <Op kOp>
KernelDef BinaryDef(const char* op) {
  KernelDef def;
  def.op_type = op;
  def.since_version = 1;  // opset 1-6: the legacy broadcast attribute
  def.constraints = {{"T", {0, 1}, {0}, NumericTypes()}};
  def.create = FactoryOf<Binary<kOp>>();
  return def;
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Add) {
  return r.Register(BinaryDef<Op::kAdd>("Add"));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Sub) {
  return r.Register(BinaryDef<Op::kSub>("Sub"));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Mul) {
  return r.Register(BinaryDef<Op::kMul>("Mul"));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Div) {
  return r.Register(BinaryDef<Op::kDiv>("Div"));
}

}  // namespace onnx_light::kernels
