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

// Depthwise weights centered by their zero points, [taps x C].
std::vector<int16_t> CenteredDepthwise(const GemmWeights& gw, const std::vector<int32_t>& zb,
                                       int64_t m) {
  const int64_t taps = gw.taps;
  std::vector<int16_t> wdw(static_cast<size_t>(taps * m));
  for (int64_t c = 0; c < m; ++c)
    for (int64_t t = 0; t < taps; ++t) {
      const uint8_t byte = gw.b[static_cast<size_t>(c * taps + t)];
      const int32_t v = gw.is_signed ? static_cast<int8_t>(byte) : byte;
      wdw[static_cast<size_t>(t * m + c)] = static_cast<int16_t>(v - zb[static_cast<size_t>(c)]);
    }
  return wdw;
}

// A depthwise block: n pixels from p0 of an ow-wide output, each channel's taps summed
// (int16 products into int32) from the channels-last centered image x16.
void DepthwiseBlock(const Geometry& g, const int16_t* x16, const int16_t* wdw, int64_t m,
                    int64_t ow, int64_t p0, int64_t n, int32_t* acc) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t oy = (p0 + i) / ow, ox = (p0 + i) % ow;
    int32_t* a = acc + i * m;
    std::fill(a, a + m, 0);
    for (int64_t ty = 0; ty < g.kh; ++ty) {
      const int64_t iy = oy * g.sh - g.ph + ty * g.dh;
      if (iy < 0 || iy >= g.h) continue;
      for (int64_t tx = 0; tx < g.kw; ++tx) {
        const int64_t ix = ox * g.sw - g.pw + tx * g.dw;
        if (ix < 0 || ix >= g.w) continue;
        const int16_t* wv = wdw + (ty * g.kw + tx) * m;
        const int16_t* xv = x16 + (iy * g.w + ix) * g.c_in;
        for (int64_t c = 0; c < m; ++c)
          a[c] += static_cast<int32_t>(xv[c]) * wv[c];
      }
    }
  }
}

// The first value of each of n output pixels' windows (from p0) in a padded image, at
// group g's channels.
template <typename E>
void WindowBases(const PaddedImageT<E>& img, const Geometry& geo, int64_t ow, int64_t p0, int64_t n,
                 int64_t g, const E** bases) {
  int64_t oy = p0 / ow, ox = p0 % ow;
  for (int64_t i = 0; i < n; ++i) {
    bases[i] = img.data + (oy * geo.sh * img.wp + ox * geo.sw) * img.c_pad + g * img.cg_pad;
    if (++ox == ow) {
      ox = 0;
      ++oy;
    }
  }
}

// Image b's input in the layout its kernel reads: into the padded int16 image (in
// place), the padded uint8 one (VNNI: int8 codes flipped by 128), or the channels-last
// centered int16 buffer x16; split across the pool from 16k values by image rows, or 64k
// in runs of 64 pixels.
void ConvertImage(const uint8_t* xi, bool x_signed, bool channels_last, const Geometry& geo,
                  int32_t zx, PaddedImage* padded, PaddedImageT<uint8_t>* padded8, int16_t* x16,
                  ThreadPool* pool) {
  const int64_t h = geo.h, w = geo.w, c_in = geo.c_in;
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  auto centered = [zx](auto v) { return static_cast<int16_t>(static_cast<int32_t>(v) - zx); };
  auto convert = [&](int64_t begin, int64_t end) {
    if (padded != nullptr) {  // (rows of the image)
      if (x_signed) {
        padded->Fill(reinterpret_cast<const int8_t*>(xi), channels_last, geo, zx, begin, end);
      } else {
        padded->Fill(xi, channels_last, geo, zx, begin, end);
      }
    } else if (padded8 != nullptr) {  // (rows of the image)
      const uint8_t flip = x_signed ? 0x80 : 0;
      padded8->FillWith(
          xi, channels_last, geo, [flip](uint8_t v) { return static_cast<uint8_t>(v ^ flip); },
          begin, end);
    } else if (x_signed) {
      ChannelsLast(reinterpret_cast<const int8_t*>(xi), h * w, c_in, channels_last, centered, x16,
                   begin, end);
    } else {
      ChannelsLast(xi, h * w, c_in, channels_last, centered, x16, begin, end);
    }
  };
  if (padded != nullptr || padded8 != nullptr) {
    if (workers > 1 && h * w * c_in >= (int64_t{1} << 14) && h >= 2) {
      pool->ParallelFor(h, 1, convert);
    } else {
      convert(0, h);
    }
  } else if (workers > 1 && h * w * c_in >= (int64_t{1} << 16) && h * w >= 128) {
    const int64_t runs = (h * w + 63) / 64;
    pool->ParallelFor(runs, 1,
                      [&](int64_t r0, int64_t r1) { convert(r0 * 64, std::min(h * w, r1 * 64)); });
  } else {
    convert(0, h * w);
  }
}

