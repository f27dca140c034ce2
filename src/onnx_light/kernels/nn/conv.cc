// Conv (im2col, then the shared matrix product: math/gemm.h, accumulating in float, double
// for float64, as ONNX Runtime does) over N-d images ([N, C, D1, ..., Dn]), and FusedConv.
// Their speed against ORT is in docs/performance.md.
#include "nn/conv.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/window.h"
#include "math/gemm.h"
#include "nn/conv2d_f32.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

// Conv's per-frame state: im2col offsets for the last input shape, and the float column
// buffer reused between runs (no fresh pages per call).
struct ConvState : KernelState {
  std::vector<int64_t> taps, taps_for;
  std::vector<float> col;
};

// The activation of a FusedConv node (ORT's com.microsoft FusedConv attributes:
// activation, activation_params), extended with HardSwish and Silu (x * sigmoid(x)) and
// with post_scale and post_shift, applied after the activation.
Result<Activation> ReadActivation(const KernelInfo& info) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::string name, info.GetString("activation", ""));
  std::vector<float> params;
  if (info.HasAttribute("activation_params")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(params, info.GetFloats("activation_params"));
  }
  struct Known {
    const char* name;
    ActivationKind kind;
    size_t params;
    float a, b;  // defaults
  };
  static const Known kKnown[] = {
      {"", ActivationKind::kNone, 0, 0, 0},
      {"Relu", ActivationKind::kRelu, 0, 0, 0},
      {"Clip", ActivationKind::kClip, 2, 0, 0},
      {"LeakyRelu", ActivationKind::kLeakyRelu, 1, 0.01f, 0},
      {"Sigmoid", ActivationKind::kSigmoid, 0, 0, 0},
      {"HardSigmoid", ActivationKind::kHardSigmoid, 2, 0.2f, 0.5f},
      {"HardSwish", ActivationKind::kHardSwish, 0, 0, 0},
      {"Tanh", ActivationKind::kTanh, 0, 0, 0},
      {"Silu", ActivationKind::kSilu, 0, 0, 0},
  };
  for (const Known& k : kKnown) {
    if (name != k.name) continue;
    ONNX_LIGHT_RETURN_IF(k.kind == ActivationKind::kClip && params.size() != 2, kInvalidModel,
                         "activation Clip needs activation_params [min, max]");
    ONNX_LIGHT_RETURN_IF(params.size() > k.params, kInvalidModel,
                         "activation " + name + " takes " + std::to_string(k.params) +
                             " activation_params, got " + std::to_string(params.size()));
    Activation act{k.kind, k.a, k.b};
    if (params.size() > 0) act.a = params[0];
    if (params.size() > 1) act.b = params[1];
    // onnx_light's extension: a scale and a shift after the activation (fuse_conv_affine).
    if (info.HasAttribute("post_scale")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(act.scale, info.GetFloat("post_scale", 1.0f));
      act.has_scale = true;
    }
    if (info.HasAttribute("post_shift")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(act.shift, info.GetFloat("post_shift", 0.0f));
      act.has_shift = true;
    }
    if (info.HasAttribute("post_max")) {  // last: max(v, post_max), NaN kept
      ONNX_LIGHT_ASSIGN_OR_RETURN(act.floor, info.GetFloat("post_max", 0.0f));
      ONNX_LIGHT_RETURN_IF(std::isnan(act.floor), kInvalidModel, "post_max is NaN");
      act.has_floor = true;
    }
    return act;
  }
  return Status(StatusCode::kInvalidModel, "unknown activation '" + name +
                                               "' (Relu, Clip, LeakyRelu, Sigmoid, HardSigmoid, "
                                               "HardSwish, Tanh or Silu)");
}

// Whether every stride, dilation and pad is below 2^30: the 2-D float paths add them to
// dimensions and offsets in int64 (the node fuzzer: a begin pad near INT64_MAX overflowed
// the padded row length). A model past it takes the general path, which keeps every
// position in range. (MakeWindow has refused strides and dilations below 1 and negative
// pads already.)
bool ModestGeometry(const Window& w) {
  constexpr int64_t kMax = int64_t{1} << 30;
  for (const std::vector<int64_t>* v : {&w.strides, &w.dilations, &w.pad_begin, &w.pad_end}) {
    for (int64_t d : *v)
      if (d >= kMax) return false;
  }
  return true;
}

