// Cast between the numeric types and bool. Float -> integer conversions truncate toward
// zero and saturate at the type's range; NaN becomes 0 (ONNX leaves these undefined; C++
// would make them undefined behaviour). Values go through float64 (or int64/uint64 for
// integer -> integer), so every conversion rounds at most once into the destination.
// The float8, float4 and 2/4-bit integer types go element by element through
// narrow_types.h (its comment states their rounding, saturation and wrapping rules).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/narrow_types.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

template <typename T>
struct Wide {  // the value of one element, widened
  static double Get(T v) { return static_cast<double>(v); }
};
template <>
struct Wide<float16> {
  static double Get(float16 v) { return static_cast<double>(v); }
};
template <>
struct Wide<bfloat16> {
  static double Get(bfloat16 v) { return static_cast<double>(v); }
};

template <typename Dst>
Dst FromDouble(double v) {
  if constexpr (std::is_same_v<Dst, bool>) {
    return v != 0.0;  // NaN -> true, as static_cast<bool> does
  } else if constexpr (std::is_same_v<Dst, float16> || std::is_same_v<Dst, bfloat16>) {
    return Dst(v);
  } else if constexpr (std::is_floating_point_v<Dst>) {
    return static_cast<Dst>(v);
  } else {
    if (std::isnan(v)) return Dst(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<Dst>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<Dst>::max());
    if (v <= lo) return std::numeric_limits<Dst>::min();
    if (v >= hi) return std::numeric_limits<Dst>::max();
    return static_cast<Dst>(v);
  }
}

template <typename Src, typename Dst>
void CastLoop(const Src* in, Dst* out, int64_t n) {
  // float <-> float16: the vector conversions (F16C) where the CPU has them, bit for bit
  // the core's; through double, element by element, 1M floats took 11 ms (ORT 0.16).
  if constexpr (std::is_same_v<Src, float> && std::is_same_v<Dst, float16>) {
    Float32ToFloat16(in, reinterpret_cast<uint16_t*>(out), static_cast<size_t>(n));
    return;
  } else if constexpr (std::is_same_v<Src, float16> && std::is_same_v<Dst, float>) {
    Float16ToFloat32(reinterpret_cast<const uint16_t*>(in), out, static_cast<size_t>(n));
    return;
  } else if constexpr (std::is_same_v<Src, int64_t> && std::is_same_v<Dst, float>) {
    Int64ToFloat32(in, out, static_cast<size_t>(n));  // the baseline has no vector form
    return;
  } else if constexpr (std::is_same_v<Src, float> && std::is_same_v<Dst, int64_t>) {
    Float32ToInt64(in, out, static_cast<size_t>(n));
    return;
  }
  if constexpr (std::is_same_v<Src, bool> && std::is_floating_point_v<Dst>) {
    // bool as its byte (0 or 1): a conversion the compiler vectorizes (through bool it
    // does not).
    const auto* bytes = reinterpret_cast<const uint8_t*>(in);
    for (int64_t i = 0; i < n; ++i)
      out[i] = static_cast<Dst>(bytes[i]);
    return;
  }
  constexpr bool kIntToInt =
      std::is_integral_v<Src> && std::is_integral_v<Dst> && !std::is_same_v<Dst, bool>;
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<Src, Dst>) {
      out[i] = in[i];
    } else if constexpr (kIntToInt) {
      out[i] = static_cast<Dst>(in[i]);  // two's complement wrap, as ONNX/numpy do
    } else if constexpr ((std::is_integral_v<Src> && sizeof(Src) <= 4 &&
                          std::is_floating_point_v<Dst>) ||
                         (std::is_floating_point_v<Src> && std::is_floating_point_v<Dst>)) {
      // bool and integers up to 32 bits to float or double, and float <-> double: one
      // rounding either way, the same value as through double, in a loop that vectorizes.
      out[i] = static_cast<Dst>(in[i]);
    } else if constexpr (std::is_integral_v<Src> && !std::is_same_v<Src, bool> &&
                         sizeof(Src) == 8) {
      // int64/uint64 -> float: convert directly so large values round once.
      if constexpr (std::is_same_v<Dst, bool>) {
        out[i] = in[i] != 0;
      } else if constexpr (std::is_same_v<Dst, float16> || std::is_same_v<Dst, bfloat16>) {
        out[i] = Dst(static_cast<double>(in[i]));
      } else {
        out[i] = static_cast<Dst>(in[i]);
      }
    } else {
      out[i] = FromDouble<Dst>(Wide<Src>::Get(in[i]));
    }
  }
}

