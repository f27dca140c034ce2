// MatMulInteger and QLinearMatMul: int32 products of zero-point-centered 8-bit operands
// with numpy batch broadcasting; QLinearMatMul requantizes as the ONNX reference does.
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "math/gemm.h"
#include "onnx_light/platform/mapped_file.h"
#include "onnx_light/runtime/thread_pool.h"
#include "quantization/integer_matmul.h"
#include "simd/qgemm_simd.h"
#include "simd/qlinear_simd.h"

namespace onnx_light::kernels {

Result<std::vector<int64_t>> IntegerMatMul(const Tensor& a, const Tensor* a_zp, const Tensor& b,
                                           const Tensor* b_zp, ThreadPool* pool,
                                           const IntegerProductsFn& output,
                                           const QGemmPackedB* packed,
                                           const QGemmI16PackedB* packed16,
                                           const IntegerEpilogueFn* epilogue) {
  std::vector<int64_t> ad = a.shape().dims(), bd = b.shape().dims();
  ONNX_LIGHT_RETURN_IF(ad.empty() || bd.empty(), kInvalidArgument, "inputs need rank >= 1");
  const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  if (a_vec) ad.insert(ad.begin(), 1);
  if (b_vec) bd.push_back(1);
  const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  ONNX_LIGHT_RETURN_IF(
      bd[bd.size() - 2] != k, kInvalidArgument,
      "shapes " + a.shape().ToString() + " and " + b.shape().ToString() + " do not align");
  const std::vector<double> za = ToDoubles(a_zp), zb = ToDoubles(b_zp);
  ONNX_LIGHT_RETURN_IF((za.size() > 1 && static_cast<int64_t>(za.size()) != m) ||
                           (zb.size() > 1 && static_cast<int64_t>(zb.size()) != n),
                       kInvalidArgument, "zero points must be scalars, [M] for A or [N] for B");
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape abatch,
                              Shape::Create(std::vector<int64_t>(ad.begin(), ad.end() - 2)));
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape bbatch,
                              Shape::Create(std::vector<int64_t>(bd.begin(), bd.end() - 2)));
  ONNX_LIGHT_ASSIGN_OR_RETURN(auto batch, BroadcastDims(abatch, bbatch));
  std::vector<int64_t> dims = batch;
  if (!a_vec) dims.push_back(m);
  if (!b_vec) dims.push_back(n);
  ONNX_LIGHT_ASSIGN_OR_RETURN(int32_t* const values, output(dims));
  int64_t total = m * n;
  for (int64_t d : batch)
    total *= d;
  // Sums over nothing are zeros, and no kernel runs (Highway aborts on a zero-byte panel).
  // Here, once, rather than in the GEMM kernels: a check in the VNNI kernel cost the
  // int8 T5 encoder 15%.
  if (k == 0 || total == 0) {
    std::fill(values, values + total, 0);
    if (epilogue != nullptr && m * n > 0) {
      for (int64_t t = 0; t < total / (m * n); ++t)
        (*epilogue)(t, 0, n);
    }
    return dims;
  }
  // a centered and widened to int16 (rows padded to an even length with a zero), b's zero
  // point one per column: the exact integer kernel (simd/qgemm_simd.h) does the rest.
  const int64_t k2 = k + (k & 1);
  const bool a_signed = a.dtype() == DataType::kInt8, b_signed = b.dtype() == DataType::kInt8;
  const auto* a8 = static_cast<const uint8_t*>(a.raw_data());
  const auto* b8 = static_cast<const uint8_t*>(b.raw_data());
  std::vector<int32_t> zcol(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    zcol[static_cast<size_t>(j)] =
        zb.empty() ? 0 : static_cast<int32_t>(zb[zb.size() == 1 ? 0 : static_cast<size_t>(j)]);
  // (symmetric weights: the packed kernel then skips the zero-point pass altogether)
  const bool zb_zero = std::all_of(zb.begin(), zb.end(), [](double z) { return z == 0; });
  // uint8 a and int8 b (dynamically quantized models) on AVX-512 VNNI CPUs take the
  // byte kernel; the others the int16 one, with a centered and widened first.
  // (uint8 b packed as int8 b - 128: the packed panels only, and the zero points moved)
  const bool shifted = !b_signed && packed != nullptr && packed->shift != 0 &&
                       packed->panels != nullptr && b.shape().rank() == 2 && packed->k == k &&
                       packed->n == n;
  const bool vnni = !a_signed && (b_signed || shifted) && HaveVnniQGemm();
  if (!vnni || b.shape().rank() != 2 || packed == nullptr || packed->panels == nullptr ||
      packed->k != k || packed->n != n) {
    packed = nullptr;
  }
  if (shifted && vnni) {
    for (int32_t& z : zcol)
      z -= packed->shift;
  }
  if (vnni || b.shape().rank() != 2 || packed16 == nullptr || packed16->bytes == nullptr ||
      packed16->k != k || packed16->n != n || packed16->b_signed != b_signed) {
    packed16 = nullptr;
  }
  std::vector<int32_t> za_rows;
  if (vnni && za.size() > 1) {
    for (double v : za)
      za_rows.push_back(static_cast<int32_t>(v));
  }
  std::vector<int16_t> ac(vnni ? 0 : static_cast<size_t>(m * k2));
  int64_t nbatch = 1;
  for (int64_t d : batch)
    nbatch *= d;
  const std::vector<int64_t> sa = BroadcastStrides(abatch, batch),
                             sb = BroadcastStrides(bbatch, batch);
  std::vector<int64_t> pos(batch.size(), 0);
  for (int64_t t = 0; t < nbatch; ++t) {
    int64_t oa = 0, ob = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      oa += pos[d] * sa[d];
      ob += pos[d] * sb[d];
    }
    const uint8_t* as = a8 + oa * m * k;
    for (int64_t i = 0; i < m && !vnni; ++i) {
      const int32_t z =
          za.empty() ? 0 : static_cast<int32_t>(za[za.size() == 1 ? 0 : static_cast<size_t>(i)]);
      int16_t* row = ac.data() + i * k2;
      const uint8_t* src = as + i * k;
      if (a_signed) {
        for (int64_t p = 0; p < k; ++p)
          row[p] = static_cast<int16_t>(static_cast<int8_t>(src[p]) - z);
      } else {
        for (int64_t p = 0; p < k; ++p)
          row[p] = static_cast<int16_t>(src[p] - z);
      }
      if (k2 > k) row[k] = 0;
    }
    int32_t* out = values + t * m * n;
    const uint8_t* bs = b8 + ob * k * n;
    // Column panels split across the pool when the product is large (~1M multiply-adds
    // per part).
    const int64_t workers = pool != nullptr ? pool->threads() : 1;
    // (or when B alone is large: a decode step's one row is bound by reading B, and both
    // cores stream it)
    const int64_t parts =
        std::max<int64_t>(1, std::min({workers, n / 64, std::max(m * n * k >> 20, k * n >> 16)}));
    auto cols = [&](int64_t q0, int64_t q1) {
      for (int64_t q = q0; q < q1; ++q) {
        const int64_t j0 = n * q / parts / 64 * 64,
                      j1 = q + 1 == parts ? n : n * (q + 1) / parts / 64 * 64;
        if (j1 <= j0) continue;
        if (vnni) {
          QGemmVnni(m, j1 - j0, k, as, k, za.empty() ? 0 : static_cast<int32_t>(za[0]),
                    za_rows.empty() ? nullptr : za_rows.data(),
                    reinterpret_cast<const int8_t*>(bs) + j0, n, zcol.data() + j0, out + j0, n,
                    packed, j0);
        } else if (packed16 != nullptr) {
          QGemmI16Packed(m, j1 - j0, ac.data(), k2, *packed16, j0,
                         zb_zero ? nullptr : zcol.data() + j0, out + j0, n);
        } else {
          QGemmI16(m, j1 - j0, k, ac.data(), k2, bs + j0, b_signed, n, zcol.data() + j0, out + j0,
                   n);
        }
        if (epilogue != nullptr) (*epilogue)(t, j0, j1);
      }
    };
    if (parts > 1) {
      pool->ParallelFor(parts, 1, cols);
    } else {
      cols(0, 1);
    }
    for (size_t d = batch.size(); d-- > 0;) {
      if (++pos[d] < batch[d]) break;
      pos[d] = 0;
    }
  }
  return dims;
}

