// Convolution pieces written once with Highway and compiled for every x86 target;
// HWY_DYNAMIC_DISPATCH picks the best one for the running CPU.
#include "simd/conv_simd.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/conv_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include "simd/activation-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void AxpyStridedF32(float* y, const float* x, size_t n, float a, size_t stride) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const auto va = hn::Set(d, a);
  size_t i = 0;
  if (stride == 1) {
    for (; i + lanes <= n; i += lanes)
      hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, y + i);
  } else if (stride == 2) {
    // Loads 2*lanes inputs and keeps the even ones; the last element read is x[2i + 2*lanes
    // - 1], so stop while that lies inside the row (x[2(n-1)] is the last one needed).
    for (; i + lanes <= n && 2 * (i + lanes) - 1 <= 2 * (n - 1); i += lanes) {
      hn::Vec<decltype(d)> even, odd;
      hn::LoadInterleaved2(d, x + 2 * i, even, odd);
      hn::StoreU(hn::MulAdd(va, even, hn::LoadU(d, y + i)), d, y + i);
    }
  }
  for (; i < n; ++i)
    y[i] += a * x[i * stride];
}

void DeinterleaveF32(const float* x, size_t n, float* even, float* odd) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::Vec<decltype(d)> e, o;
    hn::LoadInterleaved2(d, x + 2 * i, e, o);
    hn::StoreU(e, d, even + i);
    hn::StoreU(o, d, odd + i);
  }
  for (; i < n; ++i) {
    even[i] = x[2 * i];
    odd[i] = x[2 * i + 1];
  }
}

void SplitRowsF32(const float* x, int64_t rows, int64_t w, int64_t n, int64_t c0, float* out,
                  int64_t pw, int64_t odd) {
  const hn::ScalableTag<float> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < rows; ++r) {
    const float* src = x + r * w;
    float* dst = out + r * pw;
    int64_t i = 0;
    if (c0 & 1) {  // an odd first column alone: the pairs below start on an even one
      dst[odd + c0 / 2] = src[0];
      i = 1;
    }
    float* even = dst + (c0 + i) / 2;
    float* odds = dst + odd + (c0 + i) / 2;
    const int64_t pairs = (n - i) / 2;
    int64_t p = 0;
    for (; p + lanes <= pairs; p += lanes) {
      hn::Vec<decltype(d)> e, o;
      hn::LoadInterleaved2(d, src + i + 2 * p, e, o);
      hn::StoreU(e, d, even + p);
      hn::StoreU(o, d, odds + p);
    }
    // The last pairs as one masked vector where the plane goes on past them (the next
    // rows are read, not stored); the last row's one by one.
    const bool room = (rows - 1 - r) * w + (w - i - 2 * p) >= 2 * lanes;
    if (p < pairs && room) {
      hn::Vec<decltype(d)> e, o;
      hn::LoadInterleaved2(d, src + i + 2 * p, e, o);
      const auto m = hn::FirstN(d, static_cast<size_t>(pairs - p));
      hn::BlendedStore(e, m, d, even + p);
      hn::BlendedStore(o, m, d, odds + p);
      p = pairs;
    }
    for (; p < pairs; ++p) {
      even[p] = src[i + 2 * p];
      odds[p] = src[i + 2 * p + 1];
    }
    if (i + 2 * pairs < n) even[pairs] = src[n - 1];  // an even last column alone
  }
}

void ActivationF32(const float* x, float* y, size_t n, const Activation& act) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  switch (act.kind) {
#define ONNX_LIGHT_CASE(K)                               \
  case ActivationKind::K:                                \
    i = ActivationLoop<ActivationKind::K>(x, y, n, act); \
    break;
    ONNX_LIGHT_ACTIVATION_KINDS(ONNX_LIGHT_CASE)
#undef ONNX_LIGHT_CASE
  }
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(Activate(d, hn::LoadU(d, x + i), act), d, y + i);
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
    std::memcpy(buf, x + i, (n - i) * sizeof(float));
    hn::Store(Activate(d, hn::Load(d, buf), act), d, buf);
    std::memcpy(y + i, buf, (n - i) * sizeof(float));
  }
}

