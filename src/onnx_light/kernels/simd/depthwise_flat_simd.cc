// Depthwise convolutions of small planes (7x7, 14x14: the last stages of MobileNet-family
// classifiers) at stride 1 with "same" columns, each plane as one flat run of values.
//
// With the output row as wide as the input row (ow == w), output position i = oh * w + ow
// reads tap (kh, kw) at input position i + (kh * dh - pt) * w + (kw * dw - pl): the same
// offset for every position, so a vector of 16 consecutive positions, across row ends,
// takes each tap as one load. The lanes whose tap falls outside the plane (a row above or
// below it, a column left or right of it: the load wrapped into the next row) are masked
// off; the masks depend only on the shape and are made once per call. Rows of 7 or 14 had
// filled 7 of 8 or 14 of 16 lanes, four rows at a time (the last four overlapping), and
// 5x5 at 7x7 ran 1.5x ORT's time, whose NCHWc kernel vectorizes along channels.
#include <algorithm>
#include <cstring>

#include "simd/conv_simd.h"
#include "simd/denormals.h"

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/depthwise_flat_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET <= HWY_AVX3
constexpr int64_t kMaxVectors = 16;  // positions: at most 16 vectors of 16
constexpr int64_t kLead = 16;        // zeros before the first padded row (pl <= kLead)

// Where the plane's rows and the zero rows around it lie in the buffer: row -pt at kLead,
// each w floats, then slack for the last vector's lanes past the plane.
struct FlatLayout {
  int64_t vectors, rows, floats;
};
FlatLayout Layout(const DepthwiseFlat& f, int64_t lanes) {
  FlatLayout l{};
  const int64_t n = f.oh * f.ow;
  l.vectors = (n + lanes - 1) / lanes;
  l.rows = std::max((f.oh - 1) + (f.kh - 1) * f.dh + 1, f.pt + f.h);
  l.floats = kLead + l.rows * f.w + l.vectors * lanes - n + (f.kw - 1) * f.dw + lanes;
  l.floats = (l.floats + 15) / 16 * 16;
  return l;
}

// Vectors v0 .. v0 + B of one plane from its padded rows (zero rows above and below it),
// K x K taps: per tap one load per vector, masked to the lanes whose column lies in the
// plane, taps by kw so that a kw's B masks stay in mask registers over its kh. B chains
// of multiply-adds, or 2B (kh even and odd apart, added at the end) for B <= 4, whose
// latency (25 taps of 4 cycles on 7x7's four vectors) would bound the plane otherwise.
template <int K, size_t B, class D, class M>
HWY_INLINE void FlatChunk(D d, int64_t w_row, const float* xp, const float* w, const M* col_masks,
                          int64_t v0, float bias, float* y, int64_t n) {
  using V = hn::Vec<D>;
  constexpr bool kTwo = B <= 4;  // two sets of sums
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  V acc[B], odd[B];
#pragma GCC unroll 8
  for (size_t b = 0; b < B; ++b) {
    acc[b] = hn::Set(d, bias);
    odd[b] = hn::Zero(d);
  }
#pragma GCC unroll 8
  for (int kw = 0; kw < K; ++kw) {
    M m[B];
#pragma GCC unroll 8
    for (size_t b = 0; b < B; ++b)
      m[b] = col_masks[kw * kMaxVectors + v0 + static_cast<int64_t>(b)];
    const float* col = xp + v0 * lanes + kw - K / 2;
#pragma GCC unroll 8
    for (int kh = 0; kh < K; ++kh) {
      const V wv = hn::Set(d, w[kh * K + kw]);
      const float* at = col + kh * w_row;
      V* sums = kTwo && kh % 2 == 1 ? odd : acc;
#pragma GCC unroll 8
      for (size_t b = 0; b < B; ++b) {
        // (The middle column's taps all lie in the plane's rows: no mask.)
        const V xv = kw == K / 2 ? hn::LoadU(d, at + static_cast<int64_t>(b) * lanes)
                                 : hn::MaskedLoad(m[b], d, at + static_cast<int64_t>(b) * lanes);
        sums[b] = hn::MulAdd(wv, xv, sums[b]);
      }
    }
  }
#pragma GCC unroll 8
  for (size_t b = 0; b < B; ++b) {
    if constexpr (kTwo) acc[b] = hn::Add(acc[b], odd[b]);
    const int64_t i = (v0 + static_cast<int64_t>(b)) * lanes;
    if (n - i >= lanes) {
      hn::StoreU(acc[b], d, y + i);
    } else {
      hn::BlendedStore(acc[b], hn::FirstN(d, static_cast<size_t>(n - i)), d, y + i);
    }
  }
}

template <int K, class D, class M>
void FlatChunkOf(size_t b, D d, int64_t w_row, const float* xp, const float* w, const M* col_masks,
                 int64_t v0, float bias, float* y, int64_t n) {
  switch (b) {
    case 1:
      return FlatChunk<K, 1>(d, w_row, xp, w, col_masks, v0, bias, y, n);
    case 2:
      return FlatChunk<K, 2>(d, w_row, xp, w, col_masks, v0, bias, y, n);
    case 3:
      return FlatChunk<K, 3>(d, w_row, xp, w, col_masks, v0, bias, y, n);
    case 4:
      return FlatChunk<K, 4>(d, w_row, xp, w, col_masks, v0, bias, y, n);
    case 5:
      return FlatChunk<K, 5>(d, w_row, xp, w, col_masks, v0, bias, y, n);
    case 6:
      return FlatChunk<K, 6>(d, w_row, xp, w, col_masks, v0, bias, y, n);
    case 7:
      return FlatChunk<K, 7>(d, w_row, xp, w, col_masks, v0, bias, y, n);
    default:
      return FlatChunk<K, 8>(d, w_row, xp, w, col_masks, v0, bias, y, n);
  }
}