template <typename S, typename D>
void CastParallel(const void* in, void* out, int64_t n, ThreadPool* pool) {
  ParallelElements(pool, n,
                   [x = static_cast<const S*>(in), y = static_cast<D*>(out)](int64_t b, int64_t e) {
                     CastLoop(x + b, y + b, e - b);
                   });
}

// A cast between integers (bool included) runs on the types whose loop gives the same bits:
// the destination's bits do not depend on its signedness (two's complement wrap), nor the
// source's where it narrows or keeps its width (bool reads as its byte, 0 or 1); a cast
// between types of one width is a copy. To bool, any integer tests != 0 as its unsigned
// twin. 22 compiled loops for the 81 pairs of integers and bool.
template <typename Src, typename Dst>
void CastAs(const void* in, void* out, int64_t n, ThreadPool* pool) {
  constexpr bool kIntegers = std::is_integral_v<Src> && std::is_integral_v<Dst>;
  if constexpr (kIntegers && std::is_same_v<Dst, bool>) {
    CastParallel<typename UnsignedOf<Src>::type, bool>(in, out, n, pool);
  } else if constexpr (kIntegers) {
    using D = typename UnsignedOf<Dst>::type;
    using S = std::conditional_t<(sizeof(Src) >= sizeof(Dst)) || std::is_same_v<Src, bool>,
                                 typename UnsignedOf<Src>::type, Src>;
    if constexpr (sizeof(S) == sizeof(D)) {
      if (n != 0) std::memcpy(out, in, static_cast<size_t>(n) * sizeof(D));
    } else {
      CastParallel<S, D>(in, out, n, pool);
    }
  } else {
    CastParallel<Src, Dst>(in, out, n, pool);
  }
}

template <typename Src>
Status CastFrom(const Tensor& x, Tensor* y, ThreadPool* pool) {
  const void* in = x.raw_data();
  void* out = y->mutable_raw_data();
  const int64_t n = x.num_elements();
  switch (y->dtype()) {
#define ONNX_LIGHT_CAST_CASE_(Type, Cpp) \
  case DataType::Type:                   \
    CastAs<Src, Cpp>(in, out, n, pool);  \
    return Status::Ok();
    ONNX_LIGHT_CAST_CASE_(kFloat, float)
    ONNX_LIGHT_CAST_CASE_(kDouble, double)
    ONNX_LIGHT_CAST_CASE_(kFloat16, float16)
    ONNX_LIGHT_CAST_CASE_(kBFloat16, bfloat16)
    ONNX_LIGHT_CAST_CASE_(kInt8, int8_t)
    ONNX_LIGHT_CAST_CASE_(kInt16, int16_t)
    ONNX_LIGHT_CAST_CASE_(kInt32, int32_t)
    ONNX_LIGHT_CAST_CASE_(kInt64, int64_t)
    ONNX_LIGHT_CAST_CASE_(kUint8, uint8_t)
    ONNX_LIGHT_CAST_CASE_(kUint16, uint16_t)
    ONNX_LIGHT_CAST_CASE_(kUint32, uint32_t)
    ONNX_LIGHT_CAST_CASE_(kUint64, uint64_t)
    ONNX_LIGHT_CAST_CASE_(kBool, bool)
#undef ONNX_LIGHT_CAST_CASE_
    default:
      return Status(StatusCode::kInternal, "Cast: unexpected destination type");
  }
}

