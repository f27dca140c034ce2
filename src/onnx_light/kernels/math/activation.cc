// Clip, PRelu and Gelu. 16-bit floats compute in float and round once.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "simd/conv_simd.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

// Clip: min(max(x, lo), hi); before opset 11 the bounds are float attributes, from 11 on
// optional scalar inputs of the input's type. lo > hi gives hi everywhere (as numpy.clip).
class Clip : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Clip>();
    k->legacy_ = info.opset() < 11;
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->min_, info.GetFloat("min", -std::numeric_limits<float>::max()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->max_, info.GetFloat("max", std::numeric_limits<float>::max()));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    for (size_t i = 1; i < 3; ++i) {
      ONNX_LIGHT_RETURN_IF(!legacy_ && ctx.input(i) != nullptr && ctx.input(i)->num_elements() != 1,
                           kInvalidArgument,
                           std::string(i == 1 ? "min" : "max") + " must hold one element");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using C = typename ComputeType<T>::type;
        C lo = std::numeric_limits<C>::lowest(), hi = std::numeric_limits<C>::max();
        if (legacy_) {
          lo = static_cast<C>(min_);
          hi = static_cast<C>(max_);
        }
        if (!legacy_ && ctx.input(1) != nullptr) lo = static_cast<C>(ctx.input(1)->data<T>()[0]);
        if (!legacy_ && ctx.input(2) != nullptr) hi = static_cast<C>(ctx.input(2)->data<T>()[0]);
        const T* in = x.data<T>();
        T* out = y->mutable_data<T>();
        if constexpr (std::is_same_v<T, float>) {  // in SIMD (NaN kept), split between threads
          const Activation act{ActivationKind::kClip, lo, hi};
          ParallelElements(ctx.thread_pool(), x.num_elements(), [&](int64_t b, int64_t e) {
            ActivationF32(in + b, out + b, static_cast<size_t>(e - b), act);
          });
        } else {
          ParallelElements(ctx.thread_pool(), x.num_elements(), [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) {
              const C v = static_cast<C>(in[i]);
              C r = v < lo ? lo : v;  // NaN passes through
              r = r > hi ? hi : r;
              out[i] = static_cast<T>(r);
            }
          });
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool legacy_ = false;
  float min_ = 0, max_ = 0;
};

// PRelu: y = x < 0 ? slope * x : x, slope broadcast to the shape of x. Opset 6 also takes
// a per-channel slope of shape [C] for X of shape [N, C, ...] (viewed as [C, 1, ...]).
class PRelu : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<PRelu>();
    k->legacy_ = info.opset() < 7;
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    Tensor slope = *ctx.input(1);
    const size_t rank = x.shape().rank();
    if (legacy_ && slope.shape().rank() == 1 && rank >= 3 && slope.shape()[0] != 1 &&
        slope.shape()[0] == x.shape()[1]) {
      std::vector<int64_t> dims(rank - 1, 1);
      dims[0] = slope.shape()[0];
      ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims));
      ONNX_LIGHT_ASSIGN_OR_RETURN(slope, slope.Reshaped(std::move(shape)));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(x.shape(), slope.shape()));
    if (dims != x.shape().dims()) {
      return Status(
          StatusCode::kInvalidArgument,
          "slope " + slope.shape().ToString() + " does not broadcast to X " + x.shape().ToString());
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    if (x.dtype() == DataType::kFloat && PerChannelF32(x, slope, *y, ctx.thread_pool()))
      return Status::Ok();
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_integral_v<T>) {
        using C = typename ComputeType<T>::type;
        BroadcastApply(x.data<T>(), x.shape(), slope.data<T>(), slope.shape(), y->mutable_data<T>(),
                       dims, ctx.thread_pool(), [](T u, T s) {
                         const C v = static_cast<C>(u);
                         return v < C(0) ? T(v * static_cast<C>(s)) : u;
                       });
      }
    });
    return Status::Ok();
  }

 private:
  // The slopes models carry, on float: one slope for all, or one per channel of one axis
  // (a [1, C, 1, 1] slope on [N, C, H, W]). Each plane of one channel is LeakyRelu with
  // that channel's slope (the SIMD routine; the same x < 0 test, so NaN and -0 pass
  // through); channels that are the last axis (planes of one element) take the slopes as a
  // row. 4.9 -> 0.3 ms for [1000, 10, 10, 10]. False for other broadcasts.
  static bool PerChannelF32(const Tensor& x, const Tensor& slope, Tensor& y, ThreadPool* pool) {
    const auto& xd = x.shape().dims();
    const auto& sd = slope.shape().dims();
    const float* xs = x.data<float>();
    const float* s = slope.data<float>();
    float* ys = y.mutable_data<float>();
    if (slope.num_elements() == 1) {
      ParallelElements(pool, x.num_elements(), [&](int64_t b, int64_t e) {
        LeakyReluF32(xs + b, ys + b, static_cast<size_t>(e - b), s[0]);
      });
      return true;
    }
    // the one axis of x the slope varies along (slope dims aligned right)
    const size_t offset = xd.size() - sd.size();
    int axis = -1;
    for (size_t i = 0; i < sd.size(); ++i) {
      if (sd[i] == 1) continue;
      if (axis >= 0 || sd[i] != xd[offset + i]) return false;
      axis = static_cast<int>(offset + i);
    }
    if (axis < 0) return false;
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; ++i)
      outer *= xd[static_cast<size_t>(i)];
    for (size_t i = static_cast<size_t>(axis) + 1; i < xd.size(); ++i)
      inner *= xd[i];
    const int64_t channels = xd[static_cast<size_t>(axis)];
    if (inner == 1) {  // rows of C values, a slope each
      ParallelElements(
          pool, outer,
          [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
              const float* xr = xs + r * channels;
              float* yr = ys + r * channels;
              for (int64_t c = 0; c < channels; ++c)
                yr[c] = xr[c] < 0.0f ? xr[c] * s[c] : xr[c];
            }
          },
          std::max<int64_t>(1, (int64_t{1} << 16) / channels));
      return true;
    }
    ParallelElements(
        pool, outer * channels,
        [&](int64_t b, int64_t e) {
          for (int64_t p = b; p < e; ++p)
            LeakyReluF32(xs + p * inner, ys + p * inner, static_cast<size_t>(inner),
                         s[p % channels]);
        },
        std::max<int64_t>(1, (int64_t{1} << 16) / inner));
    return true;
  }

  bool legacy_ = false;
};

