// Depthwise convolutions over padded planes (nn/conv2d_f32.cc), written once with Highway
// and compiled for every x86 target; HWY_DYNAMIC_DISPATCH picks the best one for the
// running CPU.
#include <algorithm>
#include <cstring>

#include "simd/conv_simd.h"
#include "simd/denormals.h"

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/depthwise_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Where tap kw of output column 0 reads in a padded row: column kw * dw, or with stride 2
// in the split row (even columns, then odd ones from g.odd on), so that output column ow
// reads ow floats further on: consecutive outputs, consecutive floats. (LoadInterleaved2
// of the plain row was two loads and two shuffles a tap: 3x ORT's time on stride-2
// layers.)
template <int SW>
HWY_INLINE int64_t TapColumn(const DepthwiseGeometry& g, int64_t kw) {
  const int64_t c = kw * g.dw;
  return SW == 1 ? c : (c & 1) * g.odd + c / 2;
}

// B output vectors of one row of a depthwise convolution, side by side (B independent
// chains of multiply-adds, so the FMA latency overlaps): the taps over a padded plane
// (rows `pw` apart), every read in bounds. SW: the stride along the width, 1 or 2.
template <int SW, size_t B, class D>
HWY_INLINE void DepthwiseBlock(D d, const float* xp, int64_t pw, const float* w,
                               const DepthwiseGeometry& g, float bias, int64_t oh, int64_t ow,
                               hn::Vec<D>* acc) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  for (size_t b = 0; b < B; ++b)
    acc[b] = hn::Set(d, bias);
  for (int64_t kh = 0; kh < g.kh; ++kh) {
    const float* row = xp + (oh * g.sh + kh * g.dh) * pw + ow;
    const float* wk = w + kh * g.kw;
    for (int64_t kw = 0; kw < g.kw; ++kw) {
      const auto wv = hn::Set(d, wk[kw]);
      const float* at = row + TapColumn<SW>(g, kw);
      for (size_t b = 0; b < B; ++b) {
        const auto x = hn::LoadU(d, at + static_cast<int64_t>(b) * lanes);
        acc[b] = hn::MulAdd(wv, x, acc[b]);
      }
    }
  }
}

// One output vector in each of R consecutive rows (oh .. oh + R - 1) of a depthwise
// convolution: R independent chains of multiply-adds, for rows of one or a few vectors
// (DepthwiseBlock's B vectors side by side need a row at least B vectors wide: a 56-wide
// row on AVX-512 ran as four single chains, each multiply-add waiting on the last).
template <int SW, size_t R, class D>
HWY_INLINE void DepthwiseColumn(D d, const float* xp, int64_t pw, const float* w,
                                const DepthwiseGeometry& g, float bias, int64_t oh, int64_t ow,
                                hn::Vec<D>* acc) {
  for (size_t r = 0; r < R; ++r)
    acc[r] = hn::Set(d, bias);
  for (int64_t kh = 0; kh < g.kh; ++kh) {
    const float* wk = w + kh * g.kw;
    for (int64_t kw = 0; kw < g.kw; ++kw) {
      const auto wv = hn::Set(d, wk[kw]);
      for (size_t r = 0; r < R; ++r) {
        const float* at = xp + ((oh + static_cast<int64_t>(r)) * g.sh + kh * g.dh) * pw + ow +
                          TapColumn<SW>(g, kw);
        acc[r] = hn::MulAdd(wv, hn::LoadU(d, at), acc[r]);
      }
    }
  }
}

