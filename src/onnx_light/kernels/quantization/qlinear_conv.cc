// QLinearConv (ai.onnx 10; com.microsoft's registration adds channels_last): the integer
// convolution of (x - x_zero_point) and (w - w_zero_point) plus the int32 bias, times
// x_scale * w_scale / y_scale (w_scale one value or one per output channel), then
// saturate(round_half_even(.) + y_zero_point). The scaling and rounding are in float, as
// ONNX Runtime's kernels (MLAS) requantize, so a model gives ORT's codes.
//
// 2-D convolutions (quantized CNNs) take the fast path, the way ORT runs them: the input
// once in channels-last order, each output pixel's window gathered as one row (taps x
// channels of a group), one integer GEMM per group against the weights packed when the
// kernel is made (uint8 x int8 with AVX-512 VNNI, bytes widened to int16 pairs in
// registers otherwise: simd/qgemm_simd.h; both exact), depthwise convolutions as a direct loop over
// channels, and the requantization per pixel; output pixels are split across the pool. Other ranks
// take the reference path (im2col, conv_integer.h), with the same requantization.
#include "quantization/qlinear_conv.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "com_microsoft/qlinear.h"
#include "common/window.h"
#include "onnx_light/runtime/thread_pool.h"
#include "quantization/conv_integer.h"
#include "simd/qgemm_simd.h"
#include "simd/qlinear_simd.h"

