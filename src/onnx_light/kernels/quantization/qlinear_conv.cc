// QLinearConv (ai.onnx 10; com.microsoft's registration adds channels_last): the integer
// convolution of (x - x_zero_point) and (w - w_zero_point) plus the int32 bias, times
// x_scale * w_scale / y_scale (w_scale one value or one per output channel), then
// saturate(round_half_even(.) + y_zero_point). The scaling and rounding are in float, as
// ONNX Runtime's kernels (MLAS) requantize, so a model gives ORT's codes.
//
// 2-D convolutions (quantized CNNs) take the integer engine shared with ConvInteger
// (qconv_2d.h), each block of sums requantized per pixel in vector code
// (simd/qlinear_simd.h). Other ranks take the reference path (im2col, conv_integer.h), with
// the same requantization.
#include "quantization/qlinear_conv.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "com_microsoft/qlinear.h"
#include "common/window.h"
#include "onnx_light/runtime/thread_pool.h"
#include "quantization/conv_integer.h"
#include "quantization/qconv_2d.h"
#include "simd/qlinear_simd.h"

namespace onnx_light::kernels {
namespace {

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

class QLinearConv : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QLinearConv>();
    ONNX_LIGHT_RETURN_IF_ERROR(ReadConvAttrs(info, &k->attrs_, &k->group_));
    if (info.domain() == "com.microsoft") {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t cl, info.GetInt("channels_last", 0));
      k->channels_last_ = cl != 0;
    }
    k->weights_ = PrepareQConvWeights(info, 3, 5, k->attrs_, k->group_);
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& wt = *ctx.input(3);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    const int64_t m = wt.shape().rank() > 0 ? wt.shape()[0] : 0;
    const Tensor &xs = *ctx.input(1), &ws = *ctx.input(4), &ys = *ctx.input(6);
    if (xs.num_elements() != 1 || ys.num_elements() != 1 ||
        (ws.num_elements() != 1 && ws.num_elements() != m)) {
      return Status(
          StatusCode::kInvalidArgument,
          "x_scale and y_scale must be scalars, w_scale a scalar or [" + std::to_string(m) + "]");
    }
    const Tensor* bias = OptionalInput(ctx, 8);
    ONNX_LIGHT_RETURN_IF(
        bias != nullptr && (bias->num_elements() != m || bias->dtype() != DataType::kInt32),
        kInvalidArgument, "B must be int32 [" + std::to_string(m) + "]");
    // Per output channel: the scale x_scale * w_scale / y_scale (in float, in that order)
    // and the bias.
    Requant q;
    q.scale.resize(static_cast<size_t>(m));
    q.bias.assign(static_cast<size_t>(m), 0);
    for (int64_t c = 0; c < m; ++c) {
      q.scale[static_cast<size_t>(c)] = xs.data<float>()[0] *
                                        ws.data<float>()[ws.num_elements() == 1 ? 0 : c] /
                                        ys.data<float>()[0];
      if (bias != nullptr) q.bias[static_cast<size_t>(c)] = bias->data<int32_t>()[c];
    }
    const Tensor* yz = OptionalInput(ctx, 7);
    q.type = yz != nullptr ? yz->dtype() : x.dtype();
    q.zero = QZeroPointAt(yz, 0);
    const Tensor* xz = OptionalInput(ctx, 2);
    const Tensor* wz = OptionalInput(ctx, 5);
    if (QConv2DWeightsFit(wt, attrs_, group_) && x.shape().rank() == 4 &&
        (xz == nullptr || xz->num_elements() == 1) &&
        (wz == nullptr || wz->num_elements() == 1 || wz->num_elements() == m)) {
      return QConv2D(ctx, {x, wt, xz, wz, attrs_, group_, channels_last_, weights_, q.type},
                     [&](const int32_t* acc, int64_t n, int64_t mm, int64_t b, int64_t p0,
                         int64_t plane, Tensor* y, std::vector<uint8_t>* tile) {
                       if (q.type == DataType::kInt8) {
                         Requantize(q, acc, mm, n, mm, p0, plane,
                                    y->mutable_data<int8_t>() + b * mm * plane, tile);
                       } else {
                         Requantize(q, acc, mm, n, mm, p0, plane,
                                    y->mutable_data<uint8_t>() + b * mm * plane, tile);
                       }
                     });
    }
    return ComputeGeneral(ctx, x, wt, q);
  }

 private:
  struct Requant {
    std::vector<float> scale;
    std::vector<int32_t> bias;
    DataType type = DataType::kUint8;
    int32_t zero = 0;
  };

  // acc [pixels x m] (rows ldc apart) requantized into y (simd/qgemm_simd.h): NHWC
  // directly (pixel p of channel c at p * m + c), NCHW (c * plane + p) through `tile`, each
  // channel's pixels then copied out contiguously.
  template <typename T>
  void Requantize(const Requant& q, const int32_t* acc, int64_t ldc, int64_t pixels, int64_t m,
                  int64_t p0, int64_t plane, T* y, std::vector<uint8_t>* tile) const {
    constexpr bool kSigned = std::is_same_v<T, int8_t>;
    if (channels_last_) {
      RequantizeRows(acc, ldc, pixels, m, q.bias.data(), q.scale.data(), q.zero, kSigned,
                     y + p0 * m, m);
      return;
    }
    tile->resize(static_cast<size_t>(pixels * m));
    T* t = reinterpret_cast<T*>(tile->data());
    RequantizeRows(acc, ldc, pixels, m, q.bias.data(), q.scale.data(), q.zero, kSigned, t, m);
    for (int64_t c = 0; c < m; ++c) {
      T* __restrict out = y + c * plane + p0;
      const T* __restrict in = t + c;
      for (int64_t p = 0; p < pixels; ++p)
        out[p] = in[p * m];
    }
  }

  // Any rank: the reference integer convolution (NCHW), then the same requantization.
  Status ComputeGeneral(KernelContext& ctx, const Tensor& x_in, const Tensor& wt,
                        const Requant& q) const {
    Tensor x_first;
    if (channels_last_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(x_first, ChannelsFirst(x_in));
    }
    const Tensor& x = channels_last_ ? x_first : x_in;
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto xv, Centered(x, OptionalInput(ctx, 2), "x"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto wv, Centered(wt, OptionalInput(ctx, 5), "w"));
    std::vector<int64_t> dims;
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto acc, IntegerConv(ctx, attrs_, group_, x, xv, wt, wv, &dims));
    const int64_t m = dims[1];
    std::vector<int64_t> out_dims = dims;
    if (channels_last_) {  // [N, M, spatial...] -> [N, spatial..., M]
      out_dims.erase(out_dims.begin() + 1);
      out_dims.push_back(m);
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, q.type, out_dims));
    const int64_t plane =
        dims[0] == 0 || m == 0 ? 0 : static_cast<int64_t>(acc.size()) / (dims[0] * m);
    // acc is [N, M, plane]: each image's channels-first block, requantized pixel by pixel
    // through a [plane x M] copy.
    std::vector<int32_t> t(static_cast<size_t>(plane * m));
    std::vector<uint8_t> tile;
    for (int64_t b = 0; b < dims[0]; ++b) {
      for (int64_t c = 0; c < m; ++c)
        for (int64_t p = 0; p < plane; ++p)
          t[static_cast<size_t>(p * m + c)] = acc[static_cast<size_t>((b * m + c) * plane + p)];
      if (q.type == DataType::kInt8) {
        Requantize(q, t.data(), m, plane, m, 0, plane, y->mutable_data<int8_t>() + b * m * plane,
                   &tile);
      } else {
        Requantize(q, t.data(), m, plane, m, 0, plane, y->mutable_data<uint8_t>() + b * m * plane,
                   &tile);
      }
    }
    return Status::Ok();
  }

  WindowAttrs attrs_;
  int64_t group_ = 1;
  bool channels_last_ = false;
  QConvWeights weights_;  // packed once when W is a constant
};

}  // namespace

KernelFactory QLinearConvFactory() {
  return FactoryOf<QLinearConv>();
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
