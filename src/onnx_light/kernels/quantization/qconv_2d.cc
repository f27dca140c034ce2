#include "quantization/qconv_2d.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "onnx_light/platform/mapped_file.h"
#include "onnx_light/runtime/thread_pool.h"
#include "quantization/qconv_image.h"
#include "simd/qgemm_simd.h"

namespace onnx_light::kernels {
namespace {

// Output pixels per unit of work: one block of windows and its GEMM.
constexpr int64_t kPixelBlock = 96;

}  // namespace

int32_t QZeroPointAt(const Tensor* zp, int64_t i) {
  if (zp == nullptr) return 0;
  const int64_t at = zp->num_elements() == 1 ? 0 : i;
  return zp->dtype() == DataType::kInt8 ? zp->data<int8_t>()[at]
                                        : static_cast<int32_t>(zp->data<uint8_t>()[at]);
}

bool QConv2DWeightsFit(const Tensor& w, const WindowAttrs& attrs, int64_t group) {
  const std::vector<int64_t>& d = w.shape().dims();
  return d.size() == 4 && d[0] > 0 && d[1] > 0 && d[0] % group == 0 &&
         (attrs.kernel.empty() || attrs.kernel == std::vector<int64_t>{d[2], d[3]});
}

QConvWeights PrepareQConvWeights(const KernelInfo& info, size_t w_index, size_t wz_index,
                                 const WindowAttrs& attrs, int64_t group) {
  QConvWeights pre;
  const Tensor* w = info.constant_input(w_index);
  if (w == nullptr || !QConv2DWeightsFit(*w, attrs, group)) return pre;
  pre.gemm = std::make_unique<GemmWeights>(MakeGemmWeights(*w, group));
  // Winograd for 3x3 (checked again at run time: strides, dilations, the input).
  const bool has_wz =
      info.input_count() > wz_index && info.input_type(wz_index) != DataType::kUndefined;
  const Tensor* wz = has_wz ? info.constant_input(wz_index) : nullptr;
  const bool wz_known = !has_wz || wz != nullptr;
  if (group == 1 && wz_known && pre.gemm->packed.empty()) {
    pre.winograd = std::make_unique<WinogradWeights>(MakeWinogradWeights(*w, wz));
  }
  // The model file's pages of W go back: the kernels read the prepared copies (a path
  // that reads W maps them in again).
  ReleaseMappedPages(w->raw_data(), w->byte_size());
  return pre;
}

Status QConv2D(KernelContext& ctx, const QConv2DArgs& args, const QConvBlockFn& write) {
  const Tensor& x = args.x;
  const Tensor& wt = args.w;
  const Tensor* xz = args.xz;
  const Tensor* wz = args.wz;
  const int64_t group = args.group;
  const bool channels_last = args.channels_last;
  const std::vector<int64_t>& xd = x.shape().dims();
  const std::vector<int64_t>& wd = wt.shape().dims();
  const int64_t batch = xd[0], c_in = channels_last ? xd[3] : xd[1];
  const int64_t h = channels_last ? xd[1] : xd[2], w = channels_last ? xd[2] : xd[3];
  const int64_t m = wd[0], cg = wd[1];
  ONNX_LIGHT_RETURN_IF(c_in % group != 0 || c_in / group != cg, kInvalidArgument,
                       "W " + wt.shape().ToString() + " does not match X " + x.shape().ToString() +
                           " with group " + std::to_string(group));
  ONNX_LIGHT_ASSIGN_OR_RETURN(Window win, MakeWindow(args.attrs, {h, w}, {wd[2], wd[3]}));
  const int64_t oh = win.out[0], ow = win.out[1], plane = oh * ow;
  std::vector<int64_t> dims = channels_last ? std::vector<int64_t>{batch, oh, ow, m}
                                            : std::vector<int64_t>{batch, m, oh, ow};
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, args.out_type, dims));
  if (y->num_elements() == 0) return Status::Ok();

  QConvState& state = ctx.State<QConvState>();
  std::unique_ptr<GemmWeights> local;
  const GemmWeights* gw = args.pre.gemm.get();
  if (gw == nullptr) {
    local = std::make_unique<GemmWeights>(MakeGemmWeights(wt, group));
    gw = local.get();
  }
  const int64_t k = gw->K(), mg = gw->mg, taps = gw->taps;
  const bool depthwise = cg == 1 && mg == 1;
  const bool vnni = !gw->packed.empty();  // (never for depthwise: not packed)
  // The packed int16 kernel and the VNNI one read each window in place from a padded image
  // (PaddedImageT: int16 centered codes, or the uint8 codes); the scalar build's reads
  // gathered rows.
  const bool in_place = !vnni && !depthwise && !gw->packed16.empty();
  const bool x_signed = x.dtype() == DataType::kInt8;
  const int32_t zx = QZeroPointAt(xz, 0);
  std::vector<int32_t> zb(static_cast<size_t>(m));
  for (int64_t c = 0; c < m; ++c)
    zb[static_cast<size_t>(c)] = QZeroPointAt(wz, c) - (vnni ? gw->vnni_shift : 0);

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
  const bool winograd = in_place && args.pre.winograd != nullptr && args.pre.winograd->usable() &&
                        kh == 3 && kw == 3 && sh == 1 && sw == 1 && dh == 1 && dw == 1 &&
                        args.pre.winograd->c_pad == gw->cg_pad;
  const int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2;
  const int64_t tile_rows = WinogradTileRowsPerBlock(ow);
  std::unique_ptr<PaddedImage> padded;
  if (in_place) {
    padded = winograd ? std::make_unique<PaddedImage>(geo, 2 * th, 2 * tw, gw->cg_pad)
                      : std::make_unique<PaddedImage>(geo, oh, ow, gw->cg_pad);
  }
  std::unique_ptr<PaddedImageT<uint8_t>> padded8;
  if (vnni) padded8 = std::make_unique<PaddedImageT<uint8_t>>(geo, oh, ow, gw->cg4);
  BudgetHold work(BudgetOf(ctx));
  ONNX_LIGHT_RETURN_IF_ERROR(work.Add(
      SaturatedProduct({in_place ? padded->values
                        : vnni   ? padded8->values
                                 : h * w * c_in},
                       2) +
          (winograd ? SaturatedProduct({workers, tile_rows, tw, 16, gw->cg_pad + 2 * m}, 2) : 0) +
          SaturatedProduct({workers, kPixelBlock, k2 + 4 * mg + 8}, 4),
      "its gathered-window working memory"));

  // The input of one image in channels-last order: uint8 codes for the VNNI kernel
  // (int8 ones shifted by 128, and the zero point with them), centered int16 otherwise.
  const int32_t za = x_signed ? zx + 128 : zx;
  std::vector<int16_t> x16(vnni || in_place ? 0 : static_cast<size_t>(h * w * c_in));
  // Depthwise weights centered, [taps x C].
  std::vector<int16_t> wdw;
  if (depthwise) {
    wdw.resize(static_cast<size_t>(taps * m));
    for (int64_t c = 0; c < m; ++c)
      for (int64_t t = 0; t < taps; ++t) {
        const uint8_t byte = gw->b[static_cast<size_t>(c * taps + t)];
        const int32_t v = gw->is_signed ? static_cast<int8_t>(byte) : byte;
        wdw[static_cast<size_t>(t * m + c)] = static_cast<int16_t>(v - zb[static_cast<size_t>(c)]);
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
  if (in_place || vnni) {
    const int64_t wp = in_place ? padded->wp : padded8->wp;
    const int64_t c_pad = in_place ? padded->c_pad : padded8->c_pad;
    if (in_place) {
      padded->Allocate(&state.image, geo);
    } else {  // (the padding: the zero point's code, whose centered value is 0)
      padded8->Allocate(&state.image8, geo, static_cast<uint8_t>(za));
    }
    for (int64_t ty = 0; ty < kh; ++ty)
      for (int64_t tx = 0; tx < kw; ++tx)
        tap_offsets.push_back((ty * dh * wp + tx * dw) * c_pad);
  }
  // The VNNI kernel skips the row sums of groups whose weight zero points are all 0.
  std::vector<char> rowsums(static_cast<size_t>(group), 0);
  for (int64_t c = 0; c < m; ++c)
    rowsums[static_cast<size_t>(c / mg)] |= static_cast<char>(zb[static_cast<size_t>(c)] != 0);

  for (int64_t b = 0; b < batch; ++b) {
    const uint8_t* xi = xin + b * image;
    auto centered = [zx](auto v) { return static_cast<int16_t>(static_cast<int32_t>(v) - zx); };
    auto convert = [&](int64_t begin, int64_t end) {
      if (in_place) {  // (rows of the image)
        if (x_signed) {
          padded->Fill(reinterpret_cast<const int8_t*>(xi), channels_last, geo, zx, begin, end);
        } else {
          padded->Fill(xi, channels_last, geo, zx, begin, end);
        }
      } else if (vnni) {  // (rows of the image)
        const uint8_t flip = x_signed ? 0x80 : 0;
        padded8->FillWith(
            xi, channels_last, geo, [flip](uint8_t v) { return static_cast<uint8_t>(v ^ flip); },
            begin, end);
      } else if (x_signed) {
        ChannelsLast(reinterpret_cast<const int8_t*>(xi), h * w, c_in, channels_last, centered,
                     x16.data(), begin, end);
      } else {
        ChannelsLast(xi, h * w, c_in, channels_last, centered, x16.data(), begin, end);
      }
    };
    // (split across the pool from 64k values, in runs of 64 pixels, or by image rows
    // from 16k)
    if (in_place || vnni) {
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
          WinogradRows(*padded, *args.pre.winograd, oh, ow, tr0, tr1, &*worker, acc.data());
          const int64_t p0 = 2 * tr0 * ow, n = (std::min(oh, 2 * tr1) - 2 * tr0) * ow;
          write(acc.data(), n, m, b, p0, plane, y, &tile);
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
      std::vector<int16_t>& rows16 = worker->rows16;
      std::vector<const int16_t*>& bases = worker->bases;
      std::vector<const uint8_t*>& bases8 = worker->bases8;
      std::vector<int32_t>& acc = worker->acc;
      std::vector<uint8_t>& tile = worker->tile;
      rows16.resize(vnni || depthwise || in_place ? 0 : static_cast<size_t>(kPixelBlock * k2));
      bases.resize(in_place ? static_cast<size_t>(kPixelBlock) : 0);
      bases8.resize(vnni ? static_cast<size_t>(kPixelBlock) : 0);
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
          for (int64_t g = 0; g < group; ++g) {
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
            if (vnni) {
              int64_t oy = p0 / ow, ox = p0 % ow;
              for (int64_t i = 0; i < n; ++i) {
                bases8[static_cast<size_t>(i)] =
                    padded8->data + (oy * sh * padded8->wp + ox * sw) * padded8->c_pad +
                    g * padded8->cg_pad;
                if (++ox == ow) {
                  ox = 0;
                  ++oy;
                }
              }
              QGemmVnniRuns(n, mg, padded8->cg_pad, taps, bases8.data(), tap_offsets.data(), za,
                            rowsums[static_cast<size_t>(g)] != 0,
                            gw->packed[static_cast<size_t>(g)], 0, zb.data() + g * mg,
                            acc.data() + g * mg, m);
              continue;
            }
            // A scalar build: each pixel's window as one row (taps x cg values, padding as
            // the zero point), b read in place.
            for (int64_t i = 0; i < n; ++i) {
              const int64_t oy = (p0 + i) / ow, ox = (p0 + i) % ow;
              GatherWindow(x16.data(), rows16.data() + i * k2, int16_t{0}, geo, oy, ox, g * cg);
              if (k2 > k) rows16[static_cast<size_t>(i * k2 + k)] = 0;
            }
            QGemmI16(n, mg, k, rows16.data(), k2, gw->b.data() + g * k * mg, gw->is_signed, mg,
                     zb.data() + g * mg, acc.data() + g * mg, m);
          }
        }
        write(acc.data(), n, m, b, p0, plane, y, &tile);
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

}  // namespace onnx_light::kernels
