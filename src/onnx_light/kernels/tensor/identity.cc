// Identity: the output shares the input as it is, every tensor type.
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

class Identity : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Identity());
  }
  Status Compute(KernelContext& ctx) const override { return ctx.SetOutput(0, *ctx.input(0)); }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Identity) {
  std::vector<DataType> types = AllTensorTypes();  // Identity shares the input as it is
  types.insert(types.end(), NarrowTypes().begin(), NarrowTypes().end());
  return r.Register(UnaryDef("", "Identity", 1, std::move(types), FactoryOf<Identity>()));
}

}  // namespace onnx_light::kernels
