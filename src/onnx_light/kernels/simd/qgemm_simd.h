// The integer matrix product behind MatMulInteger and QLinearMatMul (Highway, runtime
// dispatch): c[m x n] = a * (b - zb) in int32, exactly, with a already centered by its
// zero point and widened to int16 ([m x k] rows lda apart; when k is odd each row has one
// more readable value, 0, after its last), b 8-bit (int8 or uint8, [k x n] rows ldb
// apart) and zb one zero point per column of b. Pairs of products are summed in int32
// (vpmaddwd on x86), which cannot saturate: every factor is within [-255, 255]. Not
// packed: b's rows are read in place, widened as they are used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace onnx_light::kernels {

// uint8 a times int8 b with AVX-512 VNNI (simd/qgemm_vnni.cc): c = (a - za) (b - zb) in
// int32 (wrapping past it, as the sums do), za a scalar or one per row (za_rows, if not
// null), zb one per column. Only where HaveVnniQGemm().
bool HaveVnniQGemm();
// HaveVnniQGemm() and the CPU has AMX-INT8 and the OS grants the tile state: QGemmVnni
// then runs products of 8 rows or more through AMX tiles. ONNX_LIGHT_NO_AMX=1 turns it
// off (the vector kernels then serve, as on CPUs without AMX).
bool HaveAmxQGemm();
// b packed once for QGemmVnni (a constant weight matrix): its panels of 32 columns as
// quads, and its column sums. Empty (panels null) where HaveVnniQGemm() is false.
struct QGemmPackedB {
  struct Free {
    void operator()(int8_t* p) const;
  };
  std::unique_ptr<int8_t, Free> panels;
  std::vector<int32_t> colsum;
  int64_t k = 0, n = 0;
  // The packed bytes are b - shift: a uint8 b is packed as int8 with shift 128 (its zero
  // points then move by -128 too: the products are the same).
  int32_t shift = 0;
};
QGemmPackedB QGemmVnniPackB(int64_t k, int64_t n, const int8_t* b, int64_t ldb);
// QGemmVnni with row i's kc * taps bytes read in place as `taps` runs of kc bytes (kc a
// multiple of 4), run t at bases[i] + offsets[t]: a convolution's windows in a padded
// channels-last image, a row base per output pixel and an offset per tap (no gathering).
// za: every row's zero point. `rowsums`: false when every zb is 0 (the row sums then do not
// enter the result and are not computed). b packed for k = kc * taps.
void QGemmVnniRuns(int64_t m, int64_t n, int64_t kc, int64_t taps, const uint8_t* const* bases,
                   const int64_t* offsets, int32_t za, bool rowsums, const QGemmPackedB& packed,
                   int64_t j0, const int32_t* zb, int32_t* c, int64_t ldc);
// `packed`, if not null, is b packed by QGemmVnniPackB and b is not read: the product
// takes columns [j0, j0 + n) of it (j0 a multiple of 32).
void QGemmVnni(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, int32_t za,
               const int32_t* za_rows, const int8_t* b, int64_t ldb, const int32_t* zb, int32_t* c,
               int64_t ldc, const QGemmPackedB* packed = nullptr, int64_t j0 = 0);

void QGemmI16(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda, const void* b,
              bool b_signed, int64_t ldb, const int32_t* zb, int32_t* c, int64_t ldc);

// A constant b [k x n] packed once for QGemmI16Packed (every CPU): column panels as the
// int16 kernel reads them, rows in pairs with their bytes interleaved (b[p][j], b[p+1][j]),
// still 8-bit (one byte a weight; widened in registers) and not centered (the zero points
// are applied after the sums, from a's row sums). Empty (bytes null) on a scalar build.
struct QGemmI16PackedB {
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> bytes;
  int64_t k = 0, n = 0, nr = 0;  // nr: columns of a panel (the vector target's)
  bool b_signed = true;
  bool wide = false;  // int16 lanes (QGemmI16PackB16)
};
QGemmI16PackedB QGemmI16PackB(int64_t k, int64_t n, const void* b, bool b_signed, int64_t ldb);
// b [k x n] of int16 values (each within [-2^15, 2^15); pairs of products then sum in int32
// exactly where |a| * |b| < 2^30) packed the same way in int16 lanes: a Winograd
// convolution's transformed weights.
QGemmI16PackedB QGemmI16PackB16(int64_t k, int64_t n, const int16_t* b, int64_t ldb);
// c = a * (b - zb) for columns [j0, j0 + n) of packed b (j0 a multiple of packed.nr); a as
// for QGemmI16 (rows lda apart, an odd k's rows followed by a readable 0); zb null: none.
void QGemmI16Packed(int64_t m, int64_t n, const int16_t* a, int64_t lda,
                    const QGemmI16PackedB& packed, int64_t j0, const int32_t* zb, int32_t* c,
                    int64_t ldc);

// QGemmI16Packed with row i's k * taps values read in place as `taps` runs of k values,
// run t at bases[i] + offsets[t] (k even when taps > 1): a convolution's windows read
// from a padded channels-last image, a row base per output pixel and an offset per tap,
// instead of gathered.
void QGemmI16PackedRuns(int64_t m, int64_t n, int64_t k, int64_t taps, const int16_t* const* bases,
                        const int64_t* offsets, const QGemmI16PackedB& packed, int64_t j0,
                        const int32_t* zb, int32_t* c, int64_t ldc);

// DynamicQuantizeLinear in vector code: the range of x with 0 in it (lo <= 0 <= hi) and
// whether x holds a NaN; then y = saturate(round_half_even(x / scale) + zp).
void RangeF32(const float* x, size_t n, float* lo, float* hi, bool* nan);
void QuantizeU8F32(const float* x, size_t n, float scale, float zp, uint8_t* out);

// QuantizeLinear per tensor to 8- or 16-bit integers (`bytes` 1 or 2; int8/int16 when
// is_signed, else uint8/uint16): y = round_half_even(clamp(x / scale, lo, hi)) + zp with
// lo/hi the type's range less zp; a NaN quotient gives lo.
void QuantizeLinearF32(const float* x, size_t n, float scale, float lo, float hi, int32_t zp,
                       bool is_signed, int bytes, void* out);

}  // namespace onnx_light::kernels