std::vector<DataType> CastTypes() {
  std::vector<DataType> types = NumericTypes();
  types.push_back(DataType::kBool);
  types.insert(types.end(), NarrowTypes().begin(), NarrowTypes().end());
  return types;
}

// Calls fn(i, value) for every element of x, as double.
template <typename Fn>
void ForEachAsDouble(const Tensor& x, Fn fn) {
  const int64_t n = x.num_elements();
  if (IsNarrowType(x.dtype())) {
    const auto* p = static_cast<const uint8_t*>(x.raw_data());
    const int bits = DataTypeBitWidth(x.dtype());
    for (int64_t i = 0; i < n; ++i)
      fn(i, NarrowToDouble(x.dtype(), NarrowCode(p, bits, i)));
  } else if (x.dtype() == DataType::kBool) {
    for (int64_t i = 0; i < n; ++i)
      fn(i, x.data<bool>()[i] ? 1.0 : 0.0);
  } else {
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using S = decltype(tag);
      const S* in = x.data<S>();
      for (int64_t i = 0; i < n; ++i)
        fn(i, Wide<S>::Get(in[i]));
    });
  }
}

// A Cast from or to a narrow type, one element at a time through double.
Status CastNarrow(const Tensor& x, Tensor* y, bool saturate, E8M0Rounding rounding) {
  const DataType to = y->dtype();
  if (IsNarrowType(to)) {
    auto* out = static_cast<uint8_t*>(y->mutable_raw_data());
    if (y->byte_size() != 0) std::memset(out, 0, y->byte_size());  // padding bits stay 0
    const int bits = DataTypeBitWidth(to);
    ForEachAsDouble(x, [&](int64_t i, double v) {
      SetNarrowCode(out, bits, i, DoubleToNarrow(to, v, saturate, rounding));
    });
    return Status::Ok();
  }
  if (to == DataType::kBool) {
    bool* out = y->mutable_data<bool>();
    ForEachAsDouble(x, [&](int64_t i, double v) { out[i] = FromDouble<bool>(v); });
    return Status::Ok();
  }
  DispatchNumeric(to, [&](auto tag) {
    using D = decltype(tag);
    D* out = y->mutable_data<D>();
    ForEachAsDouble(x, [&](int64_t i, double v) { out[i] = FromDouble<D>(v); });
  });
  return Status::Ok();
}

class Cast : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Cast>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->saturate_, GetFlag(info, "saturate", true));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string mode, info.GetString("round_mode", "up"));
    if (mode == "up") {
      k->rounding_ = E8M0Rounding::kUp;
    } else if (mode == "down") {
      k->rounding_ = E8M0Rounding::kDown;
    } else if (mode == "nearest") {
      k->rounding_ = E8M0Rounding::kNearest;
    } else {
      return Status(StatusCode::kInvalidModel,
                    "round_mode '" + mode + "' is not one of up, down, nearest");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    if (IsNarrowType(x.dtype()) || IsNarrowType(y->dtype())) {
      if (x.dtype() == y->dtype()) {
        if (x.byte_size() != 0) std::memcpy(y->mutable_raw_data(), x.raw_data(), x.byte_size());
        return Status::Ok();
      }
      return CastNarrow(x, y, saturate_, rounding_);
    }
    switch (x.dtype()) {
      case DataType::kFloat:
        return CastFrom<float>(x, y, ctx.thread_pool());
      case DataType::kDouble:
        return CastFrom<double>(x, y, ctx.thread_pool());
      case DataType::kFloat16:
        return CastFrom<float16>(x, y, ctx.thread_pool());
      case DataType::kBFloat16:
        return CastFrom<bfloat16>(x, y, ctx.thread_pool());
      case DataType::kInt8:
        return CastFrom<int8_t>(x, y, ctx.thread_pool());
      case DataType::kInt16:
        return CastFrom<int16_t>(x, y, ctx.thread_pool());
      case DataType::kInt32:
        return CastFrom<int32_t>(x, y, ctx.thread_pool());
      case DataType::kInt64:
        return CastFrom<int64_t>(x, y, ctx.thread_pool());
      case DataType::kUint8:
        return CastFrom<uint8_t>(x, y, ctx.thread_pool());
      case DataType::kUint16:
        return CastFrom<uint16_t>(x, y, ctx.thread_pool());
      case DataType::kUint32:
        return CastFrom<uint32_t>(x, y, ctx.thread_pool());
      case DataType::kUint64:
        return CastFrom<uint64_t>(x, y, ctx.thread_pool());
      case DataType::kBool:
        return CastFrom<bool>(x, y, ctx.thread_pool());
      default:
        return Status(StatusCode::kInternal, "Cast: unexpected source type");
    }
  }

 private:
  bool saturate_ = true;
  E8M0Rounding rounding_ = E8M0Rounding::kUp;
};