PackedIntegerB PackConstantB(const KernelInfo& info, size_t index, DataType a_type,
                             bool transposed) {
  PackedIntegerB packed;
  const Tensor* b = info.constant_input(index);
  if (b == nullptr || b->shape().rank() != 2 ||
      (b->dtype() != DataType::kInt8 && b->dtype() != DataType::kUint8)) {
    return packed;
  }
  if (a_type == DataType::kUndefined) a_type = info.input_type(0);
  int64_t k = b->shape()[0], n = b->shape()[1];
  const auto* bytes = static_cast<const uint8_t*>(b->raw_data());
  std::vector<uint8_t> bt;
  if (transposed) {  // B^T [n x k] stored: B [k x n] rebuilt for packing
    std::swap(k, n);
    bt.resize(static_cast<size_t>(k * n));
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < k; ++c)
        bt[static_cast<size_t>(c * n + r)] = bytes[r * k + c];
    bytes = bt.data();
  }
  const bool b_signed = b->dtype() == DataType::kInt8;
  if (b_signed && a_type == DataType::kUint8 && HaveVnniQGemm()) {
    packed.vnni = QGemmVnniPackB(k, n, reinterpret_cast<const int8_t*>(bytes), n);
  } else if (a_type == DataType::kUint8 && HaveVnniQGemm()) {
    // uint8 B as int8 B - 128 (zero points moved by -128 at run time): the 8-bit kernel
    // instead of int16 panels of twice the size (a CRNN's 8 MiB classifier head: 16 MiB).
    std::vector<int8_t> shifted(static_cast<size_t>(k * n));
    for (size_t i = 0; i < shifted.size(); ++i)
      shifted[i] = static_cast<int8_t>(static_cast<int32_t>(bytes[i]) - 128);
    packed.vnni = QGemmVnniPackB(k, n, shifted.data(), n);
    packed.vnni.shift = 128;
  } else {
    packed.i16 = QGemmI16PackB(k, n, bytes, b_signed, n);
    if (packed.i16.bytes == nullptr) return packed;  // a scalar build: B read in place
  }
  ReleaseMappedPages(b->raw_data(), b->byte_size());
  return packed;
}

