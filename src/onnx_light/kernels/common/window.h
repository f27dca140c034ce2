// The sliding-window geometry of convolutions and pools: window attributes (kernel_shape,
// strides, dilations, pads, auto_pad), output dims and effective pads, tap offsets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/kernel_util.h"

namespace onnx_light::kernels {

// The sliding-window geometry shared by Conv and the pools.
struct Window {
  std::vector<int64_t> in, kernel, strides, dilations, pad_begin, pad_end, out;
  int64_t OutCount() const {
    int64_t n = 1;
    for (int64_t d : out)
      n *= d;
    return n;
  }
  int64_t InCount() const {
    int64_t n = 1;
    for (int64_t d : in)
      n *= d;
    return n;
  }
  int64_t KernelCount() const {
    int64_t n = 1;
    for (int64_t d : kernel)
      n *= d;
    return n;
  }
};

struct WindowAttrs {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel, strides, dilations, pads;
  bool ceil_mode = false;
};

inline Result<WindowAttrs> ReadWindowAttrs(const KernelInfo& info, bool kernel_required) {
  WindowAttrs w;
  ONNX_LIGHT_ASSIGN_OR_RETURN(w.auto_pad, info.GetString("auto_pad", "NOTSET"));
  ONNX_LIGHT_RETURN_IF(w.auto_pad != "NOTSET" && w.auto_pad != "VALID" &&
                           w.auto_pad != "SAME_UPPER" && w.auto_pad != "SAME_LOWER",
                       kInvalidModel, "unknown auto_pad '" + w.auto_pad + "'");
  if (kernel_required || info.HasAttribute("kernel_shape")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(w.kernel, info.GetInts("kernel_shape"));
  }
  if (info.HasAttribute("strides")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(w.strides, info.GetInts("strides"));
  }
  if (info.HasAttribute("dilations")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(w.dilations, info.GetInts("dilations"));
  }
  if (info.HasAttribute("pads")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(w.pads, info.GetInts("pads"));
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ceil_mode, info.GetInt("ceil_mode", 0));
  w.ceil_mode = ceil_mode != 0;
  return w;
}

// Conv, ConvInteger and QLinearConv: the window attributes and `group` (>= 1).
inline Status ReadConvAttrs(const KernelInfo& info, WindowAttrs* attrs, int64_t* group) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(*attrs, ReadWindowAttrs(info, false));
  ONNX_LIGHT_ASSIGN_OR_RETURN(*group, info.GetInt("group", 1));
  ONNX_LIGHT_RETURN_IF(*group < 1, kInvalidModel, "group must be >= 1");
  return Status::Ok();
}

