// MatMulNBits in float32 with many rows (prefill at accuracy levels 0-3): 4-bit weights
// dequantized straight into the packed GEMM's panel layout (SgemmPackB's: for each k, nr
// columns side by side), so the product runs on the packed SGEMM as a constant MatMul's
// does. The codes are stored a column at a time ([N][blocks][block / 2], a column's values
// of k consecutive), the panel wants a row of columns per k: the 16 bytes (32 values of k)
// of 16 columns are transposed as bytes in registers (four rounds of SSE2 unpacks), then
// byte row b's low nibbles are k = 2b and its high nibbles k = 2b + 1 of the 16 columns,
// (code - zero point) * scale in float, stored as a row of the panel. A scalar packing
// (a gather per element) made the same product 3.6x ORT's time.
#include <algorithm>
#include <cstring>

#include "simd/byte_transpose_x86.h"
#include "simd/nbits_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ONNX_LIGHT_Q4_PACK_X86 1
// GCC 12's AVX-512 headers' self-initialized pass-through vectors: the false positive
// nbits_vnni_x86.cc silences too (GCC only).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define ONNX_LIGHT_PACK_AVX2_FN __attribute__((target("avx2,fma")))
#define ONNX_LIGHT_PACK_AVX512_FN __attribute__((target("avx2,fma,avx512f,avx512bw")))
#endif

namespace onnx_light::kernels {

#ifdef ONNX_LIGHT_Q4_PACK_X86
namespace {

constexpr int kGroup = 16;  // columns transposed together (16 bytes each)

// What one group of columns needs from the weights: each column's codes, scales and zero
// points (4 bits, two a byte, the low nibble first; null: 8).
struct Q4Columns {
  const uint8_t* codes;
  const float* scales;
  const uint8_t* zps;
  int64_t blocks, block, zp_row;
};

// The 16 columns' bytes [off, off + 16) of block blk transposed (columns past `cols`
// zero), with their scales and zero points in sc / zp (0 for the missing columns).
ONNX_LIGHT_PACK_AVX2_FN inline void LoadUnit(const Q4Columns& w, int64_t n, int cols, int64_t blk,
                                             int64_t off, __m128i r[16], float sc[16],
                                             float zp[16]) {
  const int64_t col_bytes = w.blocks * w.block / 2;
  for (int c = 0; c < kGroup; ++c) {
    if (c < cols) {
      r[c] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.codes + (n + c) * col_bytes +
                                                              blk * (w.block / 2) + off));
      sc[c] = w.scales[(n + c) * w.blocks + blk];
      zp[c] =
          w.zps == nullptr
              ? 8.0f
              : static_cast<float>((w.zps[(n + c) * w.zp_row + blk / 2] >> (4 * (blk % 2))) & 15);
    } else {
      r[c] = _mm_setzero_si128();
      sc[c] = 0.0f;
      zp[c] = 0.0f;
    }
  }
  TransposeBytes16x16(r);
}

// Rows [k0, k0 + 32) of a panel (nr floats a row) for 16 columns at dst, from 16 transposed
// byte rows; rows at or past k are not stored.
ONNX_LIGHT_PACK_AVX512_FN void StoreUnit512(const __m128i r[16], const float* sc_in,
                                            const float* zp_in, int64_t k0, int64_t k, int64_t nr,
                                            float* dst) {
  const __m512 sc = _mm512_loadu_ps(sc_in), zp = _mm512_loadu_ps(zp_in);
  const __m512i low = _mm512_set1_epi32(15);
  for (int b = 0; b < 16; ++b) {
    const __m512i v = _mm512_cvtepu8_epi32(r[b]);
    const __m512 lo = _mm512_cvtepi32_ps(_mm512_and_si512(v, low));
    const __m512 hi = _mm512_cvtepi32_ps(_mm512_srli_epi32(v, 4));
    const int64_t row = k0 + 2 * b;
    if (row < k) _mm512_storeu_ps(dst + row * nr, _mm512_mul_ps(_mm512_sub_ps(lo, zp), sc));
    if (row + 1 < k)
      _mm512_storeu_ps(dst + (row + 1) * nr, _mm512_mul_ps(_mm512_sub_ps(hi, zp), sc));
  }
}

