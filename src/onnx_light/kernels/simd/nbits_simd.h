// Vector kernels of MatMulNBits (kernels/com_microsoft/matmul_nbits.cc), dispatched at run
// time to the CPU's widest Highway target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace onnx_light::kernels {

// `columns` consecutive columns of `blocks` blocks of 4-bit codes (`bytes` bytes a block, two
// codes a byte, the low nibble first; column c's codes at codes + c * blocks * bytes, its
// scales at scales + c * blocks, its zero points at zps + c * zp_row, two a byte, the low
// nibble first, or 8 each when zps is null): out[c] = sum_b scale[b] * sum_i ((low(i) -
// zp_b) * a_even[i] + (high(i) - zp_b) * a_odd[i]), where a_even / a_odd hold a row of A's
// even and odd elements (block b's at b * bytes). The codes are unpacked in registers and
// the scales applied in vector accumulators: one horizontal sum per column.
void DotQ4Columns(const uint8_t* codes, size_t columns, size_t blocks, size_t bytes,
                  const float* a_even, const float* a_odd, const float* scales, const uint8_t* zps,
                  size_t zp_row, float* out);

// The same blocks dequantized: block b's (low - zero_point[b]) * scale[b] values at
// out[b * 2 * bytes, + bytes), its high nibbles' after them (A's elements must be split the
// same way, even ones then odd ones per block, for the product).
void DequantQ4Blocks(const uint8_t* codes, size_t blocks, size_t bytes, const float* scale,
                     const float* zero_point, float* out);

// accuracy_level 4 (ORT's CompInt8): a row of A quantized per block of `block` values
// (the last block zero-padded): scale = max|a| / 127, codes round_half_even(a * (127 /
// max|a|)) (0 for an all-zero block), kept as int16 with the even elements of each block
// before its odd ones (the codes' nibble order) in q [blocks * block]; scales[b] the
// block's scale, sums[b] = scales[b] * (the sum of block b's codes).
void QuantizeRowQ8(const float* a, int64_t k, int64_t block, int16_t* q, float* scales,
                   float* sums);

// For up to 4 rows of quantized A (q[r], a_scales[r], sums[r]) and one column's 4-bit
// blocks (`bytes` bytes each, low nibble first) with scales w_scales and zs[b] = the
// block's scale times its zero point:
// out[r] = sum_b a_scales[r][b] * w_scales[b] * dot_b(q[r], codes) - sum_b zs[b] * sums[r][b],
// each block's dot exact in int32. The codes are unpacked once for all the rows.
void DotQ4Q8Column(const uint8_t* codes, int64_t blocks, int64_t bytes, int rows,
                   const int16_t* const* q, const float* const* a_scales, const float* const* sums,
                   const float* w_scales, const float* zs, float* out);

// ---- float products of many rows (simd/nbits_pack_x86.cc) ----

// Which packer this CPU and the dispatched SIMD target allow: 2 AVX-512 (F, BW), 1 AVX2
// (and FMA), 0 none (the caller keeps its own path).
int DequantQ4PanelsLevel();
// Columns [n0, n1) of 4-bit weights (`codes` [N][blocks][block / 2], the low nibble first;
// scales [N x blocks]; zps 4-bit zero points, zp_row bytes a column, or null for 8)
// dequantized, (code - zero point) * scale, into SgemmPackB's layout: panels of nr columns
// (a multiple of 16), each k rows of nr floats, columns past n1 zero. `block` a multiple
// of 32. Only where DequantQ4PanelsLevel() > 0.
void DequantQ4Panels(const uint8_t* codes, const float* scales, const uint8_t* zps, int64_t k,
                     int64_t block, int64_t zp_row, int64_t n0, int64_t n1, int64_t nr, float* out);

// ---- accuracy_level 4 as register tiles of many rows x columns (simd/nbits_tiles_x86.cc:
// AVX2 or AVX-512 VNNI, where Q4Q8TileLevel() > 0) ----

