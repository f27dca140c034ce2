// BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot and BitShift on integers, broadcasting.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

enum class Bit { kAnd, kOr, kXor, kLeft, kRight };

template <Bit kBit>
class BitBinary : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<BitBinary>();
    if constexpr (kBit == Bit::kLeft || kBit == Bit::kRight) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::string dir, info.GetString("direction"));
      if (dir != "LEFT" && dir != "RIGHT") {
        return Status(StatusCode::kInvalidModel,
                      info.Describe() + ": direction must be LEFT or RIGHT, got '" + dir + "'");
      }
      k->left_ = dir == "LEFT";
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(1);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(a.shape(), b.shape(), ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const bool left = left_;
    DispatchNumeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        BroadcastApply(a.data<T>(), a.shape(), b.data<T>(), b.shape(), y->mutable_data<T>(), dims,
                       ctx.thread_pool(), [left](T u, T v) -> T {
                         if constexpr (kBit == Bit::kAnd) return static_cast<T>(u & v);
                         if constexpr (kBit == Bit::kOr) return static_cast<T>(u | v);
                         if constexpr (kBit == Bit::kXor) return static_cast<T>(u ^ v);
                         // BitShift (unsigned types): shifting by the width or more gives 0.
                         const auto shift = static_cast<uint64_t>(v);
                         if (shift >= sizeof(T) * 8) return T(0);
                         const auto w = static_cast<uint64_t>(u);
                         return static_cast<T>(left ? w << shift : w >> shift);
                       });
      }
    });
    return Status::Ok();
  }

 private:
  bool left_ = true;
};

class BitwiseNot : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new BitwiseNot());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        for (int64_t i = 0; i < x.num_elements(); ++i)
          y->mutable_data<T>()[i] = static_cast<T>(~x.data<T>()[i]);
      }
    });
    return Status::Ok();
  }
};

}  // namespace

#define ONNX_LIGHT_BIT(Op, since, kind, types)                                                     \
  Status RegisterKernel_ai_onnx_##Op(KernelRegistry& r) {                                          \
    return r.Register(Def(#Op, since, {{"T", {0, 1}, {0}, types}}, FactoryOf<BitBinary<kind>>())); \
  }
ONNX_LIGHT_BIT(BitwiseAnd, 18, Bit::kAnd, IntegerTypes())
ONNX_LIGHT_BIT(BitwiseOr, 18, Bit::kOr, IntegerTypes())
ONNX_LIGHT_BIT(BitwiseXor, 18, Bit::kXor, IntegerTypes())
ONNX_LIGHT_BIT(BitShift, 11, Bit::kLeft,
               (std::vector<DataType>{DataType::kUint8, DataType::kUint16, DataType::kUint32,
                                      DataType::kUint64}))
#undef ONNX_LIGHT_BIT

Status RegisterKernel_ai_onnx_BitwiseNot(KernelRegistry& r) {
  return r.Register(UnaryDef("", "BitwiseNot", 18, IntegerTypes(), FactoryOf<BitwiseNot>()));
}

}  // namespace onnx_light::kernels
