#include "quantization/qconv_weights.h"

#include <cstring>

namespace onnx_light::kernels {

GemmWeights MakeGemmWeights(const Tensor& w, int64_t group) {
  const std::vector<int64_t>& d = w.shape().dims();
  GemmWeights g;
  g.group = group;
  g.mg = d[0] / group;
  g.cg = d[1];
  g.taps = d[2] * d[3];
  g.is_signed = w.dtype() == DataType::kInt8;
  const int64_t k = g.K();
  g.b.resize(static_cast<size_t>(d[0] * k));
  const auto* src = static_cast<const uint8_t*>(w.raw_data());
  for (int64_t gi = 0; gi < group; ++gi)
    for (int64_t m = 0; m < g.mg; ++m)
      for (int64_t c = 0; c < g.cg; ++c)
        for (int64_t t = 0; t < g.taps; ++t)
          g.b[static_cast<size_t>((gi * k + t * g.cg + c) * g.mg + m)] =
              src[((gi * g.mg + m) * g.cg + c) * g.taps + t];
  if (g.cg == 1 && g.mg == 1) return g;  // depthwise: read directly
  if (HaveVnniQGemm()) {
    // uint8 weights as int8 for the VNNI kernel: w - 128 against the zero point - 128
    // (vnni_shift), the same differences (ddddocr's dynamically quantized CRNN).
    std::vector<uint8_t> flipped;
    const uint8_t* src8 = g.b.data();
    if (!g.is_signed) {
      flipped.resize(g.b.size());
      for (size_t i = 0; i < g.b.size(); ++i)
        flipped[i] = static_cast<uint8_t>(g.b[i] ^ 0x80);
      src8 = flipped.data();
      g.vnni_shift = 128;
    }
    // Each tap's channels a whole count of quads (zero weight rows), read in place from the
    // padded image by QGemmVnniRuns.
    g.cg4 = (g.cg + 3) / 4 * 4;
    const int64_t k4 = g.taps * g.cg4;
    std::vector<uint8_t> padded(static_cast<size_t>(k4 * g.mg), 0);
    for (int64_t gi = 0; gi < group; ++gi) {
      for (int64_t t = 0; t < g.taps; ++t)
        for (int64_t c = 0; c < g.cg; ++c)
          std::memcpy(padded.data() + (t * g.cg4 + c) * g.mg, src8 + (gi * k + t * g.cg + c) * g.mg,
                      static_cast<size_t>(g.mg));
      g.packed.push_back(
          QGemmVnniPackB(k4, g.mg, reinterpret_cast<const int8_t*>(padded.data()), g.mg));
    }
  } else {
    // Each tap's channels an even count (whole int16 pairs, read in place by the kernel).
    g.cg_pad = g.cg + (g.cg & 1);
    const int64_t k_pad = g.taps * g.cg_pad;
    std::vector<uint8_t> padded(static_cast<size_t>(k_pad * g.mg), 0);
    for (int64_t gi = 0; gi < group; ++gi) {
      for (int64_t t = 0; t < g.taps; ++t)
        for (int64_t c = 0; c < g.cg; ++c)
          std::memcpy(padded.data() + (t * g.cg_pad + c) * g.mg,
                      g.b.data() + (gi * k + t * g.cg + c) * g.mg, static_cast<size_t>(g.mg));
      g.packed16.push_back(QGemmI16PackB(k_pad, g.mg, padded.data(), g.is_signed, g.mg));
      if (g.packed16.back().bytes == nullptr) {  // a scalar build: b read in place
        g.packed16.clear();
        break;
      }
    }
  }
  // Packed: the kernels read the packed copy only.
  if (!g.packed.empty() || !g.packed16.empty()) std::vector<uint8_t>().swap(g.b);
  return g;
}

}  // namespace onnx_light::kernels
