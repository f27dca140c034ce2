// Range: start, start + delta, ... up to limit (exclusive).
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

class Range : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Range());
  }
  Status Compute(KernelContext& ctx) const override {
    for (size_t i = 0; i < 3; ++i) {
      ONNX_LIGHT_RETURN_IF(ctx.input(i)->num_elements() != 1, kInvalidArgument,
                           "input " + std::to_string(i) + " must be a scalar");
    }
    Status status = Status::Ok();
    DispatchNumeric(ctx.input(0)->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const auto start = static_cast<double>(Widen(ctx.input(0)->data<T>()[0]));
        const auto limit = static_cast<double>(Widen(ctx.input(1)->data<T>()[0]));
        const auto delta = static_cast<double>(Widen(ctx.input(2)->data<T>()[0]));
        if (delta == 0) {
          status = Status(StatusCode::kInvalidArgument, "delta is 0");
          return;
        }
        const double count = std::max(0.0, std::ceil((limit - start) / delta));
        if (!(count < 1e15)) {
          status = Status(StatusCode::kOutOfRange, "too many elements");
          return;
        }
        Result<Tensor*> y = ctx.AllocateOutput(0, {static_cast<int64_t>(count)});
        if (!y.ok()) {
          status = y.status();
          return;
        }
        T* out = (*y)->template mutable_data<T>();
        const T t_start = ctx.input(0)->data<T>()[0], t_delta = ctx.input(2)->data<T>()[0];
        T v = t_start;  // accumulated in T, as the reference implementation does
        const auto n = static_cast<int64_t>(count);
        for (int64_t i = 0; i < n; ++i) {
          out[i] = v;
          // Every value written lies between start and limit; the one after the last may
          // not fit the type (int64 from INT64_MAX down by INT64_MIN), so it is not made.
          if (i + 1 < n) v = static_cast<T>(Widen(v) + Widen(t_delta));
        }
      }
    });
    return status;
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Range) {
  return r.Register(
      Def("Range", 11,
          {{"T",
            {0, 1, 2},
            {0},
            {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16,
             DataType::kInt16, DataType::kInt32, DataType::kInt64}}},
          FactoryOf<Range>()));
}

}  // namespace onnx_light::kernels