// Winograd F(2x2, 3x3) over image b: blocks of tile rows, the transformed products, then
// the requantized pixels written; blocks across the pool.
void WinogradImage(QConvState* state, const PaddedImage& padded, const WinogradWeights& ww,
                   int64_t oh, int64_t ow, int64_t m, int64_t b, Tensor* y,
                   const QConvBlockFn& write, ThreadPool* pool) {
  const int64_t th = (oh + 1) / 2, tile_rows = WinogradTileRowsPerBlock(ow), plane = oh * ow;
  auto rows = [&](int64_t q0, int64_t q1) {
    QConvLease worker(state);
    std::vector<int32_t>& acc = worker->acc;
    std::vector<uint8_t>& tile = worker->tile;
    acc.resize(static_cast<size_t>(2 * tile_rows * ow * m));
    for (int64_t blk = q0; blk < q1; ++blk) {
      const int64_t tr0 = blk * tile_rows, tr1 = std::min(th, tr0 + tile_rows);
      WinogradRows(padded, ww, oh, ow, tr0, tr1, &*worker, acc.data());
      const int64_t p0 = 2 * tr0 * ow, n = (std::min(oh, 2 * tr1) - 2 * tr0) * ow;
      write(acc.data(), n, m, b, p0, plane, y, &tile);
    }
  };
  const int64_t wblocks = (th + tile_rows - 1) / tile_rows;
  if (pool != nullptr && pool->threads() > 1 && wblocks > 1) {
    pool->ParallelFor(wblocks, 1, rows);
  } else {
    rows(0, wblocks);
  }
}

// Pixels per block: kPixelBlock, smaller where that leaves the workers too few to share
// (a 16x16 plane is 3 blocks of 96: 2 against 1 on two threads); multiples of 6 rows, the
// int16 tile's.
int64_t PixelBlock(int64_t plane, int64_t workers) {
  if (workers <= 1) return kPixelBlock;
  const int64_t even = (plane + 2 * workers - 1) / (2 * workers);
  return std::max<int64_t>(24, std::min(kPixelBlock, (even + 5) / 6 * 6));
}

// The padded image of the in-place int16 kernel or of the VNNI one allocated (the VNNI
// padding: the zero point's code za, whose centered value is 0); returns each tap's offset
// from its window's first value.
std::vector<int64_t> PrepareImages(QConvState* state, const Geometry& geo, PaddedImage* padded,
                                   PaddedImageT<uint8_t>* padded8, int32_t za) {
  const int64_t wp = padded != nullptr ? padded->wp : padded8->wp;
  const int64_t c_pad = padded != nullptr ? padded->c_pad : padded8->c_pad;
  if (padded != nullptr) {
    padded->Allocate(&state->image, geo);
  } else {
    padded8->Allocate(&state->image8, geo, static_cast<uint8_t>(za));
  }
  std::vector<int64_t> offsets;
  for (int64_t ty = 0; ty < geo.kh; ++ty)
    for (int64_t tx = 0; tx < geo.kw; ++tx)
      offsets.push_back((ty * geo.dh * wp + tx * geo.dw) * c_pad);
  return offsets;
}

Geometry MakeGeometry(const Window& win, int64_t h, int64_t w, int64_t c_in, int64_t cg, int64_t kh,
                      int64_t kw) {
  return Geometry{h,
                  w,
                  c_in,
                  cg,
                  kh,
                  kw,
                  win.strides[0],
                  win.strides[1],
                  win.dilations[0],
                  win.dilations[1],
                  win.pad_begin[0],
                  win.pad_begin[1]};
}

// Per group: whether any of its output channels' weight zero points is nonzero.
std::vector<char> GroupsWithZeroPoints(const std::vector<int32_t>& zb, int64_t group, int64_t mg) {
  std::vector<char> any(static_cast<size_t>(group), 0);
  for (size_t c = 0; c < zb.size(); ++c)
    any[c / static_cast<size_t>(mg)] |= static_cast<char>(zb[c] != 0);
  return any;
}

