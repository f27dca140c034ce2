// com.microsoft QuickGelu: Y = X * sigmoid(alpha X), alpha 1.702 by default (CLIP's
// activation; ORT's saved graphs fuse x * Sigmoid(1.702 x) into it).
#include <memory>

#include "com_microsoft/bias_activation.h"
#include "com_microsoft/ms_def.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, QuickGelu) {
  auto create = [](const KernelInfo& info) -> Result<std::unique_ptr<KernelBase>> {
    Activation act{ActivationKind::kQuickGelu};
    ONNX_LIGHT_ASSIGN_OR_RETURN(act.a, info.GetFloat("alpha", 1.702f));
    return std::unique_ptr<KernelBase>(std::make_unique<BiasActivation>(act));
  };
  return r.Register(
      MsDef("QuickGelu", {{"T", {0}, {0}, {DataType::kFloat}}}, std::move(create), {1, 1}));
}

}  // namespace onnx_light::kernels
