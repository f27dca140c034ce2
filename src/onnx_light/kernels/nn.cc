// Convolution, pooling and normalization over N-d images ([N, C, D1, ..., Dn]): Conv,
// ConvTranspose,
// MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, BatchNormalization (inference),
// InstanceNormalization, LayerNormalization, RMSNormalization.
//
// Pools and normalizations accumulate in double and round once to the storage type. Conv
// is im2col followed by the shared matrix-product loop (gemm.h), accumulating in float
// (double for float64) as ONNX Runtime does; its speed against ORT is in
// docs/performance.md.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "broadcast.h"
#include "gemm.h"
#include "kernel_util.h"

namespace onnx_light::kernels {
namespace {

// The sliding-window geometry shared by Conv and the pools.
struct Window {
  std::vector<int64_t> in, kernel, strides, dilations, pad_begin, pad_end, out;
  int64_t OutCount() const {
    int64_t n = 1;
    for (int64_t d : out)
      n *= d;
    return n;
  }
  int64_t InCount() const {
    int64_t n = 1;
    for (int64_t d : in)
      n *= d;
    return n;
  }
  int64_t KernelCount() const {
    int64_t n = 1;
    for (int64_t d : kernel)
      n *= d;
    return n;
  }
};

struct WindowAttrs {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel, strides, dilations, pads;
  bool ceil_mode = false;
};

Result<WindowAttrs> ReadWindowAttrs(const KernelInfo& info, bool kernel_required) {
  WindowAttrs w;
  ONNX_LIGHT_ASSIGN_OR_RETURN(w.auto_pad, info.GetString("auto_pad", "NOTSET"));
  if (w.auto_pad != "NOTSET" && w.auto_pad != "VALID" && w.auto_pad != "SAME_UPPER" &&
      w.auto_pad != "SAME_LOWER") {
    return Status(StatusCode::kInvalidModel,
                  info.Describe() + ": unknown auto_pad '" + w.auto_pad + "'");
  }
  if (kernel_required || info.HasAttribute("kernel_shape")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(w.kernel, info.GetInts("kernel_shape"));
  }
  if (info.HasAttribute("strides")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(w.strides, info.GetInts("strides"));
  }
  if (info.HasAttribute("dilations")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(w.dilations, info.GetInts("dilations"));
  }
  if (info.HasAttribute("pads")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(w.pads, info.GetInts("pads"));
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ceil_mode, info.GetInt("ceil_mode", 0));
  w.ceil_mode = ceil_mode != 0;
  return w;
}

// Conv, ConvInteger and QLinearConv: the window attributes and `group` (>= 1).
Status ReadConvAttrs(const KernelInfo& info, WindowAttrs* attrs, int64_t* group) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(*attrs, ReadWindowAttrs(info, false));
  ONNX_LIGHT_ASSIGN_OR_RETURN(*group, info.GetInt("group", 1));
  if (*group < 1)
    return Status(StatusCode::kInvalidModel, info.Describe() + ": group must be >= 1");
  return Status::Ok();
}

// Output dims and effective pads for spatial input dims `in`.
Result<Window> MakeWindow(const WindowAttrs& a, std::vector<int64_t> in,
                          std::vector<int64_t> kernel, const KernelInfo& info) {
  const size_t n = in.size();
  Window w;
  w.in = std::move(in);
  w.kernel = std::move(kernel);
  // (assign() rather than a conditional expression: GCC 12 warns falsely on the latter)
  if (a.strides.empty()) {
    w.strides.assign(n, 1);
  } else {
    w.strides = a.strides;
  }
  if (a.dilations.empty()) {
    w.dilations.assign(n, 1);
  } else {
    w.dilations = a.dilations;
  }
  if (w.kernel.size() != n || w.strides.size() != n || w.dilations.size() != n ||
      (!a.pads.empty() && a.pads.size() != 2 * n)) {
    return Status(StatusCode::kInvalidArgument,
                  info.Describe() + ": kernel_shape, strides, dilations or pads do not match " +
                      std::to_string(n) + " spatial dims");
  }
  w.pad_begin.assign(n, 0);
  w.pad_end.assign(n, 0);
  w.out.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t k = w.kernel[i], s = w.strides[i], d = w.dilations[i];
    if (k < 1 || s < 1 || d < 1) {
      return Status(StatusCode::kInvalidArgument,
                    info.Describe() + ": kernel, stride and dilation must be >= 1");
    }
    const int64_t span = (k - 1) * d + 1;
    if (a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER") {
      w.out[i] = (w.in[i] + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (w.out[i] - 1) * s + span - w.in[i]);
      w.pad_begin[i] = a.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[i] = total - w.pad_begin[i];
    } else {
      if (a.auto_pad == "NOTSET" && !a.pads.empty()) {
        w.pad_begin[i] = a.pads[i];
        w.pad_end[i] = a.pads[i + n];
      }
      const int64_t room = w.in[i] + w.pad_begin[i] + w.pad_end[i] - span;
      if (room < 0) {
        return Status(StatusCode::kInvalidArgument,
                      info.Describe() + ": the window is larger than the padded input");
      }
      w.out[i] = (a.ceil_mode ? (room + s - 1) / s : room / s) + 1;
      // With ceil_mode the last window must start inside the input or the begin pad.
      if (a.ceil_mode && (w.out[i] - 1) * s >= w.in[i] + w.pad_begin[i]) --w.out[i];
    }
  }
  return w;
}

// Calls fn(out_index, in_positions_start) for each output position: the window's first
// input coordinate per spatial dim (may be negative inside the begin pad).
template <typename Fn>
void ForEachOutput(const Window& w, Fn fn) {
  const size_t n = w.out.size();
  std::vector<int64_t> pos(n, 0), start(n);
  for (int64_t o = 0; o < w.OutCount(); ++o) {
    for (size_t i = 0; i < n; ++i)
      start[i] = pos[i] * w.strides[i] - w.pad_begin[i];
    fn(o, start);
    for (size_t i = n; i-- > 0;) {
      if (++pos[i] < w.out[i]) break;
      pos[i] = 0;
    }
  }
}

// Calls fn(kernel_index, in_offset) for each window tap inside the input.
template <typename Fn>
void ForEachTap(const Window& w, const std::vector<int64_t>& start, Fn fn) {
  const size_t n = w.kernel.size();
  std::vector<int64_t> k(n, 0);
  for (int64_t t = 0; t < w.KernelCount(); ++t) {
    int64_t off = 0;
    bool inside = true;
    for (size_t i = 0; i < n && inside; ++i) {
      const int64_t p = start[i] + k[i] * w.dilations[i];
      inside = p >= 0 && p < w.in[i];
      off = off * w.in[i] + p;
    }
    if (inside) fn(t, off);
    for (size_t i = n; i-- > 0;) {
      if (++k[i] < w.kernel[i]) break;
      k[i] = 0;
    }
  }
}

// im2col offsets: [tap][output position] -> the input offset within one channel, or -1
// where the tap falls in the padding.
std::vector<int64_t> TapOffsets(const Window& w) {
  const int64_t k_sz = w.KernelCount(), out_sz = w.OutCount();
  std::vector<int64_t> tap_offset(static_cast<size_t>(k_sz * out_sz), -1);
  ForEachOutput(w, [&](int64_t o, const std::vector<int64_t>& start) {
    ForEachTap(w, start, [&](int64_t t, int64_t off) {
      tap_offset[static_cast<size_t>(t * out_sz + o)] = off;
    });
  });
  return tap_offset;
}

std::vector<int64_t> Spatial(const Shape& s) {
  return std::vector<int64_t>(s.dims().begin() + 2, s.dims().end());
}