// The scalar build's group block: each pixel's window as one row (taps x cg values,
// padding as the zero point) in rows16, then the int16 GEMM against b read in place.
void ScalarGroupBlock(const int16_t* x16, const Geometry& geo, const GemmWeights& gw,
                      const int32_t* zb, int64_t ow, int64_t p0, int64_t n, int64_t g, int64_t m,
                      int16_t* rows16, int32_t* acc) {
  const int64_t k = gw.K(), k2 = k + (k & 1), mg = gw.mg;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t oy = (p0 + i) / ow, ox = (p0 + i) % ow;
    GatherWindow(x16, rows16 + i * k2, int16_t{0}, geo, oy, ox, g * geo.cg);
    if (k2 > k) rows16[i * k2 + k] = 0;
  }
  QGemmI16(n, mg, k, rows16, k2, gw.b.data() + g * k * mg, gw.is_signed, mg, zb + g * mg,
           acc + g * mg, m);
}

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
  const int64_t kh = wd[2], kw = wd[3];
  const Geometry geo = MakeGeometry(win, h, w, c_in, cg, kh, kw);
  const int64_t sh = geo.sh, sw = geo.sw, dh = geo.dh, dw = geo.dw;
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
  const std::vector<int16_t> wdw =
      depthwise ? CenteredDepthwise(*gw, zb, m) : std::vector<int16_t>();
  const auto* xin = static_cast<const uint8_t*>(x.raw_data());
  const int64_t image = h * w * c_in;
  const int64_t block = PixelBlock(plane, workers);
  const int64_t blocks = (plane + block - 1) / block;
  const std::vector<int64_t> tap_offsets =  // of each tap from the window's first
      in_place || vnni ? PrepareImages(&state, geo, padded.get(), padded8.get(), za)
                       : std::vector<int64_t>();
  // The VNNI kernel skips the row sums of groups whose weight zero points are all 0.
  const std::vector<char> rowsums = GroupsWithZeroPoints(zb, group, mg);

  for (int64_t b = 0; b < batch; ++b) {
    const uint8_t* xi = xin + b * image;
    ConvertImage(xi, x_signed, channels_last, geo, zx, in_place ? padded.get() : nullptr,
                 vnni ? padded8.get() : nullptr, x16.data(), ctx.thread_pool());
    if (winograd) {
      WinogradImage(&state, *padded, *args.pre.winograd, oh, ow, m, b, y, write, ctx.thread_pool());
      continue;
    }
    auto run = [&](int64_t q0, int64_t q1) {
      QConvLease worker(&state);
      std::vector<int32_t>& acc = worker->acc;
      worker->rows16.resize(vnni || depthwise || in_place ? 0 : size_t{kPixelBlock} * k2);
      worker->bases.resize(in_place ? static_cast<size_t>(kPixelBlock) : 0);
      worker->bases8.resize(vnni ? static_cast<size_t>(kPixelBlock) : 0);
      acc.resize(static_cast<size_t>(kPixelBlock * m));
      for (int64_t blk = q0; blk < q1; ++blk) {
        const int64_t p0 = blk * block, n = std::min(block, plane - p0);
        if (depthwise) {
          DepthwiseBlock(geo, x16.data(), wdw.data(), m, ow, p0, n, acc.data());
        } else {
          for (int64_t g = 0; g < group; ++g) {
            if (in_place) {
              WindowBases<int16_t>(*padded, geo, ow, p0, n, g, worker->bases.data());
              QGemmI16PackedRuns(n, mg, padded->cg_pad, taps, worker->bases.data(),
                                 tap_offsets.data(), gw->packed16[static_cast<size_t>(g)], 0,
                                 zb.data() + g * mg, acc.data() + g * mg, m);
              continue;
            }
            if (vnni) {
              WindowBases<uint8_t>(*padded8, geo, ow, p0, n, g, worker->bases8.data());
              QGemmVnniRuns(n, mg, padded8->cg_pad, taps, worker->bases8.data(), tap_offsets.data(),
                            za, rowsums[static_cast<size_t>(g)] != 0,
                            gw->packed[static_cast<size_t>(g)], 0, zb.data() + g * mg,
                            acc.data() + g * mg, m);
              continue;
            }
            ScalarGroupBlock(x16.data(), geo, *gw, zb.data(), ow, p0, n, g, m,
                             worker->rows16.data(), acc.data());
          }
        }
        write(acc.data(), n, m, b, p0, plane, y, &worker->tile);
      }
    };
    // Parts of ~1M multiply-adds at least.
    const int64_t min_blocks =
        std::max<int64_t>(1, (int64_t{1} << 20) / std::max<int64_t>(1, block * k * m));
    if (workers > 1 && blocks > min_blocks) {
      ctx.thread_pool()->ParallelFor(blocks, min_blocks, run);
    } else {
      run(0, blocks);
    }
  }
  return Status::Ok();
}

}  // namespace onnx_light::kernels
