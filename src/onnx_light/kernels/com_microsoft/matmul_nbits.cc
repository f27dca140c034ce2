// com.microsoft MatMulNBits (ORT's 4-bit weight quantizer, matmul_nbits_quantizer, and the
// GenAI model builder write it for every linear layer of an LLM): Y = A @ W (+ bias), W
// [K, N] stored column by column in blocks of `block_size` codes of `bits` bits:
//   B [N, k_blocks, block_size * bits / 8] (uint8; code j of a block at bit j * bits of the
//   blob, low bits first), scales [N * k_blocks] (or [N, k_blocks]), zero_points (optional,
//   uint8, packed like B per column: [N * ceil(k_blocks * bits / 8)]; absent: 2^(bits-1)),
//   g_idx (optional int32 [K]: the block of each k, for act-order models), bias (optional [N]).
//   W[k, n] = (code - zero_point) * scale of (n, block of k).
// A is float32. accuracy_level is the least accuracy the model accepts for A (4: int8).
// At level 4 with 4 bits (the GenAI builder's CPU default), A is quantized to int8 per
// block at every row count, as ORT's CompInt8 kernels do (scale max|a| / 127, codes
// rounded half to even), each block's dot with the codes exact in int32, so the results
// are ORT's up to float32 summation order: on AVX-512 VNNI CPUs 1 to 5 rows (decode)
// through vpdpbusd over the codes as stored (simd/nbits_vnni_x86.cc), elsewhere 1 to 4
// through the column kernel (simd/nbits_simd.cc); more rows through tiles of 8 rows x 4
// columns (simd/nbits_tiles_x86.cc: AVX2, or vpdpbusd on VNNI CPUs; the column kernel where
// there is no AVX2); 2 and 8 bits through plain loops (Int8Wide). Other levels, and g_idx (act
// order), compute in float32. Float, few rows (decode): each column's codes are unpacked in
// registers and dotted with A's rows, the zero points folded in through per-block sums of A; many
// rows (prefill): 4 bits on AVX2/AVX-512 dequantized into the packed GEMM's panels
// (simd/nbits_pack_x86.cc), else panels of columns unpacked to float and multiplied by the GEMM.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/ms_def.h"
#include "math/gemm.h"
#include "simd/gemm_simd.h"
#include "simd/nbits_simd.h"

