// The uint8 x int8 integer product on CPUs with AVX-512 VNNI (vpdpbusd: four u8 * s8
// products summed into each int32 lane, without saturation: exact for every 8-bit input).
// Highway 1.0 has no operation for it, so this one kernel is written with intrinsics in
// functions compiled for that extension and chosen at run time (HaveVnniQGemm).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "simd/gemm_simd.h"
#include "simd/qgemm_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#define ONNX_LIGHT_VNNI 1
#define ONNX_LIGHT_VNNI_FN __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define ONNX_LIGHT_AMX_FN \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-int8")))
#endif

namespace onnx_light::kernels {

#ifdef ONNX_LIGHT_VNNI
namespace {

constexpr int64_t kRows = 8;   // a register tile: 8 rows x 2 vectors of 16 int32 columns
constexpr int64_t kCols = 32;  // columns of a panel

// One panel of b (columns [0, cols) of kCols) as quads: for rows p .. p + 3, int32 lane j
// holds the bytes b[p][j], b[p + 1][j], b[p + 2][j], b[p + 3][j] (rows past k are 0).
// Also the column sums of b over k, for the zero points.
ONNX_LIGHT_VNNI_FN void PackQuads(const int8_t* b, int64_t ldb, int64_t k, int64_t cols,
                                  int8_t* out, int32_t* colsum) {
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sum[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
  alignas(16) int8_t rows[4][kCols];
  for (int64_t p = 0; p < k; p += 4) {
    // Whole quads of whole panels straight from b; the edges through a zeroed copy.
    const int8_t* src[4];
    if (cols == kCols && p + 4 <= k) {
      for (int q = 0; q < 4; ++q)
        src[q] = b + (p + q) * ldb;
    } else {
      for (int q = 0; q < 4; ++q) {
        std::memset(rows[q], 0, kCols);
        if (p + q < k) std::memcpy(rows[q], b + (p + q) * ldb, static_cast<size_t>(cols));
        src[q] = rows[q];
      }
    }
    for (int h = 0; h < 2; ++h) {  // 16 columns at a time: a 4 x 16 byte transpose
      const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src[0] + 16 * h));
      const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src[1] + 16 * h));
      const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src[2] + 16 * h));
      const __m128i r3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src[3] + 16 * h));
      const __m128i p01l = _mm_unpacklo_epi8(r0, r1), p01h = _mm_unpackhi_epi8(r0, r1);
      const __m128i p23l = _mm_unpacklo_epi8(r2, r3), p23h = _mm_unpackhi_epi8(r2, r3);
      const __m128i q0 = _mm_unpacklo_epi16(p01l, p23l), q1 = _mm_unpackhi_epi16(p01l, p23l);
      const __m128i q2 = _mm_unpacklo_epi16(p01h, p23h), q3 = _mm_unpackhi_epi16(p01h, p23h);
      __m512i v = _mm512_castsi128_si512(q0);
      v = _mm512_inserti32x4(v, q1, 1);
      v = _mm512_inserti32x4(v, q2, 2);
      v = _mm512_inserti32x4(v, q3, 3);
      _mm512_store_si512(reinterpret_cast<__m512i*>(out), v);
      sum[h] = _mm512_dpbusd_epi32(sum[h], ones, v);
      out += 64;
    }
  }
  alignas(64) int32_t s[kCols];
  _mm512_store_si512(reinterpret_cast<__m512i*>(s), sum[0]);
  _mm512_store_si512(reinterpret_cast<__m512i*>(s + 16), sum[1]);
  std::memcpy(colsum, s, static_cast<size_t>(cols) * sizeof(int32_t));
}