// All planes at K x K (the rows above and below each plane zero in `buf`).
template <int K, class D, class M>
void FlatPlanes(D d, const DepthwiseFlat& f, const FlatLayout& l, const float* x, int64_t planes,
                int64_t first, int64_t channels, const float* w, const float* bias, const float* z,
                float* y, const Activation& act, float* buf, const M* col_masks) {
  const int64_t n = f.oh * f.ow, in_plane = f.h * f.w, top = kLead + f.pt * f.w;
  // Vectors in nearly equal chunks of at most 8 (13 = 7 + 6): enough chains to hide the
  // multiply-add latency, few enough registers.
  const int64_t chunks = (l.vectors + 7) / 8;
  const bool epilogue = z != nullptr || HasEffect(act);
  int64_t done = 0;  // planes [0, done) finished: the epilogue over runs of ~4k values
  int64_t c = first % channels;
  for (int64_t q = 0; q < planes; ++q, c = c + 1 == channels ? 0 : c + 1) {
    std::memcpy(buf + top, x + q * in_plane, static_cast<size_t>(in_plane) * sizeof(float));
    float* yq = y + q * n;
    const float b = bias != nullptr ? bias[c] : 0.0f;
    for (int64_t k = 0; k < chunks; ++k) {
      const int64_t v0 = l.vectors * k / chunks, v1 = l.vectors * (k + 1) / chunks;
      // Output position i's tap (kh, kw) at buf[kLead + i + kh * w + kw - K / 2].
      FlatChunkOf<K>(static_cast<size_t>(v1 - v0), d, f.w, buf + kLead, w + c * K * K, col_masks,
                     v0, b, yq, n);
    }
    if (epilogue && ((q + 1 - done) * n >= 4096 || q + 1 == planes)) {
      BiasActivationF32(y + done * n, static_cast<size_t>((q + 1 - done) * n), 0.0f,
                        z != nullptr ? z + done * n : nullptr, act);
      done = q + 1;
    }
  }
}
#endif  // HWY_TARGET <= HWY_AVX3

bool DepthwiseFlatFits(const DepthwiseFlat& f) {
#if HWY_TARGET <= HWY_AVX3
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
  return lanes == 16 && f.ow == f.w && f.w < lanes && f.oh > 0 &&
         f.oh * f.ow <= kMaxVectors * lanes && f.kh == f.kw && (f.kh == 3 || f.kh == 5) &&
         f.dh == 1 && f.dw == 1 && f.pl == f.kw / 2 && f.pt >= 0;
#else
  (void)f;
  return false;
#endif
}

size_t DepthwiseFlatFloats(const DepthwiseFlat& f) {
#if HWY_TARGET <= HWY_AVX3
  return static_cast<size_t>(
      Layout(f, static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()))).floats);
#else
  (void)f;
  return 0;
#endif
}

void DepthwiseFlatF32(const DepthwiseFlat& f, const float* x, int64_t planes, int64_t first,
                      int64_t channels, const float* w, const float* bias, const float* z, float* y,
                      const Activation& act, float* buf) {
#if HWY_TARGET <= HWY_AVX3
  const hn::ScalableTag<float> d;
  using M = hn::Mask<decltype(d)>;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const FlatLayout l = Layout(f, lanes);
  // Per kw and vector, the lanes whose column lies in the plane.
  M col_masks[7 * kMaxVectors];
  for (int64_t kw = 0; kw < f.kw; ++kw) {
    for (int64_t v = 0; v < l.vectors; ++v) {
      uint32_t bits = 0;
      for (int64_t u = 0; u < lanes; ++u) {
        const int64_t iw = (v * lanes + u) % f.ow + kw * f.dw - f.pl;
        if (iw >= 0 && iw < f.w) bits |= uint32_t{1} << u;
      }
      uint8_t bytes[8] = {};
      std::memcpy(bytes, &bits, sizeof(bits));
      col_masks[kw * kMaxVectors + v] = hn::LoadMaskBits(d, bytes);
    }
  }
  // The rows above and below the plane and the slack: zero once; each plane is copied in
  // between (zero rows instead of a row mask per tap: a mask loaded per load had been a
  // fifth of the time).
  const int64_t top = kLead + f.pt * f.w;
  std::fill(buf, buf + top, 0.0f);
  std::fill(buf + top + f.h * f.w, buf + l.floats, 0.0f);
  if (f.kh == 3) {
    FlatPlanes<3>(d, f, l, x, planes, first, channels, w, bias, z, y, act, buf, col_masks);
  } else {
    FlatPlanes<5>(d, f, l, x, planes, first, channels, w, bias, z, y, act, buf, col_masks);
  }
#else
  (void)f, (void)x, (void)planes, (void)first, (void)channels, (void)w, (void)bias, (void)z;
  (void)y, (void)act, (void)buf;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(DepthwiseFlatFits);
HWY_EXPORT(DepthwiseFlatFloats);
HWY_EXPORT(DepthwiseFlatF32);

bool DepthwiseFlatFits(const DepthwiseFlat& f) {
  return HWY_DYNAMIC_DISPATCH(DepthwiseFlatFits)(f);
}
size_t DepthwiseFlatFloats(const DepthwiseFlat& f) {
  return HWY_DYNAMIC_DISPATCH(DepthwiseFlatFloats)(f);
}
void DepthwiseFlatF32(const DepthwiseFlat& f, const float* x, int64_t planes, int64_t first,
                      int64_t channels, const float* w, const float* bias, const float* z, float* y,
                      const Activation& act, float* buf) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(DepthwiseFlatF32)(f, x, planes, first, channels, w, bias, z, y, act, buf);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
