// QuantizeLinear and DequantizeLinear: 8/16-bit integers (and int32 for Dequantize),
// 4/2-bit integers, float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ) and FLOAT4E2M1; per-tensor,
// per-axis and blocked scales. Integer quantization rounds half to even, adds the zero
// point and saturates; float quantization adds the zero point and converts with Cast's
// rules (narrow_types.h), saturating unless `saturate` is 0.
#include "quantization/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/saturate.h"
#include "simd/qgemm_simd.h"

namespace onnx_light::kernels {
namespace {

std::vector<DataType> QuantTypes() {
  return {DataType::kInt8,           DataType::kUint8,          DataType::kInt16,
          DataType::kUint16,         DataType::kInt32,          DataType::kInt4,
          DataType::kUint4,          DataType::kInt2,           DataType::kUint2,
          DataType::kFloat8E4M3FN,   DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
          DataType::kFloat8E5M2FNUZ, DataType::kFloat4E2M1};
}

// The integer range of a 4/2-bit type.
void NarrowIntRange(DataType t, double* lo, double* hi) {
  switch (t) {
    case DataType::kInt4:
      *lo = -8, *hi = 7;
      break;
    case DataType::kUint4:
      *lo = 0, *hi = 15;
      break;
    case DataType::kInt2:
      *lo = -2, *hi = 1;
      break;
    default:  // kUint2
      *lo = 0, *hi = 3;
      break;
  }
}

// For each element of x, the index into the scale (and zero point) tensor.
Result<std::vector<int64_t>> ScaleIndex(const Shape& x, const Shape& scale, int64_t axis_attr,
                                        int64_t block) {
  const auto n = static_cast<size_t>(x.num_elements());
  std::vector<int64_t> idx(n, 0);
  if (scale.num_elements() == 1 && scale.rank() <= 1 && block == 0) return idx;
  const auto rank = static_cast<int64_t>(x.rank());
  ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  const auto ax = static_cast<size_t>(axis);
  const std::vector<int64_t>& xd = x.dims();
  std::vector<int64_t> sd;  // the scale's dims as seen per x axis
  if (block == 0) {
    if (scale.rank() != 1 || scale[0] != xd[ax]) {
      return Status(
          StatusCode::kInvalidArgument,
          "a per-axis scale must be [" + std::to_string(xd[ax]) + "], got " + scale.ToString());
    }
  } else {
    ONNX_LIGHT_RETURN_IF(block < 0 || scale.rank() != x.rank(), kInvalidArgument,
                         "a blocked scale must have the rank of the input");
    for (size_t d = 0; d < xd.size(); ++d) {
      // ceil(xd / block) without xd + block - 1, which overflowed for a block near INT64_MAX.
      const int64_t want = d == ax ? (xd[d] == 0 ? 0 : 1 + (xd[d] - 1) / block) : xd[d];
      ONNX_LIGHT_RETURN_IF(scale[d] != want, kInvalidArgument,
                           "blocked scale " + scale.ToString() + " does not match the input " +
                               x.ToString() + " and block_size " + std::to_string(block));
    }
  }
  const std::vector<int64_t> sst =
      block == 0 ? std::vector<int64_t>{} : RowMajorStrides(scale.dims());
  std::vector<int64_t> pos(xd.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    if (block == 0) {
      idx[i] = pos[ax];
    } else {
      int64_t o = 0;
      for (size_t d = 0; d < xd.size(); ++d)
        o += (d == ax ? pos[d] / block : pos[d]) * sst[d];
      idx[i] = o;
    }
    for (size_t d = xd.size(); d-- > 0;) {
      if (++pos[d] < xd[d]) break;
      pos[d] = 0;
    }
  }
  return idx;
}

template <bool kQuantize>
class Quant : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Quant>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->block_, info.GetInt("block_size", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->saturate_, GetFlag(info, "saturate", true));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& scale = *ctx.input(1);
    const Tensor* zp = ctx.input(2);
    const bool per_tensor = scale.num_elements() == 1 && scale.shape().rank() <= 1;
    ONNX_LIGHT_RETURN_IF(zp != nullptr && zp->shape() != scale.shape() &&
                             !(per_tensor && zp->num_elements() == 1 && zp->shape().rank() <= 1),
                         kInvalidArgument,
                         "zero point " + zp->shape().ToString() + " must have the scale's shape " +
                             scale.shape().ToString());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    if (per_tensor && block_ == 0 && FastPerTensor(x, scale, zp, y, ctx.thread_pool())) {
      return Status::Ok();
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto idx, ScaleIndex(x.shape(), scale.shape(), axis_, block_));
    const std::vector<double> s = ToDoubles(&scale), z = ToDoubles(zp), xs = ToDoubles(&x);
    const bool single = x.dtype() != DataType::kDouble;
    // The quotient in the input's precision (float unless double), as ONNX's reference and
    // ORT compute it.
    auto quotient = [&](size_t i, size_t k) {
      return single ? static_cast<double>(static_cast<float>(xs[i]) / static_cast<float>(s[k]))
                    : xs[i] / s[k];
    };
    if (IsNarrowType(y->dtype())) {
      const DataType to = y->dtype();
      auto* out = static_cast<uint8_t*>(y->mutable_raw_data());
      if (y->byte_size() != 0) std::memset(out, 0, y->byte_size());
      const int bits = DataTypeBitWidth(to);
      const bool is_int = !IsFloatingType(to);
      double lo = 0, hi = 0;
      if (is_int) NarrowIntRange(to, &lo, &hi);
      for (size_t i = 0; i < xs.size(); ++i) {
        const auto k = static_cast<size_t>(idx[i]);
        const double zero = z.empty() ? 0.0 : z[k];
        double q;
        if (is_int) {
          q = std::fmin(std::fmax(std::nearbyint(quotient(i, k)) + zero, lo), hi);
        } else {
          q = quotient(i, k) + zero;
          if (single) q = static_cast<double>(static_cast<float>(q));
        }
        SetNarrowCode(out, bits, static_cast<int64_t>(i), DoubleToNarrow(to, q, saturate_));
      }
      return Status::Ok();
    }
    DispatchNumeric(y->dtype(), [&](auto tag) {
      using Y = decltype(tag);
      if constexpr (!std::is_same_v<Y, bool>) {
        Y* out = y->mutable_data<Y>();
        for (size_t i = 0; i < xs.size(); ++i) {
          const auto k = static_cast<size_t>(idx[i]);
          const double zero = z.empty() ? 0.0 : z[k];
          if constexpr (kQuantize) {
            double q = std::nearbyint(quotient(i, k)) + zero;  // half to even
            q = std::fmin(std::fmax(q, static_cast<double>(std::numeric_limits<Y>::lowest())),
                          static_cast<double>(std::numeric_limits<Y>::max()));
            // int64's max as a double is 2^63, past the type: the cast saturates instead.
            out[i] = FromDouble<Y>(q);
          } else {
            out[i] = static_cast<Y>((xs[i] - zero) * s[k]);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  // The quantized CNNs' case, per tensor between float32 and 8- or 16-bit integers, in float
  // loops the compiler vectorizes: the same arithmetic as the general path (the quotient
  // x / scale in float, rounded half to even, the zero point added, saturated; (x - zp) *
  // scale, exact in float before its one rounding). False: not this case.
  // Split across the pool in chunks of at least 16k elements (a quantized CNN's float
  // input of 3 x 128 x 128: 18 us on one thread).
  static bool FastPerTensor(const Tensor& x, const Tensor& scale, const Tensor* zp, Tensor* y,
                            ThreadPool* pool) {
    const DataType q = kQuantize ? y->dtype() : x.dtype();
    const DataType f = kQuantize ? x.dtype() : y->dtype();
    const bool narrow = q == DataType::kUint8 || q == DataType::kInt8;
    // 16-bit activations (ORT's quantizer with activation_type QUInt16 / QInt16) too.
    const bool wide = q == DataType::kUint16 || q == DataType::kInt16;
    if (f != DataType::kFloat || scale.dtype() != DataType::kFloat || !(narrow || wide) ||
        (zp != nullptr && zp->dtype() != q)) {
      return false;
    }
    const float s = scale.data<float>()[0];
    int32_t z = 0;
    if (zp != nullptr) {
      DispatchNumeric(q, [&](auto tag) {
        using Q = decltype(tag);
        if constexpr (std::is_integral_v<Q> && sizeof(Q) <= 2) z = zp->data<Q>()[0];
      });
    }
    const int64_t n = x.num_elements();
    ParallelElements(
        pool, n,
        [&](int64_t begin, int64_t end) {
          DispatchNumeric(q, [&](auto tag) {
            using Q = decltype(tag);
            if constexpr (std::is_integral_v<Q> && !std::is_same_v<Q, bool> && sizeof(Q) <= 2)
              Run(x, y, s, z, begin, end, static_cast<Q*>(nullptr));
          });
        },
        int64_t{1} << 14);
    return true;
  }
  template <typename Q>
  static void Run(const Tensor& x, Tensor* y, float s, int32_t z, int64_t begin, int64_t end, Q*) {
    if constexpr (kQuantize) {
      const float* __restrict in = x.data<float>();
      Q* __restrict out = y->mutable_data<Q>();  // (restrict: byte stores alias anything)
      const auto zf = static_cast<float>(z);
      const float lo = static_cast<float>(std::numeric_limits<Q>::min()) - zf;
      const float hi = static_cast<float>(std::numeric_limits<Q>::max()) - zf;
      // In vector code on the CPU's widest target (the baseline's 4-wide division ran 2x
      // ORT's time); a NaN gives the minimum, as the general path.
      QuantizeLinearF32(in + begin, static_cast<size_t>(end - begin), s, lo, hi, z,
                        std::is_signed_v<Q>, static_cast<int>(sizeof(Q)), out + begin);
    } else {
      const Q* __restrict in = x.data<Q>();
      float* __restrict out = y->mutable_data<float>();
      for (int64_t i = begin; i < end; ++i)
        out[i] = static_cast<float>(static_cast<int32_t>(in[i]) - z) * s;
    }
  }

  int64_t axis_ = 1;
  int64_t block_ = 0;
  bool saturate_ = true;
};

// DynamicQuantizeLinear: uint8 with a scale and zero point from the data's range (which
// always includes 0): scale = (max - min) / 255 (1 when max == min), zero point =
// round(clip(-min / scale, 0, 255)), y = saturate(round(x / scale) + zero point), all in
// float32 and rounding half to even, as the ONNX specification states.
class DynamicQuantize : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new DynamicQuantize());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const float* xp = x.data<float>();
    const int64_t n = x.num_elements();
    // Both passes in vector code (simd/qgemm_simd.h): the range, then the quantization,
    // each in chunks split between the threads (the range combined under a lock: min, max
    // and "any NaN" do not depend on the order).
    float lo = 0, hi = 0;
    bool nan = false, first = true;
    std::mutex mu;
    constexpr int64_t kChunk = int64_t{1} << 15;
    ParallelElements(
        ctx.thread_pool(), n,
        [&](int64_t i0, int64_t i1) {
          float clo = 0, chi = 0;
          bool cnan = false;
          RangeF32(xp + i0, static_cast<size_t>(i1 - i0), &clo, &chi, &cnan);
          std::lock_guard<std::mutex> lock(mu);
          lo = first ? clo : std::min(lo, clo);
          hi = first ? chi : std::max(hi, chi);
          nan = nan || cnan;
          first = false;
        },
        kChunk);
    ONNX_LIGHT_RETURN_IF(nan, kInvalidArgument, "the input contains NaN, which has no range");
    ONNX_LIGHT_RETURN_IF(std::isinf(lo) || std::isinf(hi), kInvalidArgument,
                         "the input contains an infinity, which has no "
                         "finite range to quantize");
    const float scale = (hi == lo ? 1.0f : hi - lo) / 255.0f;
    const float zp = std::nearbyint(std::fmin(255.0f, std::fmax(0.0f, 0.0f - lo / scale)));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * ys, ctx.AllocateOutput(1, {}));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * yz, ctx.AllocateOutput(2, {}));
    uint8_t* out = y->mutable_data<uint8_t>();
    ParallelElements(
        ctx.thread_pool(), n,
        [&](int64_t i0, int64_t i1) {
          QuantizeU8F32(xp + i0, static_cast<size_t>(i1 - i0), scale, zp, out + i0);
        },
        kChunk);
    ys->mutable_data<float>()[0] = scale;
    yz->mutable_data<uint8_t>()[0] = static_cast<uint8_t>(zp);
    return Status::Ok();
  }
};

// QuantizeLinear without a zero point: `output_dtype` (opset 21+) or uint8.
Status QuantizeType(const onnx::NodeProto& node, int, const std::vector<DataType>& in,
                    std::vector<DataType>* out, const NodeSubgraphs&) {
  if (in.size() > 2 && in[2] != DataType::kUndefined) {
    (*out)[0] = in[2];
    return Status::Ok();
  }
  (*out)[0] = DataType::kUint8;
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "output_dtype" && a.i.get() != 0) {
      const int64_t v = a.i.get();
      Result<DataType> t = v >= INT32_MIN && v <= INT32_MAX
                               ? DataTypeFromInt(static_cast<int32_t>(v))
                               : Result<DataType>(Status(StatusCode::kInvalidModel, "no type"));
      const std::vector<DataType> allowed = QuantTypes();
      ONNX_LIGHT_RETURN_IF(
          !t.ok() || std::find(allowed.begin(), allowed.end(), *t) == allowed.end(), kInvalidModel,
          "QuantizeLinear: output_dtype " + std::to_string(v) +
              " is not a quantized type (int2/4/8/16, uint2/4/8/16, int32 "
              "or a float8/float4 type)");
      (*out)[0] = *t;
    }
  }
  return Status::Ok();
}

}  // namespace

