// com.microsoft SkipSimplifiedLayerNormalization: the residual add and RMS normalization
// of Llama/Phi-style layers, as the GenAI model builder and ORT's optimizer write it
// (com_microsoft/skip_layer_norm.h).
#include "com_microsoft/ms_def.h"
#include "com_microsoft/skip_layer_norm.h"

namespace onnx_light::kernels {

// Inputs input, skip, gamma, bias?; outputs output, mean?, inv_std_var?, sum?.
ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, SkipSimplifiedLayerNormalization) {
  return r.Register(
      MsDef("SkipSimplifiedLayerNormalization",
            {{"T", {0, 1, 2, 3}, {0, 3}, FloatTypes()}, {"U", {}, {1, 2}, {DataType::kFloat}}},
            FactoryOf<SkipLayerNorm<true>>(), {3, 4}, {1, 4}, 0b1000, 0b1110));
}

}  // namespace onnx_light::kernels