Status NeedRank3(const Tensor& x, const KernelInfo& info) {
  if (x.shape().rank() < 3) {
    return Status(StatusCode::kInvalidArgument,
                  info.Describe() + ": input must be [N, C, D1, ...], got " + x.shape().ToString());
  }
  return Status::Ok();
}

// ---- Conv -----------------------------------------------------------------------------

// Conv's per-frame state: im2col offsets for the last input shape, and the float column
// buffer reused between runs (no fresh pages per call).
struct ConvState : KernelState {
  std::vector<int64_t> taps, taps_for;
  std::vector<float> col;
};

class Conv : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Conv>();
    ONNX_LIGHT_RETURN_IF_ERROR(ReadConvAttrs(info, &k->attrs_, &k->group_));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& wt = *ctx.input(1);
    const Tensor* bias = ctx.input(2);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x, ctx.info()));
    const int64_t batch = x.shape()[0], c_in = x.shape()[1];
    if (wt.shape().rank() != x.shape().rank()) {
      return Status(
          StatusCode::kInvalidArgument,
          ctx.info().Describe() + ": W " + wt.shape().ToString() + " must have the rank of X");
    }
    const int64_t m = wt.shape()[0], cg = wt.shape()[1];
    if (c_in != cg * group_ || m % group_ != 0) {
      return Status(StatusCode::kInvalidArgument, ctx.info().Describe() + ": X has " +
                                                      std::to_string(c_in) + " channels, W " +
                                                      wt.shape().ToString() + " with group " +
                                                      std::to_string(group_) + " does not match");
    }
    if (bias != nullptr && (bias->shape().rank() != 1 || bias->shape()[0] != m)) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": B must be [" + std::to_string(m) + "]");
    }
    std::vector<int64_t> kernel = Spatial(wt.shape());
    if (!attrs_.kernel.empty() && attrs_.kernel != kernel) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": kernel_shape does not match W");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Window w,
                                MakeWindow(attrs_, Spatial(x.shape()), kernel, ctx.info()));
    std::vector<int64_t> dims = {batch, m};
    dims.insert(dims.end(), w.out.begin(), w.out.end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const int64_t in_sz = w.InCount(), out_sz = w.OutCount(), k_sz = w.KernelCount();
    const int64_t m_per_group = m / group_, rows = cg * k_sz;
    // The im2col offsets depend only on the input's spatial shape: kept in the frame's
    // state for this node while the shape repeats.
    ConvState& state = ctx.State<ConvState>();
    if (state.taps_for != w.in) {
      state.taps = TapOffsets(w);
      state.taps_for = w.in;
    }
    const std::vector<int64_t>& tap_offset = state.taps;
    // A 1x1 window that visits every input position in order needs no im2col: the input
    // channels are the columns already.
    bool direct = in_sz == out_sz;
    for (int64_t o = 0; direct && o < out_sz; ++o)
      direct = tap_offset[static_cast<size_t>(o)] == o;
    direct = direct && k_sz == 1;
    ThreadPool* pool = ctx.thread_pool();
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = typename ComputeType<T>::type;  // float for 16-bit, as ORT accumulates
      constexpr bool kSame = std::is_same_v<C, T>;
      const T* xp = x.data<T>();
      T* yp = y->mutable_data<T>();
      std::vector<C> wc(kSame ? 0 : static_cast<size_t>(wt.num_elements()));
      for (size_t i = 0; i < wc.size(); ++i)
        wc[i] = static_cast<C>(wt.data<T>()[i]);
      const C* wp;
      if constexpr (kSame) {
        wp = wt.data<T>();
      } else {
        wp = wc.data();
      }
      // The column buffer is reused between runs (float): no fresh pages per call.
      std::vector<C> local_col;
      std::vector<C>* col_store = &local_col;
      if constexpr (std::is_same_v<C, float>) col_store = &state.col;
      col_store->resize(kSame && direct ? 0 : static_cast<size_t>(rows * out_sz));
      C* const col = col_store->data();
      const int64_t* const taps = tap_offset.data();
      const int64_t groups = group_;
      std::vector<C> acc(kSame ? 0 : static_cast<size_t>(m_per_group * out_sz));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t g = 0; g < groups; ++g) {
          const T* xg = xp + (b * c_in + g * cg) * in_sz;
          const C* cols = nullptr;
          if constexpr (kSame) {
            if (direct) cols = xg;
          }
          if (cols == nullptr) {
            for (int64_t c = 0; c < cg; ++c) {
              const T* xc = xg + c * in_sz;
              for (int64_t t = 0; t < k_sz; ++t) {
                C* row = col + (c * k_sz + t) * out_sz;
                const int64_t* off = taps + t * out_sz;
                for (int64_t o = 0; o < out_sz; ++o)
                  row[o] = off[o] < 0 ? C(0) : static_cast<C>(xc[off[o]]);
              }
            }
            cols = col;
          }
          T* yg = yp + (b * m + g * m_per_group) * out_sz;
          C* dst;
          if constexpr (kSame) {
            dst = yg;
          } else {
            dst = acc.data();
          }
          for (int64_t oc = 0; oc < m_per_group; ++oc) {
            const C bv =
                bias != nullptr ? static_cast<C>(bias->data<T>()[g * m_per_group + oc]) : C(0);
            std::fill(dst + oc * out_sz, dst + (oc + 1) * out_sz, bv);
          }
          Gemm2D<C>(wp + g * m_per_group * rows, rows, 1, cols, out_sz, 1, dst, m_per_group, out_sz,
                    rows, pool);
          if constexpr (!kSame) {
            for (size_t i = 0; i < acc.size(); ++i)
              yg[i] = static_cast<T>(acc[i]);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
};

// ConvTranspose: every input element scatters W's taps into the output. Output size
// stride*(in-1) + output_padding + (k-1)*dilation + 1 - pads, or output_shape (which then
// sets the pads, as the ONNX spec describes).
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
    if (k->group_ < 1) {
      return Status(StatusCode::kInvalidModel, info.Describe() + ": group must be >= 1");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& wt = *ctx.input(1);
    const Tensor* bias = ctx.input(2);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x, ctx.info()));
    const size_t nd = x.shape().rank() - 2;
    const int64_t batch = x.shape()[0], c_in = x.shape()[1];
    if (wt.shape().rank() != x.shape().rank() || wt.shape()[0] != c_in) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": W " + wt.shape().ToString() +
                        " must be [C, M/group, k...] for X " + x.shape().ToString());
    }
    const int64_t mg = wt.shape()[1], m = mg * group_, cg = c_in / group_;
    if (c_in % group_ != 0) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": channels not divisible by group");
    }
    if (bias != nullptr && (bias->shape().rank() != 1 || bias->shape()[0] != m)) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": B must be [" + std::to_string(m) + "]");
    }
    const std::vector<int64_t> in = Spatial(x.shape()), kernel = Spatial(wt.shape());
    auto get = [nd](const std::vector<int64_t>& v, size_t i, int64_t dflt) {
      return v.size() == nd ? v[i] : dflt;
    };
    std::vector<int64_t> out(nd), pb(nd), stride(nd), dil(nd);
    for (size_t i = 0; i < nd; ++i) {
      stride[i] = get(attrs_.strides, i, 1);
      dil[i] = get(attrs_.dilations, i, 1);
      const int64_t full =
          stride[i] * (in[i] - 1) + get(output_padding_, i, 0) + (kernel[i] - 1) * dil[i] + 1;
      const bool same = attrs_.auto_pad == "SAME_UPPER" || attrs_.auto_pad == "SAME_LOWER";
      if (!output_shape_.empty() || same) {
        const int64_t target = !output_shape_.empty() ? output_shape_[output_shape_.size() - nd + i]
                                                      : in[i] * stride[i];
        const int64_t total = full - target;
        // Floor division, as the spec's reference: a negative total (output_shape larger
        // than the full result) extends the end, not the start.
        const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
        pb[i] = attrs_.auto_pad == "SAME_UPPER" ? half : total - half;
        out[i] = target;
      } else {
        const int64_t b0 = attrs_.pads.size() == 2 * nd ? attrs_.pads[i] : 0;
        const int64_t e0 = attrs_.pads.size() == 2 * nd ? attrs_.pads[i + nd] : 0;
        pb[i] = attrs_.auto_pad == "VALID" ? 0 : b0;
        out[i] = full - (attrs_.auto_pad == "VALID" ? 0 : b0 + e0);
      }
      if (out[i] < 0) {
        return Status(StatusCode::kInvalidArgument,
                      ctx.info().Describe() + ": negative output size");
      }
    }
    std::vector<int64_t> dims = {batch, m};
    dims.insert(dims.end(), out.begin(), out.end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    int64_t in_sz = 1, out_sz = 1, k_sz = 1;
    for (size_t i = 0; i < nd; ++i) {
      in_sz *= in[i];
      out_sz *= out[i];
      k_sz *= kernel[i];
    }
    // For every (input position, tap): the output offset, or -1 outside the output.
    std::vector<int64_t> target(static_cast<size_t>(in_sz * k_sz), -1);
    std::vector<int64_t> ip(nd, 0);
    for (int64_t p = 0; p < in_sz; ++p) {
      std::vector<int64_t> kp(nd, 0);
      for (int64_t t = 0; t < k_sz; ++t) {
        int64_t off = 0;
        bool inside = true;
        for (size_t i = 0; i < nd && inside; ++i) {
          const int64_t o = ip[i] * stride[i] + kp[i] * dil[i] - pb[i];
          inside = o >= 0 && o < out[i];
          off = off * out[i] + o;
        }
        if (inside) target[static_cast<size_t>(p * k_sz + t)] = off;
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
              const int64_t* tg = target.data() + p * k_sz;
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
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
  std::vector<int64_t> output_padding_, output_shape_;
};

// ---- Col2Im ----------------------------------------------------------------------------

// Col2Im (opset 18): the adjoint of im2col. Input [N, C * prod(block), L] holds, for every
// block position, the block's values; they are summed back into an image [N, C, image...]
// (overlaps add). The geometry is Conv's window with the block as the kernel.
class Col2Im : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Col2Im>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->attrs_, ReadWindowAttrs(info, false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::string where = ctx.info().Describe();
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> image,
                                Int64Values(ctx.input(1), ctx.info(), "image_shape"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> block,
                                Int64Values(ctx.input(2), ctx.info(), "block_shape"));
    if (x.shape().rank() != 3 || image.size() != block.size() || image.empty()) {
      return Status(StatusCode::kInvalidArgument,
                    where +
                        ": input must be [N, C * prod(block), L] and image_shape and "
                        "block_shape of one length");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Window w, MakeWindow(attrs_, image, block, ctx.info()));
    const int64_t k_sz = w.KernelCount(), blocks = w.OutCount(), in_sz = w.InCount();
    const int64_t batch = x.shape()[0];
    if (k_sz == 0 || x.shape()[1] % k_sz != 0 || x.shape()[2] != blocks) {
      return Status(StatusCode::kInvalidArgument, where + ": input " + x.shape().ToString() +
                                                      " does not hold " + std::to_string(blocks) +
                                                      " blocks of " + std::to_string(k_sz) +
                                                      " values per channel");
    }
    const int64_t channels = x.shape()[1] / k_sz;
    std::vector<int64_t> dims = {batch, channels};
    dims.insert(dims.end(), image.begin(), image.end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const std::vector<int64_t> taps = TapOffsets(w);
    const std::vector<double> xv = ToDoubles(&x);
    std::vector<double> acc(static_cast<size_t>(batch * channels * in_sz), 0.0);
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        double* img = acc.data() + (n * channels + c) * in_sz;
        for (int64_t t = 0; t < k_sz; ++t) {
          const double* row = xv.data() + ((n * channels + c) * k_sz + t) * blocks;
          const int64_t* off = taps.data() + t * blocks;
          for (int64_t o = 0; o < blocks; ++o)
            if (off[o] >= 0) img[off[o]] += row[o];
        }
      }
    }
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      for (size_t i = 0; i < acc.size(); ++i)
        y->mutable_data<T>()[i] = static_cast<T>(acc[i]);
    });
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
};

