// MatMulNBits at accuracy_level 4 with few rows (decode) on CPUs with AVX-512 VNNI: 4-bit
// weights times int8 activations by vpdpbusd (four u8 x s8 products summed into each int32
// lane, exact), each block's dot exact in int32, then scaled by both blocks' scales in
// float (simd/nbits_simd.h, Q4Q8RowsVnni). Highway 1.0 has no u8 x s8 dot, so the kernel
// is written with intrinsics in functions compiled for AVX-512 VNNI and chosen at run time
// (Q4Q8TileLevel() == 2).
// A column's codes are read in place, 64 bytes (128 codes) at a time: their low nibbles
// are one vector of u8 codes and their high nibbles another, with no shuffle, because A's
// rows are regrouped to match once per call (Q8Chunks: per 128 values the even elements of
// four 32-value units, then their odd ones). Lane l's int32 sum then belongs to unit l / 4,
// and one float multiply-add a chunk applies both scales per lane.
#include <algorithm>
#include <cstring>

#include "simd/nbits_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ONNX_LIGHT_NBITS_VNNI 1
// GCC 12's AVX-512 headers make their "undefined" pass-through vectors (permutes,
// conversions, extracts) by self-initialization, which -Wuninitialized reports at every
// inlined use: a false positive in the system header, silenced for this file only (GCC
// only: clang has neither the headers' pattern nor the second warning).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define ONNX_LIGHT_VNNI_FN \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,fma")))
#endif

namespace onnx_light::kernels {

#ifdef ONNX_LIGHT_NBITS_VNNI
namespace {

constexpr int64_t kChunk = 128;  // values of A (64 bytes of codes) a step
constexpr int64_t kAhead = 512;  // bytes of codes prefetched ahead in each column

// Per lane of a chunk's sums, where its column's block scales come from: 128 / block
// blocks a chunk (blocks of 32 and 64), or one block for all lanes (128 and more).
struct LaneScales {
  alignas(64) int32_t index[16];  // lane l -> the block (from the chunk's first) of unit l / 4
  int64_t per;                    // blocks a chunk (1 for blocks of 128 and more)
  int shift;                      // log2(block): a chunk's first block is (j * 128) >> shift
};

LaneScales MakeLaneScales(int64_t block) {
  LaneScales s{};
  s.per = std::max<int64_t>(1, kChunk / block);
  while ((int64_t{1} << s.shift) < block)
    ++s.shift;
  for (int l = 0; l < 16; ++l)
    s.index[l] = static_cast<int32_t>(s.per == 1 ? 0 : (l / 4) * 32 / block);
  return s;
}

// `count` (<= 16) blocks' 4-bit zero points, two a byte (the low nibble first), as floats.
ONNX_LIGHT_VNNI_FN __m512 ZeroPoints(const uint8_t* packed, int64_t count) {
  const auto bytes = static_cast<__mmask16>((1u << ((count + 1) / 2)) - 1);
  const __m128i w = _mm_cvtepu8_epi16(_mm_maskz_loadu_epi8(bytes, packed));
  // each 16-bit word's byte as its low nibble, then its high one: 16 bytes in block order
  const __m128i split = _mm_or_si128(_mm_and_si128(w, _mm_set1_epi16(0x000F)),
                                     _mm_and_si128(_mm_slli_epi16(w, 4), _mm_set1_epi16(0x0F00)));
  return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(split));
}

// Chunk j of rows [r0, r0 + R) and C columns into acc (`mask`: the bytes of the codes that
// exist, short in a last chunk). kWide: blocks of 128 and more, one scale for all lanes.
template <int R, int C, bool kWide>
ONNX_LIGHT_VNNI_FN inline __attribute__((always_inline)) void Step(
    const Q8Chunks& a, int64_t r0, int64_t j, __mmask64 mask, const uint8_t* const* col,
    const float* const* ws, __m512i index, const LaneScales& lanes, __m512 (*acc)[C]) {
  const __m512i low = _mm512_set1_epi8(0x0F);
  const int64_t first = (j * kChunk) >> lanes.shift;
  __m512i lo[C], hi[C];
  __m512 wsv[C];
#pragma GCC unroll 4
  for (int c = 0; c < C; ++c) {
    const __m512i x = _mm512_maskz_loadu_epi8(mask, col[c] + j * 64);
    _mm_prefetch(reinterpret_cast<const char*>(col[c] + j * 64 + kAhead), _MM_HINT_T0);
    lo[c] = _mm512_and_si512(x, low);
    hi[c] = _mm512_and_si512(_mm512_srli_epi16(x, 4), low);
    if constexpr (kWide) {
      wsv[c] = _mm512_set1_ps(ws[c][first]);
    } else {
      const auto m = static_cast<__mmask16>((1u << std::min(lanes.per, a.blocks - first)) - 1);
      wsv[c] = _mm512_permutexvar_ps(index, _mm512_maskz_loadu_ps(m, ws[c] + first));
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    const int8_t* q = a.q.data() + (r0 + r) * a.stride + j * kChunk;
    const __m512i even = _mm512_loadu_si512(q), odd = _mm512_loadu_si512(q + 64);
    const __m512 asv = _mm512_loadu_ps(a.lane_scales.data() + ((r0 + r) * a.chunks + j) * 16);
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      const __m512i d =
          _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), lo[c], even), hi[c], odd);
      acc[r][c] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), _mm512_mul_ps(asv, wsv[c]), acc[r][c]);
    }
  }
}

