// MatMulNBits at accuracy_level 4 with many rows (prefill): 4-bit weights times int8
// activations as register tiles of 8 rows x 4 columns, each block's dot exact in int32,
// then scaled by both blocks' scales in float (simd/nbits_simd.h, Q4Q8Tiles). Highway 1.0
// has no u8 x s8 dot, so the kernel is written with AVX2 intrinsics in functions compiled
// for it and chosen at run time (Q4Q8TileLevel).
// The rows are the vector's lanes: A's rows in groups of 8, each 4 consecutive values of k
// of the 8 rows one 32-byte vector (Q8Groups); a column's 4 codes for those k broadcast to
// every lane; vpmaddubsw (u8 codes 0..15 times A's int8, pairs summed in int16: at most
// 2 * 15 * 127) and int16 adds over a block's 32 codes (at most 16 * 15 * 127 = 30480: no
// overflow), then vpmaddwd by 1 into int32 and the float scaling once a block. The codes
// are read in place, as ORT's MatMulNBits stores them (no packed copy of the weights):
// each column's blocks unpacked to bytes once per call into a small buffer.
#include <algorithm>
#include <cstring>

#include "simd/nbits_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ONNX_LIGHT_Q4_X86 1
#define ONNX_LIGHT_AVX2_FN __attribute__((target("avx2,fma")))
#define ONNX_LIGHT_VNNI256_FN __attribute__((target("avx2,fma,avx512f,avx512vl,avx512vnni")))
#endif

namespace onnx_light::kernels {

#ifdef ONNX_LIGHT_Q4_X86
namespace {

constexpr int kCols = 4;  // columns of a tile (the rows: 8, a vector's int32 lanes)

// Columns' blocks unpacked to bytes, each 16 bytes of codes (32 codes) as their low
// nibbles then their high ones (the order of Q8Rows's values): out[c * units * 32 + ...].
ONNX_LIGHT_AVX2_FN void UnpackColumns(const uint8_t* codes, int64_t col_bytes, int cols,
                                      uint8_t* out) {
  const __m256i low = _mm256_set1_epi8(0x0F);
  for (int c = 0; c < cols; ++c) {
    const uint8_t* src = codes + c * col_bytes;
    uint8_t* dst = out + c * col_bytes * 2;
    for (int64_t i = 0; i < col_bytes; i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
      const __m256i v = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(x, 4), x), low);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 2 * i), v);
    }
  }
}

// One group of 8 rows times C columns (their unpacked codes `cols`, `units` 32-code units
// each, per_block units a block; w_scales[c] the column's block scales): the 8 rows' sums
// of each column, before the zero points' term and the bias, in out[c][0..8).
template <int C>
ONNX_LIGHT_AVX2_FN void GroupTile(const Q8Groups& a, int64_t g, const uint8_t* cols, int64_t units,
                                  int64_t per_block, const float* const* w_scales,
                                  const float* const* zs, float (*out)[8]) {
  const __m256i ones = _mm256_set1_epi16(1);
  const int8_t* ap = a.q.data() + g * a.group_bytes;
  const float* as = a.scales.data() + g * a.blocks * 8;
  const float* am = a.sums.data() + g * a.blocks * 8;
  __m256 acc[C];
#pragma GCC unroll 4
  for (int c = 0; c < C; ++c)
    acc[c] = _mm256_setzero_ps();
  for (int64_t u = 0; u < units; ++u, ap += 256) {
    __m256i sums[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c)
      sums[c] = _mm256_setzero_si256();
    const uint8_t* bu = cols + u * 32;
#pragma GCC unroll 2
    for (int q = 0; q < 8; ++q) {
      const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ap + 32 * q));
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) {
        int32_t quad;
        std::memcpy(&quad, bu + c * units * 32 + 4 * q, 4);
        sums[c] = _mm256_add_epi16(sums[c], _mm256_maddubs_epi16(_mm256_set1_epi32(quad), av));
      }
    }
    const int64_t b = per_block == 1 ? u : u / per_block;
    const __m256 asv = _mm256_loadu_ps(as + b * 8);
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      const __m256 s = _mm256_mul_ps(asv, _mm256_set1_ps(w_scales[c][b]));
      acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(sums[c], ones)), s, acc[c]);
    }
    if (u % per_block == 0) {  // the block's zero points: - zs[b] * a_sums[b], once
      const __m256 amv = _mm256_loadu_ps(am + b * 8);
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c)
        acc[c] = _mm256_fnmadd_ps(amv, _mm256_set1_ps(zs[c][b]), acc[c]);
    }
  }
#pragma GCC unroll 4
  for (int c = 0; c < C; ++c)
    _mm256_storeu_ps(out[c], acc[c]);
}

