// Identity: the output shares the input as it is, every tensor type; a sequence of tensors
// (Identity-14) passes as a sequence (its tensors shared, not copied).
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

class Identity : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Identity());
  }
  Status Compute(KernelContext& ctx) const override {
    if (const TensorSequence* s = ctx.input_sequence(0)) return ctx.SetOutputSequence(0, *s);
    return ctx.SetOutput(0, *ctx.input(0));
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Identity) {
  std::vector<DataType> types = AllTensorTypes();  // Identity shares the input as it is
  types.insert(types.end(), NarrowTypes().begin(), NarrowTypes().end());
  KernelDef def = UnaryDef("", "Identity", 1, std::move(types), FactoryOf<Identity>());
  def.passes_kind_since = 14;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
