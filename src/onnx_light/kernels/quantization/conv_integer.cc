// ConvInteger, and the reference integer convolution it shares with QLinearConv's general
// path (conv_integer.h): im2col and an int32 product that wraps, as the ONNX reference.
#include "quantization/conv_integer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/window.h"
#include "math/gemm.h"
#include "quantization/qconv_2d.h"
#include "quantization/qconv_pointwise.h"
#include "simd/qgemm_simd.h"

namespace onnx_light::kernels {

// A uint8/int8 tensor's values as int32 minus a zero point: scalar, or one per `axis0`
// slice (a per-output-channel weight zero point).
namespace {

bool Is8Bit(const Tensor* t) {
  return t != nullptr && (t->dtype() == DataType::kUint8 || t->dtype() == DataType::kInt8);
}

template <typename T>
void CenterSlice(const T* v, int64_t n, int32_t zero, int32_t* out) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = static_cast<int32_t>(v[i]) - zero;
}

}  // namespace

Result<std::vector<int32_t>> Centered(const Tensor& t, const Tensor* zp, const char* what) {
  const int64_t slices = t.shape().rank() > 0 ? t.shape()[0] : 1;
  const int64_t zn = zp == nullptr ? 0 : zp->num_elements();
  if (zn > 1 && zn != slices) {
    return Status(
        StatusCode::kInvalidArgument,
        std::string(what) + " zero point must be a scalar or [" + std::to_string(slices) + "]");
  }
  // 8-bit values and zero points (the only types ConvInteger and QLinearConv register):
  // straight to int32, slice by slice.
  ONNX_LIGHT_RETURN_IF(!Is8Bit(&t) || (zp != nullptr && !Is8Bit(zp)), kInvalidArgument,
                       std::string(what) + " and its zero point must be int8 or uint8");
  {
    const int64_t n = t.num_elements();
    std::vector<int32_t> out(static_cast<size_t>(n));
    const int64_t per = slices > 0 ? n / slices : 0;
    const int64_t parts = zn > 1 ? slices : 1;
    const int64_t len = zn > 1 ? per : n;
    for (int64_t s = 0; s < parts; ++s) {
      int32_t zero = 0;
      if (zn > 0) {
        zero = zp->dtype() == DataType::kUint8 ? int32_t{zp->data<uint8_t>()[s]}
                                               : int32_t{zp->data<int8_t>()[s]};
      }
      if (t.dtype() == DataType::kUint8) {
        CenterSlice(t.data<uint8_t>() + s * len, len, zero, out.data() + s * len);
      } else {
        CenterSlice(t.data<int8_t>() + s * len, len, zero, out.data() + s * len);
      }
    }
    return out;
  }
}

namespace {}  // namespace

