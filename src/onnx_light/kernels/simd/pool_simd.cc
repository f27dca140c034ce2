#include "simd/pool_simd.h"

#include <algorithm>
#include <cstring>

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/pool_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// v when greater than best or NaN, else best: MaxPool's order.
template <class D, class V>
HWY_INLINE V MaxNaNV(D, V v, V best) {
  return hn::IfThenElse(hn::Or(hn::Gt(v, best), hn::IsNaN(v)), v, best);
}

// Lanes o .. o + L - 1 of tap k: row[(o + lane) * stride + k]. A last, partial block
// (o + L > n) reads the row's slack at strides 1 and 2; gathers clamp to the last output.
template <class D>
HWY_INLINE hn::Vec<D> LoadTap(D d, const float* row, size_t o, size_t k, size_t stride, size_t n) {
  if (stride == 1) return hn::LoadU(d, row + o + k);
  if (stride == 2) {
    hn::Vec<D> even, odd;
    hn::LoadInterleaved2(d, row + 2 * o + k, even, odd);
    return even;
  }
  const hn::RebindToSigned<D> di;
  auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<int32_t>(stride)));
  if (o + hn::Lanes(d) > n) {
    index = hn::Min(index, hn::Set(di, static_cast<int32_t>((n - 1 - o) * stride)));
  }
  return hn::GatherIndex(d, row + o * stride + k, index);
}

template <bool kMax, class D>
HWY_INLINE hn::Vec<D> WindowAt(D d, const float* row, size_t o, size_t n, size_t taps,
                               size_t stride) {
  auto acc = LoadTap(d, row, o, 0, stride, n);
  for (size_t k = 1; k < taps; ++k) {
    const auto v = LoadTap(d, row, o, k, stride, n);
    acc = kMax ? MaxNaNV(d, v, acc) : hn::Add(acc, v);
  }
  return acc;
}

template <bool kMax>
void WindowRow(const float* row, size_t n, size_t taps, size_t stride, float* out) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  static_assert(hn::MaxLanes(hn::ScalableTag<float>()) <= kPoolMaxLanes, "kPoolMaxLanes");
  if (n < l) {  // one partial block: a masked store where the CPU has one, else a buffer
#if HWY_TARGET <= HWY_AVX2
    hn::BlendedStore(WindowAt<kMax>(d, row, 0, n, taps, stride), hn::FirstN(d, n), d, out);
    return;
#endif
    HWY_ALIGN float tail[hn::MaxLanes(d)];
    hn::Store(WindowAt<kMax>(d, row, 0, n, taps, stride), d, tail);
    std::memcpy(out, tail, n * sizeof(float));
    return;
  }
  size_t o = 0;
  for (; o + l <= n; o += l)
    hn::StoreU(WindowAt<kMax>(d, row, o, n, taps, stride), d, out + o);
  // The last outputs as a whole block ending at n (overlapping the one before: the same
  // values stored again).
  if (o < n) hn::StoreU(WindowAt<kMax>(d, row, n - l, n, taps, stride), d, out + n - l);
}

void WindowRowsF32Impl(const float* rows, size_t pitch, size_t count, size_t n, size_t taps,
                       size_t stride, bool max, float* out, size_t out_pitch) {
  for (size_t r = 0; r < count; ++r) {
    if (max) {
      WindowRow<true>(rows + r * pitch, n, taps, stride, out + r * out_pitch);
    } else {
      WindowRow<false>(rows + r * pitch, n, taps, stride, out + r * out_pitch);
    }
  }
}

template <class D>
HWY_INLINE hn::Vec<D> FoldAt(D d, const float* rows, size_t count, size_t pitch, bool max,
                             const float* divisor, size_t i) {
  auto acc = hn::LoadU(d, rows + i);
  for (size_t r = 1; r < count; ++r) {
    const auto v = hn::LoadU(d, rows + r * pitch + i);
    acc = max ? MaxNaNV(d, v, acc) : hn::Add(acc, v);
  }
  if (divisor != nullptr) acc = hn::Div(acc, hn::LoadU(d, divisor + i));
  return acc;
}

