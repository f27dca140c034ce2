// QuantizeLinear and DequantizeLinear for 8/16-bit integers (and int32 for Dequantize):
// per-tensor, per-axis and blocked scales. Quantize rounds half to even and saturates.
// The float8/int4/int2 types are not supported.
#include <cmath>
#include <limits>
#include <type_traits>

#include "broadcast.h"
#include "kernel_util.h"

namespace onnx_light::kernels {
namespace {

std::vector<DataType> QuantTypes() {
  return {DataType::kInt8, DataType::kUint8, DataType::kInt16, DataType::kUint16, DataType::kInt32};
}

// For each element of x, the index into the scale (and zero point) tensor.
Result<std::vector<int64_t>> ScaleIndex(const Shape& x, const Shape& scale, int64_t axis_attr,
                                        int64_t block, const KernelInfo& info) {
  const auto n = static_cast<size_t>(x.num_elements());
  std::vector<int64_t> idx(n, 0);
  if (scale.num_elements() == 1 && scale.rank() <= 1 && block == 0) return idx;
  const auto rank = static_cast<int64_t>(x.rank());
  ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, info));
  const auto ax = static_cast<size_t>(axis);
  const std::vector<int64_t>& xd = x.dims();
  std::vector<int64_t> sd;  // the scale's dims as seen per x axis
  if (block == 0) {
    if (scale.rank() != 1 || scale[0] != xd[ax]) {
      return Status(StatusCode::kInvalidArgument, info.Describe() + ": a per-axis scale must be [" +
                                                      std::to_string(xd[ax]) + "], got " +
                                                      scale.ToString());
    }
  } else {
    if (block < 0 || scale.rank() != x.rank()) {
      return Status(StatusCode::kInvalidArgument,
                    info.Describe() + ": a blocked scale must have the rank of the input");
    }
    for (size_t d = 0; d < xd.size(); ++d) {
      const int64_t want = d == ax ? (xd[d] + block - 1) / block : xd[d];
      if (scale[d] != want) {
        return Status(StatusCode::kInvalidArgument,
                      info.Describe() + ": blocked scale " + scale.ToString() +
                          " does not match the input " + x.ToString() + " and block_size " +
                          std::to_string(block));
      }
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
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    const Tensor& scale = *ctx.input(1);
    const Tensor* zp = ctx.input(2);
    if (zp != nullptr && zp->shape() != scale.shape()) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": zero point " + zp->shape().ToString() +
                        " must have the scale's shape " + scale.shape().ToString());
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto idx,
                                ScaleIndex(x.shape(), scale.shape(), axis_, block_, ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const std::vector<double> s = ToDoubles(&scale), z = ToDoubles(zp), xs = ToDoubles(&x);
    const bool single = x.dtype() != DataType::kDouble;
    DispatchNumeric(y->dtype(), [&](auto tag) {
      using Y = decltype(tag);
      if constexpr (!std::is_same_v<Y, bool>) {
        Y* out = y->mutable_data<Y>();
        for (size_t i = 0; i < xs.size(); ++i) {
          const auto k = static_cast<size_t>(idx[i]);
          const double zero = z.empty() ? 0.0 : z[k];
          if constexpr (kQuantize) {
            // The quotient in the input's precision (float unless double), as ONNX's
            // reference and ORT compute it, then rounded half to even.
            const double quotient =
                single ? static_cast<double>(static_cast<float>(xs[i]) / static_cast<float>(s[k]))
                       : xs[i] / s[k];
            double q = std::nearbyint(quotient) + zero;
            q = std::fmin(std::fmax(q, static_cast<double>(std::numeric_limits<Y>::lowest())),
                          static_cast<double>(std::numeric_limits<Y>::max()));
            out[i] = static_cast<Y>(q);
          } else {
            out[i] = static_cast<Y>((xs[i] - zero) * s[k]);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = 1;
  int64_t block_ = 0;
};

// QuantizeLinear without a zero point: `output_dtype` (opset 21+) or uint8.
Status QuantizeType(const onnx::NodeProto& node, int, const std::vector<DataType>& in,
                    std::vector<DataType>* out) {
  if (in.size() > 2 && in[2] != DataType::kUndefined) {
    (*out)[0] = in[2];
    return Status::Ok();
  }
  (*out)[0] = DataType::kUint8;
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "output_dtype" && a.i.get() != 0) {
      ONNX_LIGHT_ASSIGN_OR_RETURN((*out)[0], DataTypeFromInt(static_cast<int32_t>(a.i.get())));
    }
  }
  return Status::Ok();
}

}  // namespace

Status RegisterKernel_ai_onnx_QuantizeLinear(KernelRegistry& r) {
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
Status RegisterKernel_ai_onnx_DequantizeLinear(KernelRegistry& r) {
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