namespace {

// The integer-product kernels: B packed once when it is a constant (PackConstantB).
class IntegerProductKernel : public KernelBase {
 public:
  template <typename K>
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<K>();
    k->packed_ = PackConstantB(info);
    return std::unique_ptr<KernelBase>(std::move(k));
  }

 protected:
  PackedIntegerB packed_;
};

class MatMulInteger : public IntegerProductKernel {
 public:
  Status Compute(KernelContext& ctx) const override {
    auto output = [&ctx](const std::vector<int64_t>& dims) -> Result<int32_t*> {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
      return y->mutable_data<int32_t>();
    };
    return IntegerMatMul(*ctx.input(0), ctx.input(2), *ctx.input(1), ctx.input(3),
                         ctx.thread_pool(), output, &packed_.vnni, &packed_.i16)
        .status();
  }
};

// onnx_light:MatMulIntegerToFloat (made by the fuse_matmul_integer_scale pass from
// MatMulInteger -> Cast(float) -> Mul(scale)): inputs A, B, optional a_zero_point,
// optional b_zero_point, scale (float32, one value or one per column [N]); the int32
// products are written into the float output and converted there, each times its scale:
// float(product) * scale, the arithmetic of the three nodes it replaces, in one pass.
class MatMulIntegerToFloat : public IntegerProductKernel {
 public:
  Status Compute(KernelContext& ctx) const override {
    Tensor* y = nullptr;
    auto output = [&ctx, &y](const std::vector<int64_t>& dims) -> Result<int32_t*> {
      ONNX_LIGHT_ASSIGN_OR_RETURN(y, ctx.AllocateOutput(0, dims));
      return reinterpret_cast<int32_t*>(y->mutable_data<float>());
    };
    const Tensor& scale = *ctx.input(4);
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        std::vector<int64_t> dims,
        IntegerMatMul(*ctx.input(0), ctx.input(2), *ctx.input(1), ctx.input(3), ctx.thread_pool(),
                      output, &packed_.vnni, &packed_.i16));
    const int64_t n = dims.empty() ? 1 : dims.back();
    const int64_t count = scale.num_elements();
    ONNX_LIGHT_RETURN_IF(scale.shape().rank() > 1 || (count != 1 && count != n), kInvalidArgument,
                         "scale " + scale.shape().ToString() +
                             " must be one value or one per column (" + std::to_string(n) + ")");
    const int64_t rows = n == 0 ? 0 : y->num_elements() / n;
    ProductsToFloat(y->mutable_data<float>(), rows, n, scale.data<float>(), count == 1, nullptr,
                    false);
    return Status::Ok();
  }
};

