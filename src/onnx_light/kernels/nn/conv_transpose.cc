// ConvTranspose over N-d images ([N, C, D1, ..., Dn]): every input element scatters W's
// taps into the output. Output size stride*(in-1) + output_padding + (k-1)*dilation + 1 -
// pads, or output_shape (which then sets the pads, as the ONNX spec describes). float32
// goes through the shared matrix product (math/gemm.h), the other floats accumulate in
// double.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/window.h"
#include "math/gemm.h"
#include "nn/col2im_rows.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

// The output geometry of one run: spatial sizes, begin pads, strides and dilations, and
// for every (input position, tap) the output offset it adds into (-1 outside the output).
struct Scatter {
  std::vector<int64_t> out, pb, stride, dil;
  int64_t in_sz = 1, out_sz = 1, k_sz = 1;
  std::vector<int64_t> target;
};

class ConvTranspose : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ConvTranspose>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->attrs_, ReadWindowAttrs(info, false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->group_, info.GetInt("group", 1));
    if (info.HasAttribute("output_padding")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->output_padding_, info.GetInts("output_padding"));
    }
    if (info.HasAttribute("output_shape")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->output_shape_, info.GetInts("output_shape"));
    }
    ONNX_LIGHT_RETURN_IF(k->group_ < 1, kInvalidModel, "group must be >= 1");
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& wt = *ctx.input(1);
    const Tensor* bias = ctx.input(2);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    const int64_t batch = x.shape()[0], c_in = x.shape()[1];
    ONNX_LIGHT_RETURN_IF(
        wt.shape().rank() != x.shape().rank() || wt.shape()[0] != c_in, kInvalidArgument,
        "W " + wt.shape().ToString() + " must be [C, M/group, k...] for X " + x.shape().ToString());
    const int64_t mg = wt.shape()[1];
    int64_t m = 0;
    ONNX_LIGHT_RETURN_IF(c_in % group_ != 0 || __builtin_mul_overflow(mg, group_, &m),
                         kInvalidArgument,
                         "channels not divisible by group, or M/group times group overflows "
                         "int64");
    ONNX_LIGHT_RETURN_IF(bias != nullptr && (bias->shape().rank() != 1 || bias->shape()[0] != m),
                         kInvalidArgument, "B must be [" + std::to_string(m) + "]");
    const std::vector<int64_t> in = Spatial(x.shape()), kernel = Spatial(wt.shape());
    Scatter s;
    ONNX_LIGHT_RETURN_IF_ERROR(OutputGeometry(in, kernel, &s));
    std::vector<int64_t> dims = {batch, m};
    dims.insert(dims.end(), s.out.begin(), s.out.end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const bool rows2d = x.dtype() == DataType::kFloat && in.size() == 2;
    Targets(in, kernel, &s, /*table=*/!rows2d);
    if (x.dtype() == DataType::kFloat) {
      ComputeFloat32(ctx, x, wt, bias, s, m, y, rows2d ? &kernel : nullptr);
    } else {
      ComputeWide(x, wt, bias, s, m, y);
    }
    return Status::Ok();
  }

 private:
  // s->out, pb, stride, dil from the attributes and the spatial sizes. The geometry in 128
  // bits: strides, dilations, pads, output padding and output_shape come from the model.
  // Every value computed from them (output sizes, pads, positions up to 2 * full +
  // |target| + |pads|) must fit int64.
  Status OutputGeometry(const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                        Scatter* s) const {
    const size_t nd = in.size();
    auto get = [nd](const std::vector<int64_t>& v, size_t i, int64_t dflt) {
      return v.size() == nd ? v[i] : dflt;
    };
    s->out.assign(nd, 0);
    s->pb.assign(nd, 0);
    s->stride.assign(nd, 1);
    s->dil.assign(nd, 1);
    ONNX_LIGHT_RETURN_IF(!output_shape_.empty() && output_shape_.size() < nd, kInvalidArgument,
                         "output_shape has fewer than " + std::to_string(nd) + " spatial sizes");
    __extension__ typedef __int128 Wide;
    constexpr Wide kMax = INT64_MAX;
    auto wabs = [](Wide v) { return v < 0 ? -v : v; };
    const bool same = attrs_.auto_pad == "SAME_UPPER" || attrs_.auto_pad == "SAME_LOWER";
    for (size_t i = 0; i < nd; ++i) {
      const int64_t stride = s->stride[i] = get(attrs_.strides, i, 1);
      const int64_t dil = s->dil[i] = get(attrs_.dilations, i, 1);
      const int64_t op = get(output_padding_, i, 0);
      ONNX_LIGHT_RETURN_IF(stride < 1 || dil < 1 || op < 0, kInvalidArgument,
                           "strides and dilations must be >= 1 and output_padding >= 0");
      const Wide wide_full = Wide{stride} * (in[i] - 1) + op + Wide{kernel[i] - 1} * dil + 1;
      const Wide pads =
          attrs_.pads.size() == 2 * nd ? wabs(attrs_.pads[i]) + wabs(attrs_.pads[i + nd]) : Wide{0};
      const Wide wide_target = !output_shape_.empty()
                                   ? Wide{output_shape_[output_shape_.size() - nd + i]}
                                   : Wide{in[i]} * stride;
      ONNX_LIGHT_RETURN_IF(2 * wide_full + wabs(wide_target) + pads > kMax, kOutOfRange,
                           "the output geometry of spatial axis " + std::to_string(i) +
                               " overflows int64 (strides, dilations, pads)");
      const auto full = static_cast<int64_t>(wide_full);
      if (!output_shape_.empty() || same) {
        const int64_t target =
            !output_shape_.empty() ? output_shape_[output_shape_.size() - nd + i] : in[i] * stride;
        const int64_t total = full - target;
        // Floor division, as the spec's reference: a negative total (output_shape larger
        // than the full result) extends the end, not the start.
        const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
        s->pb[i] = attrs_.auto_pad == "SAME_UPPER" ? half : total - half;
        s->out[i] = target;
      } else {
        const int64_t b0 = attrs_.pads.size() == 2 * nd ? attrs_.pads[i] : 0;
        const int64_t e0 = attrs_.pads.size() == 2 * nd ? attrs_.pads[i + nd] : 0;
        s->pb[i] = attrs_.auto_pad == "VALID" ? 0 : b0;
        s->out[i] = full - (attrs_.auto_pad == "VALID" ? 0 : b0 + e0);
      }
      ONNX_LIGHT_RETURN_IF(s->out[i] < 0, kInvalidArgument, "negative output size");
    }
    return Status::Ok();
  }

  // The sizes, and (with `table`) for every (input position, tap): the output offset, or -1
  // outside the output.
  static void Targets(const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                      Scatter* s, bool table) {
    const size_t nd = in.size();
    for (size_t i = 0; i < nd; ++i) {
      s->in_sz *= in[i];
      s->out_sz *= s->out[i];
      s->k_sz *= kernel[i];
    }
    if (!table) return;
    s->target.assign(static_cast<size_t>(s->in_sz * s->k_sz), -1);
    std::vector<int64_t> ip(nd, 0);
    for (int64_t p = 0; p < s->in_sz; ++p) {
      std::vector<int64_t> kp(nd, 0);
      for (int64_t t = 0; t < s->k_sz; ++t) {
        int64_t off = 0;
        bool inside = true;
        for (size_t i = 0; i < nd && inside; ++i) {
          const int64_t o = ip[i] * s->stride[i] + kp[i] * s->dil[i] - s->pb[i];
          inside = o >= 0 && o < s->out[i];
          off = off * s->out[i] + o;
        }
        if (inside) s->target[static_cast<size_t>(p * s->k_sz + t)] = off;
        for (size_t i = nd; i-- > 0;) {
          if (++kp[i] < kernel[i]) break;
          kp[i] = 0;
        }
      }
      for (size_t i = nd; i-- > 0;) {
        if (++ip[i] < in[i]) break;
        ip[i] = 0;
      }
    }
  }

  // float32: per group, columns = W_g^T x X_g through the shared matrix product (each
  // column an input position, each row an (output channel, tap)), then each column added
  // into its taps' output positions (col2im), the bias first: 2-D images (`kernel2d`) row
  // by row (nn/col2im_rows.h), others through the table of targets.
  void ComputeFloat32(KernelContext& ctx, const Tensor& x, const Tensor& wt, const Tensor* bias,
                      const Scatter& s, int64_t m, Tensor* y,
                      const std::vector<int64_t>* kernel2d) const {
    const int64_t batch = x.shape()[0], c_in = x.shape()[1], mg = wt.shape()[1];
    const int64_t cg = c_in / group_, k_sz = s.k_sz, in_sz = s.in_sz;
    const auto col_size = static_cast<size_t>(mg * k_sz * in_sz);
    float* cols = ctx.Scratch(col_size);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t g = 0; g < group_; ++g) {
        const float* wg = wt.data<float>() + g * cg * mg * k_sz;
        const float* xg = x.data<float>() + (b * c_in + g * cg) * in_sz;
        Gemm2DOverwrite<float>(wg, 1, mg * k_sz, xg, in_sz, 1, cols, mg * k_sz, in_sz, cg,
                               ctx.thread_pool());
        // Each output channel's plane on its own: split between the threads (the product
        // above takes the pool too).
        auto planes = [&](int64_t mo0, int64_t mo1) {
          for (int64_t mo = mo0; mo < mo1; ++mo)
            AddColumns(cols + mo * k_sz * in_sz, bias, g * mg + mo, b, m, x, s, kernel2d, y);
        };
        ParallelElements(
            ctx.thread_pool(), mg, planes,
            std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(1, k_sz * in_sz)));
      }
    }
  }

  // Output channel oc of image b: the bias, then its columns `rows` ([k_sz, in_sz]) added in.
  static void AddColumns(const float* rows, const Tensor* bias, int64_t oc, int64_t b, int64_t m,
                         const Tensor& x, const Scatter& s, const std::vector<int64_t>* kernel2d,
                         Tensor* y) {
    const int64_t k_sz = s.k_sz, in_sz = s.in_sz, out_sz = s.out_sz;
    float* yo = y->mutable_data<float>() + (b * m + oc) * out_sz;
    std::fill(yo, yo + out_sz, bias != nullptr ? bias->data<float>()[oc] : 0.0f);
    if (kernel2d != nullptr) {
      Col2ImGeometry geo;
      geo.height = s.out[0], geo.width = s.out[1];
      geo.rows = x.shape()[2], geo.cols = x.shape()[3];
      geo.kh = (*kernel2d)[0], geo.kw = (*kernel2d)[1];
      geo.sh = s.stride[0], geo.sw = s.stride[1], geo.dh = s.dil[0], geo.dw = s.dil[1];
      geo.ph = s.pb[0], geo.pw = s.pb[1];
      AddColumnsIntoPlane2D(geo, rows, yo);
      return;
    }
    for (int64_t t = 0; t < k_sz; ++t) {
      const float* row = rows + t * in_sz;
      for (int64_t p = 0; p < in_sz; ++p) {
        const int64_t o = s.target[static_cast<size_t>(p * k_sz + t)];
        if (o >= 0) yo[o] += row[p];
      }
    }
  }

  // The other floats: each output channel accumulated in double.
  void ComputeWide(const Tensor& x, const Tensor& wt, const Tensor* bias, const Scatter& s,
                   int64_t m, Tensor* y) const {
    const int64_t batch = x.shape()[0], c_in = x.shape()[1], mg = wt.shape()[1];
    const int64_t cg = c_in / group_, k_sz = s.k_sz, in_sz = s.in_sz, out_sz = s.out_sz;
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      std::vector<double> acc(static_cast<size_t>(out_sz));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t oc = 0; oc < m; ++oc) {
          const int64_t g = oc / mg, mo = oc % mg;
          std::fill(acc.begin(), acc.end(),
                    bias != nullptr ? static_cast<double>(bias->data<T>()[oc]) : 0.0);
          for (int64_t c = 0; c < cg; ++c) {
            const int64_t ic = g * cg + c;
            const T* xc = x.data<T>() + (b * c_in + ic) * in_sz;
            const T* wc = wt.data<T>() + (ic * mg + mo) * k_sz;
            for (int64_t p = 0; p < in_sz; ++p) {
              const auto xv = static_cast<double>(xc[p]);
              const int64_t* tg = s.target.data() + p * k_sz;
              for (int64_t t = 0; t < k_sz; ++t) {
                if (tg[t] >= 0) acc[static_cast<size_t>(tg[t])] += xv * static_cast<double>(wc[t]);
              }
            }
          }
          T* yo = y->mutable_data<T>() + (b * m + oc) * out_sz;
          for (int64_t i = 0; i < out_sz; ++i)
            yo[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
        }
      }
    });
  }

  WindowAttrs attrs_;
  int64_t group_ = 1;
  std::vector<int64_t> output_padding_, output_shape_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ConvTranspose) {
  return r.Register(
      Def("ConvTranspose", 1, {{"T", {0, 1, 2}, {0}, FloatTypes()}}, FactoryOf<ConvTranspose>()));
}

}  // namespace onnx_light::kernels
