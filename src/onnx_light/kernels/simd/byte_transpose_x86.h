// A 16 x 16 byte transpose in SSE2 registers (x86-64's baseline: no dispatch needed), four
// rounds of unpacks (bytes, then 16-, 32- and 64-bit pairs). Shared by Transpose's uint8
// tiles and MatMulNBits' panel packing.
#pragma once

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>

#include <cstdint>

#define ONNX_LIGHT_BYTE_TRANSPOSE_SSE2 1

namespace onnx_light::kernels {

// r[i] = 16 bytes of row i  ->  r[j] = byte j of the 16 rows (lane i).
inline void TransposeBytes16x16(__m128i r[16]) {
  __m128i a[16], b[16];
  for (int i = 0; i < 8; ++i) {  // rows 2i, 2i+1: bytes 0-7 (a[i]) and 8-15 (a[i + 8])
    a[i] = _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
    a[i + 8] = _mm_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
  }
  for (int h = 0; h < 2; ++h) {  // row quads j: b[4q + j] holds bytes 4q .. 4q + 3
    for (int j = 0; j < 4; ++j) {
      b[h * 8 + j] = _mm_unpacklo_epi16(a[h * 8 + 2 * j], a[h * 8 + 2 * j + 1]);
      b[h * 8 + 4 + j] = _mm_unpackhi_epi16(a[h * 8 + 2 * j], a[h * 8 + 2 * j + 1]);
    }
  }
  for (int q = 0; q < 4; ++q) {  // row octets i: a[4q + i], a[4q + 2 + i]: bytes 2p, 2p + 1
    for (int i = 0; i < 2; ++i) {
      a[4 * q + i] = _mm_unpacklo_epi32(b[4 * q + 2 * i], b[4 * q + 2 * i + 1]);
      a[4 * q + 2 + i] = _mm_unpackhi_epi32(b[4 * q + 2 * i], b[4 * q + 2 * i + 1]);
    }
  }
  for (int p = 0; p < 8; ++p) {  // all 16 rows: byte 2p, byte 2p + 1
    r[2 * p] = _mm_unpacklo_epi64(a[2 * p], a[2 * p + 1]);
    r[2 * p + 1] = _mm_unpackhi_epi64(a[2 * p], a[2 * p + 1]);
  }
}

// d[j * ldd + i] = s[i * ld + j] for i, j < 16.
inline void TransposeBlock16x16U8(const uint8_t* s, int64_t ld, uint8_t* d, int64_t ldd) {
  __m128i r[16];
  for (int i = 0; i < 16; ++i)
    r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i * ld));
  TransposeBytes16x16(r);
  for (int j = 0; j < 16; ++j)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + j * ldd), r[j]);
}

}  // namespace onnx_light::kernels

#endif