// The int32 convolution of centered x and w (im2col and an integer product that wraps).
// Returns the output [N, M, spatial...] values and sets *dims.
Result<std::vector<int32_t>> IntegerConv(const KernelContext& ctx, const WindowAttrs& attrs,
                                         int64_t group, const Tensor& xt,
                                         const std::vector<int32_t>& x, const Tensor& wt,
                                         const std::vector<int32_t>& wv,
                                         std::vector<int64_t>* dims) {
  ONNX_LIGHT_RETURN_IF(wt.shape().rank() != xt.shape().rank() || xt.shape().rank() < 3 || group < 1,
                       kInvalidArgument,
                       "W " + wt.shape().ToString() + " does not match X " + xt.shape().ToString() +
                           " with group " + std::to_string(group));
  const int64_t batch = xt.shape()[0], c_in = xt.shape()[1];
  const int64_t m = wt.shape()[0], cg = wt.shape()[1];
  // No cg * group: the group is the model's and may be as large as INT64_MAX.
  ONNX_LIGHT_RETURN_IF(c_in % group != 0 || c_in / group != cg || m % group != 0, kInvalidArgument,
                       "W " + wt.shape().ToString() + " does not match X " + xt.shape().ToString() +
                           " with group " + std::to_string(group));
  std::vector<int64_t> kernel = Spatial(wt.shape());
  ONNX_LIGHT_RETURN_IF(!attrs.kernel.empty() && attrs.kernel != kernel, kInvalidArgument,
                       "kernel_shape does not match W");
  ONNX_LIGHT_ASSIGN_OR_RETURN(Window w, MakeWindow(attrs, Spatial(xt.shape()), kernel));
  *dims = {batch, m};
  dims->insert(dims->end(), w.out.begin(), w.out.end());
  const int64_t in_sz = w.InCount(), out_sz = w.OutCount(), k_sz = w.KernelCount();
  const int64_t m_per_group = m / group, rows = cg * k_sz;
  // Taps and columns may dwarf the input and the output: checked against the budget
  // first. (The accumulator and the result are the output's size.)
  BudgetHold work(BudgetOf(ctx));
  ONNX_LIGHT_RETURN_IF_ERROR(HoldIm2ColMemory(w, cg, sizeof(uint32_t), &work));
  const std::vector<int64_t> taps = TapOffsets(w);
  std::vector<int32_t> out(static_cast<size_t>(batch * m * out_sz));
  // Centered 8-bit values lie within [-255, 255]: int16 operands whose pairs of products
  // sum exactly in int32 (the vector int16 product, QGemmI16Packed), the columns packed as
  // they are gathered (a 48 -> 192 3x3 layer at 16x64: 12.3 ms in the generic loop, 0.4 ms
  // here; 2-D convolutions now take the engine, qconv_2d.h, and this serves the other
  // ranks). Other values (none that Centered makes) take the loop.
  bool fits = true;
  for (int32_t v : wv)
    fits = fits && v >= -255 && v <= 255;
  for (int32_t v : x)
    fits = fits && v >= -255 && v <= 255;
  if (fits && rows > 0 && out_sz > 0) {
    const int64_t lda = rows + (rows & 1);  // an odd k's rows end with a readable 0
    std::vector<int16_t> a16(static_cast<size_t>(m * lda), 0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < rows; ++p)
        a16[static_cast<size_t>(i * lda + p)] =
            static_cast<int16_t>(wv[static_cast<size_t>(i * rows + p)]);
    std::vector<int16_t> col16(static_cast<size_t>(rows * out_sz));
    ThreadPool* pool = ctx.thread_pool();
    bool done = true;
    for (int64_t b = 0; b < batch && done; ++b) {
      for (int64_t g = 0; g < group && done; ++g) {
        const int32_t* xg = x.data() + (b * c_in + g * cg) * in_sz;
        for (int64_t c = 0; c < cg; ++c) {
          const int32_t* xc = xg + c * in_sz;
          for (int64_t t = 0; t < k_sz; ++t) {
            int16_t* row = col16.data() + (c * k_sz + t) * out_sz;
            const int64_t* off = taps.data() + t * out_sz;
            for (int64_t o = 0; o < out_sz; ++o)
              row[o] = off[o] < 0 ? int16_t{0} : static_cast<int16_t>(xc[off[o]]);
          }
        }
        const QGemmI16PackedB packed = QGemmI16PackB16(rows, out_sz, col16.data(), out_sz);
        if (packed.bytes == nullptr) {
          done = false;  // a scalar build: the loop below
          break;
        }
        // Output channels split between the pool's threads (the packed columns are shared).
        auto rows_of = [&](int64_t r0, int64_t r1) {
          QGemmI16Packed(r1 - r0, out_sz, a16.data() + (g * m_per_group + r0) * lda, lda, packed, 0,
                         nullptr, out.data() + (b * m + g * m_per_group + r0) * out_sz, out_sz);
        };
        if (pool != nullptr && pool->threads() > 1 && m_per_group * out_sz * rows >= (1 << 20)) {
          pool->ParallelFor(m_per_group, 4, rows_of);
        } else {
          rows_of(0, m_per_group);
        }
      }
    }
    if (done) return out;
  }
  std::vector<uint32_t> col(static_cast<size_t>(rows * out_sz));
  std::vector<uint32_t> wu(wv.begin(), wv.end());
  std::vector<uint32_t> acc(static_cast<size_t>(m_per_group * out_sz));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t g = 0; g < group; ++g) {
      for (int64_t c = 0; c < cg; ++c) {
        const int32_t* xc = x.data() + (b * c_in + g * cg + c) * in_sz;
        for (int64_t t = 0; t < k_sz; ++t) {
          uint32_t* row = col.data() + (c * k_sz + t) * out_sz;
          const int64_t* off = taps.data() + t * out_sz;
          for (int64_t o = 0; o < out_sz; ++o)
            row[o] = off[o] < 0 ? 0u : static_cast<uint32_t>(xc[off[o]]);
        }
      }
      std::fill(acc.begin(), acc.end(), 0u);
      Gemm2DLoop<uint32_t>(wu.data() + g * m_per_group * rows, rows, 1, col.data(), out_sz, 1,
                           acc.data(), m_per_group, out_sz, rows);
      int32_t* yg = out.data() + (b * m + g * m_per_group) * out_sz;
      for (size_t i = 0; i < acc.size(); ++i)
        yg[i] = static_cast<int32_t>(acc[i]);
    }
  }
  return out;
}

