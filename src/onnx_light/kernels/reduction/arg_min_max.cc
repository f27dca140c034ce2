// ArgMax and ArgMin along one axis.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "reduction/reduce_types.h"

namespace onnx_light::kernels {
namespace {

// ArgMax / ArgMin along one axis; ties pick the first (or last) index; NaN wins.
template <bool kMax>
class ArgReduce : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ArgReduce>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->keepdims_, GetFlag(info, "keepdims", true));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->last_, GetFlag(info, "select_last_index", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    const int64_t len = x.shape()[static_cast<size_t>(axis)];
    ONNX_LIGHT_RETURN_IF(len == 0, kInvalidArgument, "cannot take the arg of an empty axis");
    std::vector<int64_t> dims;
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t d = x.shape()[static_cast<size_t>(i)];
      if (i < axis) outer *= d;
      if (i > axis) inner *= d;
      if (i != axis) dims.push_back(d);
      if (i == axis && keepdims_) dims.push_back(1);
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    int64_t* out = y->mutable_data<int64_t>();
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = typename ComputeType<T>::type;
      const T* in = x.data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t j = 0; j < inner; ++j) {
          const T* p = in + o * len * inner + j;
          int64_t best = 0;
          C bv = static_cast<C>(p[0]);
          for (int64_t k = 1; k < len && !(bv != bv); ++k) {
            const C v = static_cast<C>(p[k * inner]);
            const bool better = kMax ? (v > bv) : (v < bv);
            if (better || (last_ && v == bv) || v != v) {
              best = k;
              bv = v;
            }
          }
          out[o * inner + j] = best;
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  bool keepdims_ = true;
  bool last_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ArgMax) {
  return r.Register(Def("ArgMax", 1,
                        {{"T", {0}, {}, ReduceTypes()}, {"I", {}, {0}, {DataType::kInt64}}},
                        FactoryOf<ArgReduce<true>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ArgMin) {
  return r.Register(Def("ArgMin", 1,
                        {{"T", {0}, {}, ReduceTypes()}, {"I", {}, {0}, {DataType::kInt64}}},
                        FactoryOf<ArgReduce<false>>()));
}

}  // namespace onnx_light::kernels