// Conv, and FusedConv (Conv + bias + optional residual input Z + activation, made by the
// fusion pass or loaded from a model; float32 only).
class Conv : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Conv>();
    ONNX_LIGHT_RETURN_IF_ERROR(ReadConvAttrs(info, &k->attrs_, &k->group_));
    k->w_constant_ = info.constant_input(1) != nullptr;
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  static Result<std::unique_ptr<KernelBase>> CreateFused(const KernelInfo& info) {
    auto k = std::make_unique<Conv>();
    ONNX_LIGHT_RETURN_IF_ERROR(ReadConvAttrs(info, &k->attrs_, &k->group_));
    k->w_constant_ = info.constant_input(1) != nullptr;
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->act_, ReadActivation(info));
    k->fused_ = true;
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& wt = *ctx.input(1);
    const Tensor* bias = ctx.input(2);
    const Tensor* z = fused_ ? ctx.input(3) : nullptr;
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    const int64_t batch = x.shape()[0], c_in = x.shape()[1];
    ONNX_LIGHT_RETURN_IF(wt.shape().rank() != x.shape().rank(), kInvalidArgument,
                         "W " + wt.shape().ToString() + " must have the rank of X");
    const int64_t m = wt.shape()[0], cg = wt.shape()[1];
    // No cg * group: the group is the model's and may be as large as INT64_MAX.
    ONNX_LIGHT_RETURN_IF(c_in % group_ != 0 || c_in / group_ != cg || m % group_ != 0,
                         kInvalidArgument,
                         "X has " + std::to_string(c_in) + " channels, W " + wt.shape().ToString() +
                             " with group " + std::to_string(group_) + " does not match");
    ONNX_LIGHT_RETURN_IF(bias != nullptr && (bias->shape().rank() != 1 || bias->shape()[0] != m),
                         kInvalidArgument, "B must be [" + std::to_string(m) + "]");
    std::vector<int64_t> kernel = Spatial(wt.shape());
    ONNX_LIGHT_RETURN_IF(!attrs_.kernel.empty() && attrs_.kernel != kernel, kInvalidArgument,
                         "kernel_shape does not match W");
    ONNX_LIGHT_ASSIGN_OR_RETURN(Window w, MakeWindow(attrs_, Spatial(x.shape()), kernel));
    std::vector<int64_t> dims = {batch, m};
    dims.insert(dims.end(), w.out.begin(), w.out.end());
    ONNX_LIGHT_RETURN_IF(z != nullptr && z->dtype() != x.dtype(), kInvalidArgument,
                         "Z must have the type of X");
    Tensor unfused;  // a Z of another shape: the convolution alone first, then Z
    Tensor* y = nullptr;
    if (z != nullptr && z->shape().dims() != dims) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(unfused, ctx.AllocateTemporary(x.dtype(), dims));
      y = &unfused;
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(y, ctx.AllocateOutput(0, dims));
    }
    const Activation act = y == &unfused ? Activation{} : act_;
    if (y == &unfused) z = nullptr;
    ConvState& state = ctx.State<ConvState>();
    if (x.dtype() == DataType::kFloat && (w.in.size() == 2 || w.in.size() == 1) &&
        ModestGeometry(w)) {
      // A 1-D convolution is a 2-D one of height 1.
      const bool one = w.in.size() == 1;
      const size_t l = one ? 0 : 1;
      const Conv2DShape s{batch,
                          c_in,
                          one ? 1 : w.in[0],
                          w.in[l],
                          m,
                          one ? 1 : kernel[0],
                          kernel[l],
                          group_,
                          one ? 1 : w.out[0],
                          w.out[l],
                          one ? 1 : w.strides[0],
                          w.strides[l],
                          one ? 1 : w.dilations[0],
                          w.dilations[l],
                          one ? 0 : w.pad_begin[0],
                          w.pad_begin[l]};
      const int64_t workers = ctx.thread_pool() != nullptr ? ctx.thread_pool()->threads() : 1;
      const float* w_positions = PositionsWeights(wt, s);
      float* scratch = ctx.Scratch(Conv2DScratchFloats(s, workers, w_positions != nullptr));
      Conv2DF32(x.data<float>(), wt.data<float>(), bias != nullptr ? bias->data<float>() : nullptr,
                z != nullptr ? z->data<float>() : nullptr, y->mutable_data<float>(), s, act,
                scratch, ctx.thread_pool(), w_positions);
    } else {
      // Taps and columns (k_sz * out_sz of each) may dwarf the input and the output:
      // checked against the budget first.
      BudgetHold work(BudgetOf(ctx));
      ONNX_LIGHT_RETURN_IF_ERROR(HoldIm2ColMemory(
          w, cg, x.dtype() == DataType::kDouble ? sizeof(double) : sizeof(float), &work));
      ComputeGeneral(ctx, x, wt, bias, w, batch, c_in, m, cg, y, state);
      if (fused_ && (z != nullptr || HasEffect(act))) {
        // FusedConv is float32: the 3-D case finishes here.
        BiasActivationF32(y->mutable_data<float>(), static_cast<size_t>(y->num_elements()), 0.0f,
                          z != nullptr ? z->data<float>() : nullptr, act);
      }
    }
    if (y == &unfused) return AddResidual(ctx, unfused);
    return Status::Ok();
  }

 private:
  // A constant W packed for the positions path (conv2d_positions_f32.cc) on its first use,
  // kept for the session: packed on every call it was a fifth of a batch-8 layer's time.
  // Null where that path does not run, W is not a constant, or the memory is not there.
  const float* PositionsWeights(const Tensor& wt, const Conv2DShape& s) const {
    if (!w_constant_ || !UsePositionsConv(s)) return nullptr;
    std::call_once(positions_once_, [&] {
      Result<Shape> shape = Shape::Create({static_cast<int64_t>(PositionsWeightsFloats(s))});
      if (!shape.ok()) return;
      Result<Tensor> packed = Tensor::Allocate(DataType::kFloat, std::move(*shape));
      if (!packed.ok()) return;
      PackPositionsWeights(wt.data<float>(), s, packed->mutable_data<float>());
      positions_w_ = std::move(*packed);
    });
    return positions_w_.num_elements() > 0 ? positions_w_.data<float>() : nullptr;
  }

  // Y = act(conv + Z) where Z broadcasts against the convolution's output (a residual Add
  // the fusion pass could not see the shapes of): Y takes the broadcast shape.
  Status AddResidual(KernelContext& ctx, const Tensor& conv) const {
    const Tensor& z = *ctx.input(3);
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> dims, BroadcastDims(conv.shape(), z.shape()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    float* out = y->mutable_data<float>();
    BroadcastApply(conv.data<float>(), conv.shape(), z.data<float>(), z.shape(), out, dims,
                   ctx.thread_pool(), [](float a, float b) { return a + b; });
    if (HasEffect(act_)) {
      ActivationF32(out, out, static_cast<size_t>(y->num_elements()), act_);
    }
    return Status::Ok();
  }

  void ComputeGeneral(KernelContext& ctx, const Tensor& x, const Tensor& wt, const Tensor* bias,
                      const Window& w, int64_t batch, int64_t c_in, int64_t m, int64_t cg,
                      Tensor* y, ConvState& state) const {
    const int64_t in_sz = w.InCount(), out_sz = w.OutCount(), k_sz = w.KernelCount();
    const int64_t m_per_group = m / group_, rows = cg * k_sz;
    // The im2col offsets depend only on the input's spatial shape: kept in the frame's
    // state for this node while the shape repeats.
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
  }

  WindowAttrs attrs_;
  int64_t group_ = 1;
  bool fused_ = false;
  Activation act_;
  bool w_constant_ = false;
  mutable std::once_flag positions_once_;
  mutable Tensor positions_w_;
};

}  // namespace

Result<std::unique_ptr<KernelBase>> CreateFusedConv(const KernelInfo& info) {
  return Conv::CreateFused(info);
}

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Conv) {
  return r.Register(Def("Conv", 1, {{"T", {0, 1, 2}, {0}, FloatTypes()}}, FactoryOf<Conv>()));
}
// onnx_light:FusedConv (opset 1): inputs X, W, optional B, optional Z (added before the
// activation); attributes as Conv plus activation and activation_params.
ONNX_LIGHT_REGISTER_KERNEL(onnx_light, FusedConv) {
  return r.Register(OnnxLightDef("FusedConv", {{"T", {0, 1, 2, 3}, {0}, {DataType::kFloat}}},
                                 &CreateFusedConv, 2, 4, (1u << 2) | (1u << 3)));
}

}  // namespace onnx_light::kernels
