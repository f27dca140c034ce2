#include "simd/reduce_simd.h"

#include <cmath>
#include <limits>

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/reduce_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace onnx_light::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Four independent accumulators (one chain of Max would wait on its latency) and a mask of
// lanes that saw a NaN (Max's NaN behaviour differs between targets).
float MaxMinF32Impl(const float* x, size_t n, bool is_max) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  const float start =
      is_max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  auto a0 = hn::Set(d, start), a1 = a0, a2 = a0, a3 = a0;
  auto nan = hn::Lt(a0, a0);  // all false
  const auto fold = [&](auto acc, auto v) { return is_max ? hn::Max(acc, v) : hn::Min(acc, v); };
  size_t i = 0;
  for (; i + 4 * l <= n; i += 4 * l) {
    const auto v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + l);
    const auto v2 = hn::LoadU(d, x + i + 2 * l), v3 = hn::LoadU(d, x + i + 3 * l);
    a0 = fold(a0, v0);
    a1 = fold(a1, v1);
    a2 = fold(a2, v2);
    a3 = fold(a3, v3);
    nan = hn::Or(
        nan, hn::Or(hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)), hn::Or(hn::IsNaN(v2), hn::IsNaN(v3))));
  }
  for (; i + l <= n; i += l) {
    const auto v = hn::LoadU(d, x + i);
    a0 = fold(a0, v);
    nan = hn::Or(nan, hn::IsNaN(v));
  }
  if (!hn::AllFalse(d, nan)) return std::numeric_limits<float>::quiet_NaN();
  const auto all = fold(fold(a0, a1), fold(a2, a3));
  float r = is_max ? hn::GetLane(hn::MaxOfLanes(d, all)) : hn::GetLane(hn::MinOfLanes(d, all));
  for (; i < n; ++i) {
    if (std::isnan(x[i])) return x[i];
    r = is_max ? (x[i] > r ? x[i] : r) : (x[i] < r ? x[i] : r);
  }
  return r;
}

// Four vectors of columns stay in registers while every row folds into them.
void MaxMinRowsF32Impl(const float* x, size_t stride, size_t rows, size_t n, bool is_max,
                       float* out) {
  const hn::ScalableTag<float> d;
  const size_t l = hn::Lanes(d);
  const float start =
      is_max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  const auto fold = [&](auto acc, auto v) {
    // A NaN stays: once a lane holds NaN, Max/Min of it is not relied on.
    const auto m = is_max ? hn::Max(acc, v) : hn::Min(acc, v);
    return hn::IfThenElse(hn::Or(hn::IsNaN(acc), hn::IsNaN(v)), hn::Add(acc, v), m);
  };
  size_t i = 0;
  for (; i + 4 * l <= n; i += 4 * l) {
    auto a0 = hn::Set(d, start), a1 = a0, a2 = a0, a3 = a0;
    for (size_t r = 0; r < rows; ++r) {
      const float* p = x + r * stride + i;
      a0 = fold(a0, hn::LoadU(d, p));
      a1 = fold(a1, hn::LoadU(d, p + l));
      a2 = fold(a2, hn::LoadU(d, p + 2 * l));
      a3 = fold(a3, hn::LoadU(d, p + 3 * l));
    }
    hn::StoreU(a0, d, out + i);
    hn::StoreU(a1, d, out + i + l);
    hn::StoreU(a2, d, out + i + 2 * l);
    hn::StoreU(a3, d, out + i + 3 * l);
  }
  for (; i < n; ++i) {
    float acc = start;
    for (size_t r = 0; r < rows; ++r) {
      const float v = x[r * stride + i];
      if (std::isnan(v) || std::isnan(acc)) {
        acc = v + acc;  // NaN
      } else if (is_max ? v > acc : v < acc) {
        acc = v;
      }
    }
    out[i] = acc;
  }
}

// FindBeyondF32 (reduce_simd.h): a vector compare per step, the first lane that passes.
size_t FindBeyondF32Impl(const float* x, size_t n, float bound, bool above) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const auto b = hn::Set(d, bound);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, x + i);
    // (not <= / not >=: a NaN on either side passes)
    const auto pass = above ? hn::Not(hn::Le(v, b)) : hn::Not(hn::Ge(v, b));
    if (!hn::AllFalse(d, pass)) return i + static_cast<size_t>(hn::FindFirstTrue(d, pass));
  }
  for (; i < n; ++i) {
    if (above ? !(x[i] <= bound) : !(x[i] >= bound)) return i;
  }
  return n;
}

}  // namespace HWY_NAMESPACE
}  // namespace onnx_light::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onnx_light::kernels {

HWY_EXPORT(MaxMinF32Impl);
HWY_EXPORT(MaxMinRowsF32Impl);
HWY_EXPORT(FindBeyondF32Impl);

size_t FindBeyondF32(const float* x, size_t n, float bound, bool above) {
  return HWY_DYNAMIC_DISPATCH(FindBeyondF32Impl)(x, n, bound, above);
}

float MaxMinF32(const float* x, size_t n, bool is_max) {
  return HWY_DYNAMIC_DISPATCH(MaxMinF32Impl)(x, n, is_max);
}

void MaxMinRowsF32(const float* x, size_t stride, size_t rows, size_t n, bool is_max, float* out) {
  HWY_DYNAMIC_DISPATCH(MaxMinRowsF32Impl)(x, stride, rows, n, is_max, out);
}

}  // namespace onnx_light::kernels
#endif  // HWY_ONCE