// Output dims and effective pads for spatial input dims `in`.
inline Result<Window> MakeWindow(const WindowAttrs& a, std::vector<int64_t> in,
                                 std::vector<int64_t> kernel) {
  const size_t n = in.size();
  Window w;
  w.in = std::move(in);
  w.kernel = std::move(kernel);
  // (assign() rather than a conditional expression: GCC 12 warns falsely on the latter)
  if (a.strides.empty()) {
    w.strides.assign(n, 1);
  } else {
    w.strides = a.strides;
  }
  if (a.dilations.empty()) {
    w.dilations.assign(n, 1);
  } else {
    w.dilations = a.dilations;
  }
  ONNX_LIGHT_RETURN_IF(w.kernel.size() != n || w.strides.size() != n || w.dilations.size() != n ||
                           (!a.pads.empty() && a.pads.size() != 2 * n),
                       kInvalidArgument,
                       "kernel_shape, strides, dilations or pads do not match " +
                           std::to_string(n) + " spatial dims");
  w.pad_begin.assign(n, 0);
  w.pad_end.assign(n, 0);
  w.out.assign(n, 0);
  // In 128-bit arithmetic: kernel, stride, dilation and pads come from the model and the
  // input dims from a feed, so any of them may be near the int64 limits; a result that
  // does not fit int64 is an error.
  __extension__ typedef __int128 Wide;
  const auto too_large = [&]() {
    return Status(StatusCode::kOutOfRange,
                  "the window (kernel, stride, dilation, pads) over input "
                  "dims this large overflows int64");
  };
  constexpr Wide kMax = INT64_MAX;
  for (size_t i = 0; i < n; ++i) {
    const int64_t k = w.kernel[i], s = w.strides[i], d = w.dilations[i];
    ONNX_LIGHT_RETURN_IF(k < 1 || s < 1 || d < 1, kInvalidArgument,
                         "kernel, stride and dilation must be >= 1");
    const Wide span = Wide{k - 1} * d + 1;
    const Wide in_i = w.in[i];
    Wide out;
    if (a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER") {
      out = (in_i + s - 1) / s;
      const Wide total = std::max<Wide>(0, (out - 1) * s + span - in_i);
      if (total > kMax) return too_large();
      w.pad_begin[i] =
          static_cast<int64_t>(a.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2);
      w.pad_end[i] = static_cast<int64_t>(total) - w.pad_begin[i];
    } else {
      if (a.auto_pad == "NOTSET" && !a.pads.empty()) {
        w.pad_begin[i] = a.pads[i];
        w.pad_end[i] = a.pads[i + n];
        // The spec's "any value greater than or equal to 0": the kernels take a pad as a
        // count of zeros (a negative one crashed the 2-D pooling and convolution paths).
        ONNX_LIGHT_RETURN_IF(w.pad_begin[i] < 0 || w.pad_end[i] < 0, kInvalidModel,
                             "pads must be >= 0, got " + std::to_string(w.pad_begin[i]) + " and " +
                                 std::to_string(w.pad_end[i]) + " on spatial axis " +
                                 std::to_string(i));
      }
      const Wide room = in_i + w.pad_begin[i] + w.pad_end[i] - span;
      ONNX_LIGHT_RETURN_IF(room < 0, kInvalidArgument,
                           "the window is larger than the padded input");
      out = (a.ceil_mode ? (room + s - 1) / s : room / s) + 1;
      // With ceil_mode the last window must start inside the input or the begin pad.
      if (a.ceil_mode && (out - 1) * s >= in_i + w.pad_begin[i]) --out;
    }
    // Kernels compute positions o * s + k * d - pad_begin in int64: the padded extent and
    // the last window's reach must fit.
    if (out > kMax || in_i + w.pad_begin[i] + w.pad_end[i] > kMax || (out - 1) * s + span > kMax) {
      return too_large();
    }
    w.out[i] = static_cast<int64_t>(out);
  }
  // The element counts (OutCount, InCount, KernelCount) fit int64 too.
  for (const std::vector<int64_t>* dims : {&w.out, &w.in, &w.kernel}) {
    int64_t count = 1;
    for (int64_t v : *dims) {
      if (__builtin_mul_overflow(count, v, &count)) return too_large();
    }
  }
  return w;
}

// Calls fn(out_index, in_positions_start) for each output position: the window's first
// input coordinate per spatial dim (may be negative inside the begin pad).
template <typename Fn>
void ForEachOutput(const Window& w, Fn fn) {
  const size_t n = w.out.size();
  std::vector<int64_t> pos(n, 0), start(n);
  for (int64_t o = 0; o < w.OutCount(); ++o) {
    for (size_t i = 0; i < n; ++i)
      start[i] = pos[i] * w.strides[i] - w.pad_begin[i];
    fn(o, start);
    for (size_t i = n; i-- > 0;) {
      if (++pos[i] < w.out[i]) break;
      pos[i] = 0;
    }
  }
}

// The taps k of one axis whose position start + k * dilation lies in [lo, hi), as
// [*first, *last): worked out, not searched, so a kernel of 2^40 taps costs nothing.
inline void TapRange(int64_t start, int64_t dilation, int64_t kernel, int64_t lo, int64_t hi,
                     int64_t* first, int64_t* last) {
  // start >= lo - pad and start + (kernel - 1) * dilation < hi + pad: no overflow below.
  const int64_t below = lo - start;  // taps before it are outside
  *first = below <= 0 ? 0 : below / dilation + (below % dilation != 0 ? 1 : 0);
  const int64_t room = hi - 1 - start;
  *last = room < 0 ? 0 : std::min(kernel, room / dilation + 1);
  if (*first > *last) *first = *last;
}

