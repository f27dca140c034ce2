// ConvInteger and QLinearConv: integer convolutions (int32 accumulation that wraps, as the
// ONNX reference), QLinearConv requantized as the spec defines.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/window.h"
#include "math/gemm.h"
#include "quantization/qlinear_conv.h"

namespace onnx_light::kernels {
namespace {

// ---- Integer convolution: ConvInteger, QLinearConv ---------------------------------------

// A uint8/int8 tensor's values as int32 minus a zero point: scalar, or one per `axis0`
// slice (a per-output-channel weight zero point).
Result<std::vector<int32_t>> Centered(const Tensor& t, const Tensor* zp, const char* what) {
  const std::vector<double> v = ToDoubles(&t), z = ToDoubles(zp);
  std::vector<int32_t> out(v.size());
  const int64_t slices = t.shape().rank() > 0 ? t.shape()[0] : 1;
  if (!z.empty() && z.size() != 1 && static_cast<int64_t>(z.size()) != slices) {
    return Status(
        StatusCode::kInvalidArgument,
        std::string(what) + " zero point must be a scalar or [" + std::to_string(slices) + "]");
  }
  const int64_t per = slices > 0 ? static_cast<int64_t>(v.size()) / slices : 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double zero = z.empty() ? 0.0 : (z.size() == 1 ? z[0] : z[i / static_cast<size_t>(per)]);
    out[i] = static_cast<int32_t>(v[i] - zero);
  }
  return out;
}

// The int32 convolution of centered x and w (im2col and an integer product that wraps).
// Returns the output [N, M, spatial...] values and sets *dims.
Result<std::vector<int32_t>> IntegerConv(const KernelContext& ctx, const WindowAttrs& attrs,
                                         int64_t group, const Tensor& xt,
                                         const std::vector<int32_t>& x, const Tensor& wt,
                                         const std::vector<int32_t>& wv,
                                         std::vector<int64_t>* dims) {
  ONNX_LIGHT_RETURN_IF(wt.shape().rank() != xt.shape().rank() || xt.shape().rank() < 3 || group < 1,
                       kInvalidArgument,
                       "W " + wt.shape().ToString() + " does not match X " + xt.shape().ToString() +
                           " with group " + std::to_string(group));
  const int64_t batch = xt.shape()[0], c_in = xt.shape()[1];
  const int64_t m = wt.shape()[0], cg = wt.shape()[1];
  // No cg * group: the group is the model's and may be as large as INT64_MAX.
  ONNX_LIGHT_RETURN_IF(c_in % group != 0 || c_in / group != cg || m % group != 0, kInvalidArgument,
                       "W " + wt.shape().ToString() + " does not match X " + xt.shape().ToString() +
                           " with group " + std::to_string(group));
  std::vector<int64_t> kernel = Spatial(wt.shape());
  ONNX_LIGHT_RETURN_IF(!attrs.kernel.empty() && attrs.kernel != kernel, kInvalidArgument,
                       "kernel_shape does not match W");
  ONNX_LIGHT_ASSIGN_OR_RETURN(Window w, MakeWindow(attrs, Spatial(xt.shape()), kernel));
  *dims = {batch, m};
  dims->insert(dims->end(), w.out.begin(), w.out.end());
  const int64_t in_sz = w.InCount(), out_sz = w.OutCount(), k_sz = w.KernelCount();
  const int64_t m_per_group = m / group, rows = cg * k_sz;
  // Taps and columns may dwarf the input and the output: checked against the budget
  // first. (The accumulator and the result are the output's size.)
  BudgetHold work(BudgetOf(ctx));
  ONNX_LIGHT_RETURN_IF_ERROR(HoldIm2ColMemory(w, cg, sizeof(uint32_t), &work));
  const std::vector<int64_t> taps = TapOffsets(w);
  std::vector<uint32_t> col(static_cast<size_t>(rows * out_sz));
  std::vector<uint32_t> wu(wv.begin(), wv.end());
  std::vector<uint32_t> acc(static_cast<size_t>(m_per_group * out_sz));
  std::vector<int32_t> out(static_cast<size_t>(batch * m * out_sz));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t g = 0; g < group; ++g) {
      for (int64_t c = 0; c < cg; ++c) {
        const int32_t* xc = x.data() + (b * c_in + g * cg + c) * in_sz;
        for (int64_t t = 0; t < k_sz; ++t) {
          uint32_t* row = col.data() + (c * k_sz + t) * out_sz;
          const int64_t* off = taps.data() + t * out_sz;
          for (int64_t o = 0; o < out_sz; ++o)
            row[o] = off[o] < 0 ? 0u : static_cast<uint32_t>(xc[off[o]]);
        }
      }
      std::fill(acc.begin(), acc.end(), 0u);
      Gemm2DLoop<uint32_t>(wu.data() + g * m_per_group * rows, rows, 1, col.data(), out_sz, 1,
                           acc.data(), m_per_group, out_sz, rows);
      int32_t* yg = out.data() + (b * m + g * m_per_group) * out_sz;
      for (size_t i = 0; i < acc.size(); ++i)
        yg[i] = static_cast<int32_t>(acc[i]);
    }
  }
  return out;
}

