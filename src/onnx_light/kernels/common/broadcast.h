// numpy (multidirectional) broadcasting for element-wise kernels with two inputs.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "common/kernel_util.h"
#include "common/narrow_types.h"

namespace onnx_light::kernels {

// The broadcast output dimensions of two shapes, or an error naming the node.
inline Result<std::vector<int64_t>> BroadcastDims(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.rank() ? 1 : a[i - (rank - a.rank())];
    const int64_t db = i < rank - b.rank() ? 1 : b[i - (rank - b.rank())];
    ONNX_LIGHT_RETURN_IF(
        da != db && da != 1 && db != 1, kInvalidArgument,
        "shapes " + a.ToString() + " and " + b.ToString() + " cannot be broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Element strides of `s` aligned to the output rank, 0 on broadcast dimensions.
inline std::vector<int64_t> BroadcastStrides(const Shape& s, const std::vector<int64_t>& out) {
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

namespace broadcast_detail {

// The contiguous loops of BroadcastApply, each compiled (and vectorized) once per operation
// and type: a run of a against one value of b, one value of a against a run of b, runs of
// both. The equal-shape, single-element and blocked paths share them (a loop of their own
// each was five copies of the vector code per instantiation: 0.3 MB of the library over
// the comparisons, the arithmetic, Pow and Min/Max; the same speed, a call per block of at
// least 8 elements).
template <typename A, typename B, typename Out, typename F>
[[gnu::noinline]] void RunAV(const A* x, B v, Out* o, int64_t len, F f) {
  for (int64_t j = 0; j < len; ++j)
    o[j] = f(x[j], v);
}
template <typename A, typename B, typename Out, typename F>
[[gnu::noinline]] void RunVB(A v, const B* x, Out* o, int64_t len, F f) {
  for (int64_t j = 0; j < len; ++j)
    o[j] = f(v, x[j]);
}
template <typename A, typename B, typename Out, typename F>
[[gnu::noinline]] void RunAB(const A* x, const B* y, Out* o, int64_t len, F f) {
  for (int64_t j = 0; j < len; ++j)
    o[j] = f(x[j], y[j]);
}

}  // namespace broadcast_detail

// out[i] = f(a[ia], b[ib]) over the broadcast of a and b (y already allocated with `dims`).
// Fast paths for equal shapes and for either side holding one element.
template <typename A, typename B, typename Out, typename F>
void BroadcastApply(const A* pa, const Shape& sa, const B* pb, const Shape& sb, Out* out,
                    const std::vector<int64_t>& dims, ThreadPool* pool, F f) {
  using broadcast_detail::RunAB;
  using broadcast_detail::RunAV;
  using broadcast_detail::RunVB;
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  if (n == 0) return;
  const int64_t na = sa.num_elements(), nb = sb.num_elements();
  if (sa == sb || na == 1 || nb == 1) {
    ParallelElements(pool, n, [&](int64_t begin, int64_t end) {
      if (na == 1 && n != 1) {
        RunVB(pa[0], pb + begin, out + begin, end - begin, f);
      } else if (nb == 1 && n != 1) {
        RunAV(pa + begin, pb[0], out + begin, end - begin, f);
      } else {
        RunAB(pa + begin, pb + begin, out + begin, end - begin, f);
      }
    });
    return;
  }
  const std::vector<int64_t> st_a = BroadcastStrides(sa, dims);
  const std::vector<int64_t> st_b = BroadcastStrides(sb, dims);
  const size_t rank = dims.size();
  // One operand constant over a trailing block of the output and the other contiguous
  // over it (a per-channel scale or bias on [N, C, H, W], a row vector, the outer product
  // of a column and a row as in one-hot encodings): whole blocks against one value, the
  // blocks split across the pool.
  for (const bool a_full : {true, false}) {
    const std::vector<int64_t>& st_small = a_full ? st_b : st_a;
    const std::vector<int64_t>& st_full = a_full ? st_a : st_b;
    size_t t = rank;
    int64_t block = 1;
    bool dense = true;  // the full operand's strides over the block are contiguous
    while (t > 0 && st_small[t - 1] == 0) {
      --t;
      dense = dense && st_full[t] == block;
      block *= dims[t];
    }
    if (t == rank || block < 8 || !dense) continue;
    const int64_t blocks = n / block;
    auto body = [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        // Both operands' offsets for block k: their strides over dims[0 .. t).
        int64_t off = 0, off_full = 0, rest = k;
        for (size_t d = t; d-- > 0;) {
          off += rest % dims[d] * st_small[d];
          off_full += rest % dims[d] * st_full[d];
          rest /= dims[d];
        }
        if (a_full) {
          RunAV(pa + off_full, pb[off], out + k * block, block, f);
        } else {
          RunVB(pa[off], pb + off_full, out + k * block, block, f);
        }
      }
    };
    const int64_t min_blocks = std::max<int64_t>(1, (int64_t{1} << 16) / block);
    if (pool != nullptr && pool->threads() > 1 && blocks >= 2 * min_blocks) {
      pool->ParallelFor(blocks, min_blocks, body);
    } else {
      body(0, blocks);
    }
    return;
  }
  // Rows of the last dimension, split between threads: a row of 8 or more where each
  // operand is contiguous or constant along it (a [256, 1024] tensor against a [1024] row)
  // takes the vector loops above; short or strided rows (boxes of 4 against a row of 4
  // scales, where a call per row cost 3x) a loop of their own.
  const int64_t inner = dims[rank - 1];
  const int64_t ia = st_a[rank - 1], ib = st_b[rank - 1];
  const bool vector_rows = inner >= 8 && (ia == 0 || ia == 1) && (ib == 0 || ib == 1);
  auto rows = [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> idx(rank, 0);
    int64_t off_a = 0, off_b = 0, rest = r0;
    for (size_t d = rank - 1; d-- > 0;) {
      idx[d] = rest % dims[d];
      rest /= dims[d];
      off_a += idx[d] * st_a[d];
      off_b += idx[d] * st_b[d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      Out* o = out + r * inner;
      if (!vector_rows) {
        for (int64_t j = 0; j < inner; ++j)
          o[j] = f(pa[off_a + j * ia], pb[off_b + j * ib]);
      } else if (ia == 0) {
        RunVB(pa[off_a], pb + off_b, o, inner, f);
      } else if (ib == 0) {
        RunAV(pa + off_a, pb[off_b], o, inner, f);
      } else {
        RunAB(pa + off_a, pb + off_b, o, inner, f);
      }
      for (size_t d = rank - 1; d-- > 0;) {
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
  };
  ParallelElements(pool, n / inner, rows, std::max<int64_t>(1, (int64_t{1} << 15) / inner));
}

// Calls fn(T{}) with T the C++ type of `type` (numeric types and bool); false if none.
template <typename Fn>
bool DispatchNumeric(DataType type, Fn&& fn) {
  switch (type) {
    case DataType::kFloat:
      fn(float{});
      return true;
    case DataType::kDouble:
      fn(double{});
      return true;
    case DataType::kFloat16:
      fn(float16{});
      return true;
    case DataType::kBFloat16:
      fn(bfloat16{});
      return true;
    case DataType::kInt8:
      fn(int8_t{});
      return true;
    case DataType::kInt16:
      fn(int16_t{});
      return true;
    case DataType::kInt32:
      fn(int32_t{});
      return true;
    case DataType::kInt64:
      fn(int64_t{});
      return true;
    case DataType::kUint8:
      fn(uint8_t{});
      return true;
    case DataType::kUint16:
      fn(uint16_t{});
      return true;
    case DataType::kUint32:
      fn(uint32_t{});
      return true;
    case DataType::kUint64:
      fn(uint64_t{});
      return true;
    case DataType::kBool:
      fn(bool{});
      return true;
    default:
      return false;
  }
}

// The opset 1-6 broadcasting of the binary ops (Add ... Pow, the comparisons, And/Or/Xor):
// without `broadcast` the shapes must match; with it, B's dims line up with A's starting
// at `axis` (default: A's trailing dims) and B is viewed at A's rank. From opset 7 on, B
// is returned as it is (numpy broadcasting follows).
struct LegacyBroadcast {
  bool legacy = false, broadcast = false, has_axis = false;
  int64_t axis = 0;

  static Result<LegacyBroadcast> Read(const KernelInfo& info) {
    LegacyBroadcast l;
    l.legacy = info.opset() < 7;
    if (l.legacy) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(l.broadcast, GetFlag(info, "broadcast", false));
      l.has_axis = info.HasAttribute("axis");
      ONNX_LIGHT_ASSIGN_OR_RETURN(l.axis, info.GetInt("axis", 0));
    }
    return l;
  }

  Result<Tensor> B(const Tensor& a, const Tensor& b) const {
    if (!legacy) return b;
    if (!broadcast) {
      ONNX_LIGHT_RETURN_IF(a.shape() != b.shape(), kInvalidArgument,
                           "shapes " + a.shape().ToString() + " and " + b.shape().ToString() +
                               " differ and broadcast is 0");
      return b;
    }
    const auto ra = static_cast<int64_t>(a.shape().rank());
    const auto rb = static_cast<int64_t>(b.shape().rank());
    int64_t at = has_axis ? axis : ra - rb;
    if (at < 0) at += ra;
    bool fits = at >= 0 && at <= ra && rb <= ra - at;  // no at + rb: axis may be INT64_MAX
    for (int64_t i = 0; fits && i < rb; ++i) {
      const int64_t db = b.shape()[static_cast<size_t>(i)];
      fits = db == 1 || db == a.shape()[static_cast<size_t>(at + i)];
    }
    ONNX_LIGHT_RETURN_IF(!fits, kInvalidArgument,
                         "B " + b.shape().ToString() + " does not fit A " + a.shape().ToString() +
                             " at axis " + std::to_string(at));
    std::vector<int64_t> dims(static_cast<size_t>(ra), 1);
    for (int64_t i = 0; i < rb; ++i)
      dims[static_cast<size_t>(at + i)] = b.shape()[static_cast<size_t>(i)];
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims));
    return b.Reshaped(std::move(shape));
  }
};

// Base of the two-input ops with numpy broadcasting and the opset 1-6 `broadcast`/`axis`
// form (the arithmetic ops, Pow, the comparisons, And/Or/Xor): reads the legacy
// attributes once and prepares B, the output dims and output 0.
class BroadcastingBinary : public KernelBase {
 protected:
  template <typename K>
  static Result<std::unique_ptr<KernelBase>> CreateBroadcasting(const KernelInfo& info) {
    auto k = std::make_unique<K>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->legacy_, LegacyBroadcast::Read(info));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  struct Operands {
    Tensor b;                   // input 1, viewed at A's rank under the opset 1-6 rule
    std::vector<int64_t> dims;  // the broadcast output dims
    Tensor* y = nullptr;        // output 0, allocated
  };
  Result<Operands> Prepare(KernelContext& ctx) const {
    const Tensor& a = *ctx.input(0);
    Operands ops;
    ONNX_LIGHT_ASSIGN_OR_RETURN(ops.b, legacy_.B(a, *ctx.input(1)));
    ONNX_LIGHT_ASSIGN_OR_RETURN(ops.dims, BroadcastDims(a.shape(), ops.b.shape()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(ops.y, ctx.AllocateOutput(0, ops.dims));
    return ops;
  }

  LegacyBroadcast legacy_;
};

// Dispatches fn(T{}) for the four float types.
template <typename Fn>
void ForFloat(DataType t, Fn&& fn) {
  DispatchNumeric(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_integral_v<T>) fn(tag);
  });
}

// The values of a numeric tensor as double (empty for a null tensor); narrow types
// (float8, float4, 2/4-bit integers) included.
inline std::vector<double> ToDoubles(const Tensor* t) {
  std::vector<double> v;
  if (t == nullptr) return v;
  v.resize(static_cast<size_t>(t->num_elements()));
  if (IsNarrowType(t->dtype())) {
    const auto* p = static_cast<const uint8_t*>(t->raw_data());
    const int bits = DataTypeBitWidth(t->dtype());
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = NarrowToDouble(t->dtype(), NarrowCode(p, bits, static_cast<int64_t>(i)));
    return v;
  }
  DispatchNumeric(t->dtype(), [&](auto tag) {
    using S = decltype(tag);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<double>(t->data<S>()[i]);
  });
  return v;
}

// The arithmetic type a storage type computes in (16-bit floats compute in float).
template <typename T>
struct ComputeType {
  using type = T;
};
template <>
struct ComputeType<float16> {
  using type = float;
};
template <>
struct ComputeType<bfloat16> {
  using type = float;
};

// The unsigned integer type of an integer's width (bool: uint8); floats as they are. Kernels
// whose loops give the same bits for both signs of a width (wrapping Add/Sub/Mul, Equal,
// integer Casts) run on it, so the two share one instantiation.
template <typename T, typename = void>
struct UnsignedOf {
  using type = T;
};
template <typename T>
struct UnsignedOf<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  using type = std::make_unsigned_t<T>;
};
template <>
struct UnsignedOf<bool, void> {
  using type = uint8_t;
};

// A value in its compute type (16-bit floats as float).
template <typename T>
auto Widen(T v) {
  return static_cast<typename ComputeType<T>::type>(v);
}

}  // namespace onnx_light::kernels
