// Cast between the numeric types and bool. Float -> integer conversions truncate toward
// zero and saturate at the type's range; NaN becomes 0 (ONNX leaves these undefined; C++
// would make them undefined behaviour). Values go through float64 (or int64/uint64 for
// integer -> integer), so every conversion rounds at most once into the destination.
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernel_util.h"

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
  constexpr bool kIntToInt =
      std::is_integral_v<Src> && std::is_integral_v<Dst> && !std::is_same_v<Dst, bool>;
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<Src, Dst>) {
      out[i] = in[i];
    } else if constexpr (kIntToInt) {
      out[i] = static_cast<Dst>(in[i]);  // two's complement wrap, as ONNX/numpy do
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

template <typename Src>
Status CastFrom(const Tensor& x, Tensor* y) {
  const Src* in = x.data<Src>();
  const int64_t n = x.num_elements();
  switch (y->dtype()) {
#define ONNX_LIGHT_CAST_CASE_(Type, Cpp)     \
  case DataType::Type:                       \
    CastLoop(in, y->mutable_data<Cpp>(), n); \
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
  return types;
}

class Cast : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Cast());
  }
  Status Compute(KernelContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    switch (x.dtype()) {
      case DataType::kFloat:
        return CastFrom<float>(x, y);
      case DataType::kDouble:
        return CastFrom<double>(x, y);
      case DataType::kFloat16:
        return CastFrom<float16>(x, y);
      case DataType::kBFloat16:
        return CastFrom<bfloat16>(x, y);
      case DataType::kInt8:
        return CastFrom<int8_t>(x, y);
      case DataType::kInt16:
        return CastFrom<int16_t>(x, y);
      case DataType::kInt32:
        return CastFrom<int32_t>(x, y);
      case DataType::kInt64:
        return CastFrom<int64_t>(x, y);
      case DataType::kUint8:
        return CastFrom<uint8_t>(x, y);
      case DataType::kUint16:
        return CastFrom<uint16_t>(x, y);
      case DataType::kUint32:
        return CastFrom<uint32_t>(x, y);
      case DataType::kUint64:
        return CastFrom<uint64_t>(x, y);
      case DataType::kBool:
        return CastFrom<bool>(x, y);
      default:
        return Status(StatusCode::kInternal, "Cast: unexpected source type");
    }
  }
};

// The output type is the `to` attribute.
Status CastOutputType(const onnx::NodeProto& node, int, const std::vector<DataType>&,
                      std::vector<DataType>* outputs) {
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() != "to") continue;
    if (a.type.get() != static_cast<int32_t>(onnx::AttributeType::kInt)) {
      return Status(StatusCode::kInvalidModel, "attribute 'to' must be an INT");
    }
    Result<DataType> to = DataTypeFromInt(static_cast<int32_t>(a.i.get()));
    if (!to.ok()) return to.status().WithContext("attribute 'to'");
    const std::vector<DataType> types = CastTypes();
    if (std::find(types.begin(), types.end(), *to) == types.end()) {
      return Status(StatusCode::kNotImplemented,
                    std::string("Cast to ") + DataTypeName(*to) +
                        " is not supported (supported: " + TypeList(types) + ")");
    }
    (*outputs)[0] = *to;
    return Status::Ok();
  }
  return Status(StatusCode::kInvalidModel, "required attribute 'to' is missing");
}

}  // namespace

Status RegisterKernel_ai_onnx_Cast(KernelRegistry& r) {
  KernelDef def;
  def.op_type = "Cast";
  def.since_version = 6;
  def.constraints = {{"T1", {0}, {}, CastTypes()}, {"T2", {}, {0}, CastTypes()}};
  def.create = FactoryOf<Cast>();
  def.output_types = &CastOutputType;
  return r.Register(std::move(def));
}

// CastLike (opset 15): Cast to the type of input 1 (whose values are not read).
Status RegisterKernel_ai_onnx_CastLike(KernelRegistry& r) {
  KernelDef def;
  def.op_type = "CastLike";
  def.since_version = 15;
  def.constraints = {{"T1", {0}, {}, CastTypes()}, {"T2", {1}, {0}, CastTypes()}};
  def.create = FactoryOf<Cast>();
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