KernelFactory QuantizeLinearFactory() {
  return FactoryOf<Quant<true>>();
}
KernelFactory DequantizeLinearFactory() {
  return FactoryOf<Quant<false>>();
}
Status QuantizeLinearOutputType(const onnx::NodeProto& node, int opset,
                                const std::vector<DataType>& in, std::vector<DataType>* out,
                                const NodeSubgraphs& subgraphs) {
  return QuantizeType(node, opset, in, out, subgraphs);
}

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, QuantizeLinear) {
  KernelDef def =
      Def("QuantizeLinear", 10,
          {{"T1",
            {0, 1},
            {},
            {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16, DataType::kDouble}},
           {"T2", {2}, {}, QuantTypes()}},
          FactoryOf<Quant<true>>());
  def.output_types = &QuantizeType;
  return r.Register(std::move(def));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, DequantizeLinear) {
  return r.Register(
      Def("DequantizeLinear", 10,
          {{"T1", {0, 2}, {}, QuantTypes()},
           {"T2",
            {1},
            {0},
            {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16, DataType::kDouble}}},
          FactoryOf<Quant<false>>()));
}

}  // namespace onnx_light::kernels

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, DynamicQuantizeLinear) {
  return r.Register(Def("DynamicQuantizeLinear", 11,
                        {{"T1", {0}, {}, {DataType::kFloat}},
                         {"T2", {}, {0, 2}, {DataType::kUint8}},
                         {"T3", {}, {1}, {DataType::kFloat}}},
                        FactoryOf<DynamicQuantize>()));
}

}  // namespace onnx_light::kernels