namespace onnx_light::kernels {
namespace {

// Output pixels per unit of work: one gathered block of rows and its GEMM.
constexpr int64_t kPixelBlock = 96;

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

int32_t ZeroPointAt(const Tensor* zp, int64_t i) {
  if (zp == nullptr) return 0;
  const int64_t at = zp->num_elements() == 1 ? 0 : i;
  return zp->dtype() == DataType::kInt8 ? zp->data<int8_t>()[at]
                                        : static_cast<int32_t>(zp->data<uint8_t>()[at]);
}

// The weights of a 2-D convolution as GEMM operands: per group a [K x Mg] matrix, K = taps *
// cg in (tap, channel) order, bytes as in W (int8 or uint8); packed for the VNNI kernel when
// it applies (int8 weights, uint8 or int8 activations).
struct GemmWeights {
  int64_t group = 0, mg = 0, cg = 0, taps = 0;
  int64_t cg_pad = 0;  // packed16's channels per tap: cg made even (a zero weight row)
  bool is_signed = true;
  std::vector<uint8_t> b;
  std::vector<QGemmPackedB> packed;       // one per group for the VNNI kernel, or empty
  std::vector<QGemmI16PackedB> packed16;  // one per group for the int16 kernel, or empty
  int64_t K() const { return taps * cg; }
};

GemmWeights MakeGemmWeights(const Tensor& w, int64_t group) {
  const std::vector<int64_t>& d = w.shape().dims();
  GemmWeights g;
  g.group = group;
  g.mg = d[0] / group;
  g.cg = d[1];
  g.taps = d[2] * d[3];
  g.is_signed = w.dtype() == DataType::kInt8;
  const int64_t k = g.K();
  g.b.resize(static_cast<size_t>(d[0] * k));
  const auto* src = static_cast<const uint8_t*>(w.raw_data());
  for (int64_t gi = 0; gi < group; ++gi)
    for (int64_t m = 0; m < g.mg; ++m)
      for (int64_t c = 0; c < g.cg; ++c)
        for (int64_t t = 0; t < g.taps; ++t)
          g.b[static_cast<size_t>((gi * k + t * g.cg + c) * g.mg + m)] =
              src[((gi * g.mg + m) * g.cg + c) * g.taps + t];
  if (g.cg == 1 && g.mg == 1) return g;  // depthwise: read directly
  if (g.is_signed && HaveVnniQGemm()) {
    for (int64_t gi = 0; gi < group; ++gi)
      g.packed.push_back(QGemmVnniPackB(
          k, g.mg, reinterpret_cast<const int8_t*>(g.b.data()) + gi * k * g.mg, g.mg));
  } else {
    // Each tap's channels an even count (whole int16 pairs, read in place by the kernel).
    g.cg_pad = g.cg + (g.cg & 1);
    const int64_t k_pad = g.taps * g.cg_pad;
    std::vector<uint8_t> padded(static_cast<size_t>(k_pad * g.mg), 0);
    for (int64_t gi = 0; gi < group; ++gi) {
      for (int64_t t = 0; t < g.taps; ++t)
        for (int64_t c = 0; c < g.cg; ++c)
          std::memcpy(padded.data() + (t * g.cg_pad + c) * g.mg,
                      g.b.data() + (gi * k + t * g.cg + c) * g.mg, static_cast<size_t>(g.mg));
      g.packed16.push_back(QGemmI16PackB(k_pad, g.mg, padded.data(), g.is_signed, g.mg));
      if (g.packed16.back().bytes == nullptr) {  // a scalar build: b read in place
        g.packed16.clear();
        break;
      }
    }
  }
  return g;
}

// The window geometry of a 2-D convolution over a channels-last image.
struct Geometry {
  int64_t h, w, c_in, cg, kh, kw, sh, sw, dh, dw, ph, pw;
};

// Output pixel (oy, ox)'s window as one GEMM row: for each tap (ty, tx), the cg channels from
// `c0` of the input pixel under it, or `pad` (the zero point's value) outside the image.
// Rows of taps that lie inside with unit dilation and all channels (group 1) are one
// contiguous run of kw * c_in values in the channels-last image: one copy.
template <typename E>
void GatherWindow(const E* __restrict x, E* __restrict dst, E pad, const Geometry& g, int64_t oy,
                  int64_t ox, int64_t c0) {
  const int64_t ix0 = ox * g.sw - g.pw;
  const bool whole_rows = g.dw == 1 && g.cg == g.c_in && ix0 >= 0 && ix0 + g.kw <= g.w;
  for (int64_t ty = 0; ty < g.kh; ++ty) {
    const int64_t iy = oy * g.sh - g.ph + ty * g.dh;
    E* row = dst + ty * g.kw * g.cg;
    if (iy < 0 || iy >= g.h) {
      for (int64_t i = 0; i < g.kw * g.cg; ++i)
        row[i] = pad;
      continue;
    }
    if (whole_rows) {
      const E* src = x + (iy * g.w + ix0) * g.c_in;
      for (int64_t i = 0; i < g.kw * g.c_in; ++i)
        row[i] = src[i];
      continue;
    }
    for (int64_t tx = 0; tx < g.kw; ++tx) {
      const int64_t ix = ix0 + tx * g.dw;
      E* d = row + tx * g.cg;
      if (ix < 0 || ix >= g.w) {
        for (int64_t ch = 0; ch < g.cg; ++ch)
          d[ch] = pad;
      } else {
        const E* src = x + (iy * g.w + ix) * g.c_in + c0;
        for (int64_t ch = 0; ch < g.cg; ++ch)
          d[ch] = src[ch];
      }
    }
  }
}

// One image's centered int16 codes channels-last inside the convolution's padding (zeros:
// the zero point's code centered), each group's channels made an even count (a zero
// channel), so that every window is whole pairs read in place: output pixel (oy, ox)'s
// window starts at ((oy * sh) * wp + ox * sw) * c_pad + g * cg_pad.
struct PaddedImage {
  int64_t top = 0, left = 0, wp = 0, cg = 0, cg_pad = 0, c_pad = 0;
  std::vector<int16_t> data;

  PaddedImage(const Geometry& g, const Window& win, int64_t cg_padded) : cg(g.cg) {
    top = g.ph;
    left = g.pw;
    const int64_t bottom =
        std::max<int64_t>(0, (win.out[0] - 1) * g.sh - g.ph + (g.kh - 1) * g.dh - (g.h - 1));
    const int64_t right =
        std::max<int64_t>(0, (win.out[1] - 1) * g.sw - g.pw + (g.kw - 1) * g.dw - (g.w - 1));
    wp = left + g.w + right;
    cg_pad = cg_padded;
    c_pad = g.c_in / g.cg * cg_pad;
    values = (top + g.h + bottom) * wp * c_pad;
  }
  void Allocate() { data.assign(static_cast<size_t>(values), 0); }
  int64_t values = 0;