// ---- Integer convolution: ConvInteger, QLinearConv ---------------------------------------

// A uint8/int8 tensor's values as int32 minus a zero point: scalar, or one per `axis0`
// slice (a per-output-channel weight zero point).
Result<std::vector<int32_t>> Centered(const Tensor& t, const Tensor* zp, const char* what,
                                      const KernelInfo& info) {
  const std::vector<double> v = ToDoubles(&t), z = ToDoubles(zp);
  std::vector<int32_t> out(v.size());
  const int64_t slices = t.shape().rank() > 0 ? t.shape()[0] : 1;
  if (!z.empty() && z.size() != 1 && static_cast<int64_t>(z.size()) != slices) {
    return Status(StatusCode::kInvalidArgument, info.Describe() + ": " + what +
                                                    " zero point must be a scalar or [" +
                                                    std::to_string(slices) + "]");
  }
  const int64_t per = slices > 0 ? static_cast<int64_t>(v.size()) / slices : 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double zero = z.empty() ? 0.0 : (z.size() == 1 ? z[0] : z[i / static_cast<size_t>(per)]);
    out[i] = static_cast<int32_t>(v[i] - zero);
  }
  return out;
}

// The int32 convolution of centered x and w (im2col and an integer product that wraps).
// Returns the output [N, M, spatial...] values and sets *dims.
Result<std::vector<int32_t>> IntegerConv(const KernelInfo& info, const WindowAttrs& attrs,
                                         int64_t group, const Tensor& xt,
                                         const std::vector<int32_t>& x, const Tensor& wt,
                                         const std::vector<int32_t>& wv,
                                         std::vector<int64_t>* dims) {
  if (wt.shape().rank() != xt.shape().rank() || xt.shape().rank() < 3 || group < 1) {
    return Status(StatusCode::kInvalidArgument, info.Describe() + ": W " + wt.shape().ToString() +
                                                    " does not match X " + xt.shape().ToString() +
                                                    " with group " + std::to_string(group));
  }
  const int64_t batch = xt.shape()[0], c_in = xt.shape()[1];
  const int64_t m = wt.shape()[0], cg = wt.shape()[1];
  if (c_in != cg * group || m % group != 0) {
    return Status(StatusCode::kInvalidArgument, info.Describe() + ": W " + wt.shape().ToString() +
                                                    " does not match X " + xt.shape().ToString() +
                                                    " with group " + std::to_string(group));
  }
  std::vector<int64_t> kernel = Spatial(wt.shape());
  if (!attrs.kernel.empty() && attrs.kernel != kernel) {
    return Status(StatusCode::kInvalidArgument,
                  info.Describe() + ": kernel_shape does not match W");
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(Window w, MakeWindow(attrs, Spatial(xt.shape()), kernel, info));
  *dims = {batch, m};
  dims->insert(dims->end(), w.out.begin(), w.out.end());
  const int64_t in_sz = w.InCount(), out_sz = w.OutCount(), k_sz = w.KernelCount();
  const int64_t m_per_group = m / group, rows = cg * k_sz;
  const std::vector<int64_t> taps = TapOffsets(w);
  std::vector<uint32_t> col(static_cast<size_t>(rows * out_sz));
  std::vector<uint32_t> wu(wv.begin(), wv.end());
  std::vector<uint32_t> acc(static_cast<size_t>(m_per_group * out_sz));
  std::vector<int32_t> out(static_cast<size_t>(batch * m * out_sz));
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

// ConvInteger: int32 convolution of (x - x_zero_point) and (w - w_zero_point).
class ConvInteger : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ConvInteger>();
    ONNX_LIGHT_RETURN_IF_ERROR(ReadConvAttrs(info, &k->attrs_, &k->group_));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& wt = *ctx.input(1);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x, ctx.info()));
    const Tensor* xz = ctx.input(2);
    if (xz != nullptr && xz->num_elements() != 1) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": x_zero_point must be a scalar");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto xv, Centered(x, xz, "x", ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto wv, Centered(wt, ctx.input(3), "w", ctx.info()));
    std::vector<int64_t> dims;
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto out,
                                IntegerConv(ctx.info(), attrs_, group_, x, xv, wt, wv, &dims));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    if (!out.empty()) std::memcpy(y->mutable_data<int32_t>(), out.data(), out.size() * 4);
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
};