void BiasActivationF32(float* y, size_t n, float bias, const float* z, const Activation& act) {
  BiasActivationRows(y, n, bias, z, act);
}

// Direct convolution: OC output channels x B output vectors of one row, accumulating
// every input channel's taps (OC * B independent FMA chains; each loaded input vector
// serves OC channels). Planes padded by the caller, `cstride` floats apart.
template <int SW, size_t OC, size_t B, class D>
HWY_INLINE void DirectBlock(D d, const float* xp, int64_t cstride, int64_t pw, int64_t channels,
                            const float* w, const DepthwiseGeometry& g, const float* bias,
                            int64_t oh, int64_t ow, hn::Vec<D> (*acc)[B]) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t taps = g.kh * g.kw, wstride = channels * taps;  // weights per channel out
  hn::Vec<D> sum[OC][B];  // local, so that they stay in registers
  for (size_t o = 0; o < OC; ++o) {
    for (size_t b = 0; b < B; ++b)
      sum[o][b] = hn::Set(d, bias != nullptr ? bias[o] : 0.0f);
  }
  for (int64_t c = 0; c < channels; ++c) {
    const float* plane = xp + c * cstride;
    const float* wc = w + c * taps;
    for (int64_t kh = 0; kh < g.kh; ++kh) {
      const float* row = plane + (oh * g.sh + kh * g.dh) * pw + ow * SW;
      for (int64_t kw = 0; kw < g.kw; ++kw) {
        const float* at = row + kw * g.dw;
        hn::Vec<D> x[B];
        for (size_t b = 0; b < B; ++b) {
          if (SW == 1) {
            x[b] = hn::LoadU(d, at + static_cast<int64_t>(b) * lanes);
          } else {
            hn::Vec<D> odd;
            hn::LoadInterleaved2(d, at + 2 * static_cast<int64_t>(b) * lanes, x[b], odd);
          }
        }
        const int64_t t = kh * g.kw + kw;
        for (size_t o = 0; o < OC; ++o) {
          const auto wv = hn::Set(d, wc[static_cast<int64_t>(o) * wstride + t]);
          for (size_t b = 0; b < B; ++b)
            sum[o][b] = hn::MulAdd(wv, x[b], sum[o][b]);
        }
      }
    }
  }
  for (size_t o = 0; o < OC; ++o) {
    for (size_t b = 0; b < B; ++b)
      acc[o][b] = sum[o][b];
  }
}

// Rows [oh0, oh1) of OC output channels: the sums (bias included) stored, then each
// finished row's epilogue (residual, activation) applied by BiasActivationF32 while it is
// in the L1 cache; the epilogue is not compiled into every instantiation.
template <int SW, size_t OC>
void DirectRows(const float* xp, int64_t cstride, int64_t pw, int64_t channels, const float* w,
                const DepthwiseGeometry& g, const float* bias, const float* z, float* y,
                int64_t out_plane, int64_t oh0, int64_t oh1, const Activation& act) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  constexpr size_t kB = OC >= 4 ? 4 : 8 / OC;  // vectors per step: at most 16 accumulators
  const bool epilogue = z != nullptr || HasEffect(act);
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    int64_t j = 0;
    V acc[OC][kB];
    for (; j + static_cast<int64_t>(kB) * lanes <= g.ow; j += static_cast<int64_t>(kB) * lanes) {
      DirectBlock<SW, OC, kB>(d, xp, cstride, pw, channels, w, g, bias, oh, j, acc);
      for (size_t o = 0; o < OC; ++o) {
        float* out = y + static_cast<int64_t>(o) * out_plane + oh * g.ow + j;
        for (size_t b = 0; b < kB; ++b)
          hn::StoreU(acc[o][b], d, out + static_cast<int64_t>(b) * lanes);
      }
    }
    V one[OC][1];
    for (; j < g.ow; j += lanes) {  // the padded planes have room past each row's end
      DirectBlock<SW, OC, 1>(d, xp, cstride, pw, channels, w, g, bias, oh, j, one);
      const int64_t n = std::min(lanes, g.ow - j);
      for (size_t o = 0; o < OC; ++o) {
        HWY_ALIGN float buf[hn::MaxLanes(d)];
        hn::Store(one[o][0], d, buf);
        std::memcpy(y + static_cast<int64_t>(o) * out_plane + oh * g.ow + j, buf,
                    static_cast<size_t>(n) * sizeof(float));
      }
    }
    if (!epilogue) continue;
    for (size_t o = 0; o < OC; ++o) {
      const int64_t at = static_cast<int64_t>(o) * out_plane + oh * g.ow;
      BiasActivationRows(y + at, static_cast<size_t>(g.ow), 0.0f, z != nullptr ? z + at : nullptr,
                         act);
    }
  }
}