// Calls fn(kernel_index, in_offset) for each window tap inside the input, in kernel
// order, visiting only those (the rest are padding).
template <typename Fn>
void ForEachTap(const Window& w, const std::vector<int64_t>& start, Fn fn) {
  const size_t n = w.kernel.size();
  std::vector<int64_t> first(n), last(n), k(n);
  for (size_t i = 0; i < n; ++i) {
    TapRange(start[i], w.dilations[i], w.kernel[i], 0, w.in[i], &first[i], &last[i]);
    if (first[i] == last[i]) return;
    k[i] = first[i];
  }
  for (;;) {
    int64_t off = 0, t = 0;
    for (size_t i = 0; i < n; ++i) {
      off = off * w.in[i] + start[i] + k[i] * w.dilations[i];
      t = t * w.kernel[i] + k[i];
    }
    fn(t, off);
    size_t i = n;
    for (; i > 0; --i) {
      if (++k[i - 1] < last[i - 1]) break;
      k[i - 1] = first[i - 1];
    }
    if (i == 0) return;
  }
}

// im2col offsets: [tap][output position] -> the input offset within one channel, or -1
// where the tap falls in the padding.
inline std::vector<int64_t> TapOffsets(const Window& w) {
  const int64_t k_sz = w.KernelCount(), out_sz = w.OutCount();
  std::vector<int64_t> tap_offset(static_cast<size_t>(k_sz * out_sz), -1);
  ForEachOutput(w, [&](int64_t o, const std::vector<int64_t>& start) {
    ForEachTap(w, start, [&](int64_t t, int64_t off) {
      tap_offset[static_cast<size_t>(t * out_sz + o)] = off;
    });
  });
  return tap_offset;
}

// The product of `counts` times `scale` (0 when a count is 0 or negative), saturated at
// UINT64_MAX: a size or an amount of work to check against a limit, never to allocate.
inline uint64_t SaturatedProduct(std::initializer_list<int64_t> counts, uint64_t scale = 1) {
  uint64_t n = scale;
  for (int64_t c : counts) {
    if (c <= 0) return 0;
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(c), &n)) n = UINT64_MAX;
  }
  return n;
}

// Charges the working memory of an im2col kernel to the run's memory budget for as long as
// `hold` lives, before any of it is allocated: the tap offsets (int64) and the columns
// (`column_bytes` each), taps times output positions of each, which a small output with a
// large kernel makes gigabytes of. RESOURCE_EXHAUSTED naming the node when it does not
// fit; without a budget it only counts. `cg`: the input channels per group.
inline Status HoldIm2ColMemory(const Window& w, int64_t cg, uint64_t column_bytes,
                               BudgetHold* hold) {
  const uint64_t taps = SaturatedProduct({w.KernelCount(), w.OutCount()}, sizeof(int64_t));
  const uint64_t columns = SaturatedProduct({cg, w.KernelCount(), w.OutCount()}, column_bytes);
  const uint64_t bytes = taps > UINT64_MAX - columns ? UINT64_MAX : taps + columns;
  return hold->Add(bytes, "its im2col working memory");
}

inline RunBudget* BudgetOf(const KernelContext& ctx) {
  return ctx.run_control() != nullptr ? ctx.run_control()->budget : nullptr;
}

inline std::vector<int64_t> Spatial(const Shape& s) {
  return std::vector<int64_t>(s.dims().begin() + 2, s.dims().end());
}

inline Status NeedRank3(const Tensor& x) {
  ONNX_LIGHT_RETURN_IF(x.shape().rank() < 3, kInvalidArgument,
                       "input must be [N, C, D1, ...], got " + x.shape().ToString());
  return Status::Ok();
}

}  // namespace onnx_light::kernels
