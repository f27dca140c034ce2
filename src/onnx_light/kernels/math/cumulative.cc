// CumSum and CumProd: running sum/product along an axis (exclusive, reverse); integers
// wrap.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// CumSum and CumProd (kProd): running sum/product along an axis; integers wrap.
template <bool kProd>
class Cumulative : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Cumulative>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->exclusive_, GetFlag(info, "exclusive", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->reverse_, GetFlag(info, "reverse", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t> av = IndexValues(*ctx.input(1));
    ONNX_LIGHT_RETURN_IF(av.size() != 1, kInvalidArgument, "axis must be a scalar");
    const std::vector<int64_t>& in = x.shape().dims();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis,
                                NormalizeAxis(av[0], static_cast<int64_t>(in.size())));
    const auto ax = static_cast<size_t>(axis);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, in));
    const int64_t outer = Product(in, 0, ax), len = in[ax], inner = Product(in, ax + 1, in.size());
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using C = std::conditional_t<std::is_integral_v<T>, T, double>;
        auto Fold = [](C a, C b) -> C {
          if constexpr (std::is_integral_v<C>) {  // wrap without undefined behaviour
            const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
            return static_cast<C>(kProd ? ua * ub : ua + ub);
          } else {
            return kProd ? a * b : a + b;
          }
        };
        const T* p = x.data<T>();
        T* q = y->mutable_data<T>();
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t j = 0; j < inner; ++j) {
            C acc = kProd ? C(1) : C(0);
            for (int64_t s = 0; s < len; ++s) {
              const int64_t k = reverse_ ? len - 1 - s : s;
              const int64_t at = (o * len + k) * inner + j;
              const C v = static_cast<C>(p[at]);
              if (!exclusive_) acc = Fold(acc, v);
              q[at] = static_cast<T>(acc);
              if (exclusive_) acc = Fold(acc, v);
            }
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, CumSum) {
  return r.Register(Def("CumSum", 11,
                        {{"T", {0}, {0}, NumericTypes()}, {"T2", {1}, {}, IndexTypes()}},
                        FactoryOf<Cumulative<false>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, CumProd) {
  return r.Register(Def("CumProd", 26,
                        {{"T", {0}, {0}, NumericTypes()}, {"T2", {1}, {}, IndexTypes()}},
                        FactoryOf<Cumulative<true>>()));
}

}  // namespace onnx_light::kernels