// QLinearConv: the integer convolution plus the int32 bias, scaled by
// x_scale * w_scale / y_scale (w_scale per tensor or per output channel, in float as the
// ONNX reference computes it), then y_zero_point added, rounded half to even, saturated.
class QLinearConv : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QLinearConv>();
    ONNX_LIGHT_RETURN_IF_ERROR(ReadConvAttrs(info, &k->attrs_, &k->group_));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& wt = *ctx.input(3);
    const std::string where = ctx.info().Describe();
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x, ctx.info()));
    const std::vector<double> xs = ToDoubles(ctx.input(1)), ws = ToDoubles(ctx.input(4)),
                              ys = ToDoubles(ctx.input(6));
    const int64_t m = wt.shape().rank() > 0 ? wt.shape()[0] : 0;
    if (xs.size() != 1 || ys.size() != 1 ||
        (ws.size() != 1 && static_cast<int64_t>(ws.size()) != m)) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": x_scale and y_scale must be scalars, w_scale a scalar or [" +
                        std::to_string(m) + "]");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto xv, Centered(x, ctx.input(2), "x", ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto wv, Centered(wt, ctx.input(5), "w", ctx.info()));
    std::vector<int64_t> dims;
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto acc,
                                IntegerConv(ctx.info(), attrs_, group_, x, xv, wt, wv, &dims));
    const Tensor* bias = ctx.input(8);
    if (bias != nullptr && (bias->num_elements() != m || bias->dtype() != DataType::kInt32)) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": B must be int32 [" + std::to_string(m) + "]");
    }
    const Tensor* yz = ctx.input(7);
    const DataType out_type = yz != nullptr ? yz->dtype() : x.dtype();
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out_type, dims));
    const double zero = yz != nullptr ? ToDoubles(yz)[0] : 0.0;
    const double lo = out_type == DataType::kInt8 ? -128.0 : 0.0;
    const double hi = out_type == DataType::kInt8 ? 127.0 : 255.0;
    const int64_t per_channel =
        dims[0] == 0 || m == 0 ? 0 : static_cast<int64_t>(acc.size()) / (dims[0] * m);
    for (size_t i = 0; i < acc.size(); ++i) {
      const int64_t c = per_channel == 0 ? 0 : (static_cast<int64_t>(i) / per_channel) % m;
      double v = acc[i] + (bias != nullptr ? bias->data<int32_t>()[c] : 0);
      const auto scale = static_cast<float>(
          static_cast<float>(xs[0]) *
          static_cast<float>(ws.size() == 1 ? ws[0] : ws[static_cast<size_t>(c)]) /
          static_cast<float>(ys[0]));
      v = v * static_cast<double>(scale) + zero;
      v = std::nearbyint(std::fmin(std::fmax(v, lo), hi));
      if (out_type == DataType::kInt8) {
        y->mutable_data<int8_t>()[i] = static_cast<int8_t>(v);
      } else {
        y->mutable_data<uint8_t>()[i] = static_cast<uint8_t>(v);
      }
    }
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
};

// ---- Pools ----------------------------------------------------------------------------

enum class PoolKind { kMax, kAverage, kLp };

