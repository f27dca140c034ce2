// Comparisons with numpy broadcasting, to bool: Equal, Less, Greater, LessOrEqual,
// GreaterOrEqual.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

std::vector<DataType> NumericAndBool() {
  std::vector<DataType> t = NumericTypes();
  t.push_back(DataType::kBool);
  return t;
}

enum class Cmp { kEq, kLt, kGt, kLe, kGe };

template <Cmp kCmp>
class Compare : public BroadcastingBinary {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    return CreateBroadcasting<Compare>(info);
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Operands ops, Prepare(ctx));
    const Tensor& b = ops.b;
    const std::vector<int64_t>& dims = ops.dims;
    Tensor* y = ops.y;
    bool* out = y->mutable_data<bool>();
    if (a.dtype() == DataType::kString) {  // Equal only (opset 19)
      BroadcastApply(a.data<std::string>(), a.shape(), b.data<std::string>(), b.shape(), out, dims,
                     nullptr, [](const std::string& u, const std::string& v) { return u == v; });
      return Status::Ok();
    }
    DispatchNumeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      BroadcastApply(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out, dims, ctx.thread_pool(),
                     [](T u, T v) {
                       const auto x = Widen(u);
                       const auto z = Widen(v);
                       if constexpr (kCmp == Cmp::kEq) return x == z;
                       if constexpr (kCmp == Cmp::kLt) return x < z;
                       if constexpr (kCmp == Cmp::kGt) return x > z;
                       if constexpr (kCmp == Cmp::kLe) return x <= z;
                       if constexpr (kCmp == Cmp::kGe) return x >= z;
                     });
    });
    return Status::Ok();
  }
};

TypeConstraint BoolOut() {
  return {"T1", {}, {0}, {DataType::kBool}};
}

template <Cmp kind>
Status RegisterCompare(KernelRegistry& r, const char* op, int since) {
  return r.Register(
      Def(op, since, {{"T", {0, 1}, {}, NumericAndBool()}, BoolOut()}, FactoryOf<Compare<kind>>()));
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Equal) {  // opset 1-6: legacy broadcast
  std::vector<DataType> types = NumericAndBool();
  types.push_back(DataType::kString);  // opset 19
  return r.Register(
      Def("Equal", 1, {{"T", {0, 1}, {}, types}, BoolOut()}, FactoryOf<Compare<Cmp::kEq>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Less) {
  return RegisterCompare<Cmp::kLt>(r, "Less", 1);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Greater) {
  return RegisterCompare<Cmp::kGt>(r, "Greater", 1);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LessOrEqual) {
  return RegisterCompare<Cmp::kLe>(r, "LessOrEqual", 12);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GreaterOrEqual) {
  return RegisterCompare<Cmp::kGe>(r, "GreaterOrEqual", 12);
}

}  // namespace onnx_light::kernels
