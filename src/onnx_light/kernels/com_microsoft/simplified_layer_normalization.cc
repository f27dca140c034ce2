// SimplifiedLayerNormalization: RMS normalization over the dims from `axis` on, Y = X /
// sqrt(mean(X^2) + epsilon) * scale, with an optional float InvStdDev output. An ONNX
// Runtime contrib op that ORT registers in the default (ai.onnx) domain, from opset 1: the
// Llama/Phi exports of the GenAI model builder and Optimum write it. The computation is
// RMSNormalization's (nn/normalization.cc); X and scale share one type here (ORT also
// allows them to differ).
#include "com_microsoft/ms_def.h"
#include "nn/layer_norm.h"

namespace onnx_light::kernels {

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, SimplifiedLayerNormalization) {
  KernelDef def = Def("SimplifiedLayerNormalization", 1,
                      {{"T", {0, 1}, {0}, FloatTypes()}, {"U", {}, {1}, {DataType::kFloat}}},
                      [](const KernelInfo& info) { return CreateLayerNorm(info, true); });
  def.arity = {2, 2, 1, 2, 0, 1u << 1};
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