// ConvInteger: int32 convolution of (x - x_zero_point) and (w - w_zero_point).
class ConvInteger : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ConvInteger>();
    ONNX_LIGHT_RETURN_IF_ERROR(ReadConvAttrs(info, &k->attrs_, &k->group_));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& wt = *ctx.input(1);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    const Tensor* xz = ctx.input(2);
    ONNX_LIGHT_RETURN_IF(xz != nullptr && xz->num_elements() != 1, kInvalidArgument,
                         "x_zero_point must be a scalar");
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto xv, Centered(x, xz, "x"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto wv, Centered(wt, ctx.input(3), "w"));
    std::vector<int64_t> dims;
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto out, IntegerConv(ctx, attrs_, group_, x, xv, wt, wv, &dims));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    if (!out.empty()) std::memcpy(y->mutable_data<int32_t>(), out.data(), out.size() * 4);
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
};

// X [N, spatial..., C] as a new [N, C, spatial...] tensor.
Result<Tensor> ChannelsFirst(const Tensor& x) {
  const std::vector<int64_t>& d = x.shape().dims();
  const int64_t n = d[0], c = d.back();
  const int64_t s = c == 0 || n == 0 ? 0 : x.num_elements() / (n * c);
  std::vector<int64_t> dims = {n, c};
  dims.insert(dims.end(), d.begin() + 1, d.end() - 1);
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims));
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(x.dtype(), shape));
  const auto* in = static_cast<const uint8_t*>(x.raw_data());
  auto* o = static_cast<uint8_t*>(out.mutable_raw_data());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < s; ++i)
      for (int64_t ch = 0; ch < c; ++ch)
        o[(b * c + ch) * s + i] = in[(b * s + i) * c + ch];
  return out;
}