// QLinearMatMul: the integer product scaled by a_scale * b_scale / y_scale (computed in
// the scales' type, float or float16, as the ONNX reference does; per-row a_scale and
// per-column b_scale allowed), plus y_zero_point, rounded half to even, saturated.
class QLinearMatMul : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QLinearMatMul>();
    k->packed_ = PackConstantB(info, 3);  // b (input 3) packed once when it is a constant
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& as_t = *ctx.input(1);
    const Tensor& b = *ctx.input(3);
    const std::vector<double> as = ToDoubles(&as_t), bs = ToDoubles(ctx.input(4)),
                              ys = ToDoubles(ctx.input(6)), yz = ToDoubles(ctx.input(7));
    const int64_t m = a.shape().rank() < 2 ? 1 : a.shape()[a.shape().rank() - 2];
    const int64_t n = b.shape().rank() < 2 ? 1 : b.shape()[b.shape().rank() - 1];
    ONNX_LIGHT_RETURN_IF(ys.size() != 1 || yz.size() > 1 ||
                             (as.size() != 1 && static_cast<int64_t>(as.size()) != m) ||
                             (bs.size() != 1 && static_cast<int64_t>(bs.size()) != n),
                         kInvalidArgument,
                         "y_scale and y_zero_point must be scalars, a_scale a scalar or [M], "
                         "b_scale a scalar or [N]");
    const DataType out_type = ctx.input(7)->dtype();
    const bool half = as_t.dtype() == DataType::kFloat16;
    auto round_scale = [&](double v) {
      return half ? static_cast<double>(static_cast<float>(float16(v)))
                  : static_cast<double>(static_cast<float>(v));
    };
    const double zero = yz.empty() ? 0.0 : yz[0];
    const bool is_signed = out_type == DataType::kInt8;
    // (The products in a temporary from the run's buffers, not a zero-filled vector: the
    // kernels write every one, as they write MatMulInteger's output.)
    Tensor products_t;
    int32_t* products = nullptr;
    uint8_t* out = nullptr;
    auto output = [&](const std::vector<int64_t>& dims) -> Result<int32_t*> {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out_type, dims));
      out = static_cast<uint8_t*>(y->mutable_raw_data());
      ONNX_LIGHT_ASSIGN_OR_RETURN(products_t, ctx.AllocateTemporary(DataType::kInt32, dims));
      products = products_t.mutable_data<int32_t>();
      return products;
    };
    // Each part of the products requantized by the thread that computed it, while it is
    // in that core's cache (a second pass split by rows read half of it from the other
    // core: at 2 threads no faster than at 1). Row by row with the part's column scales,
    // in double as the ONNX reference (simd/qlinear_simd.h).
    const IntegerEpilogueFn epilogue = [&](int64_t t, int64_t j0, int64_t j1) {
      std::vector<double> scale(static_cast<size_t>(j1 - j0));
      for (int64_t r = 0; r < m; ++r) {
        if (r == 0 || as.size() != 1) {
          for (int64_t j = j0; j < j1; ++j)
            scale[static_cast<size_t>(j - j0)] =
                round_scale(round_scale(as[as.size() == 1 ? 0 : static_cast<size_t>(r)] *
                                        bs[bs.size() == 1 ? 0 : static_cast<size_t>(j)]) /
                            ys[0]);
        }
        const int64_t at = (t * m + r) * n + j0;
        RequantizeRowF64(products + at, j1 - j0, scale.data(), zero, is_signed, out + at);
      }
    };
    return IntegerMatMul(a, ctx.input(2), b, ctx.input(5), ctx.thread_pool(), output, &packed_.vnni,
                         &packed_.i16, &epilogue)
        .status();
  }

 private:
  PackedIntegerB packed_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, MatMulInteger) {
  const std::vector<DataType> q = {DataType::kInt8, DataType::kUint8};
  return r.Register(
      Def("MatMulInteger", 10,
          {{"T1", {0, 2}, {}, q}, {"T2", {1, 3}, {}, q}, {"T3", {}, {0}, {DataType::kInt32}}},
          &IntegerProductKernel::Create<MatMulInteger>));
}
ONNX_LIGHT_REGISTER_KERNEL(onnx_light, MatMulIntegerToFloat) {
  const std::vector<DataType> q = {DataType::kInt8, DataType::kUint8};
  return r.Register(OnnxLightDef(
      "MatMulIntegerToFloat",
      {{"T1", {0, 2}, {}, q}, {"T2", {1, 3}, {}, q}, {"T", {4}, {0}, {DataType::kFloat}}},
      &IntegerProductKernel::Create<MatMulIntegerToFloat>, 5, 5, (1u << 2) | (1u << 3)));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, QLinearMatMul) {
  const std::vector<DataType> q = {DataType::kInt8, DataType::kUint8};
  return r.Register(Def("QLinearMatMul", 10,
                        {{"T1", {0, 2}, {}, q},
                         {"T2", {3, 5}, {}, q},
                         {"T3", {7}, {0}, q},
                         {"S", {1, 4, 6}, {}, {DataType::kFloat, DataType::kFloat16}}},
                        FactoryOf<QLinearMatMul>()));
}

}  // namespace onnx_light::kernels