void DirectConvRowsF32(const float* xp, int64_t cstride, int64_t pw, int64_t channels,
                       const float* w, int64_t oc, const DepthwiseGeometry& g, const float* bias,
                       const float* z, float* y, int64_t out_plane, int64_t oh0, int64_t oh1,
                       const Activation& act) {
  // Four output channels at a time where there are 32 vector registers, two where 16;
  // the rest one at a time.
  constexpr size_t kOC = HWY_TARGET <= HWY_AVX3 ? 4 : 2;
  const int64_t wstride = channels * g.kh * g.kw;
  for (int64_t o = 0; o < oc;) {
    const bool block = oc - o >= static_cast<int64_t>(kOC);
    const float* bo = bias != nullptr ? bias + o : nullptr;
    const float* zo = z != nullptr ? z + o * out_plane : nullptr;
    const float* wo = w + o * wstride;
    float* yo = y + o * out_plane;
    if (g.sw == 1) {
      block ? DirectRows<1, kOC>(xp, cstride, pw, channels, wo, g, bo, zo, yo, out_plane, oh0, oh1,
                                 act)
            : DirectRows<1, 1>(xp, cstride, pw, channels, wo, g, bo, zo, yo, out_plane, oh0, oh1,
                               act);
    } else {
      block ? DirectRows<2, kOC>(xp, cstride, pw, channels, wo, g, bo, zo, yo, out_plane, oh0, oh1,
                                 act)
            : DirectRows<2, 1>(xp, cstride, pw, channels, wo, g, bo, zo, yo, out_plane, oh0, oh1,
                               act);
    }
    o += block ? static_cast<int64_t>(kOC) : 1;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(AxpyStridedF32);
HWY_EXPORT(DeinterleaveF32);
HWY_EXPORT(ActivationF32);
HWY_EXPORT(BiasActivationF32);
HWY_EXPORT(SplitRowsF32);
HWY_EXPORT(DirectConvRowsF32);

void DirectConvRowsF32(const float* xp, int64_t cstride, int64_t pw, int64_t channels,
                       const float* w, int64_t oc, const DepthwiseGeometry& g, const float* bias,
                       const float* z, float* y, int64_t out_plane, int64_t oh0, int64_t oh1,
                       const Activation& act) {
  HWY_DYNAMIC_DISPATCH(DirectConvRowsF32)
  (xp, cstride, pw, channels, w, oc, g, bias, z, y, out_plane, oh0, oh1, act);
}

void AxpyStridedF32(float* y, const float* x, size_t n, float a, size_t stride) {
  HWY_DYNAMIC_DISPATCH(AxpyStridedF32)(y, x, n, a, stride);
}
void DeinterleaveF32(const float* x, size_t n, float* even, float* odd) {
  HWY_DYNAMIC_DISPATCH(DeinterleaveF32)(x, n, even, odd);
}
void SplitRowsF32(const float* x, int64_t rows, int64_t w, int64_t n, int64_t c0, float* out,
                  int64_t pw, int64_t odd) {
  HWY_DYNAMIC_DISPATCH(SplitRowsF32)(x, rows, w, n, c0, out, pw, odd);
}
void ActivationF32(const float* x, float* y, size_t n, const Activation& act) {
  HWY_DYNAMIC_DISPATCH(ActivationF32)(x, y, n, act);
}
void BiasActivationF32(float* y, size_t n, float bias, const float* z, const Activation& act) {
  HWY_DYNAMIC_DISPATCH(BiasActivationF32)(y, n, bias, z, act);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