// Rows of A quantized per block as QuantizeRowQ8 does (scale max|a| / 127, codes
// round_half_even(a * (127 / max|a|)), 0 for an all-zero block), as int8: each 32 values of
// a block (the 16 bytes of codes that hold them) their even elements then their odd ones,
// the blocks' values padded with 0 to a multiple of 64 (`stride` bytes a row).
struct Q8Rows {
  int64_t rows = 0, blocks = 0, block = 0, stride = 0;
  std::vector<int8_t> q;
  std::vector<float> scales;  // [rows x blocks]
  std::vector<float> sums;    // [rows x blocks]: scale * the sum of the block's codes
};
void QuantizeRowsQ8(const float* a, int64_t rows, int64_t k, int64_t block, Q8Rows* out);

// Q8Rows in groups of 8 rows for Q4Q8Tiles: per group, each 4 consecutive values of a
// row (Q8Rows's order) with the other 7 rows' same 4 beside them (32 bytes; rows past the
// last 0), group_bytes = stride * 8; scales and sums [group][block][8 rows].
struct Q8Groups {
  int64_t rows = 0, blocks = 0, block = 0, group_bytes = 0;
  std::vector<int8_t> q;
  std::vector<float> scales, sums;
};
void GroupRowsQ8(const Q8Rows& a, Q8Groups* out);

// The tile kernel this CPU and the dispatched SIMD target allow (ONNX_LIGHT_SIMD_TARGET
// and ForceSimdTargetForTest cap it): 2 AVX-512 VNNI (vpdpbusd on 8 lanes), 1 AVX2 (and
// FMA), 0 none (the caller then uses DotQ4Q8Column). Blocks of 32 codes or more.
int Q4Q8TileLevel();
// The dispatched target's part of it (2 AVX-512, 1 AVX2, 0 other; simd/nbits_simd.cc).
int Q4Q8TileTarget();

// y[r * ldy + n] = sum_b a.scales[r][b] * w_scales[n][b] * dot_b(a.q[r], codes of n)
//                  - sum_b zs[n][b] * a.sums[r][b] + (bias ? bias[n] : 0)
// for every row of `a` and columns [n0, n1) of 4-bit blocks `codes` ([N, blocks, block / 2]
// bytes, the low nibble first), w_scales and zs (each block's scale times its zero point)
// [N x blocks]; each block's dot exact in int32. Only where Q4Q8TileLevel() > 0.
void Q4Q8Tiles(const Q8Groups& a, const uint8_t* codes, const float* w_scales, const float* zs,
               const float* bias, int64_t n0, int64_t n1, float* y, int64_t ldy);

// ---- accuracy_level 4 with few rows on AVX-512 VNNI (simd/nbits_vnni_x86.cc) ----

// This CPU has AVX-512 VNNI (with BW, VL, DQ) and the dispatched SIMD target is AVX-512
// (ONNX_LIGHT_SIMD_TARGET and ForceSimdTargetForTest cap it).
bool HaveQ4Q8Vnni();

// Q8Rows regrouped for Q4Q8RowsVnni: per 128 values (chunk j: four 32-value units of
// Q8Rows's order), the four units' 16 even elements, then their 16 odd ones (the low and
// the high nibbles of the 64 bytes of codes that hold them), padded with 0 to whole chunks
// (`stride` = chunks * 128 bytes a row); lane_scales [rows][chunks][16]: lane l of chunk j
// the scale of the block that holds unit 4j + l / 4 (0 past the last); sums as Q8Rows's.
struct Q8Chunks {
  int64_t rows = 0, blocks = 0, block = 0, chunks = 0, stride = 0;
  std::vector<int8_t> q;
  std::vector<float> lane_scales, sums;
};
void ChunkRowsQ8(const Q8Rows& a, Q8Chunks* out);

// Q4Q8Tiles's product for rows of A in Q8Chunks, by vpdpbusd, with the zero points read
// as stored (zps: 4 bits each, two a byte, the low nibble first, zp_row bytes a column;
// nullptr: 8 for all) instead of zs: blocks of 32 codes or more. Only where HaveQ4Q8Vnni().
void Q4Q8RowsVnni(const Q8Chunks& a, const uint8_t* codes, const float* w_scales,
                  const uint8_t* zps, int64_t zp_row, const float* bias, int64_t n0, int64_t n1,
                  float* y, int64_t ldy);

}  // namespace onnx_light::kernels