namespace onnx_light::kernels {
namespace {

// Below this many rows of A: the decode path (each row dotted with every column's codes
// unpacked in registers); from 3 rows the codes dequantized once into the packed GEMM's
// panels cost less than unpacking them once per row ([M,2048] x 4-bit [2048,2048], block 32,
// float: 3 rows 1.21 -> 0.99 ms, 7 rows 2.92 -> 1.20 ms; 2 rows 0.82 either way).
constexpr int64_t kDirectRows = 3;
// accuracy_level 4: from this many rows the tiles of 8 rows (Q4Q8Tiles) beat the column
// kernel's groups of 4 (measured: 2048 x 2048, 1 thread; 4 rows 0.78 vs 1.02 ms, 5 rows
// 1.2 vs 0.6 ms)
constexpr int64_t kTileRows = 5;
// With AVX-512 VNNI, up to this many rows take the rows kernel (Q4Q8RowsVnni: 4 rows a
// pass over the weights) instead of the tiles (2048 x 2048, 1 thread, Xeon: 5 rows 351 vs
// 386 us, 6 rows 387 vs 383 us)
constexpr int64_t kVnniRows = 5;
constexpr int64_t kPanel = 256;  // columns unpacked at once on the prefill path

// The first 64-byte boundary in a buffer allocated 16 floats longer than needed.
float* Aligned64(float* p) {
  while (reinterpret_cast<uintptr_t>(p) % 64 != 0)
    ++p;
  return p;
}

class MatMulNBits : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<MatMulNBits>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->k_, info.GetInt("K"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->n_, info.GetInt("N"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->bits_, info.GetInt("bits", 4));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->block_, info.GetInt("block_size"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t level, info.GetInt("accuracy_level", 0));
    // (the int32 block dots hold 255 * 127 * block_size: blocks up to 32768)
    k->int8_ = level == 4 && k->block_ <= 32768;
    ONNX_LIGHT_RETURN_IF(k->bits_ != 2 && k->bits_ != 4 && k->bits_ != 8, kInvalidModel,
                         "bits must be 2, 4 or 8, got " + std::to_string(k->bits_));
    ONNX_LIGHT_RETURN_IF(
        k->block_ < 16 || (k->block_ & (k->block_ - 1)) != 0, kInvalidModel,
        "block_size must be a power of 2 and >= 16, got " + std::to_string(k->block_));
    ONNX_LIGHT_RETURN_IF(
        k->k_ < 1 || k->n_ < 1 || k->k_ > (int64_t{1} << 40) || k->n_ > (int64_t{1} << 40),
        kInvalidModel, "K and N must be in [1, 2^40]");
    k->blocks_ = (k->k_ + k->block_ - 1) / k->block_;
    k->blob_ = k->block_ * k->bits_ / 8;
    k->zp_row_ = (k->blocks_ * k->bits_ + 7) / 8;
    // The int8 path's zero-point terms, once, from constant scales and zero points of the
    // right sizes (others are checked, and computed, at run time).
    const Tensor* scales = info.input_count() > 2 ? info.constant_input(2) : nullptr;
    const bool has_zp = info.input_count() > 3 && info.input_type(3) != DataType::kUndefined;
    const Tensor* zps = has_zp ? info.constant_input(3) : nullptr;
    if (k->int8_ && scales != nullptr && scales->dtype() == DataType::kFloat &&
        scales->num_elements() == k->n_ * k->blocks_ &&
        (!has_zp || (zps != nullptr && zps->dtype() == DataType::kUint8 &&
                     zps->num_elements() == k->n_ * k->zp_row_))) {
      k->zero_scales_ =
          k->ZeroScales(scales->data<float>(), has_zp ? zps->data<uint8_t>() : nullptr);
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(1);
    const Tensor& scales = *ctx.input(2);
    const Tensor* zps = ctx.input_count() > 3 ? ctx.input(3) : nullptr;
    const Tensor* g_idx = ctx.input_count() > 4 ? ctx.input(4) : nullptr;
    const Tensor* bias = ctx.input_count() > 5 ? ctx.input(5) : nullptr;
    ONNX_LIGHT_RETURN_IF(a.shape().rank() < 1 || a.shape().dims().back() != k_, kInvalidArgument,
                         "A " + a.shape().ToString() + " must end in K = " + std::to_string(k_));
    ONNX_LIGHT_RETURN_IF(b.num_elements() != n_ * blocks_ * blob_, kInvalidArgument,
                         "B " + b.shape().ToString() + " must hold [N, k_blocks, blob] = [" +
                             std::to_string(n_) + ", " + std::to_string(blocks_) + ", " +
                             std::to_string(blob_) + "] bytes");
    ONNX_LIGHT_RETURN_IF(
        scales.num_elements() != n_ * blocks_, kInvalidArgument,
        "scales must hold N * k_blocks = " + std::to_string(n_ * blocks_) + " values");
    ONNX_LIGHT_RETURN_IF(zps != nullptr && zps->dtype() != DataType::kUint8, kNotImplemented,
                         "zero_points of the scales' type (float) are not supported; packed "
                         "uint8 zero points are");
    ONNX_LIGHT_RETURN_IF(zps != nullptr && zps->num_elements() != n_ * zp_row_, kInvalidArgument,
                         "zero_points must hold N * ceil(k_blocks * bits / 8) = " +
                             std::to_string(n_ * zp_row_) + " bytes");
    ONNX_LIGHT_RETURN_IF(bias != nullptr && bias->num_elements() != n_, kInvalidArgument,
                         "bias must be [N] = [" + std::to_string(n_) + "]");
    std::vector<int32_t> block_of;  // g_idx: the block of each k
    if (g_idx != nullptr) {
      ONNX_LIGHT_RETURN_IF(g_idx->num_elements() != k_, kInvalidArgument, "g_idx must be [K]");
      block_of.assign(g_idx->data<int32_t>(), g_idx->data<int32_t>() + k_);
      for (int32_t v : block_of) {
        ONNX_LIGHT_RETURN_IF(v < 0 || v >= blocks_, kInvalidArgument,
                             "g_idx holds block " + std::to_string(v) + " outside [0, " +
                                 std::to_string(blocks_) + ")");
      }
    }
    std::vector<int64_t> dims = a.shape().dims();
    dims.back() = n_;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const int64_t rows = k_ == 0 ? 0 : a.num_elements() / k_;
    if (rows == 0) return Status::Ok();
    const Args args{a.data<float>(),
                    b.data<uint8_t>(),
                    scales.data<float>(),
                    zps == nullptr ? nullptr : zps->data<uint8_t>(),
                    block_of.empty() ? nullptr : block_of.data(),
                    bias == nullptr ? nullptr : bias->data<float>(),
                    y->mutable_data<float>(),
                    rows};
    const bool q4 = int8_ && bits_ == 4 && block_of.empty();
    if (q4 && block_ >= 32 && rows <= kVnniRows && HaveQ4Q8Vnni()) {
      Int8Vnni(args, ctx.thread_pool());
    } else if (q4 && block_ >= 32 && rows >= kTileRows && Q4Q8TileLevel() > 0) {
      Int8Tiles(args, ctx.thread_pool());
    } else if (q4) {
      Int8(args, ctx.thread_pool());
    } else if (int8_ && block_of.empty()) {
      Int8Wide(args, ctx.thread_pool());
    } else if (rows < kDirectRows && block_of.empty()) {
      Direct(args, ctx.thread_pool());
    } else if (bits_ == 4 && block_of.empty() && block_ % 32 == 0 && DequantQ4PanelsLevel() > 0) {
      PackedPanels(args, ctx.thread_pool());
    } else {
      Panels(args, ctx.thread_pool());
    }
    return Status::Ok();
  }

 private:
  struct Args {
    const float* a;
    const uint8_t* b;
    const float* scales;
    const uint8_t* zps;
    const int32_t* block_of;
    const float* bias;
    float* y;
    int64_t rows;
  };

  int32_t ZeroPoint(const uint8_t* zps, int64_t n, int64_t blk) const {
    if (zps == nullptr) return 1 << (bits_ - 1);
    const int64_t bit = blk * bits_;
    return (zps[n * zp_row_ + bit / 8] >> (bit % 8)) & ((1 << bits_) - 1);
  }

  // Codes of one block as floats (count <= block_size; the last block may be short).
  void Unpack(const uint8_t* blob, int64_t count, float* out) const {
    if (bits_ == 4) {
      for (int64_t i = 0; i + 1 < count; i += 2) {
        const uint8_t v = blob[i / 2];
        out[i] = static_cast<float>(v & 15);
        out[i + 1] = static_cast<float>(v >> 4);
      }
      if (count % 2 != 0) out[count - 1] = static_cast<float>(blob[count / 2] & 15);
    } else if (bits_ == 8) {
      for (int64_t i = 0; i < count; ++i)
        out[i] = static_cast<float>(blob[i]);
    } else {
      for (int64_t i = 0; i < count; ++i)
        out[i] = static_cast<float>((blob[i / 4] >> (2 * (i % 4))) & 3);
    }
  }

  // Few rows: per column, per block, sum_j (code_j - zp) * a_j times the block's scale,
  // summed over blocks. 4 bits: the codes unpacked in registers, a run of columns per call
  // (simd/nbits_simd.h); 2 and 8 bits: plain loops, the zero points folded in through
  // per-block sums of A.
  void Direct(const Args& p, ThreadPool* pool) const {
    const auto nb = static_cast<size_t>(blocks_);
    // 4 bits: each row's even and odd elements apart (zero-padded to whole blocks), the
    // layout of the codes' low and high nibbles; else each row's per-block sums.
    const auto half = static_cast<size_t>(blob_) * nb;
    std::vector<float> split(bits_ == 4 ? static_cast<size_t>(p.rows) * 2 * half : 0, 0.0f);
    std::vector<float> a_sums(bits_ == 4 ? 0 : static_cast<size_t>(p.rows) * nb, 0.0f);
    for (int64_t r = 0; r < p.rows; ++r) {
      const float* ar = p.a + r * k_;
      if (bits_ == 4) {
        float* even = split.data() + static_cast<size_t>(r) * 2 * half;
        float* odd = even + half;
        for (int64_t kk = 0; kk < k_; ++kk)
          (kk % 2 == 0 ? even : odd)[kk / 2] = ar[kk];
        continue;
      }
      for (int64_t blk = 0; blk < blocks_; ++blk) {
        const int64_t k0 = blk * block_, k1 = std::min(k_, k0 + block_);
        float s = 0.0f;
        for (int64_t kk = k0; kk < k1; ++kk)
          s += ar[kk];
        a_sums[static_cast<size_t>(r) * nb + static_cast<size_t>(blk)] = s;
      }
    }
    const int64_t col_bytes = blocks_ * blob_;
    ParallelElements(
        pool, n_,
        [&](int64_t n0, int64_t n1) {
          if (bits_ == 4) {
            std::vector<float> out(static_cast<size_t>(n1 - n0));
            for (int64_t r = 0; r < p.rows; ++r) {
              const float* even = split.data() + static_cast<size_t>(r) * 2 * half;
              DotQ4Columns(p.b + n0 * col_bytes, static_cast<size_t>(n1 - n0), nb,
                           static_cast<size_t>(blob_), even, even + half, p.scales + n0 * blocks_,
                           p.zps == nullptr ? nullptr : p.zps + n0 * zp_row_,
                           static_cast<size_t>(zp_row_), out.data());
              for (int64_t n = n0; n < n1; ++n) {
                p.y[r * n_ + n] =
                    out[static_cast<size_t>(n - n0)] + (p.bias != nullptr ? p.bias[n] : 0.0f);
              }
            }
            return;
          }
          std::vector<float> codes(static_cast<size_t>(block_));
          for (int64_t n = n0; n < n1; ++n) {
            const uint8_t* col = p.b + n * col_bytes;
            const float* scales = p.scales + n * blocks_;
            for (int64_t r = 0; r < p.rows; ++r) {
              const float* ar = p.a + r * k_;
              const float* sums = a_sums.data() + static_cast<size_t>(r) * nb;
              float acc = 0.0f;
              for (int64_t blk = 0; blk < blocks_; ++blk) {
                const int64_t k0 = blk * block_, count = std::min(block_, k_ - k0);
                Unpack(col + blk * blob_, count, codes.data());
                float dot = 0.0f;
                for (int64_t j = 0; j < count; ++j)
                  dot += codes[static_cast<size_t>(j)] * ar[k0 + j];
                const auto zp = static_cast<float>(ZeroPoint(p.zps, n, blk));
                acc += (dot - zp * sums[static_cast<size_t>(blk)]) * scales[blk];
              }
              p.y[r * n_ + n] = acc + (p.bias != nullptr ? p.bias[n] : 0.0f);
            }
          }
        },
        // chunks of ~32k weights: a decode step's GEMV is bound by reading them, and both
        // cores stream
        std::max<int64_t>(8, 512 / std::max<int64_t>(1, k_ / 64)));
  }

  // accuracy_level 4, 4 bits: A quantized to int8 per block (simd/nbits_simd.h), each
  // block's product with the codes exact in int32, then scaled by both scales; the codes of
  // a column unpacked once for every 4 rows.
  void Int8(const Args& p, ThreadPool* pool) const {
    const auto nb = static_cast<size_t>(blocks_);
    const int64_t kp = blocks_ * block_;
    std::vector<int16_t> q(static_cast<size_t>(p.rows * kp));
    std::vector<float> a_scales(static_cast<size_t>(p.rows) * nb);
    std::vector<float> sums(static_cast<size_t>(p.rows) * nb);
    for (int64_t r = 0; r < p.rows; ++r) {
      QuantizeRowQ8(p.a + r * k_, k_, block_, q.data() + r * kp,
                    a_scales.data() + static_cast<size_t>(r) * nb,
                    sums.data() + static_cast<size_t>(r) * nb);
    }
    // Each block's scale times its zero point (made once when both are constants).
    std::vector<float> local;
    const float* zs = ZeroScalesOf(p, &local);
    ParallelElements(
        pool, n_,
        [&](int64_t n0, int64_t n1) {
          for (int64_t n = n0; n < n1; ++n) {
            for (int64_t r0 = 0; r0 < p.rows; r0 += 4) {
              const int count = static_cast<int>(std::min<int64_t>(4, p.rows - r0));
              const int16_t* qr[4];
              const float* sr[4];
              const float* mr[4];
              for (int i = 0; i < count; ++i) {
                qr[i] = q.data() + (r0 + i) * kp;
                sr[i] = a_scales.data() + static_cast<size_t>(r0 + i) * nb;
                mr[i] = sums.data() + static_cast<size_t>(r0 + i) * nb;
              }
              float out[4];
              DotQ4Q8Column(p.b + n * blocks_ * blob_, blocks_, blob_, count, qr, sr, mr,
                            p.scales + n * blocks_, zs + n * blocks_, out);
              for (int i = 0; i < count; ++i)
                p.y[(r0 + i) * n_ + n] = out[i] + (p.bias != nullptr ? p.bias[n] : 0.0f);
            }
          }
        },
        std::max<int64_t>(8, 512 / std::max<int64_t>(1, k_ / 64)));
  }

  // accuracy_level 4, 4 bits, few rows, on x86 with AVX-512 VNNI: A quantized to int8 per
  // block once, regrouped for the kernel (simd/nbits_vnni_x86.cc), columns split between
  // threads.
  void Int8Vnni(const Args& p, ThreadPool* pool) const {
    Q8Chunks chunks;
    {
      Q8Rows q;
      QuantizeRowsQ8(p.a, p.rows, k_, block_, &q);
      ChunkRowsQ8(q, &chunks);
    }
    ParallelElements(
        pool, n_,
        [&](int64_t n0, int64_t n1) {
          Q4Q8RowsVnni(chunks, p.b, p.scales, p.zps, zp_row_, p.bias, n0, n1, p.y, n_);
        },
        std::max<int64_t>(16, 512 / std::max<int64_t>(1, k_ / 64)));
  }

  // accuracy_level 4, 4 bits, on x86 with AVX2: A quantized to int8 per block once and
  // grouped by 8 rows, then register tiles of 8 rows x 4 columns (simd/nbits_tiles_x86.cc),
  // groups of 16 columns split between threads.
  void Int8Tiles(const Args& p, ThreadPool* pool) const {
    Q8Rows q;
    QuantizeRowsQ8(p.a, p.rows, k_, block_, &q);
    Q8Groups groups;
    GroupRowsQ8(q, &groups);
    std::vector<float> local;
    const float* zs = ZeroScalesOf(p, &local);
    constexpr int64_t kGroup = 16;  // columns a thread takes at a time (whole tiles)
    ParallelElements(
        pool, (n_ + kGroup - 1) / kGroup,
        [&](int64_t g0, int64_t g1) {
          Q4Q8Tiles(groups, p.b, p.scales, zs, p.bias, g0 * kGroup, std::min(n_, g1 * kGroup), p.y,
                    n_);
        },
        // Chunks of at least ~1M multiply-adds (groups of 16 columns by rows x k): a [7,2048]
        // product's 128 groups went to one thread when a chunk had to hold 73 of them.
        std::max<int64_t>(1, (int64_t{1} << 20) / std::max<int64_t>(1, p.rows * k_ * kGroup)));
  }

  // accuracy_level 4 at 2 and 8 bits (ORT's CompInt8 takes them too): A to int8 per block
  // as for 4 bits (QuantizeRowQ8), each block's dot with a column's codes exact in
  // int32, then sum_b a_scale * w_scale * dot - sum_b (w_scale * zero point) * (a_scale *
  // sum of A's codes). Each column's codes unpacked once for all the rows; plain loops (the
  // compiler's vectors): the builder writes 4 bits.
  void Int8Wide(const Args& p, ThreadPool* pool) const {
    const int64_t kp = blocks_ * block_;
    const auto nb = static_cast<size_t>(blocks_);
    std::vector<int16_t> q(static_cast<size_t>(p.rows * kp));
    std::vector<float> a_scales(static_cast<size_t>(p.rows) * nb), sums(a_scales.size());
    for (int64_t r = 0; r < p.rows; ++r) {
      QuantizeRowQ8(p.a + r * k_, k_, block_, q.data() + r * kp,
                    a_scales.data() + static_cast<size_t>(r) * nb,
                    sums.data() + static_cast<size_t>(r) * nb);
    }
    std::vector<float> local;
    const float* zs = ZeroScalesOf(p, &local);
    ParallelElements(
        pool, n_,
        [&](int64_t n0, int64_t n1) {
          std::vector<int16_t> codes(static_cast<size_t>(kp));
          for (int64_t n = n0; n < n1; ++n) {
            UnpackCodes(p.b + n * blocks_ * blob_, codes.data());
            const float* ws = p.scales + n * blocks_;
            for (int64_t r = 0; r < p.rows; ++r) {
              const int16_t* qr = q.data() + r * kp;
              const float* as = a_scales.data() + static_cast<size_t>(r) * nb;
              const float* ms = sums.data() + static_cast<size_t>(r) * nb;
              float t = 0.0f, c = 0.0f;
              for (int64_t blk = 0; blk < blocks_; ++blk) {
                int32_t dot = 0;
                for (int64_t i = blk * block_; i < (blk + 1) * block_; ++i)
                  dot += static_cast<int32_t>(qr[i]) * codes[static_cast<size_t>(i)];
                t += as[blk] * ws[blk] * static_cast<float>(dot);
                c += zs[n * blocks_ + blk] * ms[blk];
              }
              p.y[r * n_ + n] = t - c + (p.bias != nullptr ? p.bias[n] : 0.0f);
            }
          }
        },
        std::max<int64_t>(8, 512 / std::max<int64_t>(1, k_ / 64)));
  }

  // A column's codes (2 or 8 bits; every block whole) as int16 in QuantizeRowQ8's order:
  // each block's even elements, then its odd ones.
  void UnpackCodes(const uint8_t* col, int16_t* out) const {
    const int64_t count = blocks_ * block_, half = block_ / 2;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t j = i % block_;
      const auto code =
          static_cast<int16_t>(bits_ == 8 ? col[i] : (col[i / 4] >> (2 * (i % 4))) & 3);
      out[i - j + (j % 2) * half + j / 2] = code;
    }
  }