void FoldRowsOne(const float* rows, size_t count, size_t pitch, size_t n, bool max,
                 const float* divisor, float one_divisor, float* out) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  size_t i = 0;
  const auto scalar = hn::Set(d, one_divisor);
  for (; i + l <= n; i += l) {
    auto acc = FoldAt(d, rows, count, pitch, max, divisor, i);
    if (!max && divisor == nullptr) acc = hn::Div(acc, scalar);
    hn::StoreU(acc, d, out + i);
  }
  if (i == n) return;
  if (n >= l) {  // the last outputs as a whole block ending at n, as in WindowRow
    auto acc = FoldAt(d, rows, count, pitch, max, divisor, n - l);
    if (!max && divisor == nullptr) acc = hn::Div(acc, scalar);
    hn::StoreU(acc, d, out + n - l);
    return;
  }
  const size_t m = n - i;
#if HWY_TARGET <= HWY_AVX2
  // A row shorter than a vector by masked loads and a masked store, which read and write
  // nothing past the row (AVX2 and AVX-512 have them): through the buffer below, a 3x3
  // MaxPool of 256 planes of 27x27 (13 outputs a row) ran 2.3x ORT's time in memcpy calls.
  {
    const auto first = hn::FirstN(d, m);
    auto acc = hn::MaskedLoad(first, d, rows + i);
    for (size_t r = 1; r < count; ++r) {
      const auto v = hn::MaskedLoad(first, d, rows + r * pitch + i);
      acc = max ? MaxNaNV(d, v, acc) : hn::Add(acc, v);
    }
    if (!max) {
      const auto dv =
          divisor != nullptr
              ? hn::IfThenElse(first, hn::MaskedLoad(first, d, divisor + i), hn::Set(d, 1.0f))
              : hn::Set(d, one_divisor);
      acc = hn::Div(acc, dv);
    }
    hn::BlendedStore(acc, first, d, out + i);
    return;
  }
#endif
  // A row shorter than a vector, through a buffer (a row's end may be its buffer's end),
  // row by row in the same order as the vector code.
  HWY_ALIGN float td[hn::MaxLanes(d)] = {};
  std::memcpy(td, rows + i, m * sizeof(float));
  auto acc = hn::Load(d, td);
  for (size_t r = 1; r < count; ++r) {
    std::memcpy(td, rows + r * pitch + i, m * sizeof(float));
    const auto v = hn::Load(d, td);
    acc = max ? MaxNaNV(d, v, acc) : hn::Add(acc, v);
  }
  if (!max) {
    HWY_ALIGN float dv[hn::MaxLanes(d)];
    for (size_t j = 0; j < l; ++j)
      dv[j] = j >= m ? 1.0f : divisor != nullptr ? divisor[i + j] : one_divisor;
    acc = hn::Div(acc, hn::Load(d, dv));
  }
  hn::Store(acc, d, td);
  std::memcpy(out + i, td, m * sizeof(float));
}

// Every output row of a plane in one call (a dispatched call per output row of 35 floats
// was a quarter of AveragePool 3x3's time on 35x35 planes).
void FoldRowsF32Impl(const float* rows, size_t pitch, size_t n, size_t out_rows,
                     const int32_t* first, const int32_t* count, bool max, const float* divisor,
                     float one_divisor, float* out) {
  for (size_t r = 0; r < out_rows; ++r) {
    FoldRowsOne(rows + static_cast<size_t>(first[r]) * pitch, static_cast<size_t>(count[r]), pitch,
                n, max, divisor != nullptr ? divisor + r * n : nullptr, one_divisor, out + r * n);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(WindowRowsF32Impl);

size_t WindowRowReach(size_t n, size_t taps, size_t stride) {
  // A partial block reads a whole vector's taps; LoadInterleaved2 one float past the last
  // (stride 2); gathers are clamped to the last output.
  if (stride > 2) return (n - 1) * stride + taps;
  return (std::max(n, kPoolMaxLanes) - 1) * stride + taps + 1;
}
HWY_EXPORT(FoldRowsF32Impl);

void WindowRowsF32(const float* rows, size_t pitch, size_t count, size_t n, size_t taps,
                   size_t stride, bool max, float* out, size_t out_pitch) {
  HWY_DYNAMIC_DISPATCH(WindowRowsF32Impl)
  (rows, pitch, count, n, taps, stride, max, out, out_pitch == 0 ? n : out_pitch);
}

void FoldRowsF32(const float* rows, size_t pitch, size_t n, size_t out_rows, const int32_t* first,
                 const int32_t* count, bool max, const float* divisor, float one_divisor,
                 float* out) {
  HWY_DYNAMIC_DISPATCH(FoldRowsF32Impl)
  (rows, pitch, n, out_rows, first, count, max, divisor, one_divisor, out);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