// GroupTile with vpdpbusd (AVX-512 VNNI on 8 lanes): each 4 codes' products with A summed
// straight into int32 lanes, one instruction where AVX2 takes three.
template <int C>
ONNX_LIGHT_VNNI256_FN void GroupTileVnni(const Q8Groups& a, int64_t g, const uint8_t* cols,
                                         int64_t units, int64_t per_block,
                                         const float* const* w_scales, const float* const* zs,
                                         float (*out)[8]) {
  const int8_t* ap = a.q.data() + g * a.group_bytes;
  const float* as = a.scales.data() + g * a.blocks * 8;
  const float* am = a.sums.data() + g * a.blocks * 8;
  __m256 acc[C];
#pragma GCC unroll 4
  for (int c = 0; c < C; ++c)
    acc[c] = _mm256_setzero_ps();
  for (int64_t u = 0; u < units; ++u, ap += 256) {
    __m256i sums[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c)
      sums[c] = _mm256_setzero_si256();
    const uint8_t* bu = cols + u * 32;
#pragma GCC unroll 2
    for (int q = 0; q < 8; ++q) {
      const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ap + 32 * q));
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) {
        int32_t quad;
        std::memcpy(&quad, bu + c * units * 32 + 4 * q, 4);
        sums[c] = _mm256_dpbusd_epi32(sums[c], _mm256_set1_epi32(quad), av);
      }
    }
    const int64_t b = per_block == 1 ? u : u / per_block;
    const __m256 asv = _mm256_loadu_ps(as + b * 8);
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      const __m256 s = _mm256_mul_ps(asv, _mm256_set1_ps(w_scales[c][b]));
      acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums[c]), s, acc[c]);
    }
    if (u % per_block == 0) {  // the block's zero points: - zs[b] * a_sums[b], once
      const __m256 amv = _mm256_loadu_ps(am + b * 8);
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c)
        acc[c] = _mm256_fnmadd_ps(amv, _mm256_set1_ps(zs[c][b]), acc[c]);
    }
  }
#pragma GCC unroll 4
  for (int c = 0; c < C; ++c)
    _mm256_storeu_ps(out[c], acc[c]);
}

template <int C>
void ColumnTile(const Q8Groups& a, const uint8_t* codes, const float* w_scales, const float* zs,
                const float* bias, int64_t n, int64_t col_bytes, std::vector<uint8_t>* buffer,
                float* y, int64_t ldy) {
  const int64_t units = a.blocks * a.block / 32, per_block = a.block / 32;
  buffer->resize(static_cast<size_t>(C * units * 32));
  UnpackColumns(codes + n * col_bytes, col_bytes, C, buffer->data());
  const float* ws[C];
  const float* z[C];
  for (int c = 0; c < C; ++c) {
    ws[c] = w_scales + (n + c) * a.blocks;
    z[c] = zs + (n + c) * a.blocks;
  }
  float out[C][8];
  const bool vnni = Q4Q8TileLevel() == 2;
  for (int64_t g = 0; g * 8 < a.rows; ++g) {
    (vnni ? GroupTileVnni<C> : GroupTile<C>)(a, g, buffer->data(), units, per_block, ws, z, out);
    for (int64_t r = g * 8; r < std::min(a.rows, g * 8 + 8); ++r) {
      for (int c = 0; c < C; ++c)
        y[r * ldy + n + c] = out[c][r - g * 8] + (bias != nullptr ? bias[n + c] : 0.0f);
    }
  }
}

// 16 values as their 8 even ones and their 8 odd ones, times `inverse`, rounded to int32;
// both added to *sum.
ONNX_LIGHT_AVX2_FN inline void SplitRound(const float* p, __m256 inverse, __m256i* even,
                                          __m256i* odd, __m256i* sum) {
  const __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps(p + 8);
  const __m256 e = _mm256_castpd_ps(_mm256_permute4x64_pd(
      _mm256_castps_pd(_mm256_shuffle_ps(v0, v1, _MM_SHUFFLE(2, 0, 2, 0))), 0xD8));
  const __m256 o = _mm256_castpd_ps(_mm256_permute4x64_pd(
      _mm256_castps_pd(_mm256_shuffle_ps(v0, v1, _MM_SHUFFLE(3, 1, 3, 1))), 0xD8));
  *even = _mm256_cvtps_epi32(_mm256_mul_ps(e, inverse));
  *odd = _mm256_cvtps_epi32(_mm256_mul_ps(o, inverse));
  *sum = _mm256_add_epi32(*sum, _mm256_add_epi32(*even, *odd));
}

