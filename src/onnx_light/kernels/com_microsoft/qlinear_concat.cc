// com.microsoft QLinearConcat (ORT's quantizer, QOperator format): inputs Y_scale,
// Y_zero_point, then (X, X_scale, X_zero_point) per tensor; attribute axis. Each X is
// requantized to Y's parameters through the identity's code table (qlinear.h), or copied
// when its parameters are Y's, then concatenated along `axis`.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "com_microsoft/qlinear.h"

namespace onnx_light::kernels {
namespace {

class QLinearConcat : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<QLinearConcat>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis"));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const size_t count = ctx.input_count();
    ONNX_LIGHT_RETURN_IF(count < 5 || (count - 2) % 3 != 0, kInvalidArgument,
                         "inputs must be Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) "
                         "triples; got " +
                             std::to_string(count) + " inputs");
    ONNX_LIGHT_ASSIGN_OR_RETURN(QParams yq, TensorQParams(ctx, 0, 1, "Y"));
    const Tensor& x0 = *ctx.input(2);
    const DataType type = x0.dtype();
    const auto rank = static_cast<int64_t>(x0.shape().rank());
    ONNX_LIGHT_RETURN_IF(rank == 0, kInvalidArgument, "inputs must have rank >= 1");
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    const auto ax = static_cast<size_t>(axis);
    std::vector<int64_t> out = x0.shape().dims();
    out[ax] = 0;
    for (size_t i = 2; i < count; i += 3) {
      const Tensor* x = ctx.input(i);
      ONNX_LIGHT_RETURN_IF(x == nullptr || ctx.input(i + 2) == nullptr, kInvalidArgument,
                           "every X needs its scale and zero point");
      ONNX_LIGHT_RETURN_IF(
          x->dtype() != type || ctx.input(i + 2)->dtype() != type || ctx.input(1)->dtype() != type,
          kInvalidArgument, "inputs and zero points must share one 8-bit type");
      bool same = x->shape().rank() == x0.shape().rank();
      for (size_t d = 0; same && d < out.size(); ++d)
        same = d == ax || x->shape()[d] == out[d];
      ONNX_LIGHT_RETURN_IF(!same, kInvalidArgument,
                           "input " + x->shape().ToString() + " does not match " +
                               x0.shape().ToString() + " outside axis " + std::to_string(axis));
      out[ax] += x->shape()[ax];
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < out.size(); ++d) {
      if (d < ax) outer *= out[d];
      if (d > ax) inner *= out[d];
    }
    auto* dst = static_cast<uint8_t*>(y->mutable_raw_data());
    const int64_t out_row = out[ax] * inner;
    int64_t offset = 0;
    for (size_t i = 2; i < count; i += 3) {
      const Tensor& x = *ctx.input(i);
      ONNX_LIGHT_ASSIGN_OR_RETURN(QParams xq, TensorQParams(ctx, i + 1, i + 2, "X"));
      const int64_t row = x.shape()[ax] * inner;
      const auto* src = static_cast<const uint8_t*>(x.raw_data());
      const bool copy = xq.scale == yq.scale && xq.zero_point == yq.zero_point;
      const std::array<uint8_t, 256> table =
          copy                      ? std::array<uint8_t, 256>{}
          : type == DataType::kInt8 ? CodeTable<int8_t>(xq, yq, [](float v) { return v; })
                                    : CodeTable<uint8_t>(xq, yq, [](float v) { return v; });
      for (int64_t o = 0; o < outer && row > 0; ++o) {
        uint8_t* to = dst + o * out_row + offset;
        const uint8_t* from = src + o * row;
        if (copy) {
          std::memcpy(to, from, static_cast<size_t>(row));
        } else {
          ApplyCodeTable(table, from, to, row);
        }
      }
      offset += row;
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
};

// Y has the type of the first X (input 2); the kernel checks that every X and zero point has it.
Status OutputIsFirstX(const onnx::NodeProto&, int, const std::vector<DataType>& in,
                      std::vector<DataType>* out, const NodeSubgraphs&) {
  ONNX_LIGHT_RETURN_IF(in.size() < 3 || (in[2] != DataType::kUint8 && in[2] != DataType::kInt8),
                       kInvalidModel, "QLinearConcat's inputs must be uint8 or int8");
  (*out)[0] = in[2];
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QLinearConcat) {
  // Variadic and heterogeneous (scales are float, the rest 8-bit): the kernel checks types.
  KernelDef def = MsDef("QLinearConcat", {}, FactoryOf<QLinearConcat>(), {5, 1 << 20});
  def.output_types = &OutputIsFirstX;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