// The first `rows` of a tile's R rows of sums into c with the zero points:
// a b - za colsum(b) + zb (k za - rowsum(a)) in int32 lanes (wrapping as the sums do),
// straight into c, the last panel's columns under a mask (through a buffer and memcpy, the
// stores were a tenth of a quantized CNN's time).
template <int R>
ONNX_LIGHT_VNNI_FN inline __attribute__((always_inline)) void StoreRows(
    const __m512i (&acc)[R][2], int64_t k, int64_t rows, const int32_t* za, const int32_t* rowsum,
    const int32_t* colsum, const int32_t* zb, int64_t cols, int32_t* c, int64_t ldc) {
  const __m512i cs[2] = {_mm512_loadu_si512(colsum), _mm512_loadu_si512(colsum + 16)};
  const __m512i zv[2] = {_mm512_loadu_si512(zb), _mm512_loadu_si512(zb + 16)};
  const __mmask16 m0 = cols >= 16 ? __mmask16(0xffff) : __mmask16((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32   ? __mmask16(0xffff)
                       : cols <= 16 ? __mmask16(0)
                                    : __mmask16((1u << (cols - 16)) - 1);
  const __mmask16 mask[2] = {m0, m1};
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    if (r >= rows) break;
    const __m512i neg_za = _mm512_set1_epi32(-za[r]);
    const __m512i t = _mm512_set1_epi32(
        static_cast<int32_t>(static_cast<uint32_t>(k) * static_cast<uint32_t>(za[r]) -
                             static_cast<uint32_t>(rowsum[r])));
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const __m512i fix =
          _mm512_add_epi32(_mm512_mullo_epi32(neg_za, cs[h]), _mm512_mullo_epi32(zv[h], t));
      _mm512_mask_storeu_epi32(c + r * ldc + 16 * h, mask[h], _mm512_add_epi32(acc[r][h], fix));
    }
  }
}

// c[rows x cols] = (a - za)(b - zb) for one panel: row r of a is `taps` runs of kc bytes
// (kc a multiple of 4), run t at rows[r] + offsets[t] (a plain matrix: one run of k4
// zero-padded bytes; a convolution's window: one run per tap in a padded image), each quad
// broadcast as one int32; the zero points enter at the store, a b - za colsum(b) + zb (k za -
// rowsum(a)), in int32 lanes (wrapping as the sums do).
ONNX_LIGHT_VNNI_FN void Tile(int64_t k, const uint8_t* const* rows_in, int64_t taps,
                             const int64_t* offsets, int64_t kc, int64_t rows, const int32_t* za,
                             const int32_t* rowsum, const int8_t* panel, const int32_t* colsum,
                             const int32_t* zb, int64_t cols, int32_t* c, int64_t ldc) {
  // Sixteen named accumulators: in an array, the compiler kept a copy of each in memory
  // and stored it on every step.
  __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
          c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00,
          c70 = c00, c71 = c00;
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t off = offsets[t];
    const uint8_t *a0 = rows_in[0] + off, *a1 = rows_in[std::min<int64_t>(1, rows - 1)] + off,
                  *a2 = rows_in[std::min<int64_t>(2, rows - 1)] + off,
                  *a3 = rows_in[std::min<int64_t>(3, rows - 1)] + off,
                  *a4 = rows_in[std::min<int64_t>(4, rows - 1)] + off,
                  *a5 = rows_in[std::min<int64_t>(5, rows - 1)] + off,
                  *a6 = rows_in[std::min<int64_t>(6, rows - 1)] + off,
                  *a7 = rows_in[std::min<int64_t>(7, rows - 1)] + off;
    for (int64_t p = 0; p < kc; p += 4) {
      const __m512i b0 = _mm512_load_si512(reinterpret_cast<const __m512i*>(panel));
      const __m512i b1 = _mm512_load_si512(reinterpret_cast<const __m512i*>(panel + 64));
      panel += 128;
#define ONNX_LIGHT_VNNI_ROW(R)                      \
  {                                                 \
    int32_t quad;                                   \
    std::memcpy(&quad, a##R + p, sizeof(quad));     \
    const __m512i av = _mm512_set1_epi32(quad);     \
    c##R##0 = _mm512_dpbusd_epi32(c##R##0, av, b0); \
    c##R##1 = _mm512_dpbusd_epi32(c##R##1, av, b1); \
  }
      ONNX_LIGHT_VNNI_ROW(0)
      ONNX_LIGHT_VNNI_ROW(1)
      ONNX_LIGHT_VNNI_ROW(2)
      ONNX_LIGHT_VNNI_ROW(3)
      ONNX_LIGHT_VNNI_ROW(4)
      ONNX_LIGHT_VNNI_ROW(5)
      ONNX_LIGHT_VNNI_ROW(6)
      ONNX_LIGHT_VNNI_ROW(7)
#undef ONNX_LIGHT_VNNI_ROW
    }
  }
  const __m512i acc[kRows][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31},
                                 {c40, c41}, {c50, c51}, {c60, c61}, {c70, c71}};
  StoreRows(acc, k, rows, za, rowsum, colsum, zb, cols, c, ldc);
}