// MaxPool (with Indices, storage_order 0 or 1), AveragePool (count_include_pad) and
// LpPool ((sum |x|^p)^(1/p) over the taps inside the input; padding adds nothing).
template <PoolKind kKind>
class Pool : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Pool>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->attrs_, ReadWindowAttrs(info, true));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->count_include_pad_, GetFlag(info, "count_include_pad", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->column_major_, GetFlag(info, "storage_order", false));
    if (kKind == PoolKind::kLp) {
      double p = 2;
      if (info.opset() < 2) {  // LpPool-1 had a FLOAT p
        ONNX_LIGHT_ASSIGN_OR_RETURN(float pf, info.GetFloat("p", 2.0f));
        p = pf;
      } else {
        ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t pi, info.GetInt("p", 2));
        p = static_cast<double>(pi);
      }
      if (!(p >= 1)) {
        return Status(StatusCode::kInvalidModel,
                      info.Describe() + ": p must be >= 1, got " + std::to_string(p));
      }
      k->p_ = p;
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    constexpr bool kMax = kKind == PoolKind::kMax;
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x, ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Window w,
                                MakeWindow(attrs_, Spatial(x.shape()), attrs_.kernel, ctx.info()));
    const int64_t nc = x.shape()[0] * x.shape()[1];
    std::vector<int64_t> dims = {x.shape()[0], x.shape()[1]};
    dims.insert(dims.end(), w.out.begin(), w.out.end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    int64_t* indices = nullptr;
    if (kMax && ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * ind, ctx.AllocateOutput(1, DataType::kInt64, dims));
      indices = ind->mutable_data<int64_t>();
    }
    const int64_t in_sz = w.InCount(), out_sz = w.OutCount();
    if (kKind != PoolKind::kLp && w.in.size() == 2 && x.dtype() == DataType::kFloat) {
      Pool2D(w, x.data<float>(), y->mutable_data<float>(), indices, nc);
      return Status::Ok();
    }
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* xp = x.data<T>();
        T* yp = y->mutable_data<T>();
        for (int64_t p = 0; p < nc; ++p) {
          const T* xc = xp + p * in_sz;
          ForEachOutput(w, [&](int64_t o, const std::vector<int64_t>& start) {
            if constexpr (kMax) {
              double best = -std::numeric_limits<double>::infinity();
              int64_t arg = -1;
              ForEachTap(w, start, [&](int64_t, int64_t off) {
                const auto v = static_cast<double>(xc[off]);
                if (arg < 0 || v > best) {
                  best = v;
                  arg = off;
                }
              });
              yp[p * out_sz + o] = arg < 0 ? static_cast<T>(0.0f) : xc[arg];
              if (indices != nullptr) {
                const int64_t at = std::max<int64_t>(arg, 0);
                indices[p * out_sz + o] = p * in_sz + (column_major_ ? ColumnMajor(w, at) : at);
              }
            } else if constexpr (kKind == PoolKind::kAverage) {
              double sum = 0;
              int64_t count = 0;
              ForEachTap(w, start, [&](int64_t, int64_t off) {
                sum += static_cast<double>(xc[off]);
                ++count;
              });
              if (count_include_pad_) count = PaddedCount(w, start);
              yp[p * out_sz + o] =
                  static_cast<T>(count > 0 ? sum / static_cast<double>(count) : 0.0);
            } else {
              double sum = 0;
              ForEachTap(w, start, [&](int64_t, int64_t off) {
                sum += std::pow(std::fabs(static_cast<double>(xc[off])), p_);
              });
              yp[p * out_sz + o] = static_cast<T>(std::pow(sum, 1.0 / p_));
            }
          });
        }
      }
    });
    return Status::Ok();
  }

 private:
  // Window taps inside the padded input (what count_include_pad divides by).
  static int64_t PaddedCount(const Window& w, const std::vector<int64_t>& start) {
    int64_t count = 1;
    for (size_t i = 0; i < w.kernel.size(); ++i) {
      int64_t taps = 0;
      for (int64_t k = 0; k < w.kernel[i]; ++k) {
        const int64_t p = start[i] + k * w.dilations[i];
        if (p >= -w.pad_begin[i] && p < w.in[i] + w.pad_end[i]) ++taps;
      }
      count *= taps;
    }
    return count;
  }

  // The float 2-D case of MaxPool / AveragePool (the CNN hot path): the taps inside the
  // input are listed once per output row and column, then every channel loops over them
  // directly. Same results as the generic path (max ignores NaN after a number, as there).
  void Pool2D(const Window& w, const float* xp, float* yp, int64_t* indices, int64_t nc) const {
    const int64_t height = w.in[0], width = w.in[1], oh_n = w.out[0], ow_n = w.out[1];
    // Per output index along one dim: the valid input positions, and the padded tap count.
    auto taps = [&](size_t d, int64_t o, std::vector<int64_t>* pos) {
      pos->clear();
      const int64_t start = o * w.strides[d] - w.pad_begin[d];
      int64_t padded = 0;
      for (int64_t k = 0; k < w.kernel[d]; ++k) {
        const int64_t p = start + k * w.dilations[d];
        if (p >= 0 && p < w.in[d]) pos->push_back(p);
        if (p >= -w.pad_begin[d] && p < w.in[d] + w.pad_end[d]) ++padded;
      }
      return padded;
    };
    std::vector<std::vector<int64_t>> rows(static_cast<size_t>(oh_n)),
        cols(static_cast<size_t>(ow_n));
    std::vector<int64_t> row_pad(static_cast<size_t>(oh_n)), col_pad(static_cast<size_t>(ow_n));
    for (int64_t o = 0; o < oh_n; ++o)
      row_pad[static_cast<size_t>(o)] = taps(0, o, &rows[static_cast<size_t>(o)]);
    for (int64_t o = 0; o < ow_n; ++o)
      col_pad[static_cast<size_t>(o)] = taps(1, o, &cols[static_cast<size_t>(o)]);
    const int64_t in_sz = height * width, out_sz = oh_n * ow_n;
    for (int64_t p = 0; p < nc; ++p) {
      const float* xc = xp + p * in_sz;
      float* yc = yp + p * out_sz;
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        const std::vector<int64_t>& hs = rows[static_cast<size_t>(oh)];
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          const std::vector<int64_t>& ws = cols[static_cast<size_t>(ow)];
          const int64_t o = oh * ow_n + ow;
          if constexpr (kKind == PoolKind::kMax) {
            float best = 0;
            int64_t arg = -1;
            for (int64_t h : hs) {
              const float* xr = xc + h * width;
              for (int64_t c : ws) {
                if (arg < 0 || xr[c] > best) {
                  best = xr[c];
                  arg = h * width + c;
                }
              }
            }
            yc[o] = arg < 0 ? 0.0f : best;
            if (indices != nullptr) {
              const int64_t at = std::max<int64_t>(arg, 0);
              indices[p * out_sz + o] = p * in_sz + (column_major_ ? ColumnMajor(w, at) : at);
            }
          } else {
            double sum = 0;
            for (int64_t h : hs) {
              const float* xr = xc + h * width;
              for (int64_t c : ws)
                sum += static_cast<double>(xr[c]);
            }
            const int64_t count = count_include_pad_ ? row_pad[static_cast<size_t>(oh)] *
                                                           col_pad[static_cast<size_t>(ow)]
                                                     : static_cast<int64_t>(hs.size() * ws.size());
            yc[o] = static_cast<float>(count > 0 ? sum / static_cast<double>(count) : 0.0);
          }
        }
      }
    }
  }

  // A row-major offset within one channel's spatial block as a column-major one.
  static int64_t ColumnMajor(const Window& w, int64_t off) {
    const size_t n = w.in.size();
    std::vector<int64_t> pos(n);
    for (size_t i = n; i-- > 0;) {
      pos[i] = off % w.in[i];
      off /= w.in[i];
    }
    int64_t cm = 0, stride = 1;
    for (size_t i = 0; i < n; ++i) {
      cm += pos[i] * stride;
      stride *= w.in[i];
    }
    return cm;
  }

  WindowAttrs attrs_;
  bool count_include_pad_ = false, column_major_ = false;
  double p_ = 2;
};

template <bool kMax>
class GlobalPool : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new GlobalPool());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x, ctx.info()));
    std::vector<int64_t> dims(x.shape().rank(), 1);
    dims[0] = x.shape()[0];
    dims[1] = x.shape()[1];
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const int64_t nc = dims[0] * dims[1];
    const int64_t sz = nc == 0 ? 0 : x.num_elements() / nc;
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      T* yp = y->mutable_data<T>();
      for (int64_t p = 0; p < nc; ++p) {
        double acc = kMax ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t i = 0; i < sz; ++i) {
          const auto v = static_cast<double>(xp[p * sz + i]);
          acc = kMax ? std::max(acc, v) : acc + v;
        }
        yp[p] = static_cast<T>(kMax ? acc : acc / static_cast<double>(sz));
      }
    });
    return Status::Ok();
  }
};

// ---- Normalizations -------------------------------------------------------------------

// Values of a per-channel parameter (any float type: BatchNormalization-15 lets them
// differ from X's) as double, checked to be [C].
Result<std::vector<double>> ChannelParam(const Tensor* t, int64_t c, const char* what,
                                         const KernelInfo& info) {
  if (t == nullptr || t->shape().rank() != 1 || t->shape()[0] != c) {
    return Status(StatusCode::kInvalidArgument,
                  info.Describe() + ": " + what + " must be [" + std::to_string(c) + "]");
  }
  return ToDoubles(t);
}

// y = scale[c] * (x - shift[c]) * inv[c] + bias[c] per channel (N, C, spatial...).
void ApplyPerChannel(const Tensor& x, Tensor* y, const std::vector<double>& scale,
                     const std::vector<double>& bias, const std::vector<double>& mean,
                     const std::vector<double>& inv, bool per_instance) {
  const int64_t n = x.shape()[0], c = x.shape().rank() > 1 ? x.shape()[1] : 1;
  const int64_t sz = n * c == 0 ? 0 : x.num_elements() / (n * c);
  ForFloat(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data<T>();
    T* yp = y->mutable_data<T>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const auto k = static_cast<size_t>(ch);
        const auto s = static_cast<size_t>(per_instance ? b * c + ch : ch);
        const double a = scale[k] * inv[s], d = bias[k] - a * mean[s];
        const int64_t base = (b * c + ch) * sz;
        for (int64_t i = 0; i < sz; ++i)
          yp[base + i] = static_cast<T>(a * static_cast<double>(xp[base + i]) + d);
      }
    }
  });
}

class BatchNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<BatchNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->epsilon_, info.GetFloat("epsilon", 1e-5f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t training, info.GetInt("training_mode", 0));
    if (training != 0 || info.output_count() > 1) {
      return Status(StatusCode::kNotImplemented,
                    info.Describe() +
                        ": training mode (running statistics outputs) is not "
                        "supported; onnx-light runs inference");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    if (x.shape().rank() < 2) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": X must be [N, C, ...]");
    }
    const int64_t c = x.shape()[1];
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto scale, ChannelParam(ctx.input(1), c, "scale", ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto bias, ChannelParam(ctx.input(2), c, "B", ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto mean, ChannelParam(ctx.input(3), c, "mean", ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto var, ChannelParam(ctx.input(4), c, "var", ctx.info()));
    for (double& v : var)
      v = 1.0 / std::sqrt(v + static_cast<double>(epsilon_));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    ApplyPerChannel(x, y, scale, bias, mean, var, false);
    return Status::Ok();
  }

 private:
  float epsilon_ = 1e-5f;
};

// Mean and 1 / sqrt(variance + epsilon) of n values, two passes in double (0 and
// 1/sqrt(epsilon) for n = 0).
template <typename T>
void MeanInvStd(const T* p, int64_t n, float epsilon, double* mean, double* inv_std) {
  double s = 0, s2 = 0;
  for (int64_t i = 0; i < n; ++i)
    s += static_cast<double>(p[i]);
  const double mu = n > 0 ? s / static_cast<double>(n) : 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(p[i]) - mu;
    s2 += d * d;
  }
  *mean = mu;
  *inv_std =
      1.0 / std::sqrt((n > 0 ? s2 / static_cast<double>(n) : 0.0) + static_cast<double>(epsilon));
}

class InstanceNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<InstanceNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->epsilon_, info.GetFloat("epsilon", 1e-5f));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x, ctx.info()));
    const int64_t n = x.shape()[0], c = x.shape()[1];
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto scale, ChannelParam(ctx.input(1), c, "scale", ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto bias, ChannelParam(ctx.input(2), c, "B", ctx.info()));
    const int64_t sz = n * c == 0 ? 0 : x.num_elements() / (n * c);
    std::vector<double> mean(static_cast<size_t>(n * c)), inv(static_cast<size_t>(n * c));
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      for (int64_t p = 0; p < n * c; ++p) {
        MeanInvStd(xp + p * sz, sz, epsilon_, &mean[static_cast<size_t>(p)],
                   &inv[static_cast<size_t>(p)]);
      }
    });
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    ApplyPerChannel(x, y, scale, bias, mean, inv, true);
    return Status::Ok();
  }

 private:
  float epsilon_ = 1e-5f;
};

// GroupNormalization: statistics per (n, group) over the group's channels and all spatial
// positions; scale and bias per channel (opset 21) or per group (opset 18, deprecated).
class GroupNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<GroupNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->epsilon_, info.GetFloat("epsilon", 1e-5f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->groups_, info.GetInt("num_groups"));
    k->per_group_params_ = info.opset() < 21;
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x, ctx.info()));
    const int64_t n = x.shape()[0], c = x.shape()[1];
    if (groups_ < 1 || c % groups_ != 0) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": num_groups " + std::to_string(groups_) +
                        " must divide the " + std::to_string(c) + " channels");
    }
    const int64_t params = per_group_params_ ? groups_ : c;
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto scale,
                                ChannelParam(ctx.input(1), params, "scale", ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto bias, ChannelParam(ctx.input(2), params, "bias", ctx.info()));
    const int64_t per_group = c / groups_;
    const int64_t sz = n * c == 0 ? 0 : x.num_elements() / (n * c);
    const int64_t block = per_group * sz;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      T* yp = y->mutable_data<T>();
      for (int64_t b = 0; b < n * groups_; ++b) {
        const T* xg = xp + b * block;
        double mu = 0, inv = 0;
        MeanInvStd(xg, block, epsilon_, &mu, &inv);
        const int64_t g = b % groups_;
        for (int64_t ch = 0; ch < per_group; ++ch) {
          const auto k = static_cast<size_t>(per_group_params_ ? g : g * per_group + ch);
          for (int64_t i = 0; i < sz; ++i) {
            const int64_t at = ch * sz + i;
            yp[b * block + at] =
                static_cast<T>((static_cast<double>(xg[at]) - mu) * inv * scale[k] + bias[k]);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  float epsilon_ = 1e-5f;
  int64_t groups_ = 1;
  bool per_group_params_ = false;
};

// MeanVarianceNormalization: (x - mean) / (std + 1e-9) over `axes` (default N, H, W), the
// ONNX function body's formula.
class MeanVarianceNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<MeanVarianceNorm>();
    if (info.HasAttribute("axes")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->axes_, info.GetInts("axes"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    for (int64_t a : axes_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank, ctx.info()));
      reduced[static_cast<size_t>(ax)] = true;
    }
    // Group index of each element: its position over the kept axes.
    const std::vector<int64_t>& dims = x.shape().dims();
    int64_t groups = 1;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[static_cast<size_t>(d)]) groups *= dims[static_cast<size_t>(d)];
    const int64_t n = x.num_elements();
    std::vector<int64_t> group(static_cast<size_t>(n));
    std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t g = 0;
      for (int64_t d = 0; d < rank; ++d)
        if (!reduced[static_cast<size_t>(d)])
          g = g * dims[static_cast<size_t>(d)] + pos[static_cast<size_t>(d)];
      group[static_cast<size_t>(e)] = g;
      for (int64_t d = rank; d-- > 0;) {
        if (++pos[static_cast<size_t>(d)] < dims[static_cast<size_t>(d)]) break;
        pos[static_cast<size_t>(d)] = 0;
      }
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const std::vector<double> v = ToDoubles(&x);
    std::vector<double> sum(static_cast<size_t>(groups), 0), sq(static_cast<size_t>(groups), 0);
    std::vector<int64_t> count(static_cast<size_t>(groups), 0);
    for (int64_t e = 0; e < n; ++e) {
      const auto g = static_cast<size_t>(group[static_cast<size_t>(e)]);
      sum[g] += v[static_cast<size_t>(e)];
      ++count[g];
    }
    for (size_t g = 0; g < sum.size(); ++g)
      sum[g] = count[g] > 0 ? sum[g] / static_cast<double>(count[g]) : 0.0;
    for (int64_t e = 0; e < n; ++e) {
      const auto g = static_cast<size_t>(group[static_cast<size_t>(e)]);
      const double d = v[static_cast<size_t>(e)] - sum[g];
      sq[g] += d * d;
    }
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* out = y->mutable_data<T>();
      for (int64_t e = 0; e < n; ++e) {
        const auto g = static_cast<size_t>(group[static_cast<size_t>(e)]);
        const double sd = std::sqrt(count[g] > 0 ? sq[g] / static_cast<double>(count[g]) : 0.0);
        out[e] = static_cast<T>((v[static_cast<size_t>(e)] - sum[g]) / (sd + 1e-9));
      }
    });
    return Status::Ok();
  }

 private:
  std::vector<int64_t> axes_ = {0, 2, 3};
};

