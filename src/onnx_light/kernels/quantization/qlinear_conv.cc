// QLinearConv (ai.onnx 10; com.microsoft's registration adds channels_last): the integer
// convolution of (x - x_zero_point) and (w - w_zero_point) plus the int32 bias, times
// x_scale * w_scale / y_scale (w_scale one value or one per output channel), then
// saturate(round_half_even(.) + y_zero_point). The scaling and rounding are in float, as
// ONNX Runtime's kernels (MLAS) requantize, so a model gives ORT's codes.
//
// 2-D convolutions (quantized CNNs) take the fast path, the way ORT runs them: the input
// once as centered int16 codes channels-last inside its padding (qconv_image.h), the
// weights packed when the kernel is made (qconv_weights.h); then per block of output
// pixels one exact integer GEMM per group reading each window in place (a row base per
// pixel, an offset per tap: simd/qgemm_simd.h), 3x3 stride-1 layers through Winograd
// F(2x2, 3x3) in exact integers (qconv_winograd.h: 2.25x fewer products), uint8 x int8
// with AVX-512 VNNI on gathered windows, depthwise convolutions as a direct loop over
// channels; the requantization per pixel in vector code (simd/qlinear_simd.h). Output
// pixels are split across the pool; the working buffers live in the node's per-frame
// state, so later runs touch no new pages. Other ranks take the reference path (im2col,
// conv_integer.h), with the same requantization.
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
#include "quantization/qconv_image.h"
#include "quantization/qconv_weights.h"
#include "quantization/qconv_winograd.h"
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
      // Winograd for 3x3 (checked again at run time: strides, dilations, the input).
      const bool has_wz = info.input_count() > 5 && info.input_type(5) != DataType::kUndefined;
      const Tensor* wz = has_wz ? info.constant_input(5) : nullptr;
      const bool wz_known = !has_wz || wz != nullptr;
      if (k->group_ == 1 && wz_known && k->weights_->packed.empty()) {
        k->winograd_ = std::make_unique<WinogradWeights>(MakeWinogradWeights(*w, wz));
      }
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

    QConvState& state = ctx.State<QConvState>();
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
    // Winograd F(2x2, 3x3) where the weights were transformed (qconv_winograd.h): stride 1,
    // dilation 1; its image covers whole 2x2 tiles.
    const bool winograd = in_place && winograd_ != nullptr && winograd_->usable() && kh == 3 &&
                          kw == 3 && sh == 1 && sw == 1 && dh == 1 && dw == 1 &&
                          winograd_->c_pad == gw->cg_pad;
    const int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2;
    const int64_t tile_rows = WinogradTileRowsPerBlock(ow);
    std::unique_ptr<PaddedImage> padded;
    if (in_place) {
      padded = winograd ? std::make_unique<PaddedImage>(geo, 2 * th, 2 * tw, gw->cg_pad)
                        : std::make_unique<PaddedImage>(geo, oh, ow, gw->cg_pad);
    }
    BudgetHold work(BudgetOf(ctx));
    ONNX_LIGHT_RETURN_IF_ERROR(work.Add(
        SaturatedProduct({in_place ? padded->values : h * w * c_in}, 2) +
            (winograd ? SaturatedProduct({workers, tile_rows, tw, 16, gw->cg_pad + 2 * m}, 2) : 0) +
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
      padded->Allocate(&state.image, geo);
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
      // (split across the pool from 64k values, in runs of 64 pixels, or by image rows
      // from 16k)
      if (in_place) {
        if (workers > 1 && h * w * c_in >= (int64_t{1} << 14) && h >= 2) {
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
      if (winograd) {
        // Blocks of tile rows: the transformed products, then the requantized pixels.
        auto rows = [&](int64_t q0, int64_t q1) {
          QConvLease worker(&state);
          std::vector<int32_t>& acc = worker->acc;
          std::vector<uint8_t>& tile = worker->tile;
          acc.resize(static_cast<size_t>(2 * tile_rows * ow * m));
          for (int64_t blk = q0; blk < q1; ++blk) {
            const int64_t tr0 = blk * tile_rows, tr1 = std::min(th, tr0 + tile_rows);
            WinogradRows(*padded, *winograd_, oh, ow, tr0, tr1, &*worker, acc.data());
            const int64_t p0 = 2 * tr0 * ow, n = (std::min(oh, 2 * tr1) - 2 * tr0) * ow;
            if (q.type == DataType::kInt8) {
              Requantize(q, acc.data(), m, n, m, p0, plane,
                         y->mutable_data<int8_t>() + b * m * plane, &tile);
            } else {
              Requantize(q, acc.data(), m, n, m, p0, plane,
                         y->mutable_data<uint8_t>() + b * m * plane, &tile);
            }
          }
        };
        const int64_t wblocks = (th + tile_rows - 1) / tile_rows;
        if (workers > 1 && wblocks > 1) {
          ctx.thread_pool()->ParallelFor(wblocks, 1, rows);
        } else {
          rows(0, wblocks);
        }
        continue;
      }
      auto run = [&](int64_t q0, int64_t q1) {
        QConvLease worker(&state);
        std::vector<uint8_t>& rows8 = worker->rows8;
        std::vector<int16_t>& rows16 = worker->rows16;
        std::vector<const int16_t*>& bases = worker->bases;
        std::vector<int32_t>& acc = worker->acc;
        std::vector<uint8_t>& tile = worker->tile;
        rows8.resize(vnni ? static_cast<size_t>(kPixelBlock * k) : 0);
        rows16.resize(vnni || depthwise || in_place ? 0 : static_cast<size_t>(kPixelBlock * k2));
        bases.resize(in_place ? static_cast<size_t>(kPixelBlock) : 0);
        acc.resize(static_cast<size_t>(kPixelBlock * m));
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
                  bases[static_cast<size_t>(i)] = padded->data +
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
  std::unique_ptr<GemmWeights> weights_;       // packed once when W is a constant
  std::unique_ptr<WinogradWeights> winograd_;  // and transformed, where Winograd applies
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
