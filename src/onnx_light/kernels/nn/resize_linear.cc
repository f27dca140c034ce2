#include "nn/resize_linear.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "onnx_light/runtime/thread_pool.h"
#include "simd/resize_simd.h"

namespace onnx_light::kernels {
namespace {

// One resized axis: per output index, ORT's unclamped input coordinate, the two neighbours
// and their distances (d1 = |c - i1| weighs i2's value, d2 weighs i1's).
struct LinearAxis {
  std::vector<float> original, d1, d2;
  std::vector<int32_t> i1, i2;
  std::vector<uint8_t> outside;  // tf_crop_and_resize: the coordinate is beyond the input
  bool any_outside = false;
};

// ORT's get_original_coordinate (upsamplebase.h), in its float (and, where it uses double
// constants, double) arithmetic.
float Original(const std::string& mode, float xr, float scale, float len_out, float len_in,
               float r0, float r1) {
  if (mode == "asymmetric") return xr / scale;
  if (mode == "pytorch_half_pixel") return len_out > 1 ? (xr + 0.5f) / scale - 0.5f : 0.0f;
  if (mode == "tf_half_pixel_for_nn") return (xr + 0.5f) / scale;
  if (mode == "align_corners") return len_out == 1 ? 0 : xr * (len_in - 1) / (len_out - 1);
  if (mode == "tf_crop_and_resize") {
    const double orig = len_out > 1
                            ? r0 * (len_in - 1) + (xr * (r1 - r0) * (len_in - 1)) / (len_out - 1)
                            : 0.5 * (r0 + r1) * (len_in - 1);
    return static_cast<float>(orig);
  }
  if (mode == "half_pixel_symmetric") {
    const float output_width = scale * len_in;
    const float adjustment = len_out / output_width;
    const float center = len_in / 2;
    const float offset = center * (1 - adjustment);
    return static_cast<float>(offset + (xr + 0.5) / scale - 0.5);
  }
  return ((xr + 0.5f) / scale) - 0.5f;  // half_pixel
}

LinearAxis SetupAxis(const ResizeLinearSpec& s, size_t a) {
  const auto in = static_cast<int32_t>(s.in[a]);
  const auto out = static_cast<size_t>(s.out[a]);
  const bool crop = s.coord == "tf_crop_and_resize";
  LinearAxis t;
  t.original.resize(out);
  t.d1.resize(out);
  t.d2.resize(out);
  t.i1.resize(out);
  t.i2.resize(out);
  t.outside.assign(out, 0);
  for (size_t o = 0; o < out; ++o) {
    const auto xr = static_cast<float>(o);
    float c = s.scale[a] == 1 ? xr
                              : Original(s.coord, xr, s.scale[a], static_cast<float>(out),
                                         static_cast<float>(in), s.roi_start[a], s.roi_end[a]);
    t.original[o] = c;
    if (crop && (c < 0 || c > static_cast<float>(in - 1))) {
      t.outside[o] = 1;
      t.any_outside = true;
    }
    c = std::max(0.0f, std::min(c, static_cast<float>(in - 1)));
    const int32_t i1 = std::min(static_cast<int32_t>(c), in - 1);
    const int32_t i2 = std::min(i1 + 1, in - 1);
    t.i1[o] = i1;
    t.i2[o] = i2;
    t.d1[o] = i1 == i2 ? 0.5f : std::fabs(c - static_cast<float>(i1));
    t.d2[o] = i1 == i2 ? 0.5f : std::fabs(c - static_cast<float>(i2));
  }
  return t;
}

// Which axes ORT interpolates and how the tensor splits around them: planes (outer, not
// resized), then depth (trilinear) or not, height, width, then channels (inner, NHWC).
struct Layout {
  int64_t planes = 1, channels = 1;
  bool trilinear = false;
  size_t z = 0, h = 0, w = 0;  // axes
};

bool PickLayout(const ResizeLinearSpec& s, Layout* l) {
  const std::vector<float>& sc = s.scale;
  const std::vector<int64_t>& d = s.in;
  switch (d.size()) {
    case 2:
      l->h = 0, l->w = 1;
      return true;
    case 4:
      if (sc[0] == 1 && sc[1] == 1) {
        l->planes = d[0] * d[1], l->h = 2, l->w = 3;
        return true;
      }
      if (sc[0] == 1 && sc[3] == 1) {
        l->planes = d[0], l->h = 1, l->w = 2, l->channels = d[3];
        return true;
      }
      return false;
    case 3:
      l->trilinear = true, l->z = 0, l->h = 1, l->w = 2;
      return true;
    case 5:
      if (sc[0] != 1 || sc[1] != 1) return false;
      l->planes = d[0] * d[1], l->trilinear = true, l->z = 2, l->h = 3, l->w = 4;
      return true;
    default:
      return false;
  }
}

struct Tables {
  LinearAxis z, h, w;
  int64_t id = 1, ih = 1, iw = 1, od = 1, oh = 1, ow = 1;
};

// Output row (plane p, depth k, row r): every element, then the extrapolation value where a
// crop coordinate lies outside the input.
void RowChannelsFirst(const float* x, float* y, const Tables& t, bool tri, float extra, int64_t p,
                      int64_t k, int64_t r) {
  const float* xp = x + p * t.id * t.ih * t.iw;
  float* yrow = y + ((p * t.od + k) * t.oh + r) * t.ow;
  const auto ks = static_cast<size_t>(k), rs = static_cast<size_t>(r);
  if ((tri && t.z.outside[ks] != 0) || t.h.outside[rs] != 0) {
    std::fill(yrow, yrow + t.ow, extra);
    return;
  }
  const float* rows[4];
  const float dy[2] = {t.h.d1[rs], t.h.d2[rs]};
  float dz[2] = {0, 0};
  const int64_t y1 = t.h.i1[rs] * t.iw, y2 = t.h.i2[rs] * t.iw;
  if (tri) {
    const int64_t z1 = t.z.i1[ks] * t.ih * t.iw, z2 = t.z.i2[ks] * t.ih * t.iw;
    rows[0] = xp + z1 + y1, rows[1] = xp + z1 + y2, rows[2] = xp + z2 + y1, rows[3] = xp + z2 + y2;
    dz[0] = t.z.d1[ks], dz[1] = t.z.d2[ks];
  } else {
    rows[0] = xp + y1, rows[1] = xp + y2;
  }
  LinearRowF32(rows, t.w.i1.data(), t.w.i2.data(), t.w.d1.data(), t.w.d2.data(), dy,
               tri ? dz : nullptr, yrow, static_cast<size_t>(t.ow));
  if (t.w.any_outside) {
    for (int64_t c = 0; c < t.ow; ++c)
      if (t.w.outside[static_cast<size_t>(c)] != 0) yrow[c] = extra;
  }
}

// Channels-last output row (batch p, row r): per output column the four corners' channel
// runs, weighted with ORT's products.
void RowChannelsLast(const float* x, float* y, const Tables& t, int64_t ch, float extra, int64_t p,
                     int64_t r) {
  const float* xp = x + p * t.ih * t.iw * ch;
  float* yrow = y + (p * t.oh + r) * t.ow * ch;
  const auto rs = static_cast<size_t>(r);
  if (t.h.outside[rs] != 0) {
    std::fill(yrow, yrow + t.ow * ch, extra);
    return;
  }
  const float dy1 = t.h.d1[rs], dy2 = t.h.d2[rs];
  const int64_t y1 = t.h.i1[rs] * t.iw, y2 = t.h.i2[rs] * t.iw;
  for (int64_t c = 0; c < t.ow; ++c) {
    const auto cs = static_cast<size_t>(c);
    float* yo = yrow + c * ch;
    if (t.w.outside[cs] != 0) {
      std::fill(yo, yo + ch, extra);
      continue;
    }
    const float dx1 = t.w.d1[cs], dx2 = t.w.d2[cs];
    const float* src[4] = {xp + (y1 + t.w.i1[cs]) * ch, xp + (y1 + t.w.i2[cs]) * ch,
                           xp + (y2 + t.w.i1[cs]) * ch, xp + (y2 + t.w.i2[cs]) * ch};
    const float w[4] = {dx2 * dy2, dx1 * dy2, dx2 * dy1, dx1 * dy1};
    LinearChannelsF32(src, w, 4, yo, static_cast<size_t>(ch));
  }
}

}  // namespace

bool ResizeLinearF32(const float* x, float* y, const ResizeLinearSpec& s, ThreadPool* pool) {
  Layout l;
  if (!PickLayout(s, &l)) return false;
  // ORT indexes with int32 within a plane.
  int64_t plane = 1;
  for (size_t a = 0; a < s.in.size(); ++a)
    plane *= std::max(s.in[a], s.out[a]);
  if (plane > std::numeric_limits<int32_t>::max()) return false;
  Tables t;
  if (l.trilinear) {
    t.z = SetupAxis(s, l.z);
    t.id = s.in[l.z], t.od = s.out[l.z];
  }
  t.h = SetupAxis(s, l.h);
  t.w = SetupAxis(s, l.w);
  t.ih = s.in[l.h], t.iw = s.in[l.w], t.oh = s.out[l.h], t.ow = s.out[l.w];
  const int64_t rows = l.planes * t.od * t.oh;
  const int64_t per_row = t.ow * l.channels;
  auto run = [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i) {
      const int64_t r = i % t.oh, k = (i / t.oh) % t.od, p = i / (t.oh * t.od);
      if (l.channels > 1) {
        RowChannelsLast(x, y, t, l.channels, s.extrapolation, p, r);
      } else {
        RowChannelsFirst(x, y, t, l.trilinear, s.extrapolation, p, k, r);
      }
    }
  };
  if (pool != nullptr && pool->threads() > 1 && rows > 1 && rows * per_row >= (int64_t{1} << 14)) {
    pool->ParallelFor(
        rows, std::max<int64_t>(1, (int64_t{1} << 12) / std::max<int64_t>(1, per_row)), run);
  } else {
    run(0, rows);
  }
  return true;
}

}  // namespace onnx_light::kernels