// One block of a row (`block` values, a multiple of 32) to int8 in Q8Rows's order; its
// scale and the sum of its codes. The codes round half to even (vcvtps2dq under the
// default rounding mode, as std::nearbyint).
ONNX_LIGHT_AVX2_FN void QuantizeBlock(const float* src, int64_t block, int8_t* out, float* scale,
                                      int32_t* total) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 vmax = _mm256_setzero_ps();
  for (int64_t i = 0; i < block; i += 8)
    vmax = _mm256_max_ps(vmax, _mm256_andnot_ps(sign, _mm256_loadu_ps(src + i)));
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  const float amax = _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
  const __m256 inverse = _mm256_set1_ps(amax != 0.0f ? 127.0f / amax : 0.0f);
  __m256i vsum = _mm256_setzero_si256();
  for (int64_t g = 0; g < block; g += 32) {
    __m256i e0, o0, e1, o1;
    SplitRound(src + g, inverse, &e0, &o0, &vsum);
    SplitRound(src + g + 16, inverse, &e1, &o1, &vsum);
    // int32 -> int16 (in order after the lane fix-up), then both to int8: even then odd
    const __m256i e = _mm256_permute4x64_epi64(_mm256_packs_epi32(e0, e1), 0xD8);
    const __m256i o = _mm256_permute4x64_epi64(_mm256_packs_epi32(o0, o1), 0xD8);
    const __m256i q = _mm256_permute4x64_epi64(_mm256_packs_epi16(e, o), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + g), q);
  }
  __m128i t = _mm_add_epi32(_mm256_castsi256_si128(vsum), _mm256_extracti128_si256(vsum, 1));
  t = _mm_add_epi32(t, _mm_shuffle_epi32(t, _MM_SHUFFLE(1, 0, 3, 2)));
  t = _mm_add_epi32(t, _mm_shuffle_epi32(t, _MM_SHUFFLE(2, 3, 0, 1)));
  *total = _mm_cvtsi128_si32(t);
  *scale = amax / 127.0f;
}

}  // namespace

void QuantizeRowsQ8(const float* a, int64_t rows, int64_t k, int64_t block, Q8Rows* out) {
  out->rows = rows;
  out->block = block;
  out->blocks = (k + block - 1) / block;
  out->stride = (out->blocks * block + 63) / 64 * 64;
  out->q.assign(static_cast<size_t>(rows * out->stride), 0);
  out->scales.resize(static_cast<size_t>(rows * out->blocks));
  out->sums.resize(static_cast<size_t>(rows * out->blocks));
  std::vector<float> padded(static_cast<size_t>(block), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < out->blocks; ++b) {
      const float* src = a + r * k + b * block;
      const int64_t count = std::min(block, k - b * block);
      if (count < block) {  // the last block: zero-padded
        std::fill(padded.begin(), padded.end(), 0.0f);
        std::copy(src, src + count, padded.begin());
        src = padded.data();
      }
      const auto i = static_cast<size_t>(r * out->blocks + b);
      int32_t total = 0;
      QuantizeBlock(src, block, out->q.data() + r * out->stride + b * block, &out->scales[i],
                    &total);
      out->sums[i] = out->scales[i] * static_cast<float>(total);
    }
  }
}

void GroupRowsQ8(const Q8Rows& a, Q8Groups* out) {
  out->rows = a.rows;
  out->blocks = a.blocks;
  out->block = a.block;
  out->group_bytes = a.stride * 8;
  const int64_t groups = (a.rows + 7) / 8;
  out->q.assign(static_cast<size_t>(groups * out->group_bytes), 0);
  out->scales.assign(static_cast<size_t>(groups * a.blocks * 8), 0.0f);
  out->sums.assign(out->scales.size(), 0.0f);
  for (int64_t r = 0; r < a.rows; ++r) {
    const int64_t g = r / 8, lane = r % 8;
    const int8_t* src = a.q.data() + r * a.stride;
    int8_t* dst = out->q.data() + g * out->group_bytes + 4 * lane;
    for (int64_t k = 0; k < a.stride; k += 4)
      std::memcpy(dst + 8 * k, src + k, 4);
    for (int64_t b = 0; b < a.blocks; ++b) {
      const auto to = static_cast<size_t>((g * a.blocks + b) * 8 + lane);
      const auto from = static_cast<size_t>(r * a.blocks + b);
      out->scales[to] = a.scales[from];
      out->sums[to] = a.sums[from];
    }
  }
}

int Q4Q8TileLevel() {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (HaveQ4Q8Vnni()) return 2;
  return avx2 && Q4Q8TileTarget() >= 1 ? 1 : 0;
}

void Q4Q8Tiles(const Q8Groups& a, const uint8_t* codes, const float* w_scales, const float* zs,
               const float* bias, int64_t n0, int64_t n1, float* y, int64_t ldy) {
  const int64_t col_bytes = a.blocks * a.block / 2;
  std::vector<uint8_t> buffer;
  int64_t n = n0;
  for (; n + kCols <= n1; n += kCols)
    ColumnTile<kCols>(a, codes, w_scales, zs, bias, n, col_bytes, &buffer, y, ldy);
  for (; n < n1; ++n)
    ColumnTile<1>(a, codes, w_scales, zs, bias, n, col_bytes, &buffer, y, ldy);
}

#else  // not x86-64: DotQ4Q8Column serves every row count

void QuantizeRowsQ8(const float*, int64_t, int64_t, int64_t, Q8Rows*) {}
void GroupRowsQ8(const Q8Rows&, Q8Groups*) {}
int Q4Q8TileLevel() {
  return 0;
}
void Q4Q8Tiles(const Q8Groups&, const uint8_t*, const float*, const float*, const float*, int64_t,
               int64_t, float*, int64_t) {}

#endif

}  // namespace onnx_light::kernels
