// The variadic Min, Max, Sum, Mean: any number of inputs, broadcast together.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

enum class Fold { kMin, kMax, kSum, kMean };

// Min, Max, Sum, Mean over any number of broadcast inputs, folded pairwise.
template <Fold kFold>
class Variadic : public KernelBase {
  // The types registered: numeric ones for Min and Max, float ones for Sum and Mean.
  template <typename T>
  static constexpr bool kInstantiated =
      !std::is_same_v<T, bool> &&
      (kFold == Fold::kMin || kFold == Fold::kMax || !std::is_integral_v<T>);

 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Variadic());
  }
  Status Compute(KernelContext& ctx) const override {
    ONNX_LIGHT_RETURN_IF(ctx.input_count() == 0, kInvalidModel, "needs an input");
    Tensor acc = *ctx.input(0);
    Status status;
    Tensor* out = nullptr;  // the last fold's (Min, Max, Sum): straight into the output
    const size_t last = ctx.input_count() - 1;
    for (size_t k = 1; k < ctx.input_count() && status.ok(); ++k) {
      const Tensor& b = *ctx.input(k);
      ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(acc.shape(), b.shape()));
      // (Into the output, not a temporary copied there after: a temporary of a few hundred
      // KiB is fresh pages at every run, 4x the time of Max(x, scalar) on 56k floats.)
      Tensor next;
      if (k == last) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(out, ctx.AllocateOutput(0, dims));
      } else {
        ONNX_LIGHT_ASSIGN_OR_RETURN(next, ctx.AllocateTemporary(acc.dtype(), dims));
      }
      Tensor& dst = out != nullptr ? *out : next;
      DispatchNumeric(acc.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (kInstantiated<T> && kFold == Fold::kMean) {
          if (k == last) {
            // Mean's last fold divides as it adds (a second pass over the output ran 1.5x
            // ORT's time for Mean of 2): the sum rounded to T, then divided by the input
            // count, rounded once (float / float in float is the same value as through
            // double: 53 >= 2 * 24 + 2 bits, the double rounding is innocuous).
            const auto c = static_cast<float>(ctx.input_count());
            const auto count = static_cast<double>(ctx.input_count());
            BroadcastApply(acc.data<T>(), acc.shape(), b.data<T>(), b.shape(),
                           dst.mutable_data<T>(), dims, ctx.thread_pool(), [=](T u, T v) {
                             const T sum = T(static_cast<decltype(Widen(u))>(Widen(u) + Widen(v)));
                             if constexpr (std::is_same_v<T, float>) {
                               return sum / c;
                             } else {
                               return T(static_cast<double>(sum) / count);
                             }
                           });
            return;
          }
        }
        if constexpr (kInstantiated<T>) {
          BroadcastApply(acc.data<T>(), acc.shape(), b.data<T>(), b.shape(), dst.mutable_data<T>(),
                         dims, ctx.thread_pool(), [](T u, T v) {
                           const auto x = Widen(u);
                           const auto z = Widen(v);
                           using C = decltype(x);
                           // NaN in x propagates (x != x; integers never are): tested in
                           // x's own type, not through double (Max(x, scalar) on floats
                           // vectorizes at full width: 18 -> 14 us on 55k floats).
                           if constexpr (kFold == Fold::kMin) {
                             return T(x != x || x < z ? x : z);
                           } else if constexpr (kFold == Fold::kMax) {
                             return T(x != x || x > z ? x : z);
                           } else {
                             return T(static_cast<C>(x + z));
                           }
                         });
        }
      });
      if (out != nullptr) return status;
      acc = std::move(next);
    }
    // One input: its copy (Mean's divided by 1).
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, acc.shape().dims()));
    if (acc.byte_size()) {
      std::memcpy(y->mutable_raw_data(), acc.raw_data(), acc.byte_size());
    }
    return status;
  }
};

// Min, Max, Sum, Mean: any number of inputs (up to 64 bound by T), broadcast together.
template <Fold kind>
Status RegisterFold(KernelRegistry& r, const char* op, std::vector<DataType> types) {
  std::vector<int> inputs;
  for (int i = 0; i < 64; ++i)
    inputs.push_back(i);
  return r.Register(
      Def(op, 6, {{"T", inputs, {0}, std::move(types)}}, FactoryOf<Variadic<kind>>()));
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Min) {
  return RegisterFold<Fold::kMin>(r, "Min", NumericTypes());
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Max) {
  return RegisterFold<Fold::kMax>(r, "Max", NumericTypes());
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Sum) {
  return RegisterFold<Fold::kSum>(r, "Sum", FloatTypes());
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Mean) {
  return RegisterFold<Fold::kMean>(r, "Mean", FloatTypes());
}

}  // namespace onnx_light::kernels
