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

// One image's centered int16 codes channels-last inside the convolution's padding (zeros:
// the zero point's code centered), each group's channels made an even count (a zero
// channel), so that every window is whole pairs read in place: output pixel (oy, ox)'s
// window starts at ((oy * sh) * wp + ox * sw) * c_pad + g * cg_pad.
struct PaddedImage {
  int64_t top = 0, left = 0, wp = 0, cg = 0, cg_pad = 0, c_pad = 0;
  int16_t* data = nullptr;  // in `storage`, kept by the caller between runs

  // For out_h x out_w output pixels (the convolution's, or more: whole Winograd tiles).
  PaddedImage(const Geometry& g, int64_t out_h, int64_t out_w, int64_t cg_padded) : cg(g.cg) {
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
  // Zeroed storage for the image (a vector kept between runs: no new pages each time).
  // Only the padding is zeroed where Fill writes every other value (no zero channels).
  void Allocate(std::vector<int16_t>* storage, const Geometry& g) {
    storage->resize(static_cast<size_t>(values));
    data = storage->data();
    if (c_pad != g.c_in) {
      std::fill(storage->begin(), storage->end(), int16_t{0});
      return;
    }
    const int64_t row = wp * c_pad, rows = values / row;
    std::fill(data, data + top * row, int16_t{0});
    std::fill(data + (top + g.h) * row, data + rows * row, int16_t{0});
    for (int64_t y = top; y < top + g.h; ++y) {
      std::fill(data + y * row, data + y * row + left * c_pad, int16_t{0});
      std::fill(data + y * row + (left + g.w) * c_pad, data + (y + 1) * row, int16_t{0});
    }
  }
  int64_t values = 0;

  // Input rows [y0, y1) of x (channels-first or -last), centered by zx.
  template <typename E>
  void Fill(const E* __restrict x, bool channels_last, const Geometry& g, int32_t zx, int64_t y0,
            int64_t y1) {
    for (int64_t y = y0; y < y1; ++y) {
      int16_t* __restrict dst = data + ((y + top) * wp + left) * c_pad;
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

// What one worker of a quantized convolution writes between its input and output: kept in
// the node's per-frame state (QConvState) so that runs after the first touch no new pages.
struct QConvWorker {
  std::vector<int16_t> v;     // Winograd: transformed input tiles
  std::vector<int32_t> prod;  // Winograd: their products
  std::vector<int32_t> acc;   // the int32 sums of a block of pixels
  std::vector<uint8_t> tile;  // requantized codes on their way to NCHW
  std::vector<const int16_t*> bases;
  std::vector<uint8_t> rows8;   // gathered windows (the VNNI kernel)
  std::vector<int16_t> rows16;  // gathered windows (the scalar build)
};

struct QConvState : KernelState {
  std::vector<int16_t> image;  // the padded input image
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
