#include "onnx_light/core/float16.h"

#include <type_traits>

namespace onnx_light {
namespace {

// An IEEE-style binary format: sign, kExpBits of biased exponent, kMantBits of fraction.
template <typename Bits, int kExpBitsT, int kMantBitsT>
struct Format {
  using UInt = Bits;
  static constexpr int kExpBits = kExpBitsT;
  static constexpr int kMantBits = kMantBitsT;
  static constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  static constexpr int kWidth = 1 + kExpBits + kMantBits;
  static constexpr UInt kMantMask = (UInt{1} << kMantBits) - 1;
  static constexpr UInt kExpMask = ((UInt{1} << kExpBits) - 1) << kMantBits;
  static constexpr UInt kSignBit = UInt{1} << (kWidth - 1);
};

using F64 = Format<uint64_t, 11, 52>;
using F32 = Format<uint32_t, 8, 23>;
using F16 = Format<uint16_t, 5, 10>;
using BF16 = Format<uint16_t, 8, 7>;

template <typename T, typename U>
T BitCast(U u) noexcept {
  static_assert(sizeof(T) == sizeof(U), "same size");
  T t;
  std::memcpy(&t, &u, sizeof(t));
  return t;
}

// Rounds a value of the wide format `W` to the narrow format `N`, nearest-even, once.
template <typename W, typename N>
typename N::UInt Narrow(typename W::UInt bits) noexcept {
  using WU = typename W::UInt;
  using NU = typename N::UInt;
  const NU sign = (bits & W::kSignBit) ? N::kSignBit : NU{0};
  const WU abs = bits & ~W::kSignBit;
  const WU exp_field = abs >> W::kMantBits;
  const WU frac = abs & W::kMantMask;

  if (exp_field == (W::kExpMask >> W::kMantBits)) {  // inf or NaN
    if (frac == 0) return static_cast<NU>(sign | N::kExpMask);
    NU payload = static_cast<NU>(frac >> (W::kMantBits - N::kMantBits));
    if (payload == 0) payload = 1;
    return static_cast<NU>(sign | N::kExpMask | payload);
  }
  if (abs == 0) return sign;

  // value = mant * 2^(exp - W::kMantBits), mant including the implicit bit.
  int exp = exp_field == 0 ? 1 - W::kBias : static_cast<int>(exp_field) - W::kBias;
  const WU mant = exp_field == 0 ? frac : (frac | (WU{1} << W::kMantBits));

  // The narrow quantum is 2^(q_exp - N::kMantBits); below the narrow minimum normal
  // exponent the quantum stays fixed (subnormals).
  constexpr int kNarrowMinExp = 1 - N::kBias;
  const int q_exp = exp < kNarrowMinExp ? kNarrowMinExp : exp;
  const int shift = (W::kMantBits - N::kMantBits) + (q_exp - exp);
  if (shift > W::kMantBits + 1) return sign;  // below half the smallest subnormal
  WU q = mant >> shift;
  const WU rem = mant & ((WU{1} << shift) - 1);
  const WU half = WU{1} << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;

  // q carries the implicit bit, so adding it bumps the exponent field by one; a carry
  // out of the mantissa (q == 2^(N::kMantBits+1)) and subnormal-to-normal rounding both
  // come out right.
  const int64_t biased = static_cast<int64_t>(q_exp) + N::kBias - 1;
  const int64_t out = (biased << N::kMantBits) + static_cast<int64_t>(q);
  if (out >= static_cast<int64_t>(N::kExpMask)) return static_cast<NU>(sign | N::kExpMask);
  return static_cast<NU>(sign | static_cast<NU>(out));
}

// Exact conversion of a narrow format `N` to the wider format `W`.
template <typename N, typename W>
typename W::UInt Widen(typename N::UInt bits) noexcept {
  using WU = typename W::UInt;
  const WU sign = (bits & N::kSignBit) ? W::kSignBit : WU{0};
  const unsigned exp_field = static_cast<unsigned>((bits & N::kExpMask) >> N::kMantBits);
  const WU frac = static_cast<WU>(bits & N::kMantMask);
  constexpr int kShift = W::kMantBits - N::kMantBits;

  if (exp_field == (N::kExpMask >> N::kMantBits)) return sign | W::kExpMask | (frac << kShift);
  if (exp_field == 0) {
    if (frac == 0) return sign;
    // Subnormal: value = frac * 2^(1 - N::kBias - N::kMantBits). bfloat16 shares float32's
    // exponent range, so there it stays subnormal; otherwise it becomes a wide normal.
    if constexpr (W::kBias == N::kBias) {
      return sign | (frac << kShift);
    } else {
      static_assert(W::kBias > N::kBias + N::kMantBits, "narrow subnormals are wide normals");
    }
    int msb = 0;
    while ((frac >> (msb + 1)) != 0)
      ++msb;
    const int exp = 1 - N::kBias - N::kMantBits + msb;
    const WU wide_frac = (frac << (W::kMantBits - msb)) & W::kMantMask;
    return sign | (static_cast<WU>(exp + W::kBias) << W::kMantBits) | wide_frac;
  }
  const int exp = static_cast<int>(exp_field) - N::kBias;
  return sign | (static_cast<WU>(exp + W::kBias) << W::kMantBits) | (frac << kShift);
}

}  // namespace

uint16_t FloatToFloat16Bits(float v) noexcept {
  return Narrow<F32, F16>(BitCast<uint32_t>(v));
}
uint16_t DoubleToFloat16Bits(double v) noexcept {
  return Narrow<F64, F16>(BitCast<uint64_t>(v));
}
float Float16BitsToFloat(uint16_t b) noexcept {
  return BitCast<float>(Widen<F16, F32>(b));
}
double Float16BitsToDouble(uint16_t b) noexcept {
  return BitCast<double>(Widen<F16, F64>(b));
}

uint16_t FloatToBFloat16Bits(float v) noexcept {
  return Narrow<F32, BF16>(BitCast<uint32_t>(v));
}
uint16_t DoubleToBFloat16Bits(double v) noexcept {
  return Narrow<F64, BF16>(BitCast<uint64_t>(v));
}
float BFloat16BitsToFloat(uint16_t b) noexcept {
  return BitCast<float>(Widen<BF16, F32>(b));
}
double BFloat16BitsToDouble(uint16_t b) noexcept {
  return BitCast<double>(Widen<BF16, F64>(b));
}

}  // namespace onnx_light
