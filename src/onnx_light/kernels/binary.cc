// Add, Sub, Mul, Div with numpy (multidirectional) broadcasting.
#include <type_traits>

#include "kernel_util.h"

namespace onnx_light::kernels {
namespace {

enum class Op { kAdd, kSub, kMul, kDiv };

// Integers wrap around (two's complement) instead of overflowing.
template <Op kOp, typename T>
inline T Apply(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
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

Result<std::vector<int64_t>> BroadcastDims(const Shape& a, const Shape& b, const KernelInfo& info) {
  const size_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.rank() ? 1 : a[i - (rank - a.rank())];
    const int64_t db = i < rank - b.rank() ? 1 : b[i - (rank - b.rank())];
    if (da != db && da != 1 && db != 1) {
      return Status(StatusCode::kInvalidArgument, info.Describe() + ": shapes " + a.ToString() +
                                                      " and " + b.ToString() +
                                                      " cannot be broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Element strides of `s` aligned to the output rank, 0 on broadcast dimensions.
std::vector<int64_t> BroadcastStrides(const Shape& s, const std::vector<int64_t>& out) {
  const size_t rank = out.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t k = s.rank(); k-- > 0;) {
    const size_t i = k + (rank - s.rank());
    strides[i] = s[k] == 1 ? 0 : stride;
    stride *= s[k];
  }
  return strides;
}

template <Op kOp, typename T>
Status Run(const Tensor& a, const Tensor& b, Tensor* y, const std::vector<int64_t>& dims,
           ThreadPool* pool) {
  using C = Compute<T>;
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* out = y->mutable_data<T>();
  const int64_t n = y->num_elements();
  if constexpr (kOp == Op::kDiv && std::is_integral_v<T>) {
    for (int64_t i = 0; i < b.num_elements(); ++i) {
      if (pb[i] == T(0)) {
        return Status(StatusCode::kInvalidArgument, "integer division by zero");
      }
    }
  }
  if (a.shape() == b.shape() || a.num_elements() == 1 || b.num_elements() == 1) {
    const bool sa = a.num_elements() == 1 && n != 1;
    const bool sb = b.num_elements() == 1 && n != 1;
    ParallelElements(pool, n, [&](int64_t begin, int64_t end) {
      if (sa) {
        const auto va = C::In(pa[0]);
        for (int64_t i = begin; i < end; ++i)
          out[i] = C::Out(Apply<kOp>(va, C::In(pb[i])));
      } else if (sb) {
        const auto vb = C::In(pb[0]);
        for (int64_t i = begin; i < end; ++i)
          out[i] = C::Out(Apply<kOp>(C::In(pa[i]), vb));
      } else {
        for (int64_t i = begin; i < end; ++i) {
          out[i] = C::Out(Apply<kOp>(C::In(pa[i]), C::In(pb[i])));
        }
      }
    });
    return Status::Ok();
  }
  // General broadcast: walk the output with an index counter; the innermost dimension is
  // a strided loop.
  const std::vector<int64_t> st_a = BroadcastStrides(a.shape(), dims);
  const std::vector<int64_t> st_b = BroadcastStrides(b.shape(), dims);
  const size_t rank = dims.size();
  const int64_t inner = dims[rank - 1];
  const int64_t ia = st_a[rank - 1], ib = st_b[rank - 1];
  std::vector<int64_t> idx(rank, 0);
  int64_t off_a = 0, off_b = 0;
  for (int64_t base = 0; base < n; base += inner) {
    for (int64_t j = 0; j < inner; ++j) {
      out[base + j] = C::Out(Apply<kOp>(C::In(pa[off_a + j * ia]), C::In(pb[off_b + j * ib])));
    }
    for (size_t d = rank - 1; d-- > 0;) {  // advance the outer index
      if (++idx[d] < dims[d]) {
        off_a += st_a[d];
        off_b += st_b[d];
        break;
      }
      off_a -= st_a[d] * (dims[d] - 1);
      off_b -= st_b[d] * (dims[d] - 1);
      idx[d] = 0;
    }
  }
  return Status::Ok();
}

template <Op kOp>
class Binary : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Binary());
  }
  Status Compute(KernelContext& ctx) override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(1);
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                                BroadcastDims(a.shape(), b.shape(), ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    if (y->num_elements() == 0) return Status::Ok();
    ThreadPool* pool = ctx.thread_pool();
    switch (a.dtype()) {
      case DataType::kFloat:
        return Run<kOp, float>(a, b, y, dims, pool);
      case DataType::kDouble:
        return Run<kOp, double>(a, b, y, dims, pool);
      case DataType::kFloat16:
        return Run<kOp, float16>(a, b, y, dims, pool);
      case DataType::kBFloat16:
        return Run<kOp, bfloat16>(a, b, y, dims, pool);
      case DataType::kInt8:
        return Run<kOp, int8_t>(a, b, y, dims, pool);
      case DataType::kInt16:
        return Run<kOp, int16_t>(a, b, y, dims, pool);
      case DataType::kInt32:
        return Run<kOp, int32_t>(a, b, y, dims, pool);
      case DataType::kInt64:
        return Run<kOp, int64_t>(a, b, y, dims, pool);
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
  def.since_version = 7;
  def.constraints = {{"T", {0, 1}, {0}, NumericTypes()}};
  def.create = FactoryOf<Binary<kOp>>();
  return def;
}

}  // namespace

Status RegisterKernel_ai_onnx_Add(KernelRegistry& r) {
  return r.Register(BinaryDef<Op::kAdd>("Add"));
}
Status RegisterKernel_ai_onnx_Sub(KernelRegistry& r) {
  return r.Register(BinaryDef<Op::kSub>("Sub"));
}
Status RegisterKernel_ai_onnx_Mul(KernelRegistry& r) {
  return r.Register(BinaryDef<Op::kMul>("Mul"));
}
Status RegisterKernel_ai_onnx_Div(KernelRegistry& r) {
  return r.Register(BinaryDef<Op::kDiv>("Div"));
}

}  // namespace onnx_light::kernels