// MaxUnpool: X's values scattered to the flat positions `I` holds (MaxPool's Indices)
// in a zero tensor of the size MaxPool's input had (or output_shape, which may add
// trailing room: the values keep the inferred layout, as the ONNX reference does).
class MaxUnpool : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<MaxUnpool>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->kernel_, info.GetInts("kernel_shape"));
    if (info.HasAttribute("strides")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->strides_, info.GetInts("strides"));
    }
    if (info.HasAttribute("pads")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->pads_, info.GetInts("pads"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& ind = *ctx.input(1);
    const std::string where = ctx.info().Describe();
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x, ctx.info()));
    const size_t ns = x.shape().rank() - 2;
    if (kernel_.size() != ns || (!strides_.empty() && strides_.size() != ns) ||
        (!pads_.empty() && pads_.size() != 2 * ns)) {
      return Status(StatusCode::kInvalidArgument,
                    where + ": kernel_shape, strides and pads must match the spatial rank");
    }
    if (ind.shape() != x.shape()) {
      return Status(
          StatusCode::kInvalidArgument,
          where + ": I " + ind.shape().ToString() + " must have X's shape " + x.shape().ToString());
    }
    std::vector<int64_t> inferred = {x.shape()[0], x.shape()[1]};
    for (size_t i = 0; i < ns; ++i) {
      const int64_t st = strides_.empty() ? 1 : strides_[i];
      const int64_t pad = pads_.empty() ? 0 : pads_[i] + pads_[i + ns];
      inferred.push_back((x.shape()[2 + i] - 1) * st - pad + kernel_[i]);
    }
    std::vector<int64_t> out = inferred;
    if (const Tensor* os = ctx.input(2)) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(out, Int64Values(os, ctx.info(), "output_shape"));
      if (out.size() != inferred.size()) {
        return Status(StatusCode::kInvalidArgument, where + ": output_shape has the wrong rank");
      }
      for (size_t d = 0; d < out.size(); ++d) {
        if (out[d] < inferred[d]) {
          return Status(StatusCode::kInvalidArgument,
                        where + ": output_shape is smaller than the unpooled size");
        }
      }
    }
    int64_t total = 1;
    for (int64_t d : inferred)
      total *= d;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const std::vector<int64_t> idx = IndexValues(ind);
    std::vector<double> flat(static_cast<size_t>(total), 0.0);
    const std::vector<double> xv = ToDoubles(&x);
    for (size_t e = 0; e < idx.size(); ++e) {
      if (idx[e] < 0 || idx[e] >= total) {
        return Status(StatusCode::kInvalidArgument, where + ": index " + std::to_string(idx[e]) +
                                                        " is outside [0, " + std::to_string(total) +
                                                        ")");
      }
      flat[static_cast<size_t>(idx[e])] = xv[e];
    }
    const std::vector<int64_t> ist = RowMajorStrides(inferred), ost = RowMajorStrides(out);
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* yp = y->mutable_data<T>();
      for (int64_t e = 0; e < y->num_elements(); ++e)
        yp[e] = T(0.0f);
      for (int64_t e = 0; e < total; ++e) {
        int64_t rest = e, o = 0;
        for (size_t d = 0; d < inferred.size(); ++d) {
          o += rest / ist[d] * ost[d];
          rest %= ist[d];
        }
        yp[o] = static_cast<T>(flat[static_cast<size_t>(e)]);
      }
    });
    return Status::Ok();
  }

 private:
  std::vector<int64_t> kernel_, strides_, pads_;
};

// LpNormalization: x / ||x||_p along `axis` (p 1 or 2); a zero norm gives 0.
class LpNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<LpNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", -1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->p_, info.GetInt("p", 2));
    if (k->p_ != 1 && k->p_ != 2) {
      return Status(StatusCode::kInvalidModel,
                    info.Describe() + ": p must be 1 or 2, got " + std::to_string(k->p_));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank, ctx.info()));
    int64_t outer = 1, len = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t v = x.shape()[static_cast<size_t>(d)];
      (d < axis ? outer : (d == axis ? len : inner)) *= v;
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      T* yp = y->mutable_data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t base = o * len * inner + i;
          double norm = 0;
          for (int64_t k = 0; k < len; ++k) {
            const auto v = static_cast<double>(xp[base + k * inner]);
            norm += p_ == 1 ? std::fabs(v) : v * v;
          }
          if (p_ == 2) norm = std::sqrt(norm);
          for (int64_t k = 0; k < len; ++k) {
            const auto v = static_cast<double>(xp[base + k * inner]);
            yp[base + k * inner] = static_cast<T>(norm == 0 ? 0.0 : v / norm);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = -1, p_ = 2;
};

// LayerNormalization (opset 17) and RMSNormalization (opset 23): normalize over the dims
// from `axis` on; scale (and bias) broadcast to those dims. LayerNormalization's optional
// Mean and InvStdDev outputs have shape dims[:axis] + [1, ...] and type float.
template <bool kRms>
class LayerNorm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<LayerNorm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", -1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->epsilon_, info.GetFloat("epsilon", 1e-5f));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& scale = *ctx.input(1);
    const Tensor* bias = kRms ? nullptr : ctx.input(2);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank, ctx.info()));
    const std::vector<int64_t> inner_dims(x.shape().dims().begin() + axis, x.shape().dims().end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape inner_shape, Shape::Create(inner_dims));
    const int64_t inner = inner_shape.num_elements();
    const int64_t outer = inner == 0 ? 0 : x.num_elements() / inner;
    auto offsets = [&](const Tensor& p, const char* what) -> Result<std::vector<int64_t>> {
      ONNX_LIGHT_ASSIGN_OR_RETURN(auto d, BroadcastDims(p.shape(), inner_shape, ctx.info()));
      if (d != inner_dims) {
        return Status(StatusCode::kInvalidArgument,
                      ctx.info().Describe() + ": " + what + " " + p.shape().ToString() +
                          " does not broadcast to " + inner_shape.ToString());
      }
      const std::vector<int64_t> st = BroadcastStrides(p.shape(), inner_dims);
      std::vector<int64_t> off(static_cast<size_t>(inner));
      std::vector<int64_t> pos(inner_dims.size(), 0);
      for (int64_t i = 0; i < inner; ++i) {
        int64_t o = 0;
        for (size_t k = 0; k < pos.size(); ++k)
          o += pos[k] * st[k];
        off[static_cast<size_t>(i)] = o;
        for (size_t k = pos.size(); k-- > 0;) {
          if (++pos[k] < inner_dims[k]) break;
          pos[k] = 0;
        }
      }
      return off;
    };
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto scale_off, offsets(scale, "scale"));
    std::vector<int64_t> bias_off;
    if (bias != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(bias_off, offsets(*bias, "B"));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    std::vector<int64_t> stat_dims(x.shape().dims().begin(), x.shape().dims().begin() + axis);
    stat_dims.resize(static_cast<size_t>(rank), 1);
    float* mean_out = nullptr;
    float* inv_out = nullptr;
    if (!kRms && ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * m, ctx.AllocateOutput(1, DataType::kFloat, stat_dims));
      mean_out = m->mutable_data<float>();
    }
    if (!kRms && ctx.output_count() > 2) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * v, ctx.AllocateOutput(2, DataType::kFloat, stat_dims));
      inv_out = v->mutable_data<float>();
    }
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      const T* sp = scale.data<T>();
      const T* bp = bias != nullptr ? bias->data<T>() : nullptr;
      T* yp = y->mutable_data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        const T* row = xp + o * inner;
        double mu = 0, s2 = 0;
        if (!kRms) {
          for (int64_t i = 0; i < inner; ++i)
            mu += static_cast<double>(row[i]);
          mu /= static_cast<double>(inner);
        }
        for (int64_t i = 0; i < inner; ++i) {
          const double d = static_cast<double>(row[i]) - mu;
          s2 += d * d;
        }
        const double inv =
            1.0 / std::sqrt(s2 / static_cast<double>(inner) + static_cast<double>(epsilon_));
        if (mean_out != nullptr) mean_out[o] = static_cast<float>(mu);
        if (inv_out != nullptr) inv_out[o] = static_cast<float>(inv);
        for (int64_t i = 0; i < inner; ++i) {
          double v = (static_cast<double>(row[i]) - mu) * inv *
                     static_cast<double>(sp[scale_off[static_cast<size_t>(i)]]);
          if (bp != nullptr) v += static_cast<double>(bp[bias_off[static_cast<size_t>(i)]]);
          yp[o * inner + i] = static_cast<T>(v);
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
};