#if HWY_TARGET <= HWY_AVX2
// One output vector in each of four consecutive rows of a K x K (3 or 5) depthwise
// convolution at stride S (1 or 2), straight from an unpadded plane w floats wide: rows[q]
// is input row q of the group's window (the zero row outside the plane), c0 the input
// column of lane 0's first tap, and the lanes whose column falls outside the row are
// masked off (masked loads do not fault on AVX2 and AVX-512). Weights broadcast once (wv,
// K * K vectors, kept in registers where there are 32); the input rows are walked once,
// each vector loaded once and multiplied into every output row that reads it (four rows
// of K taps read 3S + K input rows, not 4K). At stride 2 a tap reads every other column:
// two vectors from columns c0 + 2t on give taps 2t (their even lanes) and 2t + 1 (the odd).
template <int K, int S, class D>
HWY_INLINE void InPlaceColumn(D d, const float* const* rows, int64_t c0, int64_t w,
                              const hn::Vec<D>* wv, float bias, hn::Vec<D>* acc) {
  constexpr int kR = 4, kRowsIn = (kR - 1) * S + K;
  constexpr int kLoads = S == 1 ? K : 2 * ((K + 1) / 2);  // vectors loaded from a row
  const auto n = static_cast<int64_t>(hn::Lanes(d));
  hn::Mask<D> m[kLoads];
  for (int i = 0; i < kLoads; ++i) {
    // lane 0's column: c0 + kw at stride 1; c0 + 2t, then c0 + 2t + n at stride 2
    const int64_t c = S == 1 ? c0 + i : c0 + 2 * (i / 2) + (i % 2) * n;
    const auto lo = static_cast<size_t>(std::clamp<int64_t>(-c, 0, n));
    const auto hi = static_cast<size_t>(std::clamp<int64_t>(w - c, 0, n));
    m[i] = hn::AndNot(hn::FirstN(d, lo), hn::FirstN(d, hi));
  }
  for (int r = 0; r < kR; ++r)
    acc[r] = hn::Set(d, bias);
  auto add = [&](int q, int kw, hn::Vec<D> x) {
#pragma GCC unroll 8
    for (int r = 0; r < kR; ++r) {
      const int kh = q - r * S;
      if (kh >= 0 && kh < K) acc[r] = hn::MulAdd(wv[kh * K + kw], x, acc[r]);
    }
  };
#pragma GCC unroll 16
  for (int q = 0; q < kRowsIn; ++q) {
    if constexpr (S == 1) {
#pragma GCC unroll 8
      for (int kw = 0; kw < K; ++kw)
        add(q, kw, hn::MaskedLoad(m[kw], d, rows[q] + c0 + kw));
    } else {
#pragma GCC unroll 8
      for (int t = 0; 2 * t < K; ++t) {
        const float* at = rows[q] + c0 + 2 * t;
        const auto lo = hn::MaskedLoad(m[2 * t], d, at);
        const auto hi = hn::MaskedLoad(m[2 * t + 1], d, at + n);
        add(q, 2 * t, hn::ConcatEven(d, hi, lo));
        if (2 * t + 1 < K) add(q, 2 * t + 1, hn::ConcatOdd(d, hi, lo));
      }
    }
  }
}

// The whole plane in groups of four rows (the last group ends at the last row, overlapping
// the one before it: its rows are stored again from their sums, finished after), each
// row in vectors of tag d.
template <int K, int S, class D>
void InPlaceRows(D d, const DepthwiseSource& in, const float* w, const DepthwiseGeometry& g,
                 int64_t oh, float bias, const float* z, float* y, const Activation& act) {
  using V = hn::Vec<D>;
  constexpr int kR = 4, kRowsIn = (kR - 1) * S + K;
  const auto n = static_cast<int64_t>(hn::Lanes(d));
  V wv[K * K];
  for (int i = 0; i < K * K; ++i)
    wv[i] = hn::Set(d, w[i]);
  const bool epilogue = z != nullptr || HasEffect(act);
  int64_t done = 0;  // rows [0, done) finished
  auto finish = [&](int64_t r1) {
    if (epilogue && r1 > done) {
      onnx_light::kernels::BiasActivationF32(y + done * g.ow,
                                             static_cast<size_t>((r1 - done) * g.ow), 0.0f,
                                             z != nullptr ? z + done * g.ow : nullptr, act);
    }
    done = r1;
  };
  V acc[kR];
  for (int64_t r = 0; r < oh; r += kR) {
    const int64_t o = std::min(r, oh - kR);
    // Finished in runs of at least 512 values: rows below the group about to be stored are
    // final.
    if ((o - done) * g.ow >= 512) finish(o);
    const float* rows[kRowsIn];
    for (int q = 0; q < kRowsIn; ++q) {
      const int64_t ih = o * S - in.pt + q;
      rows[q] = ih >= 0 && ih < in.h ? in.x + ih * in.w : in.zeros;
    }
    for (int64_t j = 0; j < g.ow; j += n) {
      InPlaceColumn<K, S>(d, rows, j * S - in.pl, in.w, wv, bias, acc);
      float* out = y + o * g.ow + j;
      if (g.ow - j >= n) {
        for (int q = 0; q < kR; ++q)
          hn::StoreU(acc[q], d, out + q * g.ow);
      } else {
        const auto m = hn::FirstN(d, static_cast<size_t>(g.ow - j));
        for (int q = 0; q < kR; ++q)
          hn::BlendedStore(acc[q], m, d, out + q * g.ow);
      }
    }
  }
  finish(oh);
}
#endif  // HWY_TARGET <= HWY_AVX2