  // Input rows [y0, y1) of x (channels-first or -last), centered by zx.
  template <typename E>
  void Fill(const E* __restrict x, bool channels_last, const Geometry& g, int32_t zx, int64_t y0,
            int64_t y1) {
    for (int64_t y = y0; y < y1; ++y) {
      int16_t* __restrict dst = data.data() + ((y + top) * wp + left) * c_pad;
      if (channels_last && c_pad == g.c_in) {
        const E* __restrict src = x + y * g.w * g.c_in;
        for (int64_t i = 0; i < g.w * g.c_in; ++i)
          dst[i] = static_cast<int16_t>(static_cast<int32_t>(src[i]) - zx);
        continue;
      }
      for (int64_t c = 0; c < g.c_in; ++c) {
        int16_t* __restrict d = dst + c / cg * cg_pad + c % cg;
        if (channels_last) {
          const E* __restrict src = x + y * g.w * g.c_in + c;
          for (int64_t i = 0; i < g.w; ++i)
            d[i * c_pad] = static_cast<int16_t>(static_cast<int32_t>(src[i * g.c_in]) - zx);
        } else {
          const E* __restrict src = x + (c * g.h + y) * g.w;
          for (int64_t i = 0; i < g.w; ++i)
            d[i * c_pad] = static_cast<int16_t>(static_cast<int32_t>(src[i]) - zx);
        }
      }
    }
  }
};

// One image's codes in channels-last order [pixels, c], each through `f`: centered int16
// (x - zx) for the int16 kernel, or bytes xor'd with 0x80 or not (int8 codes made uint8
// ones, the zero point shifted with them) for the VNNI one. From channels-first input in
// blocks of pixels, each channel's run read contiguously; pixels [begin, end) only.
template <typename E, typename O, typename F>
void ChannelsLast(const E* __restrict x, int64_t pixels, int64_t c, bool channels_last, F f,
                  O* __restrict out, int64_t begin, int64_t end) {
  if (channels_last) {
    for (int64_t i = begin * c; i < end * c; ++i)
      out[i] = f(x[i]);
    return;
  }
  constexpr int64_t kBlock = 64;
  for (int64_t p0 = begin; p0 < end; p0 += kBlock) {
    const int64_t n = std::min(kBlock, end - p0);
    for (int64_t ch = 0; ch < c; ++ch) {
      const E* src = x + ch * pixels + p0;
      O* dst = out + p0 * c + ch;
      for (int64_t i = 0; i < n; ++i)
        dst[i * c] = f(src[i]);
    }
  }
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
    const Tensor* w = info.constant_input(3);
    if (w != nullptr && k->FastShape(*w)) {
      k->weights_ = std::make_unique<GemmWeights>(MakeGemmWeights(*w, k->group_));
    }
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
    q.zero = ZeroPointAt(yz, 0);
    const Tensor* xz = OptionalInput(ctx, 2);
    const Tensor* wz = OptionalInput(ctx, 5);
    if (FastShape(wt) && x.shape().rank() == 4 && (xz == nullptr || xz->num_elements() == 1) &&
        (wz == nullptr || wz->num_elements() == 1 || wz->num_elements() == m)) {
      return Compute2D(ctx, x, wt, xz, wz, q);
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

  bool FastShape(const Tensor& w) const {
    const std::vector<int64_t>& d = w.shape().dims();
    return d.size() == 4 && d[0] > 0 && d[1] > 0 && d[0] % group_ == 0 &&
           (attrs_.kernel.empty() || attrs_.kernel == std::vector<int64_t>{d[2], d[3]});
  }

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

  Status Compute2D(KernelContext& ctx, const Tensor& x, const Tensor& wt, const Tensor* xz,
                   const Tensor* wz, const Requant& q) const {
    const std::vector<int64_t>& xd = x.shape().dims();
    const std::vector<int64_t>& wd = wt.shape().dims();
    const int64_t batch = xd[0], c_in = channels_last_ ? xd[3] : xd[1];
    const int64_t h = channels_last_ ? xd[1] : xd[2], w = channels_last_ ? xd[2] : xd[3];
    const int64_t m = wd[0], cg = wd[1];
    ONNX_LIGHT_RETURN_IF(c_in % group_ != 0 || c_in / group_ != cg, kInvalidArgument,
                         "W " + wt.shape().ToString() + " does not match X " +
                             x.shape().ToString() + " with group " + std::to_string(group_));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Window win, MakeWindow(attrs_, {h, w}, {wd[2], wd[3]}));
    const int64_t oh = win.out[0], ow = win.out[1], plane = oh * ow;
    std::vector<int64_t> dims = channels_last_ ? std::vector<int64_t>{batch, oh, ow, m}
                                               : std::vector<int64_t>{batch, m, oh, ow};
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, q.type, dims));
    if (y->num_elements() == 0) return Status::Ok();