  // ZeroScales of this run's scales and zero points: the ones made once when both are
  // constants, else made into *local.
  const float* ZeroScalesOf(const Args& p, std::vector<float>* local) const {
    if (!zero_scales_.empty()) return zero_scales_.data();
    *local = ZeroScales(p.scales, p.zps);
    return local->data();
  }

  // [N x k_blocks]: scale * zero point of each block (4 bits: two zero points a byte, the
  // low nibble first; absent: 8).
  std::vector<float> ZeroScales(const float* scales, const uint8_t* zps) const {
    std::vector<float> out(static_cast<size_t>(n_ * blocks_));
    for (int64_t n = 0; n < n_; ++n)
      for (int64_t blk = 0; blk < blocks_; ++blk)
        out[static_cast<size_t>(n * blocks_ + blk)] =
            scales[n * blocks_ + blk] * static_cast<float>(ZeroPoint(zps, n, blk));
    return out;
  }

  // Column n of W in float (any bits, g_idx or not) into wj[0, K).
  void DequantColumn(const Args& p, int64_t n, float* codes, float* wj) const {
    for (int64_t blk = 0; blk < blocks_; ++blk) {
      const int64_t k0 = blk * block_, count = std::min(block_, k_ - k0);
      Unpack(p.b + (n * blocks_ + blk) * blob_, count, codes);
      if (p.block_of == nullptr) {
        const float scale = p.scales[n * blocks_ + blk];
        const auto z = static_cast<float>(ZeroPoint(p.zps, n, blk));
        for (int64_t i = 0; i < count; ++i)
          wj[k0 + i] = (codes[i] - z) * scale;
      } else {  // act order: each k's own block
        for (int64_t i = 0; i < count; ++i) {
          const int32_t g = p.block_of[k0 + i];
          wj[k0 + i] =
              (codes[i] - static_cast<float>(ZeroPoint(p.zps, n, g))) * p.scales[n * blocks_ + g];
        }
      }
    }
  }