// Tile for at most R rows (R = 1, 2 or 4): the same sums, without the eight-row tile's
// redundant rows (a recurrent cell's one-row product computed eight rows and kept one:
// DynamicQuantizeLSTM ran 1.5-1.8x ORT's time).
template <int R>
ONNX_LIGHT_VNNI_FN void TileFew(int64_t k, const uint8_t* const* rows_in, int64_t taps,
                                const int64_t* offsets, int64_t kc, int64_t rows, const int32_t* za,
                                const int32_t* rowsum, const int8_t* panel, const int32_t* colsum,
                                const int32_t* zb, int64_t cols, int32_t* c, int64_t ldc) {
  __m512i acc[R][2];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
    acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t off = offsets[t];
    const uint8_t* a[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      a[r] = rows_in[std::min<int64_t>(r, rows - 1)] + off;
    for (int64_t p = 0; p < kc; p += 4) {
      const __m512i b0 = _mm512_load_si512(reinterpret_cast<const __m512i*>(panel));
      const __m512i b1 = _mm512_load_si512(reinterpret_cast<const __m512i*>(panel + 64));
      panel += 128;
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        int32_t quad;
        std::memcpy(&quad, a[r] + p, sizeof(quad));
        const __m512i av = _mm512_set1_epi32(quad);
        acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], av, b0);
        acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], av, b1);
      }
    }
  }
  StoreRows(acc, k, rows, za, rowsum, colsum, zb, cols, c, ldc);
}

// One tile of `rows` rows (at most kRows) through the narrowest tile that holds them.
ONNX_LIGHT_VNNI_FN void AnyTile(int64_t k, const uint8_t* const* rows_in, int64_t taps,
                                const int64_t* offsets, int64_t kc, int64_t rows, const int32_t* za,
                                const int32_t* rowsum, const int8_t* panel, const int32_t* colsum,
                                const int32_t* zb, int64_t cols, int32_t* c, int64_t ldc) {
  if (rows == 1) {
    TileFew<1>(k, rows_in, taps, offsets, kc, rows, za, rowsum, panel, colsum, zb, cols, c, ldc);
  } else if (rows == 2) {
    TileFew<2>(k, rows_in, taps, offsets, kc, rows, za, rowsum, panel, colsum, zb, cols, c, ldc);
  } else if (rows <= 4) {
    TileFew<4>(k, rows_in, taps, offsets, kc, rows, za, rowsum, panel, colsum, zb, cols, c, ldc);
  } else {
    Tile(k, rows_in, taps, offsets, kc, rows, za, rowsum, panel, colsum, zb, cols, c, ldc);
  }
}

// The sum of a row's n bytes: 64 at a time by vpsadbw (a scalar loop was a tenth of a CNN's
// first layer, whose rows are 27 bytes).
ONNX_LIGHT_VNNI_FN int32_t RowSum(const uint8_t* a, int64_t n) {
  __m512i s = _mm512_setzero_si512();
  const __m512i zero = _mm512_setzero_si512();
  int64_t p = 0;
  for (; p + 64 <= n; p += 64)
    s = _mm512_add_epi64(s, _mm512_sad_epu8(_mm512_loadu_si512(a + p), zero));
  if (p < n) {
    const __mmask64 m = (~__mmask64{0}) >> (64 - (n - p));
    s = _mm512_add_epi64(s, _mm512_sad_epu8(_mm512_maskz_loadu_epi8(m, a + p), zero));
  }
  alignas(64) int64_t lanes[8];  // (not _mm512_reduce_add_epi64: GCC 12 warns inside it)
  _mm512_store_si512(reinterpret_cast<__m512i*>(lanes), s);
  int64_t total = 0;
  for (int64_t v : lanes)
    total += v;
  return static_cast<int32_t>(total);
}

// A panel's bytes: its quads, 128 bytes each (32 columns x 4), whole tiles of 16 quads
// where AMX reads them (the quads past k zero).
int64_t PanelBytes(int64_t k) {
  return (HaveAmxQGemm() ? (k + 63) / 64 * 16 : (k + 3) / 4) * 128;
}

// Scratch for a panel packed per call (where b is not packed once): PanelBytes(k), zero.
std::unique_ptr<int8_t, QGemmPackedB::Free> ScratchPanel(int64_t k) {
  std::unique_ptr<int8_t, QGemmPackedB::Free> p(
      static_cast<int8_t*>(_mm_malloc(static_cast<size_t>(PanelBytes(k)) + 64, 64)));
  std::memset(p.get(), 0, static_cast<size_t>(PanelBytes(k)));
  return p;
}