    std::unique_ptr<GemmWeights> local;
    const GemmWeights* gw = weights_.get();
    if (gw == nullptr) {
      local = std::make_unique<GemmWeights>(MakeGemmWeights(wt, group_));
      gw = local.get();
    }
    const int64_t k = gw->K(), mg = gw->mg, taps = gw->taps;
    const bool depthwise = cg == 1 && mg == 1;
    const bool vnni = !gw->packed.empty();  // (never for depthwise: not packed)
    // The packed int16 kernel reads each window in place from a padded image (PaddedImage);
    // the VNNI kernel and the scalar build's read gathered rows.
    const bool in_place = !vnni && !depthwise && !gw->packed16.empty();
    const bool x_signed = x.dtype() == DataType::kInt8;
    const int32_t zx = ZeroPointAt(xz, 0);
    std::vector<int32_t> zb(static_cast<size_t>(m));
    for (int64_t c = 0; c < m; ++c)
      zb[static_cast<size_t>(c)] = ZeroPointAt(wz, c);

    // Working memory: the channels-last input (int16) and one gathered block per worker.
    const int64_t workers = ctx.thread_pool() != nullptr ? ctx.thread_pool()->threads() : 1;
    const int64_t k2 = k + (k & 1);
    const int64_t sh = win.strides[0], sw = win.strides[1];
    const int64_t dh = win.dilations[0], dw = win.dilations[1];
    const int64_t ph = win.pad_begin[0], pw = win.pad_begin[1];
    const int64_t kh = wd[2], kw = wd[3];
    const Geometry geo{h, w, c_in, cg, kh, kw, sh, sw, dh, dw, ph, pw};
    std::unique_ptr<PaddedImage> padded;
    if (in_place) padded = std::make_unique<PaddedImage>(geo, win, gw->cg_pad);
    BudgetHold work(BudgetOf(ctx));
    ONNX_LIGHT_RETURN_IF_ERROR(
        work.Add(SaturatedProduct({in_place ? padded->values : h * w * c_in}, 2) +
                     SaturatedProduct({workers, kPixelBlock, k2 + 4 * mg + 8}, 4),
                 "its gathered-window working memory"));