// Rows [r0, r0 + R) of `a` times columns [n, n + C), each y = the sum of its blocks' scaled
// dots - sum_b zero_point[b] * w_scale[b] * a.sums[b] + bias (zps: 4-bit zero points,
// zp_row bytes a column; absent: 8).
template <int R, int C, bool kWide>
ONNX_LIGHT_VNNI_FN void Tile(const Q8Chunks& a, int64_t r0, const uint8_t* codes, int64_t n,
                             const float* w_scales, const uint8_t* zps, int64_t zp_row,
                             const float* bias, const LaneScales& lanes, float* y, int64_t ldy) {
  const __m512i index = _mm512_load_si512(lanes.index);
  const int64_t col_bytes = a.blocks * a.block / 2;
  __m512 acc[R][C];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c)
      acc[r][c] = _mm512_setzero_ps();
  }
  const uint8_t* col[C];
  const float* ws[C];
#pragma GCC unroll 4
  for (int c = 0; c < C; ++c) {
    col[c] = codes + (n + c) * col_bytes;
    ws[c] = w_scales + (n + c) * a.blocks;
  }
  const int64_t whole = col_bytes / 64;  // chunks with all 64 bytes of codes
  for (int64_t j = 0; j < whole; ++j)
    Step<R, C, kWide>(a, r0, j, ~__mmask64{0}, col, ws, index, lanes, acc);
  if (whole < a.chunks) {
    const __mmask64 mask = (__mmask64{1} << (col_bytes - whole * 64)) - 1;
    Step<R, C, kWide>(a, r0, whole, mask, col, ws, index, lanes, acc);
  }
  // the zero points' term, 16 blocks a step, into the same sums before their one reduction
  for (int64_t b = 0; b < a.blocks; b += 16) {
    const int64_t count = std::min<int64_t>(16, a.blocks - b);
    const auto m = static_cast<__mmask16>(count == 16 ? 0xFFFF : (1u << count) - 1);
    __m512 sums[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      sums[r] = _mm512_maskz_loadu_ps(m, a.sums.data() + (r0 + r) * a.blocks + b);
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      const __m512 zp =
          zps == nullptr ? _mm512_set1_ps(8.0f) : ZeroPoints(zps + (n + c) * zp_row + b / 2, count);
      const __m512 zs = _mm512_mul_ps(zp, _mm512_maskz_loadu_ps(m, ws[c] + b));
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r)
        acc[r][c] = _mm512_fnmadd_ps(zs, sums[r], acc[r][c]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      y[(r0 + r) * ldy + n + c] =
          _mm512_reduce_add_ps(acc[r][c]) + (bias != nullptr ? bias[n + c] : 0.0f);
    }
  }
}