// LRN: y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta, the
// window spanning channels c - floor((size - 1) / 2) .. c + ceil((size - 1) / 2).
class Lrn : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Lrn>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->alpha_, info.GetFloat("alpha", 1e-4f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->beta_, info.GetFloat("beta", 0.75f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->bias_, info.GetFloat("bias", 1.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->size_, info.GetInt("size"));
    if (k->size_ < 1) {
      return Status(StatusCode::kInvalidModel, info.Describe() + ": size must be >= 1");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x, ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t n = x.shape()[0], c = x.shape()[1];
    const int64_t sz = n * c == 0 ? 0 : x.num_elements() / (n * c);
    const int64_t lo = (size_ - 1) / 2, hi = size_ - 1 - lo;
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      T* yp = y->mutable_data<T>();
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t ch = 0; ch < c; ++ch) {
          const int64_t c0 = std::max<int64_t>(0, ch - lo), c1 = std::min(c - 1, ch + hi);
          for (int64_t i = 0; i < sz; ++i) {
            double sq = 0;
            for (int64_t k = c0; k <= c1; ++k) {
              const auto v = static_cast<double>(xp[(b * c + k) * sz + i]);
              sq += v * v;
            }
            const double d =
                std::pow(static_cast<double>(bias_) +
                             static_cast<double>(alpha_) / static_cast<double>(size_) * sq,
                         static_cast<double>(beta_));
            yp[(b * c + ch) * sz + i] =
                static_cast<T>(static_cast<double>(xp[(b * c + ch) * sz + i]) / d);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  float alpha_ = 1e-4f, beta_ = 0.75f, bias_ = 1.0f;
  int64_t size_ = 1;
};

Status StatsAreFloat(const onnx::NodeProto&, int, const std::vector<DataType>& in,
                     std::vector<DataType>* out, const SubgraphScope*) {
  (*out)[0] = in[0];
  for (size_t i = 1; i < out->size(); ++i)
    (*out)[i] = DataType::kFloat;
  return Status::Ok();
}

}  // namespace

Status RegisterKernel_ai_onnx_Col2Im(KernelRegistry& r) {
  return r.Register(Def("Col2Im", 18,
                        {{"T", {0}, {0}, FloatTypes()}, {"I", {1, 2}, {}, {DataType::kInt64}}},
                        FactoryOf<Col2Im>()));
}
Status RegisterKernel_ai_onnx_ConvInteger(KernelRegistry& r) {
  const std::vector<DataType> q = {DataType::kInt8, DataType::kUint8};
  return r.Register(
      Def("ConvInteger", 10,
          {{"T1", {0, 2}, {}, q}, {"T2", {1, 3}, {}, q}, {"T3", {}, {0}, {DataType::kInt32}}},
          FactoryOf<ConvInteger>()));
}
Status RegisterKernel_ai_onnx_QLinearConv(KernelRegistry& r) {
  const std::vector<DataType> q = {DataType::kInt8, DataType::kUint8};
  return r.Register(Def("QLinearConv", 10,
                        {{"T1", {0, 2}, {}, q},
                         {"T2", {3, 5}, {}, q},
                         {"T3", {7}, {0}, q},
                         {"S", {1, 4, 6}, {}, {DataType::kFloat}},
                         {"T4", {8}, {}, {DataType::kInt32}}},
                        FactoryOf<QLinearConv>()));
}
Status RegisterKernel_ai_onnx_ConvTranspose(KernelRegistry& r) {
  return r.Register(
      Def("ConvTranspose", 1, {{"T", {0, 1, 2}, {0}, FloatTypes()}}, FactoryOf<ConvTranspose>()));
}
Status RegisterKernel_ai_onnx_Conv(KernelRegistry& r) {
  return r.Register(Def("Conv", 1, {{"T", {0, 1, 2}, {0}, FloatTypes()}}, FactoryOf<Conv>()));
}
Status RegisterKernel_ai_onnx_MaxPool(KernelRegistry& r) {
  KernelDef def = Def("MaxPool", 1,
                      {{"T",
                        {0},
                        {0},
                        {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat,
                         DataType::kDouble, DataType::kInt8, DataType::kUint8}},
                       {"I", {}, {1}, {DataType::kInt64}}},
                      FactoryOf<Pool<PoolKind::kMax>>());
  return r.Register(std::move(def));
}
Status RegisterKernel_ai_onnx_AveragePool(KernelRegistry& r) {
  return r.Register(Def("AveragePool", 1, {{"T", {0}, {0}, FloatTypes()}},
                        FactoryOf<Pool<PoolKind::kAverage>>()));
}
Status RegisterKernel_ai_onnx_LpPool(KernelRegistry& r) {
  return r.Register(
      Def("LpPool", 1, {{"T", {0}, {0}, FloatTypes()}}, FactoryOf<Pool<PoolKind::kLp>>()));
}
Status RegisterKernel_ai_onnx_GlobalAveragePool(KernelRegistry& r) {
  return r.Register(
      UnaryDef("", "GlobalAveragePool", 1, FloatTypes(), FactoryOf<GlobalPool<false>>()));
}
Status RegisterKernel_ai_onnx_GlobalMaxPool(KernelRegistry& r) {
  return r.Register(UnaryDef("", "GlobalMaxPool", 1, FloatTypes(), FactoryOf<GlobalPool<true>>()));
}
Status RegisterKernel_ai_onnx_BatchNormalization(KernelRegistry& r) {
  return r.Register(
      Def("BatchNormalization", 1, {{"T", {0}, {0}, FloatTypes()}}, FactoryOf<BatchNorm>()));
}
Status RegisterKernel_ai_onnx_InstanceNormalization(KernelRegistry& r) {
  return r.Register(Def("InstanceNormalization", 1, {{"T", {0, 1, 2}, {0}, FloatTypes()}},
                        FactoryOf<InstanceNorm>()));
}
Status RegisterKernel_ai_onnx_GroupNormalization(KernelRegistry& r) {
  return r.Register(
      Def("GroupNormalization", 18, {{"T", {0, 1, 2}, {0}, FloatTypes()}}, FactoryOf<GroupNorm>()));
}
Status RegisterKernel_ai_onnx_MeanVarianceNormalization(KernelRegistry& r) {
  return r.Register(
      UnaryDef("", "MeanVarianceNormalization", 9, FloatTypes(), FactoryOf<MeanVarianceNorm>()));
}
Status RegisterKernel_ai_onnx_MaxUnpool(KernelRegistry& r) {
  return r.Register(Def("MaxUnpool", 9,
                        {{"T1", {0}, {0}, FloatTypes()}, {"T2", {1, 2}, {}, {DataType::kInt64}}},
                        FactoryOf<MaxUnpool>()));
}
Status RegisterKernel_ai_onnx_LpNormalization(KernelRegistry& r) {
  return r.Register(UnaryDef("", "LpNormalization", 1, FloatTypes(), FactoryOf<LpNorm>()));
}
Status RegisterKernel_ai_onnx_LayerNormalization(KernelRegistry& r) {
  KernelDef def = Def("LayerNormalization", 17, {{"T", {0, 1, 2}, {0}, FloatTypes()}},
                      FactoryOf<LayerNorm<false>>());
  def.output_types = &StatsAreFloat;
  return r.Register(std::move(def));
}
Status RegisterKernel_ai_onnx_RMSNormalization(KernelRegistry& r) {
  return r.Register(Def("RMSNormalization", 23, {{"T", {0, 1}, {0}, FloatTypes()}},
                        FactoryOf<LayerNorm<true>>()));
}

Status RegisterKernel_ai_onnx_LRN(KernelRegistry& r) {
  return r.Register(UnaryDef("", "LRN", 1, FloatTypes(), FactoryOf<Lrn>()));
}

}  // namespace onnx_light::kernels