    // The input of one image in channels-last order: uint8 codes for the VNNI kernel
    // (int8 ones shifted by 128, and the zero point with them), centered int16 otherwise.
    const int32_t za = x_signed ? zx + 128 : zx;
    std::vector<uint8_t> x8(vnni ? static_cast<size_t>(h * w * c_in) : 0);
    std::vector<int16_t> x16(vnni || in_place ? 0 : static_cast<size_t>(h * w * c_in));
    // Depthwise weights centered, [taps x C].
    std::vector<int16_t> wdw;
    if (depthwise) {
      wdw.resize(static_cast<size_t>(taps * m));
      for (int64_t c = 0; c < m; ++c)
        for (int64_t t = 0; t < taps; ++t) {
          const uint8_t byte = gw->b[static_cast<size_t>(c * taps + t)];
          const int32_t v = gw->is_signed ? static_cast<int8_t>(byte) : byte;
          wdw[static_cast<size_t>(t * m + c)] =
              static_cast<int16_t>(v - zb[static_cast<size_t>(c)]);
        }
    }
    const auto* xin = static_cast<const uint8_t*>(x.raw_data());
    const int64_t image = h * w * c_in;
    // Blocks of kPixelBlock pixels, smaller where that leaves the workers too few to share
    // (a 16x16 plane is 3 blocks of 96: 2 against 1 on two threads); multiples of 6 rows,
    // the int16 tile's.
    int64_t block = kPixelBlock;
    if (workers > 1) {
      const int64_t even = (plane + 2 * workers - 1) / (2 * workers);
      block = std::max<int64_t>(24, std::min(kPixelBlock, (even + 5) / 6 * 6));
    }
    const int64_t blocks = (plane + block - 1) / block;
    std::vector<int64_t> tap_offsets;  // of each tap from the window's first
    if (in_place) {
      padded->Allocate();
      for (int64_t ty = 0; ty < kh; ++ty)
        for (int64_t tx = 0; tx < kw; ++tx)
          tap_offsets.push_back((ty * dh * padded->wp + tx * dw) * padded->c_pad);
    }