// BitCast (opset 26): the same bits as type `to`, which must have the input's bit width.
class BitCast : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new BitCast());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const DataType to = ctx.info().output_type(0);
    ONNX_LIGHT_RETURN_IF(DataTypeBitWidth(x.dtype()) != DataTypeBitWidth(to), kInvalidArgument,
                         "BitCast needs equal bit widths, " + std::string(DataTypeName(x.dtype())) +
                             " has " + std::to_string(DataTypeBitWidth(x.dtype())) + " and " +
                             DataTypeName(to) + " " + std::to_string(DataTypeBitWidth(to)));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    if (x.byte_size() != 0) std::memcpy(y->mutable_raw_data(), x.raw_data(), x.byte_size());
    return Status::Ok();
  }
};

// The output type is the `to` attribute.
Status CastOutputType(const onnx::NodeProto& node, int, const std::vector<DataType>&,
                      std::vector<DataType>* outputs, const NodeSubgraphs&) {
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() != "to") continue;
    ONNX_LIGHT_RETURN_IF(a.type.get() != static_cast<int32_t>(onnx::AttributeType::kInt),
                         kInvalidModel, "attribute 'to' must be an INT");
    Result<DataType> to = DataTypeFromInt(static_cast<int32_t>(a.i.get()));
    if (!to.ok()) return to.status().WithContext("attribute 'to'");
    const std::vector<DataType> types = CastTypes();
    ONNX_LIGHT_RETURN_IF(std::find(types.begin(), types.end(), *to) == types.end(), kNotImplemented,
                         std::string("Cast to ") + DataTypeName(*to) +
                             " is not supported (supported: " + TypeList(types) + ")");
    (*outputs)[0] = *to;
    return Status::Ok();
  }
  return Status(StatusCode::kInvalidModel, "required attribute 'to' is missing");
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Cast) {
  KernelDef def;
  def.op_type = "Cast";
  def.since_version = 6;
  def.constraints = {{"T1", {0}, {}, CastTypes()}, {"T2", {}, {0}, CastTypes()}};
  def.create = FactoryOf<Cast>();
  def.output_types = &CastOutputType;
  return r.Register(std::move(def));
}

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, BitCast) {
  KernelDef def;
  def.op_type = "BitCast";
  def.since_version = 26;
  def.constraints = {{"T1", {0}, {}, CastTypes()}, {"T2", {}, {0}, CastTypes()}};
  def.create = FactoryOf<BitCast>();
  def.output_types = &CastOutputType;
  return r.Register(std::move(def));
}

// CastLike (opset 15): Cast to the type of input 1 (whose values are not read).
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, CastLike) {
  KernelDef def;
  def.op_type = "CastLike";
  def.since_version = 15;
  def.constraints = {{"T1", {0}, {}, CastTypes()}, {"T2", {1}, {0}, CastTypes()}};
  def.create = FactoryOf<Cast>();
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
