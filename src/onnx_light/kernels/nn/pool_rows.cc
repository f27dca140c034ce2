#include "nn/pool_rows.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/pool_simd.h"

namespace onnx_light::kernels {
namespace {

// One spatial axis of the window (a 1-D pool's missing height is an axis of one tap).
struct Axis {
  int64_t in = 1, out = 1, kernel = 1, stride = 1, pad_begin = 0, pad_end = 0;
  int64_t Start(int64_t o) const { return o * stride - pad_begin; }
  // The window's input elements, or with `include_pad` its elements inside the pads.
  int64_t Count(int64_t o, bool include_pad) const {
    const int64_t lo = include_pad ? -pad_begin : 0, hi = include_pad ? in + pad_end : in;
    const int64_t s = Start(o);
    return std::min(s + kernel, hi) - std::max(s, lo);
  }
};

bool Eligible(const Axis& a) {
  // Every window starts before the input's end and ends past its start (pads narrower than
  // the window): none is empty, and the padded row stays within in + 2 * kernel. (Row
  // numbers are int32 for FoldRowsF32.)
  return a.out > 0 && a.in > 0 && a.kernel > 0 && a.stride > 0 && a.pad_begin >= 0 &&
         a.pad_end >= 0 && a.pad_begin < a.kernel && a.pad_end < a.kernel &&
         a.Start(a.out - 1) < a.in && a.in <= std::numeric_limits<int32_t>::max();
}

// The windows of outputs [0, mid0) and [mid1, cols.out) of one row, in scalar code: each
// folded over its taps in ascending order as WindowRowsF32 folds them, the taps in the
// pads reading -inf (max) or 0 (sum) as the padded row holds them.
void EdgeWindows(const float* row, size_t in_w, const Axis& cols, size_t mid0, size_t mid1,
                 bool max, float* out) {
  const float fill = max ? -std::numeric_limits<float>::infinity() : 0.0f;
  auto window = [&](size_t o) {
    const int64_t start = static_cast<int64_t>(o) * cols.stride - cols.pad_begin;
    float acc = 0;
    for (int64_t k = 0; k < cols.kernel; ++k) {
      const int64_t c = start + k;
      const float v = c >= 0 && c < static_cast<int64_t>(in_w) ? row[c] : fill;
      if (k == 0) {
        acc = v;
      } else if (max) {
        acc = v > acc || std::isnan(v) ? v : acc;
      } else {
        acc += v;
      }
    }
    out[o] = acc;
  };
  for (size_t o = 0; o < mid0; ++o)
    window(o);
  for (size_t o = mid1; o < static_cast<size_t>(cols.out); ++o)
    window(o);
}

}  // namespace

bool PoolRowsF32(const Window& w, bool max, bool count_include_pad, const float* x, float* y,
                 int64_t planes, ThreadPool* pool) {
  const size_t rank = w.in.size();
  if (rank != 1 && rank != 2) return false;
  Axis rows, cols;  // the vertical and horizontal axes
  for (size_t i = 0; i < rank; ++i) {
    Axis& a = i + 1 == rank ? cols : rows;
    a = Axis{w.in[i], w.out[i], w.kernel[i], w.strides[i], w.pad_begin[i], w.pad_end[i]};
    if (w.dilations[i] != 1 || !Eligible(a)) return false;
  }
  // The padded row: every tap of every window along it, -inf (max) or 0 (sum) outside.
  const int64_t padded = std::max(cols.Start(cols.out - 1) + cols.kernel, cols.in) + cols.pad_begin;
  const float fill = max ? -std::numeric_limits<float>::infinity() : 0.0f;
  // Average: one divisor for the whole plane when every window counts the same, else
  // per output (edges without count_include_pad, ceil_mode's last windows).
  std::vector<float> divisor;
  float one_divisor = 0;
  if (!max) {
    bool same = true;
    const int64_t first = rows.Count(0, count_include_pad) * cols.Count(0, count_include_pad);
    divisor.resize(static_cast<size_t>(rows.out * cols.out));
    for (int64_t oh = 0; oh < rows.out; ++oh) {
      for (int64_t ow = 0; ow < cols.out; ++ow) {
        const int64_t c = rows.Count(oh, count_include_pad) * cols.Count(ow, count_include_pad);
        divisor[static_cast<size_t>(oh * cols.out + ow)] = static_cast<float>(c);
        same = same && c == first;
      }
    }
    if (same) {
      one_divisor = static_cast<float>(first);
      divisor.clear();
    }
  }
  const int64_t in_sz = rows.in * cols.in, out_sz = rows.out * cols.out;
  const auto ow_n = static_cast<size_t>(cols.out);
  // Each row's windows across, then each output row's rows folded. Rows without column
  // pads whose windows all end inside them are read where they are, as long as the
  // vector loads' reach stays inside the input; the others are copied into a padded
  // buffer (the pads, and the floats past the row that the loads reach, keep `fill`).
  const auto taps = static_cast<size_t>(cols.kernel), stride = static_cast<size_t>(cols.stride);
  const size_t reach = WindowRowReach(ow_n, taps, stride);
  const bool direct = cols.pad_begin == 0 && cols.Start(cols.out - 1) + cols.kernel <= cols.in;
  const auto in_w = static_cast<size_t>(cols.in), in_h = static_cast<size_t>(rows.in);
  const size_t total = static_cast<size_t>(planes) * in_h * in_w;
  // The rows that are not read in place go through a padded copy of the plane, rows
  // `pitch` apart, in one call (a call per row, 35-112 floats wide, ran 2-3x ORT's time).
  const auto pitch = static_cast<size_t>(padded);
  // The outputs [mid0, mid1) whose windows lie inside the row (read in place when the
  // row has pads), from mid_off; what their vector loads may read from there.
  const size_t mid0 = static_cast<size_t>(
      std::min<int64_t>(cols.out, (cols.pad_begin + cols.stride - 1) / cols.stride));
  const int64_t last_inside = cols.in - cols.kernel + cols.pad_begin;  // < 0: none inside
  const size_t mid1 = std::max<size_t>(
      mid0, last_inside < 0
                ? 0
                : static_cast<size_t>(std::min<int64_t>(last_inside / cols.stride + 1, cols.out)));
  const size_t mid_off = mid0 * stride - static_cast<size_t>(cols.pad_begin);
  const size_t mid_reach = mid1 > mid0 ? WindowRowReach(mid1 - mid0, taps, stride) : 0;
  // "Same" padding at stride 1 (as many outputs as inputs along the axis, pads kernel - 1 in
  // all): the whole plane's interior windows in one run along the rows, and one down them.
  const bool flat_cols = cols.stride == 1 && cols.out == cols.in && mid1 > mid0;
  const size_t flat_n = flat_cols ? (in_h - 1) * ow_n + (mid1 - mid0) : 0;
  const size_t flat_reach = flat_cols ? WindowRowReach(flat_n, taps, 1) : 0;
  const bool flat_rows =
      rows.stride == 1 && rows.out == rows.in && rows.in > rows.pad_begin + rows.pad_end;
  // Each output row's input rows (the vertical windows), for FoldRowsF32.
  std::vector<int32_t> fold_first(static_cast<size_t>(rows.out)),
      fold_count(static_cast<size_t>(rows.out));
  for (int64_t oh = 0; oh < rows.out; ++oh) {
    const int64_t h0 = std::max<int64_t>(rows.Start(oh), 0);
    const int64_t h1 = std::min(rows.Start(oh) + rows.kernel, rows.in);
    fold_first[static_cast<size_t>(oh)] = static_cast<int32_t>(h0);
    fold_count[static_cast<size_t>(oh)] = static_cast<int32_t>(h1 - h0);
  }
  auto run = [&](int64_t p0, int64_t p1) {
    std::vector<float> plane;  // made (and filled) only when a row has to be copied
    std::vector<float> across(in_h * ow_n);
    for (int64_t p = p0; p < p1; ++p) {
      const float* xc = x + p * in_sz;
      float* yc = y + p * out_sz;
      size_t h = 0;
      if (flat_cols && static_cast<size_t>(p) * in_sz + flat_reach <= total) {
        // "Same" padding at stride 1 (output rows as long as input rows): the windows inside
        // the rows of the whole plane as one run (a window across a row's end lands on an
        // edge output, recomputed below), then the edges in scalar code. (Row by row, 35
        // outputs in three 16-lane vectors: AveragePool 3x3 on 35x35 ran 1.7x ORT's time.)
        WindowRowsF32(xc, 0, 1, flat_n, taps, 1, max, across.data() + mid0);
        for (size_t r = 0; r < in_h; ++r)
          EdgeWindows(xc + r * in_w, in_w, cols, mid0, mid1, max, across.data() + r * ow_n);
        h = in_h;
      }
      if (h == 0 && direct) {  // the rows read in place: those whose reach ends inside the input
        const size_t first = static_cast<size_t>(p) * in_h * in_w;
        h = total >= first + reach ? std::min(in_h, (total - first - reach) / in_w + 1) : 0;
        WindowRowsF32(xc, in_w, h, ow_n, taps, stride, max, across.data());
      }
      if (h < in_h && !direct && mid1 > mid0) {
        // Rows with column pads: the windows inside the row read it in place, the few at
        // its ends in scalar code (a 3x3 stride-2 pool with pads of 1 copied every row into
        // the padded buffer, a call a row: 1.7x ORT's time). A last plane's last rows,
        // whose vector loads would reach past the input, take the copy below.
        const size_t first = static_cast<size_t>(p) * in_h * in_w + mid_off;
        const size_t rows_in_place =
            total >= first + mid_reach ? std::min(in_h, (total - first - mid_reach) / in_w + 1) : 0;
        if (rows_in_place > h) {
          WindowRowsF32(xc + h * in_w + mid_off, in_w, rows_in_place - h, mid1 - mid0, taps, stride,
                        max, across.data() + h * ow_n + mid0, ow_n);
          for (size_t r = h; r < rows_in_place; ++r)
            EdgeWindows(xc + r * in_w, in_w, cols, mid0, mid1, max, across.data() + r * ow_n);
          h = rows_in_place;
        }
      }
      if (h < in_h) {
        if (plane.empty()) plane.assign(in_h * pitch + reach, fill);
        for (size_t r = h; r < in_h; ++r) {
          std::memcpy(plane.data() + (r - h) * pitch + cols.pad_begin, xc + r * in_w,
                      in_w * sizeof(float));
        }
        WindowRowsF32(plane.data(), pitch, in_h - h, ow_n, taps, stride, max,
                      across.data() + h * ow_n);
      }
      const float* div = divisor.empty() ? nullptr : divisor.data();
      if (flat_rows) {
        // "Same" padding at stride 1 down the plane too: the output rows whose windows are
        // whole folded as one run, the first and last few row by row.
        const int32_t zero = 0, kernel = static_cast<int32_t>(rows.kernel);
        const auto m0 = static_cast<size_t>(rows.pad_begin), m1 = in_h - rows.pad_end;
        FoldRowsF32(across.data(), ow_n, ow_n, m0, fold_first.data(), fold_count.data(), max, div,
                    one_divisor, yc);
        FoldRowsF32(across.data(), ow_n, (m1 - m0) * ow_n, 1, &zero, &kernel, max,
                    div == nullptr ? nullptr : div + m0 * ow_n, one_divisor, yc + m0 * ow_n);
        FoldRowsF32(across.data(), ow_n, ow_n, in_h - m1, fold_first.data() + m1,
                    fold_count.data() + m1, max, div == nullptr ? nullptr : div + m1 * ow_n,
                    one_divisor, yc + m1 * ow_n);
      } else {
        FoldRowsF32(across.data(), ow_n, ow_n, static_cast<size_t>(rows.out), fold_first.data(),
                    fold_count.data(), max, div, one_divisor, yc);
      }
    }
  };
  // Planes in chunks of at least ~32k taps.
  const int64_t per_plane =
      std::max<int64_t>(1, rows.in * cols.out * cols.kernel + out_sz * rows.kernel);
  ParallelElements(pool, planes, run, std::max<int64_t>(1, (int64_t{1} << 15) / per_plane));
  return true;
}

}  // namespace onnx_light::kernels