    for (int64_t b = 0; b < batch; ++b) {
      const uint8_t* xi = xin + b * image;
      auto centered = [zx](auto v) { return static_cast<int16_t>(static_cast<int32_t>(v) - zx); };
      auto convert = [&](int64_t begin, int64_t end) {
        if (in_place) {  // (rows of the image)
          if (x_signed) {
            padded->Fill(reinterpret_cast<const int8_t*>(xi), channels_last_, geo, zx, begin, end);
          } else {
            padded->Fill(xi, channels_last_, geo, zx, begin, end);
          }
        } else if (vnni) {
          const uint8_t flip = x_signed ? 0x80 : 0;
          ChannelsLast(
              xi, h * w, c_in, channels_last_,
              [flip](uint8_t v) { return static_cast<uint8_t>(v ^ flip); }, x8.data(), begin, end);
        } else if (x_signed) {
          ChannelsLast(reinterpret_cast<const int8_t*>(xi), h * w, c_in, channels_last_, centered,
                       x16.data(), begin, end);
        } else {
          ChannelsLast(xi, h * w, c_in, channels_last_, centered, x16.data(), begin, end);
        }
      };
      // (split across the pool from 64k values, in runs of 64 pixels or by image rows)
      if (in_place) {
        if (workers > 1 && h * w * c_in >= (int64_t{1} << 16) && h >= 2) {
          ctx.thread_pool()->ParallelFor(h, 1, convert);
        } else {
          convert(0, h);
        }
      } else if (workers > 1 && h * w * c_in >= (int64_t{1} << 16) && h * w >= 128) {
        const int64_t runs = (h * w + 63) / 64;
        ctx.thread_pool()->ParallelFor(
            runs, 1, [&](int64_t r0, int64_t r1) { convert(r0 * 64, std::min(h * w, r1 * 64)); });
      } else {
        convert(0, h * w);
      }
      auto run = [&](int64_t q0, int64_t q1) {
        std::vector<uint8_t> rows8(vnni ? static_cast<size_t>(kPixelBlock * k) : 0);
        std::vector<int16_t> rows16(
            vnni || depthwise || in_place ? 0 : static_cast<size_t>(kPixelBlock * k2));
        std::vector<const int16_t*> bases(in_place ? static_cast<size_t>(kPixelBlock) : 0);
        std::vector<int32_t> acc(static_cast<size_t>(kPixelBlock * m));
        std::vector<uint8_t> tile;
        for (int64_t blk = q0; blk < q1; ++blk) {
          const int64_t p0 = blk * block, n = std::min(block, plane - p0);
          if (depthwise) {
            for (int64_t i = 0; i < n; ++i) {
              const int64_t oy = (p0 + i) / ow, ox = (p0 + i) % ow;
              int32_t* a = acc.data() + i * m;
              std::fill(a, a + m, 0);
              for (int64_t ty = 0; ty < kh; ++ty) {
                const int64_t iy = oy * sh - ph + ty * dh;
                if (iy < 0 || iy >= h) continue;
                for (int64_t tx = 0; tx < kw; ++tx) {
                  const int64_t ix = ox * sw - pw + tx * dw;
                  if (ix < 0 || ix >= w) continue;
                  const int16_t* wv = wdw.data() + (ty * kw + tx) * m;
                  const int16_t* xv = x16.data() + (iy * w + ix) * c_in;
                  for (int64_t c = 0; c < m; ++c)
                    a[c] += static_cast<int32_t>(xv[c]) * wv[c];
                }
              }
            }
          } else {
            for (int64_t g = 0; g < group_; ++g) {
              if (in_place) {
                int64_t oy = p0 / ow, ox = p0 % ow;
                for (int64_t i = 0; i < n; ++i) {
                  bases[static_cast<size_t>(i)] = padded->data.data() +
                                                  (oy * sh * padded->wp + ox * sw) * padded->c_pad +
                                                  g * padded->cg_pad;
                  if (++ox == ow) {
                    ox = 0;
                    ++oy;
                  }
                }
                QGemmI16PackedRuns(n, mg, padded->cg_pad, taps, bases.data(), tap_offsets.data(),
                                   gw->packed16[static_cast<size_t>(g)], 0, zb.data() + g * mg,
                                   acc.data() + g * mg, m);
                continue;
              }
              // Each pixel's window as one row: taps x cg values, padding as the zero point.
              for (int64_t i = 0; i < n; ++i) {
                const int64_t oy = (p0 + i) / ow, ox = (p0 + i) % ow;
                if (vnni) {
                  GatherWindow(x8.data(), rows8.data() + i * k, static_cast<uint8_t>(za), geo, oy,
                               ox, g * cg);
                } else {
                  GatherWindow(x16.data(), rows16.data() + i * k2, int16_t{0}, geo, oy, ox, g * cg);
                  if (k2 > k) rows16[static_cast<size_t>(i * k2 + k)] = 0;
                }
              }
              const uint8_t* bg = gw->b.data() + g * k * mg;
              if (vnni) {
                QGemmVnni(n, mg, k, rows8.data(), k, za, nullptr,
                          reinterpret_cast<const int8_t*>(bg), mg, zb.data() + g * mg,
                          acc.data() + g * mg, m, &gw->packed[static_cast<size_t>(g)], 0);
              } else {  // (a scalar build: b read in place)
                QGemmI16(n, mg, k, rows16.data(), k2, bg, gw->is_signed, mg, zb.data() + g * mg,
                         acc.data() + g * mg, m);
              }
            }
          }
          if (q.type == DataType::kInt8) {
            Requantize(q, acc.data(), m, n, m, p0, plane, y->mutable_data<int8_t>() + b * m * plane,
                       &tile);
          } else {
            Requantize(q, acc.data(), m, n, m, p0, plane,
                       y->mutable_data<uint8_t>() + b * m * plane, &tile);
          }
        }
      };
      // Parts of ~1M multiply-adds at least.
      const int64_t per_block = block * k * m;
      const int64_t min_blocks =
          std::max<int64_t>(1, (int64_t{1} << 20) / std::max<int64_t>(1, per_block));
      if (workers > 1 && blocks > min_blocks) {
        ctx.thread_pool()->ParallelFor(blocks, min_blocks, run);
      } else {
        run(0, blocks);
      }
    }
    return Status::Ok();
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
  std::unique_ptr<GemmWeights> weights_;  // packed once when W is a constant
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