bool DepthwiseInPlaceFits(const DepthwiseGeometry& g, int64_t oh) {
#if HWY_TARGET <= HWY_AVX2
  return g.kh == g.kw && (g.kh == 3 || g.kh == 5) && g.sh == g.sw && (g.sh == 1 || g.sh == 2) &&
         g.dh == 1 && g.dw == 1 && oh >= 4 && g.ow > 0;
#else
  (void)g;
  (void)oh;
  return false;
#endif
}

void DepthwiseInPlaceF32(const DepthwiseSource& in, const float* w, const DepthwiseGeometry& g,
                         int64_t oh, float bias, const float* z, float* y, const Activation& act) {
#if HWY_TARGET <= HWY_AVX2
  const hn::ScalableTag<float> d;
  // Rows of at most half a vector in half-width vectors (a 7-wide row in 8 lanes, not 16).
  constexpr size_t kHalf = hn::MaxLanes(d) / 2;
  auto run = [&](auto dv) {
    if (g.sw == 1) {
      if (g.kh == 3) {
        InPlaceRows<3, 1>(dv, in, w, g, oh, bias, z, y, act);
      } else {
        InPlaceRows<5, 1>(dv, in, w, g, oh, bias, z, y, act);
      }
    } else if (g.kh == 3) {
      InPlaceRows<3, 2>(dv, in, w, g, oh, bias, z, y, act);
    } else {
      InPlaceRows<5, 2>(dv, in, w, g, oh, bias, z, y, act);
    }
  };
  if (kHalf >= 8 && 2 * g.ow <= static_cast<int64_t>(hn::Lanes(d))) {
    run(hn::CappedTag<float, kHalf>());
  } else {
    run(d);
  }
#else
  (void)in, (void)w, (void)g, (void)oh, (void)bias, (void)z, (void)y, (void)act;
#endif
}