// Rows [r0, r0 + R) times columns [n0, n1): 4 columns at a time (2 for 3 and 4 rows, so
// the sums stay in registers), the last ones one by one.
template <int R>
void RowGroup(const Q8Chunks& a, int64_t r0, const uint8_t* codes, const float* w_scales,
              const uint8_t* zps, int64_t zp_row, const float* bias, int64_t n0, int64_t n1,
              const LaneScales& lanes, float* y, int64_t ldy) {
  constexpr int C = R <= 2 ? 4 : 2;
  const bool wide = lanes.per == 1;
  int64_t n = n0;
  for (; n + C <= n1; n += C) {
    (wide ? Tile<R, C, true> : Tile<R, C, false>)(a, r0, codes, n, w_scales, zps, zp_row, bias,
                                                  lanes, y, ldy);
  }
  for (; n < n1; ++n) {
    (wide ? Tile<R, 1, true> : Tile<R, 1, false>)(a, r0, codes, n, w_scales, zps, zp_row, bias,
                                                  lanes, y, ldy);
  }
}

}  // namespace

void ChunkRowsQ8(const Q8Rows& a, Q8Chunks* out) {
  out->rows = a.rows;
  out->blocks = a.blocks;
  out->block = a.block;
  const int64_t units = a.blocks * a.block / 32;
  out->chunks = (units + 3) / 4;
  out->stride = out->chunks * kChunk;
  out->q.assign(static_cast<size_t>(a.rows * out->stride), 0);
  out->lane_scales.assign(static_cast<size_t>(a.rows * out->chunks * 16), 0.0f);
  out->sums = a.sums;
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int64_t u = 0; u < units; ++u) {
      const int8_t* src = a.q.data() + r * a.stride + u * 32;
      int8_t* dst = out->q.data() + r * out->stride + (u / 4) * kChunk + (u % 4) * 16;
      std::memcpy(dst, src, 16);            // the unit's even elements
      std::memcpy(dst + 64, src + 16, 16);  // and its odd ones
      const float scale = a.scales[static_cast<size_t>(r * a.blocks + u * 32 / a.block)];
      float* lanes = out->lane_scales.data() + (r * out->chunks + u / 4) * 16 + (u % 4) * 4;
      std::fill(lanes, lanes + 4, scale);
    }
  }
}

bool HaveQ4Q8Vnni() {
  static const bool have = __builtin_cpu_supports("avx512vnni") &&
                           __builtin_cpu_supports("avx512bw") &&
                           __builtin_cpu_supports("avx512vl") &&
                           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma");
  return have && Q4Q8TileTarget() >= 2;
}

void Q4Q8RowsVnni(const Q8Chunks& a, const uint8_t* codes, const float* w_scales,
                  const uint8_t* zps, int64_t zp_row, const float* bias, int64_t n0, int64_t n1,
                  float* y, int64_t ldy) {
  const LaneScales lanes = MakeLaneScales(a.block);
  // all rows in one pass over the weights where they are 4 or fewer (decode)
  for (int64_t r = 0; r < a.rows; r += 4) {
    switch (std::min<int64_t>(4, a.rows - r)) {
      case 1:
        RowGroup<1>(a, r, codes, w_scales, zps, zp_row, bias, n0, n1, lanes, y, ldy);
        break;
      case 2:
        RowGroup<2>(a, r, codes, w_scales, zps, zp_row, bias, n0, n1, lanes, y, ldy);
        break;
      case 3:
        RowGroup<3>(a, r, codes, w_scales, zps, zp_row, bias, n0, n1, lanes, y, ldy);
        break;
      default:
        RowGroup<4>(a, r, codes, w_scales, zps, zp_row, bias, n0, n1, lanes, y, ldy);
    }
  }
}

#else  // not x86-64

void ChunkRowsQ8(const Q8Rows&, Q8Chunks*) {}
bool HaveQ4Q8Vnni() {
  return false;
}
void Q4Q8RowsVnni(const Q8Chunks&, const uint8_t*, const float*, const uint8_t*, int64_t,
                  const float*, int64_t, int64_t, float*, int64_t) {}

#endif

}  // namespace onnx_light::kernels