// Columns [j, j + cols) of b as a panel of quads: the one packed once (`packed`, whole from
// column j_base + j) or b's packed here into `scratch`; their column sums into colsum and
// their zero points into zbp.
ONNX_LIGHT_VNNI_FN const int8_t* PanelOf(const QGemmPackedB* packed, int64_t j_base, int64_t j,
                                         int64_t cols, int64_t k, const int8_t* b, int64_t ldb,
                                         const int32_t* zb, int8_t* scratch, int32_t* colsum,
                                         int32_t* zbp) {
  std::memcpy(zbp, zb + j, static_cast<size_t>(cols) * sizeof(int32_t));
  if (packed == nullptr) {
    PackQuads(b + j, ldb, k, cols, scratch, colsum);
    return scratch;
  }
  std::memcpy(colsum, packed->colsum.data() + j_base + j,
              static_cast<size_t>(cols) * sizeof(int32_t));
  return packed->panels.get() + (j_base + j) / kCols * PanelBytes(k);
}

// ---- AMX (Sapphire Rapids and later): tiles of 16 rows x 64 bytes, TDPBUSD summing a
// 16 x 64 u8 tile of a times a 16-quad x 16-column s8 tile of b into 16 x 16 int32 ----

constexpr int64_t kAmxRows = 32;    // rows of a block: two a tiles, four c tiles with two b
constexpr int64_t kAmxMinRows = 8;  // fewer rows: the vector kernels (no tile set-up)

struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// a's rows as AMX reads them best: per block of 32 rows, per 64 bytes of k, its two 16 x 64
// tiles each one contiguous kilobyte (rows past m and bytes past k zero).
std::vector<uint8_t> PackTilesOfA(int64_t m, int64_t k, const uint8_t* a, int64_t lda) {
  const int64_t steps = (k + 63) / 64, blocks = (m + kAmxRows - 1) / kAmxRows;
  std::vector<uint8_t> out(static_cast<size_t>(blocks * steps * kAmxRows * 64), 0);
  for (int64_t i = 0; i < m; ++i) {
    uint8_t* dst = out.data() + ((i / kAmxRows) * steps * kAmxRows + i % kAmxRows) * 64;
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t count = std::min<int64_t>(64, k - s * 64);
      std::memcpy(dst + s * kAmxRows * 64, a + i * lda + s * 64, static_cast<size_t>(count));
    }
  }
  return out;
}

// c[rows x cols] (rows <= 32, cols <= 32) = (a - za)(b - zb) for one panel: a's block of 32
// rows as PackTilesOfA lays it out (`steps` pairs of tiles), the panel's steps * 16 quads.
// The tiles must be configured (AmxGemm).
ONNX_LIGHT_AMX_FN void AmxBlock(int64_t k, int64_t steps, const uint8_t* a, int64_t rows,
                                const int32_t* za, const int32_t* rowsum, const int8_t* panel,
                                const int32_t* colsum, const int32_t* zb, int64_t cols, int32_t* c,
                                int64_t ldc) {
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (int64_t s = 0; s < steps; ++s) {
    _tile_loadd(4, a + s * 2048, 64);
    _tile_loadd(5, a + s * 2048 + 1024, 64);
    _tile_loadd(6, panel + s * 2048, 128);
    _tile_loadd(7, panel + s * 2048 + 64, 128);
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
  }
  alignas(64) int32_t sums[kAmxRows][kCols];
  _tile_stored(0, sums[0], kCols * 4);
  _tile_stored(1, sums[0] + 16, kCols * 4);
  _tile_stored(2, sums[16], kCols * 4);
  _tile_stored(3, sums[16] + 16, kCols * 4);
  for (int64_t r = 0; r < rows; r += kRows) {
    __m512i acc[kRows][2];
    for (int64_t i = 0; i < kRows; ++i) {
      acc[i][0] = _mm512_load_si512(sums[r + i]);
      acc[i][1] = _mm512_load_si512(sums[r + i] + 16);
    }
    StoreRows(acc, k, std::min(kRows, rows - r), za + r, rowsum + r, colsum, zb, cols, c + r * ldc,
              ldc);
  }
}