  // Many rows, 4 bits, no g_idx, on AVX2 or AVX-512: chunks of columns dequantized
  // straight into the packed GEMM's panels (simd/nbits_pack_x86.cc) and multiplied there,
  // as a constant MatMul's packed weights are; a chunk (1 MiB of floats) stays in the L2
  // cache from its dequantization to its product. Chunks split between the threads.
  // [64,2048] x [2048,2048] block 32 (Xeon): 1 thread 9.07 -> 4.0 ms (ORT 4.0), 2 threads
  // 2.2 ms (ORT 2.1); at ONNX_LIGHT_SIMD_TARGET=AVX2 13.1 -> 6.0 ms.
  void PackedPanels(const Args& p, ThreadPool* pool) const {
    const auto nr = static_cast<int64_t>(SgemmPackedTileColumns());
    const int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 18) / (k_ * nr)) * nr;
    const int64_t chunks = (n_ + chunk - 1) / chunk;
    // Where the packed kernel takes the product (AVX-512, more rows than the in-place
    // kernel's few), A is packed once for every chunk, not once per chunk.
    std::vector<float> a_buffer;
    const float* a_packed = nullptr;
    if (PreferPackedSgemm() && p.rows > 32) {
      a_buffer.resize(SgemmPackedAFloats(p.rows, k_) + 16);
      float* at = Aligned64(a_buffer.data());
      SgemmPackA(p.rows, k_, p.a, k_, at);
      a_packed = at;
    }
    ParallelElements(
        pool, chunks,
        [&](int64_t c0, int64_t c1) {
          std::vector<float> buffer(static_cast<size_t>(chunk * k_ + 16));
          float* panels = Aligned64(buffer.data());
          std::vector<float> work(a_packed != nullptr ? SgemmPrepackedWorkFloats() + 16 : 0);
          for (int64_t c = c0; c < c1; ++c) {
            const int64_t n0 = c * chunk, n1 = std::min(n_, n0 + chunk);
            DequantQ4Panels(p.b, p.scales, p.zps, k_, block_, zp_row_, n0, n1, nr, panels);
            for (int64_t r = 0; r < p.rows; ++r) {
              float* yr = p.y + r * n_;
              for (int64_t j = n0; j < n1; ++j)
                yr[j] = p.bias != nullptr ? p.bias[j] : 0.0f;
            }
            if (a_packed != nullptr) {
              SgemmPacked(p.rows, n1 - n0, k_, nullptr, 0, nullptr, 0, p.y + n0, n_,
                          Aligned64(work.data()), a_packed, false, panels);
            } else {
              PrepackedGemmLd(p.a, k_, panels, p.y + n0, n_, p.rows, n1 - n0, k_, nullptr);
            }
          }
        },
        1);
  }

  // Many rows: panels of kPanel columns dequantized to float [panel, K'], then the GEMM.
  // 4 bits without g_idx: each block's low nibbles then its high ones (in registers,
  // simd/nbits_simd.h), A's columns permuted the same way (even then odd per block) and
  // zero-padded to whole blocks (K' = k_blocks * block_size).
  void Panels(const Args& p, ThreadPool* pool) const {
    const bool split = bits_ == 4 && p.block_of == nullptr;
    const int64_t kp = split ? blocks_ * block_ : k_;
    std::vector<float> a_split;
    const float* a = p.a;
    if (split) {
      a_split.assign(static_cast<size_t>(p.rows * kp), 0.0f);
      for (int64_t r = 0; r < p.rows; ++r) {
        for (int64_t kk = 0; kk < k_; ++kk) {
          const int64_t blk = kk / block_, j = kk % block_;
          a_split[static_cast<size_t>(r * kp + blk * block_ + (j % 2) * blob_ + j / 2)] =
              p.a[r * k_ + kk];
        }
      }
      a = a_split.data();
    }
    // Each panel dequantized and multiplied by one thread when there are panels for every
    // thread (the product of a few rows by 256 columns splits poorly); else the panel's
    // columns and its product split between the threads.
    const int64_t panels = (n_ + kPanel - 1) / kPanel;
    const bool whole = pool != nullptr && pool->threads() > 1 && panels >= pool->threads();
    auto run = [&](int64_t q0, int64_t q1, ThreadPool* inner) {
      std::vector<float> w(static_cast<size_t>(kPanel * kp));
      std::vector<float> c(static_cast<size_t>(p.rows * kPanel));
      for (int64_t q = q0; q < q1; ++q)
        Panel(p, a, kp, split, q * kPanel, w.data(), c.data(), inner);
    };
    if (whole) {
      ParallelElements(
          pool, panels, [&](int64_t q0, int64_t q1) { run(q0, q1, nullptr); }, 1);
    } else {
      run(0, panels, pool);
    }
  }

  // Columns [n0, n0 + kPanel) of the product: dequantized into w [cols x K'], multiplied by
  // A into c [rows x cols], plus the bias into y.
  void Panel(const Args& p, const float* a, int64_t kp, bool split, int64_t n0, float* w, float* c,
             ThreadPool* pool) const {
    const int64_t cols = std::min(kPanel, n_ - n0);
    ParallelElements(
        pool, cols,
        [&](int64_t j0, int64_t j1) {
          std::vector<float> codes(static_cast<size_t>(block_));
          std::vector<float> zp(static_cast<size_t>(blocks_));
          for (int64_t j = j0; j < j1; ++j) {
            const int64_t n = n0 + j;
            float* wj = w + j * kp;
            if (split) {
              for (int64_t blk = 0; blk < blocks_; ++blk)
                zp[static_cast<size_t>(blk)] = static_cast<float>(ZeroPoint(p.zps, n, blk));
              DequantQ4Blocks(p.b + n * blocks_ * blob_, static_cast<size_t>(blocks_),
                              static_cast<size_t>(blob_), p.scales + n * blocks_, zp.data(), wj);
              continue;
            }
            DequantColumn(p, n, codes.data(), wj);
          }
        },
        16);
    std::fill(c, c + p.rows * cols, 0.0f);
    // c[rows x cols] = A[rows x K'] @ w^T (w(k, j) = w[j * K' + k])
    Gemm2D(a, kp, 1, w, 1, kp, c, p.rows, cols, kp, pool);
    for (int64_t r = 0; r < p.rows; ++r) {
      for (int64_t j = 0; j < cols; ++j)
        p.y[r * n_ + n0 + j] = c[r * cols + j] + (p.bias != nullptr ? p.bias[n0 + j] : 0.0f);
    }
  }

  int64_t k_ = 0, n_ = 0, bits_ = 4, block_ = 32, blocks_ = 0, blob_ = 0, zp_row_ = 0;
  bool int8_ = false;               // accuracy_level 4: int8 activations
  std::vector<float> zero_scales_;  // ZeroScales of constant scales and zero points
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, MatMulNBits) {
  return r.Register(MsDef("MatMulNBits",
                          {{"T1", {0, 2, 5}, {0}, {DataType::kFloat}},
                           {"T2", {1}, {}, {DataType::kUint8}},
                           {"T3", {4}, {}, {DataType::kInt32}}},
                          FactoryOf<MatMulNBits>(), {3, 6}, {1, 1},
                          (1u << 3) | (1u << 4) | (1u << 5)));
}

}  // namespace onnx_light::kernels