// Gelu (opset 20, and onnx_light:Gelu that the fuse_gelu pass makes from the erf and tanh
// patterns exporters emit): exact (erf) or the tanh approximation. float32 in vector code
// (simd/conv_simd.h, within a few ULP of the double formula); other types through double.
class Gelu : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Gelu>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string approx, info.GetString("approximate", "none"));
    ONNX_LIGHT_RETURN_IF(approx != "none" && approx != "tanh", kInvalidModel,
                         "approximate must be 'none' or 'tanh', got '" + approx + "'");
    k->tanh_ = approx == "tanh";
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    if (x.dtype() == DataType::kFloat) {
      const Activation act{tanh_ ? ActivationKind::kGeluTanh : ActivationKind::kGelu};
      // ~30 operations per element: worth two threads from 16k elements.
      ParallelElements(
          ctx.thread_pool(), x.num_elements(),
          [&](int64_t i0, int64_t i1) {
            ActivationF32(x.data<float>() + i0, y->mutable_data<float>() + i0,
                          static_cast<size_t>(i1 - i0), act);
          },
          int64_t{1} << 13);
      return Status::Ok();
    }
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_integral_v<T>) {
        // double for every type: the float result rounds once from it.
        const T* in = x.data<T>();
        T* out = y->mutable_data<T>();
        for (int64_t i = 0; i < x.num_elements(); ++i) {
          const double v = static_cast<double>(in[i]);
          const double g =
              tanh_ ? 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))
                    : 0.5 * v * (1.0 + std::erf(v * 0.7071067811865476));
          out[i] = static_cast<T>(g);
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool tanh_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Clip) {
  KernelDef attr_form = Def("Clip", 6, {{"T", {0}, {0}, FloatTypes()}}, FactoryOf<Clip>());
  attr_form.end_version = 10;
  ONNX_LIGHT_RETURN_IF_ERROR(r.Register(std::move(attr_form)));
  return r.Register(Def("Clip", 11, {{"T", {0, 1, 2}, {0}, NumericTypes()}}, FactoryOf<Clip>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, PRelu) {
  return r.Register(Def("PRelu", 6, {{"T", {0, 1}, {0}, FloatTypes()}}, FactoryOf<PRelu>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Gelu) {
  return r.Register(UnaryDef("", "Gelu", 20, FloatTypes(), FactoryOf<Gelu>()));
}
ONNX_LIGHT_REGISTER_KERNEL(onnx_light, Gelu) {
  return r.Register(UnaryDef("onnx_light", "Gelu", 1, {DataType::kFloat}, FactoryOf<Gelu>()));
}

}  // namespace onnx_light::kernels
