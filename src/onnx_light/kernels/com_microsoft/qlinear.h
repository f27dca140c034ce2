// What the com.microsoft QLinear* kernels share, as ORT's CPU kernels do it: per-tensor
// quantization parameters (one float scale, one 8-bit zero point), MLAS's quantization
// (saturate(round_half_even(v / scale) + zero_point), in float), and the 256-entry lookup
// table of a unary op: dequantize each code, apply the float function, quantize.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "com_microsoft/ms_def.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {

struct QParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// The scale at input `s` (float, one value) and the zero point at input `z` (8-bit, one
// value; absent means 0). `what` names the tensor in errors.
inline Result<QParams> TensorQParams(const KernelContext& ctx, size_t s, size_t z,
                                     const std::string& what) {
  const Tensor* st = OptionalInput(ctx, s);
  // (The ops' definitions leave the scales' and some zero points' types open, as ORT's
  // schemas do: checked here.)
  ONNX_LIGHT_RETURN_IF(st == nullptr || st->dtype() != DataType::kFloat || st->shape().rank() > 1 ||
                           st->num_elements() != 1,
                       kInvalidArgument,
                       what + "'s scale must be one float value (a scalar or [1])");
  QParams p;
  p.scale = st->data<float>()[0];
  ONNX_LIGHT_RETURN_IF(
      !(p.scale > 0.0f) || std::isinf(p.scale), kInvalidArgument,
      what + "'s scale must be positive and finite, got " + std::to_string(p.scale));
  const Tensor* zt = OptionalInput(ctx, z);
  if (zt != nullptr) {
    ONNX_LIGHT_RETURN_IF(zt->dtype() != DataType::kInt8 && zt->dtype() != DataType::kUint8,
                         kInvalidArgument, what + "'s zero point must be int8 or uint8");
    ONNX_LIGHT_RETURN_IF(zt->shape().rank() > 1 || zt->num_elements() != 1, kInvalidArgument,
                         what + "'s zero point must be one value (a scalar or [1])");
    p.zero_point = zt->dtype() == DataType::kInt8 ? zt->data<int8_t>()[0]
                                                  : static_cast<int32_t>(zt->data<uint8_t>()[0]);
  }
  return p;
}

// Rounds half to even a float already clamped to a few hundred: adding and removing 1.5 *
// 2^23 leaves the nearest integer (ties to even) in round-to-nearest mode, exactly as
// nearbyint, without the libm call (the loops using it vectorize).
inline float RoundSmall(float v) {
  constexpr float kMagic = 12582912.0f;
  return (v + kMagic) - kMagic;
}

// Requantizes an int32 accumulator: saturate(round_half_even(acc * scale) + zero_point).
// Clamped before rounding to [min - zp, max - zp] (integer bounds: the same result); NaN
// becomes the minimum.
template <typename T>
T RequantizeAcc(float acc_times_scale, int32_t zero_point) {
  constexpr auto kLo = static_cast<float>(std::numeric_limits<T>::min());
  constexpr auto kHi = static_cast<float>(std::numeric_limits<T>::max());
  const auto z = static_cast<float>(zero_point);
  // (Comparisons rather than fmax/fmin, the same results: loops using them vectorize.)
  float q = acc_times_scale > kLo - z ? acc_times_scale : kLo - z;
  q = q < kHi - z ? q : kHi - z;
  return static_cast<T>(static_cast<int32_t>(RoundSmall(q)) + zero_point);
}

// MLAS's QuantizeLinear of one value to T (int8 or uint8):
// saturate(round_half_even(v / scale) + zero_point), in float.
template <typename T>
T QuantizeToCode(float v, QParams p) {
  return RequantizeAcc<T>(v / p.scale, p.zero_point);
}

// The table of a unary op on T codes, indexed by the code's byte: y = Q(fn(x_scale *
// (code - x_zero_point))).
template <typename T, typename Fn>
std::array<uint8_t, 256> CodeTable(QParams x, QParams y, Fn fn) {
  std::array<uint8_t, 256> table{};
  for (int i = 0; i < 256; ++i) {
    const auto code = static_cast<T>(static_cast<uint8_t>(i));
    const float v = x.scale * static_cast<float>(static_cast<int32_t>(code) - x.zero_point);
    const T q = QuantizeToCode<T>(fn(v), y);
    table[static_cast<size_t>(i)] = static_cast<uint8_t>(q);
  }
  return table;
}

// y[i] = table[x[i]]: the table copied to the stack and the pointers restrict, so that the
// byte stores (which may alias anything) do not reload it, four lookups an iteration;
// split across `pool` (if given) in chunks of at least 64k codes. (A plain loop on one
// thread ran 2x ORT's time at 1 thread, 3.7x at 2.)
inline void ApplyCodeTable(const std::array<uint8_t, 256>& table, const uint8_t* x, uint8_t* y,
                           int64_t n, ThreadPool* pool = nullptr) {
  auto run = [&](int64_t b, int64_t e) {
    uint8_t t[256];
    std::memcpy(t, table.data(), 256);
    const uint8_t* __restrict in = x;
    uint8_t* __restrict out = y;
    int64_t i = b;
    for (; i + 4 <= e; i += 4) {
      const uint8_t a0 = t[in[i]], a1 = t[in[i + 1]], a2 = t[in[i + 2]], a3 = t[in[i + 3]];
      out[i] = a0;
      out[i + 1] = a1;
      out[i + 2] = a2;
      out[i + 3] = a3;
    }
    for (; i < e; ++i)
      out[i] = t[in[i]];
  };
  if (pool == nullptr || pool->threads() == 1 || n < (int64_t{1} << 17)) {
    run(0, n);
  } else {
    pool->ParallelFor(n, int64_t{1} << 16, run);
  }
}

inline std::vector<DataType> Int8Types() {
  return {DataType::kUint8, DataType::kInt8};
}

}  // namespace onnx_light::kernels
