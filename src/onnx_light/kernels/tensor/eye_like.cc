// EyeLike: an identity-like matrix of the input's shape.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// EyeLike: ones on the diagonal shifted by k, of the input's shape (2-D) and a dtype.
class EyeLike : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<EyeLike>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->k_, info.GetInt("k", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF(x.shape().rank() != 2, kInvalidArgument, "input must be 2-D");
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t rows = x.shape()[0], cols = x.shape()[1];
    DispatchNumeric(y->dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* out = y->mutable_data<T>();
      for (int64_t i = 0; i < rows * cols; ++i)
        out[i] = static_cast<T>(0.0f);
      // Only a k inside (-rows, cols) puts ones anywhere; then i + k cannot overflow.
      if (k_ > -rows && k_ < cols) {
        for (int64_t i = 0; i < rows; ++i) {
          if (i + k_ >= 0 && i + k_ < cols) out[i * cols + i + k_] = static_cast<T>(1.0f);
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t k_ = 0;
};

Status EyeLikeType(const onnx::NodeProto& node, int, const std::vector<DataType>& in,
                   std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = in[0];
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "dtype") {
      ONNX_LIGHT_ASSIGN_OR_RETURN((*out)[0], DataTypeFromInt(static_cast<int32_t>(a.i.get())));
    }
  }
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, EyeLike) {
  KernelDef def = Def("EyeLike", 9, {{"T1", {0}, {}, NumericTypes()}}, FactoryOf<EyeLike>());
  def.output_types = &EyeLikeType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
