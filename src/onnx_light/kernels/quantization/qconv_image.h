// The input of a quantized 2-D convolution as its integer kernels read it: the window
// geometry, and one image's centered int16 codes channels-last inside the padding.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "onnx_light/runtime/kernel.h"

namespace onnx_light::kernels {

// The window geometry of a 2-D convolution over a channels-last image.
struct Geometry {
  int64_t h, w, c_in, cg, kh, kw, sh, sw, dh, dw, ph, pw;
};

// Output pixel (oy, ox)'s window as one GEMM row (the scalar build's path: the int16 and
// VNNI kernels read windows in place from a PaddedImageT): for each tap (ty, tx), the cg channels
// from `c0` of the input pixel under it, or `pad` (the zero point's value) outside the image. Rows
// of taps that lie inside with unit dilation and all channels (group 1) are one contiguous run of
// kw * c_in values in the channels-last image: one copy.
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
      std::copy_n(x + (iy * g.w + ix0) * g.c_in, g.kw * g.c_in, row);
      continue;
    }
    for (int64_t tx = 0; tx < g.kw; ++tx) {
      const int64_t ix = ix0 + tx * g.dw;
      E* d = row + tx * g.cg;
      if (ix < 0 || ix >= g.w) {
        for (int64_t ch = 0; ch < g.cg; ++ch)
          d[ch] = pad;
      } else {
        std::copy_n(x + (iy * g.w + ix) * g.c_in + c0, g.cg, d);
      }
    }
  }
}

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

// One image's codes channels-last inside the convolution's padding, each group's channels
// made a whole count of the kernel's unit (a pad channel), so that every window is whole
// units read in place: output pixel (oy, ox)'s window starts at ((oy * sh) * wp + ox * sw) *
// c_pad + g * cg_pad. E int16: centered codes, padding 0 (the int16 kernel, pairs); E
// uint8: the VNNI kernel's codes, padding the zero point's code (quads).
template <typename E>
struct PaddedImageT {
  int64_t top = 0, left = 0, wp = 0, cg = 0, cg_pad = 0, c_pad = 0;
  E* data = nullptr;  // in `storage`, kept by the caller between runs

  // For out_h x out_w output pixels (the convolution's, or more: whole Winograd tiles).
  PaddedImageT(const Geometry& g, int64_t out_h, int64_t out_w, int64_t cg_padded) : cg(g.cg) {
    top = g.ph;
    left = g.pw;
    const int64_t bottom =
        std::max<int64_t>(0, (out_h - 1) * g.sh - g.ph + (g.kh - 1) * g.dh - (g.h - 1));
    const int64_t right =
        std::max<int64_t>(0, (out_w - 1) * g.sw - g.pw + (g.kw - 1) * g.dw - (g.w - 1));
    wp = left + g.w + right;
    cg_pad = cg_padded;
    c_pad = g.c_in / g.cg * cg_pad;
    values = (top + g.h + bottom) * wp * c_pad;
  }
  // Storage for the image (a vector kept between runs: no new pages each time), `pad`
  // everywhere Fill does not write: only the borders where there are no pad channels.
  void Allocate(std::vector<E>* storage, const Geometry& g, E pad = E{0}) {
    storage->resize(static_cast<size_t>(values));
    data = storage->data();
    if (c_pad != g.c_in) {
      std::fill(storage->begin(), storage->end(), pad);
      return;
    }
    const int64_t row = wp * c_pad, rows = values / row;
    std::fill(data, data + top * row, pad);
    std::fill(data + (top + g.h) * row, data + rows * row, pad);
    for (int64_t y = top; y < top + g.h; ++y) {
      std::fill(data + y * row, data + y * row + left * c_pad, pad);
      std::fill(data + y * row + (left + g.w) * c_pad, data + (y + 1) * row, pad);
    }
  }
  int64_t values = 0;

  // Input rows [y0, y1) of x (channels-first or -last), each value through f. (Sizes in
  // locals: byte stores may alias anything, and loops bounded by fields of `g` or `this`
  // reloaded them at every value instead of running as vectors.)
  template <typename S, typename F>
  void FillWith(const S* __restrict x, bool channels_last, const Geometry& g, F f, int64_t y0,
                int64_t y1) const {
    const int64_t w = g.w, h = g.h, c_in = g.c_in, cgv = cg, cgp = cg_pad, cp = c_pad;
    E* const base = data;
    const int64_t row = wp * cp, first = (top * wp + left) * cp;
    for (int64_t y = y0; y < y1; ++y) {
      E* __restrict dst = base + first + y * row;
      if (channels_last && cp == c_in) {
        const S* __restrict src = x + y * w * c_in;
        const int64_t n = w * c_in;
        for (int64_t i = 0; i < n; ++i)
          dst[i] = f(src[i]);
        continue;
      }
      for (int64_t c = 0; c < c_in; ++c) {
        E* __restrict d = dst + c / cgv * cgp + c % cgv;
        const S* __restrict src = channels_last ? x + y * w * c_in + c : x + (c * h + y) * w;
        const int64_t step = channels_last ? c_in : 1;
        for (int64_t i = 0; i < w; ++i)
          d[i * cp] = f(src[i * step]);
      }
    }
  }
  // (int16) Input rows [y0, y1) of x, centered by zx.
  template <typename S>
  void Fill(const S* __restrict x, bool channels_last, const Geometry& g, int32_t zx, int64_t y0,
            int64_t y1) const {
    FillWith(
        x, channels_last, g,
        [zx](S v) { return static_cast<int16_t>(static_cast<int32_t>(v) - zx); }, y0, y1);
  }
};
using PaddedImage = PaddedImageT<int16_t>;

// What one worker of a quantized convolution writes between its input and output: kept in
// the node's per-frame state (QConvState) so that runs after the first touch no new pages.
struct QConvWorker {
  std::vector<int16_t> v;     // Winograd: transformed input tiles
  std::vector<int32_t> prod;  // Winograd: their products
  std::vector<int32_t> acc;   // the int32 sums of a block of pixels
  std::vector<uint8_t> tile;  // requantized codes on their way to NCHW
  std::vector<const int16_t*> bases;
  std::vector<const uint8_t*> bases8;  // (the VNNI kernel)
  std::vector<int16_t> rows16;         // gathered windows (the scalar build)
};

struct QConvState : KernelState {
  std::vector<int16_t> image;   // the padded input image (the int16 kernel)
  std::vector<uint8_t> image8;  // (the VNNI kernel)
  std::mutex mu;
  std::vector<std::unique_ptr<QConvWorker>> idle;
};

// A worker's buffers for the length of one parallel part: taken from the state's idle
// ones (or made), given back when it ends.
class QConvLease {
 public:
  explicit QConvLease(QConvState* state) : state_(state) {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->idle.empty()) {
      worker_ = std::make_unique<QConvWorker>();
    } else {
      worker_ = std::move(state_->idle.back());
      state_->idle.pop_back();
    }
  }
  ~QConvLease() {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->idle.push_back(std::move(worker_));
  }
  QConvLease(const QConvLease&) = delete;
  QConvLease& operator=(const QConvLease&) = delete;
  QConvWorker& operator*() const { return *worker_; }
  QConvWorker* operator->() const { return worker_.get(); }

 private:
  QConvState* state_;
  std::unique_ptr<QConvWorker> worker_;
};

}  // namespace onnx_light::kernels
