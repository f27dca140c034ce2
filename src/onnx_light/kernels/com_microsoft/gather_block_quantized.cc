// com.microsoft GatherBlockQuantized (ORT's 4-bit weight quantizer writes it for embedding
// Gathers; the GenAI model builder for tied embeddings): Gather over block-quantized data,
// dequantized. Inputs data (uint8 holding 8/bits codes a byte, low bits first, or int4 /
// uint4), indices (int32/int64), scales (float or float16; data's shape with the quantize
// axis in blocks of block_size), zero_points (optional: uint8 packed like data along the
// quantize axis, or int4/uint4 of the scales' shape; absent: 2^(bits-1) for uint8, 0 for
// int4/uint4); attributes gather_axis (0), quantize_axis (1; uint8 data: gather_axis 0 and
// quantize_axis last), block_size (128, a power of 2 >= 16), bits (4; uint8: 2, 4 or 8).
// Y = (code - zero_point) * scale in float, with data's codes' logical shape (uint8's last
// axis times 8 / bits) and indices in place of gather_axis. Indices outside the axis are
// refused (ORT writes zeros for them).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/ms_def.h"
#include "common/kernel_util.h"
#include "common/narrow_types.h"

namespace onnx_light::kernels {
namespace {

class GatherBlockQuantized : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<GatherBlockQuantized>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->gather_axis_, info.GetInt("gather_axis", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->quantize_axis_, info.GetInt("quantize_axis", 1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->block_, info.GetInt("block_size", 128));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->bits_, info.GetInt("bits", 4));
    ONNX_LIGHT_RETURN_IF(
        k->block_ < 16 || (k->block_ & (k->block_ - 1)) != 0, kInvalidModel,
        "block_size must be a power of 2 and >= 16, got " + std::to_string(k->block_));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& data = *ctx.input(0);
    const Tensor& indices = *ctx.input(1);
    const Tensor& scales = *ctx.input(2);
    const Tensor* zps = ctx.input_count() > 3 ? ctx.input(3) : nullptr;
    const bool packed_u8 = data.dtype() == DataType::kUint8;
    const int bits = packed_u8 ? static_cast<int>(bits_) : 4;
    ONNX_LIGHT_RETURN_IF(
        packed_u8 ? (bits != 2 && bits != 4 && bits != 8) : bits_ != 4, kInvalidModel,
        "bits must be 2, 4 or 8 for uint8 data and 4 for int4/uint4, got " + std::to_string(bits_));
    const auto rank = static_cast<int64_t>(data.shape().rank());
    ONNX_LIGHT_RETURN_IF(rank < 1, kInvalidArgument, "data must have rank >= 1");
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t gaxis, NormalizeAxis(gather_axis_, rank));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t qaxis, NormalizeAxis(quantize_axis_, rank));
    ONNX_LIGHT_RETURN_IF(packed_u8 && (gaxis != 0 || qaxis != rank - 1 || rank < 2),
                         kInvalidArgument,
                         "uint8 data needs gather_axis 0 and quantize_axis its last axis");
    std::vector<int64_t> logical = data.shape().dims();  // the codes' shape
    if (packed_u8) logical.back() *= 8 / bits;
    const auto ga = static_cast<size_t>(gaxis), qa = static_cast<size_t>(qaxis);
    std::vector<int64_t> sdims = logical;
    sdims[qa] = (logical[qa] + block_ - 1) / block_;
    ONNX_LIGHT_RETURN_IF(scales.shape().dims() != sdims, kInvalidArgument,
                         "scales " + scales.shape().ToString() + " must be " +
                             Shape::Create(sdims).value().ToString() + " (blocks of " +
                             std::to_string(block_) + " on axis " + std::to_string(qaxis) + ")");
    if (zps != nullptr) {
      std::vector<int64_t> zdims = sdims;
      if (packed_u8) zdims.back() = (sdims.back() * bits + 7) / 8;
      ONNX_LIGHT_RETURN_IF(zps->shape().dims() != zdims || zps->dtype() != data.dtype(),
                           kInvalidArgument,
                           "zero_points " + zps->shape().ToString() + " must be data's type and " +
                               Shape::Create(zdims).value().ToString());
    }
    // [outer, axis, inner] over the logical codes; scales [q_outer, blocks, q_inner].
    int64_t outer = 1, inner = 1, q_inner = 1;
    for (size_t d = 0; d < logical.size(); ++d) {
      if (d < ga) outer *= logical[d];
      if (d > ga) inner *= logical[d];
      if (d > qa) q_inner *= logical[d];
    }
    const int64_t axis_len = logical[ga], q_len = logical[qa], blocks = sdims[qa];
    const std::vector<int64_t> idx = IndexValues(indices);
    for (int64_t v : idx) {
      ONNX_LIGHT_RETURN_IF(v < -axis_len || v >= axis_len, kInvalidArgument,
                           "index " + std::to_string(v) + " is outside [" +
                               std::to_string(-axis_len) + ", " + std::to_string(axis_len) + ")");
    }
    std::vector<int64_t> out(logical.begin(), logical.begin() + gaxis);
    for (int64_t d : indices.shape().dims())
      out.push_back(d);
    out.insert(out.end(), logical.begin() + gaxis + 1, logical.end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, scales.dtype(), out));
    const auto* codes = static_cast<const uint8_t*>(data.raw_data());
    const auto* zp_codes = zps == nullptr ? nullptr : static_cast<const uint8_t*>(zps->raw_data());
    const bool is_signed = data.dtype() == DataType::kInt4;
    auto code_at = [&](const uint8_t* base, int64_t i) {
      const uint32_t c = NarrowCode(base, bits, i);
      return is_signed ? static_cast<int32_t>(c << 28) >> 28 : static_cast<int32_t>(c);
    };
    const int32_t default_zp = packed_u8 ? 1 << (bits - 1) : 0;
    auto zp_at = [&](int64_t s) {
      if (zp_codes == nullptr) return default_zp;
      if (packed_u8 && bits < 8) {
        const int64_t per_row = (blocks * bits + 7) / 8;
        return static_cast<int32_t>(
            NarrowCode(zp_codes + (s / blocks) * per_row, bits, s % blocks));
      }
      return code_at(zp_codes, s);
    };
    const int64_t n_idx = static_cast<int64_t>(idx.size());
    if (gaxis == 0 && qaxis == rank - 1 && y->dtype() == DataType::kFloat &&
        scales.dtype() == DataType::kFloat) {
      // An embedding table quantized along its rows (the GenAI builder's): each gathered row
      // block by block, its scale and zero point read once per block, rows across the pool
      // (per element, with the block found by division, 3x ORT's time at 2 threads).
      const float* sp = scales.data<float>();
      float* yp = y->mutable_data<float>();
      const int64_t lines = inner / q_len;
      ParallelElements(
          ctx.thread_pool(), n_idx,
          [&](int64_t j0, int64_t j1) {
            for (int64_t j = j0; j < j1; ++j) {
              const int64_t v = idx[static_cast<size_t>(j)];
              const int64_t row = v < 0 ? v + axis_len : v;
              for (int64_t l = 0; l < lines; ++l) {
                const int64_t line = row * lines + l;  // a line of q_len codes
                float* out_line = yp + (j * lines + l) * q_len;
                for (int64_t b = 0; b < blocks; ++b) {
                  const float scale = sp[line * blocks + b];
                  const int32_t zp = zp_at(line * blocks + b);
                  const int64_t e1 = std::min(q_len, (b + 1) * block_);
                  for (int64_t e = b * block_; e < e1; ++e)
                    out_line[e] = static_cast<float>(code_at(codes, line * q_len + e) - zp) * scale;
                }
              }
            }
          },
          8);
      return Status::Ok();
    }
    int64_t o = 0;
    for (int64_t m = 0; m < outer; ++m) {
      for (int64_t j = 0; j < n_idx; ++j) {
        const int64_t row = idx[static_cast<size_t>(j)] < 0 ? idx[static_cast<size_t>(j)] + axis_len
                                                            : idx[static_cast<size_t>(j)];
        const int64_t base = (m * axis_len + row) * inner;
        for (int64_t e = 0; e < inner; ++e, ++o) {
          const int64_t i = base + e;  // logical element of data
          const int64_t x = i / (q_len * q_inner), yq = i % (q_len * q_inner) / q_inner,
                        z = i % q_inner;
          const int64_t s = (x * blocks + yq / block_) * q_inner + z;
          int32_t zp = default_zp;
          if (zp_codes != nullptr) {
            if (packed_u8 && bits < 8) {
              const int64_t per_row = (blocks * bits + 7) / 8;
              zp = static_cast<int32_t>(
                  NarrowCode(zp_codes + (s / blocks) * per_row, bits, s % blocks));
            } else {
              zp = code_at(zp_codes, s);
            }
          }
          const float scale = scales.dtype() == DataType::kFloat
                                  ? scales.data<float>()[s]
                                  : static_cast<float>(scales.data<float16>()[s]);
          const float v = static_cast<float>(code_at(codes, i) - zp) * scale;
          if (y->dtype() == DataType::kFloat) {
            y->mutable_data<float>()[o] = v;
          } else {
            y->mutable_data<float16>()[o] = float16(v);
          }
        }
      }
    }
    return Status::Ok();
  }

 private:
  int64_t gather_axis_ = 0, quantize_axis_ = 1, block_ = 128, bits_ = 4;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, GatherBlockQuantized) {
  return r.Register(
      MsDef("GatherBlockQuantized",
            {{"T1", {0, 3}, {}, {DataType::kUint8, DataType::kInt4, DataType::kUint4}},
             {"Tind", {1}, {}, {DataType::kInt32, DataType::kInt64}},
             {"T2", {2}, {0}, {DataType::kFloat, DataType::kFloat16}}},
            FactoryOf<GatherBlockQuantized>(), {3, 4}, {1, 1}, 1u << 3));
}

}  // namespace onnx_light::kernels