// Gemm through AMX: a packed as tiles once per call, b's panels (packed once, or here).
ONNX_LIGHT_AMX_FN void AmxGemm(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda,
                               const int32_t* zas, const int32_t* rowsum, const int8_t* b,
                               int64_t ldb, const int32_t* zb, int32_t* c, int64_t ldc,
                               const QGemmPackedB* packed, int64_t j_base) {
  const int64_t steps = (k + 63) / 64;
  const std::vector<uint8_t> tiles = PackTilesOfA(m, k, a, lda);
  const auto scratch = packed != nullptr ? nullptr : ScratchPanel(k);
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.rows[t] = 16;
    config.colsb[t] = 64;
  }
  _tile_loadconfig(&config);
  int32_t colsum[kCols] = {}, zbp[kCols] = {};
  for (int64_t j = 0; j < n; j += kCols) {
    const int64_t cols = std::min(kCols, n - j);
    const int8_t* pb = PanelOf(packed, j_base, j, cols, k, b, ldb, zb, scratch.get(), colsum, zbp);
    for (int64_t i = 0; i < m; i += kAmxRows) {
      AmxBlock(k, steps, tiles.data() + i * steps * 64, std::min(kAmxRows, m - i), zas + i,
               rowsum + i, pb, colsum, zbp, cols, c + i * ldc + j, ldc);
    }
  }
  _tile_release();
}

ONNX_LIGHT_VNNI_FN void Gemm(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda,
                             int32_t za_scalar, const int32_t* za_rows, const int8_t* b,
                             int64_t ldb, const int32_t* zb, int32_t* c, int64_t ldc,
                             const QGemmPackedB* packed, int64_t j_base) {
  std::vector<int32_t> rowsum(static_cast<size_t>(m)), zas(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    rowsum[static_cast<size_t>(i)] = RowSum(a + i * lda, k);
    zas[static_cast<size_t>(i)] = za_rows != nullptr ? za_rows[i] : za_scalar;
  }
  if (m >= kAmxMinRows && HaveAmxQGemm()) {  // (it packs a itself)
    AmxGemm(m, n, k, a, lda, zas.data(), rowsum.data(), b, ldb, zb, c, ldc, packed, j_base);
    return;
  }
  const int64_t k4 = (k + 3) / 4 * 4;
  // a's rows read in place when they are whole quads; copied zero-padded otherwise.
  const bool in_place = k4 == k;
  std::vector<uint8_t> ab(in_place ? 0 : static_cast<size_t>(m * k4), 0);
  for (int64_t i = 0; i < m && !in_place; ++i)
    std::memcpy(ab.data() + i * k4, a + i * lda, static_cast<size_t>(k));
  const uint8_t* arows = in_place ? a : ab.data();
  const int64_t astride = in_place ? lda : k4;
  const auto scratch = packed != nullptr ? nullptr : ScratchPanel(k);
  int32_t colsum[kCols] = {}, zbp[kCols] = {};
  for (int64_t j = 0; j < n; j += kCols) {
    const int64_t cols = std::min(kCols, n - j);
    const int8_t* pb = PanelOf(packed, j_base, j, cols, k, b, ldb, zb, scratch.get(), colsum, zbp);
    for (int64_t i = 0; i < m; i += kRows) {
      const uint8_t* rows_in[kRows];
      for (int64_t r = 0; r < kRows; ++r)
        rows_in[r] = arows + std::min(i + r, m - 1) * astride;
      const int64_t one_run = 0;
      AnyTile(k, rows_in, 1, &one_run, k4, std::min(kRows, m - i), zas.data() + i,
              rowsum.data() + i, pb, colsum, zbp, cols, c + i * ldc + j, ldc);
    }
  }
}

// QGemmVnniRuns: rows read in place as runs (one per tap) of kc bytes.
ONNX_LIGHT_VNNI_FN void GemmRuns(int64_t m, int64_t n, int64_t kc, int64_t taps,
                                 const uint8_t* const* bases, const int64_t* offsets, int32_t za,
                                 bool rowsums, const QGemmPackedB& packed, int64_t j_base,
                                 const int32_t* zb, int32_t* c, int64_t ldc) {
  const int64_t k = kc * taps;
  std::vector<int32_t> rowsum(static_cast<size_t>(m), 0);
  if (rowsums) {
    for (int64_t i = 0; i < m; ++i) {
      int32_t s = 0;
      for (int64_t t = 0; t < taps; ++t)
        s += RowSum(bases[i] + offsets[t], kc);
      rowsum[static_cast<size_t>(i)] = s;
    }
  }
  const std::vector<int32_t> zas(static_cast<size_t>(m), za);
  int32_t colsum[kCols] = {}, zbp[kCols] = {};
  for (int64_t j = 0; j < n; j += kCols) {
    const int64_t cols = std::min(kCols, n - j);
    const int8_t* pb = PanelOf(&packed, j_base, j, cols, k, nullptr, 0, zb, nullptr, colsum, zbp);
    for (int64_t i = 0; i < m; i += kRows) {
      const uint8_t* rows_in[kRows];
      for (int64_t r = 0; r < kRows; ++r)
        rows_in[r] = bases[std::min(i + r, m - 1)];
      AnyTile(k, rows_in, taps, offsets, kc, std::min(kRows, m - i), zas.data() + i,
              rowsum.data() + i, pb, colsum, zbp, cols, c + i * ldc + j, ldc);
    }
  }
}

}  // namespace

