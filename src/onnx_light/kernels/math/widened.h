// Operands of a matrix product in the type it accumulates in (MatMul, Einsum): 16-bit
// floats widened to float once per operand, integers as their unsigned counterpart (wrap
// around without undefined behaviour, as numpy's result).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/broadcast.h"

namespace onnx_light::kernels {

// The type products accumulate in: float for 16-bit floats, the unsigned counterpart for
// integers (wrap-around without undefined behaviour, as numpy's result).
template <typename T>
using MatAcc =
    typename std::conditional_t<std::is_integral_v<T>, std::make_unsigned<T>, ComputeType<T>>::type;

// Operands as the accumulation type: a view where that is T, else a widened copy.
template <typename T>
struct Widened {
  using C = MatAcc<T>;
  std::vector<C> copy;
  const C* data = nullptr;
  Widened(const T* p, int64_t n) {
    if constexpr (std::is_same_v<C, T>) {
      data = p;
      (void)n;
    } else {
      copy.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        copy[static_cast<size_t>(i)] = static_cast<C>(p[i]);
      data = copy.data();
    }
  }
};

}  // namespace onnx_light::kernels