ONNX_LIGHT_PACK_AVX2_FN void StoreUnit256(const __m128i r[16], const float* sc_in,
                                          const float* zp_in, int64_t k0, int64_t k, int64_t nr,
                                          float* dst) {
  const __m256 sc0 = _mm256_loadu_ps(sc_in), sc1 = _mm256_loadu_ps(sc_in + 8);
  const __m256 zp0 = _mm256_loadu_ps(zp_in), zp1 = _mm256_loadu_ps(zp_in + 8);
  const __m256i low = _mm256_set1_epi32(15);
  for (int b = 0; b < 16; ++b) {
    const __m256i v0 = _mm256_cvtepu8_epi32(r[b]);
    const __m256i v1 = _mm256_cvtepu8_epi32(_mm_srli_si128(r[b], 8));
    const int64_t row = k0 + 2 * b;
    if (row < k) {
      float* d = dst + row * nr;
      _mm256_storeu_ps(
          d, _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_and_si256(v0, low)), zp0), sc0));
      _mm256_storeu_ps(
          d + 8,
          _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_and_si256(v1, low)), zp1), sc1));
    }
    if (row + 1 < k) {
      float* d = dst + (row + 1) * nr;
      _mm256_storeu_ps(
          d, _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(v0, 4)), zp0), sc0));
      _mm256_storeu_ps(
          d + 8,
          _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(v1, 4)), zp1), sc1));
    }
  }
}

template <bool kAvx512>
void PackGroups(const Q4Columns& w, int64_t k, int64_t n0, int64_t n1, int64_t nr, float* out) {
  alignas(64) float sc[16], zp[16];
  __m128i r[16];
  const int64_t panels = (n1 - n0 + nr - 1) / nr;
  for (int64_t q = 0; q < panels; ++q) {
    float* panel = out + q * k * nr;
    for (int64_t g = 0; g < nr; g += kGroup) {
      const int64_t n = n0 + q * nr + g;
      const int cols = static_cast<int>(std::clamp<int64_t>(n1 - n, 0, kGroup));
      if (cols == 0) {  // a group wholly past the last column: zeros
        for (int64_t p = 0; p < k; ++p)
          std::memset(panel + p * nr + g, 0, kGroup * sizeof(float));
        continue;
      }
      for (int64_t blk = 0; blk < w.blocks; ++blk) {
        for (int64_t off = 0; off < w.block / 2; off += 16) {
          const int64_t k0 = blk * w.block + 2 * off;
          if (k0 >= k) break;
          LoadUnit(w, n, cols, blk, off, r, sc, zp);
          if constexpr (kAvx512) {
            StoreUnit512(r, sc, zp, k0, k, nr, panel + g);
          } else {
            StoreUnit256(r, sc, zp, k0, k, nr, panel + g);
          }
        }
      }
    }
  }
}

}  // namespace

int DequantQ4PanelsLevel() {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  static const bool avx512 =
      avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  const int target = Q4Q8TileTarget();
  if (avx512 && target >= 2) return 2;
  return avx2 && target >= 1 ? 1 : 0;
}

void DequantQ4Panels(const uint8_t* codes, const float* scales, const uint8_t* zps, int64_t k,
                     int64_t block, int64_t zp_row, int64_t n0, int64_t n1, int64_t nr,
                     float* out) {
  const Q4Columns w{codes, scales, zps, (k + block - 1) / block, block, zp_row};
  if (DequantQ4PanelsLevel() == 2) {
    PackGroups<true>(w, k, n0, n1, nr, out);
  } else {
    PackGroups<false>(w, k, n0, n1, nr, out);
  }
}

#else  // not x86-64: the caller keeps its column panels

int DequantQ4PanelsLevel() {
  return 0;
}
void DequantQ4Panels(const uint8_t*, const float*, const uint8_t*, int64_t, int64_t, int64_t,
                     int64_t, int64_t, int64_t, float*) {}

#endif

}  // namespace onnx_light::kernels