bool HaveVnniQGemm() {
  // Only where the vector code dispatches to AVX-512 as well: ONNX_LIGHT_SIMD_TARGET caps
  // both (an AVX2 cap stands for an AVX2-only CPU).
  static const bool have = PreferPackedSgemm() && __builtin_cpu_supports("avx512vnni") &&
                           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return have;
}

bool HaveAmxQGemm() {
  static const bool have = [] {
    if (!HaveVnniQGemm()) return false;
    const char* off = std::getenv("ONNX_LIGHT_NO_AMX");
    if (off != nullptr && off[0] != '\0' && off[0] != '0') return false;
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
    const bool tile = (edx >> 24) & 1, int8 = (edx >> 25) & 1;
    // Linux hands out the tile state only on request, once per process
    // (ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA); refused: the vector kernels.
    constexpr long kReqXcompPerm = 0x1023, kXtileData = 18;
    return tile && int8 && syscall(SYS_arch_prctl, kReqXcompPerm, kXtileData) == 0;
  }();
  return have;
}

void QGemmVnni(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, int32_t za,
               const int32_t* za_rows, const int8_t* b, int64_t ldb, const int32_t* zb, int32_t* c,
               int64_t ldc, const QGemmPackedB* packed, int64_t j0) {
  Gemm(m, n, k, a, lda, za, za_rows, b, ldb, zb, c, ldc, packed, j0);
}

void QGemmVnniRuns(int64_t m, int64_t n, int64_t kc, int64_t taps, const uint8_t* const* bases,
                   const int64_t* offsets, int32_t za, bool rowsums, const QGemmPackedB& packed,
                   int64_t j0, const int32_t* zb, int32_t* c, int64_t ldc) {
  GemmRuns(m, n, kc, taps, bases, offsets, za, rowsums, packed, j0, zb, c, ldc);
}

QGemmPackedB QGemmVnniPackB(int64_t k, int64_t n, const int8_t* b, int64_t ldb) {
  QGemmPackedB p;
  p.k = k;
  p.n = n;
  const int64_t panels = (n + kCols - 1) / kCols;
  p.panels.reset(
      static_cast<int8_t*>(_mm_malloc(static_cast<size_t>(panels * PanelBytes(k)) + 64, 64)));
  std::memset(p.panels.get(), 0, static_cast<size_t>(panels * PanelBytes(k)));
  p.colsum.assign(static_cast<size_t>(panels * kCols), 0);
  for (int64_t q = 0; q < panels; ++q) {
    const int64_t j = q * kCols;
    PackQuads(b + j, ldb, k, std::min(kCols, n - j), p.panels.get() + q * PanelBytes(k),
              p.colsum.data() + j);
  }
  return p;
}

void QGemmPackedB::Free::operator()(int8_t* p) const {
  _mm_free(p);
}

#else  // no x86-64 intrinsics: the int16 kernel serves every product

bool HaveVnniQGemm() {
  return false;
}
bool HaveAmxQGemm() {
  return false;
}
void QGemmVnni(int64_t, int64_t, int64_t, const uint8_t*, int64_t, int32_t, const int32_t*,
               const int8_t*, int64_t, const int32_t*, int32_t*, int64_t, const QGemmPackedB*,
               int64_t) {}
void QGemmVnniRuns(int64_t, int64_t, int64_t, int64_t, const uint8_t* const*, const int64_t*,
                   int32_t, bool, const QGemmPackedB&, int64_t, const int32_t*, int32_t*, int64_t) {
}
QGemmPackedB QGemmVnniPackB(int64_t, int64_t, const int8_t*, int64_t) {
  return {};
}
void QGemmPackedB::Free::operator()(int8_t* p) const {
  std::free(p);
}

#endif

}  // namespace onnx_light::kernels