template <int SW>
void DepthwiseRows(const float* xp, int64_t pw, const float* w, const DepthwiseGeometry& g,
                   float bias, const float* z, float* y, int64_t oh0, int64_t oh1,
                   const Activation& act) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  // The sums (bias included) are stored as they are; each finished row's epilogue
  // (residual, activation) is applied by BiasActivationF32 while the row is in the L1
  // cache, as DirectRows does: applied per vector, it was a call per vector (the
  // activation's switch kept it out of line), a fifth of the time on 56x56 planes.
  const bool epilogue = z != nullptr || HasEffect(act);
  // (Rows are contiguous: one call for a range, not one per row: 7-wide rows were a call,
  // and a tail, per 7 values.)
  auto finish_rows = [&](int64_t r0, int64_t r1) {
    if (!epilogue || r1 <= r0) return;
    onnx_light::kernels::BiasActivationF32(y + r0 * g.ow, static_cast<size_t>((r1 - r0) * g.ow),
                                           0.0f, z != nullptr ? z + r0 * g.ow : nullptr, act);
  };
  // v (a vector of tag dv) into row oh at column j: the first n lanes (a masked store past
  // the row's end).
  auto store = [&](auto dv, auto v, int64_t oh, int64_t j, int64_t n) {
    float* out = y + oh * g.ow + j;
    if (n == static_cast<int64_t>(hn::Lanes(dv))) {
      hn::StoreU(v, dv, out);
    } else {
      hn::BlendedStore(v, hn::FirstN(dv, static_cast<size_t>(n)), dv, out);
    }
  };
  int64_t oh = oh0;
  // Narrow rows: four rows at a time, a vector of each (half-width vectors for rows of at
  // most half a vector: a 7-wide row in 8 lanes, not 16). The last group ends at oh1 and
  // may overlap the one before it: its rows are stored again from their sums, and finished
  // after.
  auto narrow = [&](auto dn) {
    using VN = hn::Vec<decltype(dn)>;
    const auto nl = static_cast<int64_t>(hn::Lanes(dn));
    constexpr int64_t kR = 4;
    VN acc[kR];
    // Finished in runs of at least 512 values (a 7x7 plane at once, not twice per group):
    // rows below the group about to be stored are final.
    int64_t done = oh;
    for (; oh < oh1; oh += kR) {
      const int64_t o = std::min(oh, oh1 - kR);
      if ((o - done) * g.ow >= 512) {
        finish_rows(done, o);
        done = o;
      }
      for (int64_t j = 0; j < g.ow; j += nl) {
        DepthwiseColumn<SW, kR>(dn, xp, pw, w, g, bias, o, j, acc);
        for (int64_t r = 0; r < kR; ++r)
          store(dn, acc[r], o + r, j, std::min(nl, g.ow - j));
      }
    }
    finish_rows(done, oh1);
  };
  // (Not at stride 2 on AVX2 and AVX-512: their 3x3 and 5x5 read the plane in place
  // (DepthwiseInPlaceF32), and the rarer windows left here keep the size down.)
  constexpr bool kNarrow = SW == 1 || HWY_TARGET > HWY_AVX2;
  if (kNarrow && g.ow < 4 * lanes && oh1 - oh0 >= 4) {
    constexpr size_t kHalf = hn::MaxLanes(d) >= 8 ? hn::MaxLanes(d) / 2 : 1;
    if constexpr (kNarrow) {
      if (kHalf > 1 && 2 * g.ow <= lanes) {
        narrow(hn::CappedTag<float, kHalf>());
      } else {
        narrow(d);
      }
    }
  }
  for (; oh < oh1; ++oh) {
    int64_t j = 0;
    V acc[4];
    // Blocks of four vectors; the last one ends at the row's end, overlapping the block
    // before it (the sums are stored again, the row finished once after): no single-vector
    // chains left over (112 = 64 + 48 on AVX-512 ran its last three vectors one chain each).
    for (; j < g.ow && g.ow >= 4 * lanes; j += 4 * lanes) {
      const int64_t at = std::min(j, g.ow - 4 * lanes);
      DepthwiseBlock<SW, 4>(d, xp, pw, w, g, bias, oh, at, acc);
      for (int64_t b = 0; b < 4; ++b)
        store(d, acc[b], oh, at + b * lanes, lanes);
    }
    for (; j < g.ow; j += lanes) {  // the padded plane has room for a vector past the row
      DepthwiseBlock<SW, 1>(d, xp, pw, w, g, bias, oh, j, acc);
      store(d, acc[0], oh, j, std::min(lanes, g.ow - j));
    }
    finish_rows(oh, oh + 1);
  }
}

void DepthwiseRowsF32(const float* xp, int64_t pw, const float* w, const DepthwiseGeometry& g,
                      float bias, const float* z, float* y, int64_t oh0, int64_t oh1,
                      const Activation& act) {
  if (g.sw == 1) {
    DepthwiseRows<1>(xp, pw, w, g, bias, z, y, oh0, oh1, act);
  } else {
    DepthwiseRows<2>(xp, pw, w, g, bias, z, y, oh0, oh1, act);
  }
}

size_t DepthwiseSlackFloats() {
  return 2 * hn::Lanes(hn::ScalableTag<float>());
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(DepthwiseRowsF32);
HWY_EXPORT(DepthwiseSlackFloats);
HWY_EXPORT(DepthwiseInPlaceFits);
HWY_EXPORT(DepthwiseInPlaceF32);

void DepthwiseRowsF32(const float* xp, int64_t pw, const float* w, const DepthwiseGeometry& g,
                      float bias, const float* z, float* y, int64_t oh0, int64_t oh1,
                      const Activation& act) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(DepthwiseRowsF32)(xp, pw, w, g, bias, z, y, oh0, oh1, act);
}
size_t DepthwiseSlackFloats() {
  return HWY_DYNAMIC_DISPATCH(DepthwiseSlackFloats)();
}
bool DepthwiseInPlaceFits(const DepthwiseGeometry& g, int64_t oh) {
  return HWY_DYNAMIC_DISPATCH(DepthwiseInPlaceFits)(g, oh);
}
void DepthwiseInPlaceF32(const DepthwiseSource& in, const float* w, const DepthwiseGeometry& g,
                         int64_t oh, float bias, const float* z, float* y, const Activation& act) {
  const DenormalsAsZero ftz_daz;  // (simd/denormals.h)
  HWY_DYNAMIC_DISPATCH(DepthwiseInPlaceF32)(in, w, g, oh, bias, z, y, act);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