namespace {

// ConvInteger: int32 convolution of (x - x_zero_point) and (w - w_zero_point). Constant
// 1x1 layers with unit strides and no pads run as one product per image
// (qconv_pointwise.h); other 2-D convolutions take the engine QLinearConv runs
// (qconv_2d.h: W packed once, windows read in place, Winograd for 3x3, VNNI), the sums
// stored as they are; other ranks the reference path above.
class ConvInteger : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ConvInteger>();
    ONNX_LIGHT_RETURN_IF_ERROR(ReadConvAttrs(info, &k->attrs_, &k->group_));
    if (!k->PreparePointwise(info)) {
      k->weights_ = PrepareQConvWeights(info, 1, 3, k->attrs_, k->group_);
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& wt = *ctx.input(1);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    const Tensor* xz = ctx.input(2);
    ONNX_LIGHT_RETURN_IF(xz != nullptr && xz->num_elements() != 1, kInvalidArgument,
                         "x_zero_point must be a scalar");
    const Tensor* wz = ctx.input(3);
    const int64_t m = wt.shape().rank() > 0 ? wt.shape()[0] : 0;
    if (pointwise_.m > 0 && x.shape().rank() == 4 && x.shape()[1] == pointwise_.k) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(
          Tensor * y, ctx.AllocateOutput(0, {x.shape()[0], m, x.shape()[2], x.shape()[3]}));
      PointwiseQConv(pointwise_, x, QZeroPointAt(xz, 0), y->mutable_data<int32_t>(),
                     ctx.thread_pool());
      return Status::Ok();
    }
    if (QConv2DWeightsFit(wt, attrs_, group_) && x.shape().rank() == 4 &&
        (wz == nullptr || wz->num_elements() == 1 || wz->num_elements() == m)) {
      // acc [n pixels x m channels] into Y [N, M, OH, OW]: each channel's run of pixels.
      return QConv2D(ctx, {x, wt, xz, wz, attrs_, group_, false, weights_, DataType::kInt32},
                     [](const int32_t* acc, int64_t n, int64_t mm, int64_t b, int64_t p0,
                        int64_t plane, Tensor* y, std::vector<uint8_t>*) {
                       int32_t* yb = y->mutable_data<int32_t>() + b * mm * plane + p0;
                       for (int64_t c = 0; c < mm; ++c) {
                         int32_t* __restrict out = yb + c * plane;
                         const int32_t* __restrict in = acc + c;
                         for (int64_t p = 0; p < n; ++p)
                           out[p] = in[p * mm];
                       }
                     });
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto xv, Centered(x, xz, "x"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto wv, Centered(wt, wz, "w"));
    std::vector<int64_t> dims;
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto out, IntegerConv(ctx, attrs_, group_, x, xv, wt, wv, &dims));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    if (!out.empty()) std::memcpy(y->mutable_data<int32_t>(), out.data(), out.size() * 4);
    return Status::Ok();
  }

 private:
  // A constant 1x1 W with unit strides, no pads, one group, and a known zero point (a
  // constant of a valid shape, or none): the pointwise product (qconv_pointwise.h).
  bool PreparePointwise(const KernelInfo& info) {
    const Tensor* w = info.constant_input(1);
    if (w == nullptr || group_ != 1 || !QConv2DWeightsFit(*w, attrs_, 1) || w->shape()[2] != 1 ||
        w->shape()[3] != 1) {
      return false;
    }
    auto ones = [](const std::vector<int64_t>& v) {
      return std::all_of(v.begin(), v.end(), [](int64_t d) { return d == 1; });
    };
    auto zeros = [](const std::vector<int64_t>& v) {
      return std::all_of(v.begin(), v.end(), [](int64_t d) { return d == 0; });
    };
    if (!ones(attrs_.strides) || !zeros(attrs_.pads)) return false;
    const bool has_wz = info.input_count() > 3 && info.input_type(3) != DataType::kUndefined;
    const Tensor* wz = has_wz ? info.constant_input(3) : nullptr;
    if (has_wz &&
        (wz == nullptr || (wz->num_elements() != 1 && wz->num_elements() != w->shape()[0])))
      return false;
    pointwise_ = MakePointwiseQWeights(*w, wz);
    return true;
  }

  WindowAttrs attrs_;
  int64_t group_ = 1;
  QConvWeights weights_;         // packed once when W is a constant
  PointwiseQWeights pointwise_;  // or made once for the pointwise product
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ConvInteger) {
  const std::vector<DataType> q = {DataType::kInt8, DataType::kUint8};
  return r.Register(
      Def("ConvInteger", 10,
          {{"T1", {0, 2}, {}, q}, {"T2", {1, 3}, {}, q}, {"T3", {}, {0}, {DataType::kInt32}}},
          FactoryOf<ConvInteger>()));
}
}  // namespace onnx_light::kernels
