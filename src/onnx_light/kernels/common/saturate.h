// A double converted to an integer type without undefined behaviour.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

namespace onnx_light::kernels {

// NaN gives 0; values beyond the range saturate (comparing against the limits as doubles,
// which round up for 64-bit types, so nothing at or past 2^63 / 2^64 reaches the cast).
template <typename T>
T SaturatingInt(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

// A double stored as T: saturating for integer types, a plain conversion for the others.
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_integral_v<T>) {
    return SaturatingInt<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace onnx_light::kernels
