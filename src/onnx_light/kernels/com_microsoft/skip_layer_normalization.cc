// com.microsoft SkipLayerNormalization: the residual add and LayerNormalization of a
// BERT-style layer, fused by ORT's transformer optimizer (com_microsoft/skip_layer_norm.h).
#include "com_microsoft/ms_def.h"
#include "com_microsoft/skip_layer_norm.h"

namespace onnx_light::kernels {

// Inputs input, skip, gamma, beta?, bias?; outputs output, mean?, inv_std_var?, sum?.
ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, SkipLayerNormalization) {
  return r.Register(
      MsDef("SkipLayerNormalization",
            {{"T", {0, 1, 2, 3, 4}, {0, 3}, FloatTypes()}, {"U", {}, {1, 2}, {DataType::kFloat}}},
            FactoryOf<SkipLayerNorm<false>>(), {3, 5}, {1, 4}, 0b11000, 0b1110));
}

}  // namespace onnx_light::kernels