// QLinearConv: the integer convolution plus the int32 bias, scaled by
// x_scale * w_scale / y_scale (w_scale per tensor or per output channel, in float as the
// ONNX reference computes it), then y_zero_point added, rounded half to even, saturated.
// With channels_last (ORT's com.microsoft QLinearConv from its NHWC transformer) X and Y
// are [N, spatial..., C]; W stays [M, C / group, kernel...].
class QLinearConv : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QLinearConv>();
    ONNX_LIGHT_RETURN_IF_ERROR(ReadConvAttrs(info, &k->attrs_, &k->group_));
    if (info.domain() == "com.microsoft") {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t cl, info.GetInt("channels_last", 0));
      k->channels_last_ = cl != 0;
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x_in = *ctx.input(0);
    const Tensor& wt = *ctx.input(3);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x_in));
    Tensor x_first;
    if (channels_last_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(x_first, ChannelsFirst(x_in));
    }
    const Tensor& x = channels_last_ ? x_first : x_in;
    const std::vector<double> xs = ToDoubles(ctx.input(1)), ws = ToDoubles(ctx.input(4)),
                              ys = ToDoubles(ctx.input(6));
    const int64_t m = wt.shape().rank() > 0 ? wt.shape()[0] : 0;
    if (xs.size() != 1 || ys.size() != 1 ||
        (ws.size() != 1 && static_cast<int64_t>(ws.size()) != m)) {
      return Status(
          StatusCode::kInvalidArgument,
          "x_scale and y_scale must be scalars, w_scale a scalar or [" + std::to_string(m) + "]");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto xv, Centered(x, ctx.input(2), "x"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto wv, Centered(wt, ctx.input(5), "w"));
    std::vector<int64_t> dims;
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto acc, IntegerConv(ctx, attrs_, group_, x, xv, wt, wv, &dims));
    const Tensor* bias = ctx.input(8);
    ONNX_LIGHT_RETURN_IF(
        bias != nullptr && (bias->num_elements() != m || bias->dtype() != DataType::kInt32),
        kInvalidArgument, "B must be int32 [" + std::to_string(m) + "]");
    const Tensor* yz = ctx.input(7);
    const DataType out_type = yz != nullptr ? yz->dtype() : x.dtype();
    std::vector<int64_t> out_dims = dims;
    if (channels_last_) {  // [N, M, spatial...] -> [N, spatial..., M]
      out_dims.erase(out_dims.begin() + 1);
      out_dims.push_back(m);
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out_type, out_dims));
    const double zero = yz != nullptr ? ToDoubles(yz)[0] : 0.0;
    const double lo = out_type == DataType::kInt8 ? -128.0 : 0.0;
    const double hi = out_type == DataType::kInt8 ? 127.0 : 255.0;
    const int64_t per_channel =
        dims[0] == 0 || m == 0 ? 0 : static_cast<int64_t>(acc.size()) / (dims[0] * m);
    for (size_t i = 0; i < acc.size(); ++i) {
      const int64_t c = per_channel == 0 ? 0 : (static_cast<int64_t>(i) / per_channel) % m;
      double v = acc[i] + (bias != nullptr ? bias->data<int32_t>()[c] : 0);
      const auto scale = static_cast<float>(
          static_cast<float>(xs[0]) *
          static_cast<float>(ws.size() == 1 ? ws[0] : ws[static_cast<size_t>(c)]) /
          static_cast<float>(ys[0]));
      v = v * static_cast<double>(scale) + zero;
      v = std::nearbyint(std::fmin(std::fmax(v, lo), hi));
      size_t at = i;
      if (channels_last_) {
        const int64_t b = static_cast<int64_t>(i) / (per_channel * m);
        const int64_t pos = static_cast<int64_t>(i) % per_channel;
        at = static_cast<size_t>((b * per_channel + pos) * m + c);
      }
      if (out_type == DataType::kInt8) {
        y->mutable_data<int8_t>()[at] = static_cast<int8_t>(v);
      } else {
        y->mutable_data<uint8_t>()[at] = static_cast<uint8_t>(v);
      }
    }
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
  bool channels_last_ = false;
};

}  // namespace

KernelFactory QLinearConvFactory() {
  return FactoryOf<QLinearConv>();
}

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ConvInteger) {
  const std::vector<DataType> q = {DataType::kInt8, DataType::kUint8};
  return r.Register(
      Def("ConvInteger", 10,
          {{"T1", {0, 2}, {}, q}, {"T2", {1, 3}, {}, q}, {"T3", {}, {0}, {DataType::kInt32}}},
          FactoryOf<ConvInteger>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, QLinearConv) {
  const std::vector<DataType> q = {DataType::kInt8, DataType::kUint8};
  return r.Register(Def("QLinearConv", 10,
                        {{"T1", {0, 2}, {}, q},
                         {"T2", {3, 5}, {}, q},
                         {"T3", {7}, {0}, q},
                         {"S", {1, 4, 6}, {}, {DataType::kFloat}},
                         {"T4", {8}, {}, {DataType::kInt32}}},
                        FactoryOf<QLinearConv>()));
}

}  // namespace onnx_light::kernels
