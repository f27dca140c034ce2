#include "quantization/qconv_winograd.h"

#include <algorithm>
#include <cstdlib>

#include "simd/qlinear_simd.h"

namespace onnx_light::kernels {
namespace {

constexpr int kG2[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};

int32_t WeightZeroPoint(const Tensor* wz, int64_t m) {
  if (wz == nullptr) return 0;
  const int64_t at = wz->num_elements() == 1 ? 0 : m;
  return wz->dtype() == DataType::kInt8 ? wz->data<int8_t>()[at]
                                        : static_cast<int32_t>(wz->data<uint8_t>()[at]);
}

}  // namespace

WinogradWeights MakeWinogradWeights(const Tensor& w, const Tensor* wz) {
  WinogradWeights out;
  const std::vector<int64_t>& d = w.shape().dims();
  if (d.size() != 4 || d[2] != 3 || d[3] != 3 || d[0] < 8 || d[1] < 8) return out;
  if (wz != nullptr && wz->num_elements() != 1 && wz->num_elements() != d[0]) return out;
  const int64_t m = d[0], c = d[1], c_pad = c + (c & 1);
  const bool is_signed = w.dtype() == DataType::kInt8;
  const auto* bytes = static_cast<const uint8_t*>(w.raw_data());
  // U [16][c_pad x m], and the largest centered weight (the overflow bound).
  std::vector<int16_t> u(static_cast<size_t>(16 * c_pad * m), 0);
  int64_t max_g = 0;
  for (int64_t mo = 0; mo < m; ++mo) {
    const int32_t zero = WeightZeroPoint(wz, mo);
    for (int64_t ci = 0; ci < c; ++ci) {
      int32_t g[3][3];
      for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx) {
          const uint8_t b = bytes[((mo * c + ci) * 3 + ky) * 3 + kx];
          g[ky][kx] = (is_signed ? static_cast<int8_t>(b) : static_cast<int32_t>(b)) - zero;
          max_g = std::max<int64_t>(max_g, std::abs(g[ky][kx]));
        }
      int32_t t[4][3];  // G2 g
      for (int r = 0; r < 4; ++r)
        for (int kx = 0; kx < 3; ++kx)
          t[r][kx] = kG2[r][0] * g[0][kx] + kG2[r][1] * g[1][kx] + kG2[r][2] * g[2][kx];
      for (int r = 0; r < 4; ++r)
        for (int s = 0; s < 4; ++s) {
          const int32_t v = t[r][0] * kG2[s][0] + t[r][1] * kG2[s][1] + t[r][2] * kG2[s][2];
          u[static_cast<size_t>(((r * 4 + s) * c_pad + ci) * m + mo)] = static_cast<int16_t>(v);
        }
    }
  }
  // 4 x the largest sum: 9 taps x c channels x 255 (a centered code) x max|g|.
  if (4.0 * 9.0 * 255.0 * static_cast<double>(max_g) * static_cast<double>(c) >= 2147483648.0)
    return out;
  out.c_pad = c_pad;
  out.m = m;
  for (int64_t x = 0; x < 16; ++x) {
    out.u.push_back(QGemmI16PackB16(c_pad, m, u.data() + x * c_pad * m, m));
    if (out.u.back().bytes == nullptr) {  // a scalar build: no packed kernel
      out.u.clear();
      break;
    }
  }
  return out;
}

int64_t WinogradTileRowsPerBlock(int64_t ow) {
  const int64_t tw = (ow + 1) / 2;
  return std::max<int64_t>(1, 48 / std::max<int64_t>(1, tw));
}

void WinogradRows(const PaddedImage& img, const WinogradWeights& ww, int64_t oh, int64_t ow,
                  int64_t tr0, int64_t tr1, QConvWorker* scratch, int32_t* acc) {
  const int64_t tw = (ow + 1) / 2, tiles = (tr1 - tr0) * tw;
  const int64_t c = ww.c_pad, m = ww.m, cp = img.c_pad;
  scratch->v.resize(static_cast<size_t>(16 * tiles * c));
  scratch->prod.resize(static_cast<size_t>(16 * tiles * m));
  int16_t* v = scratch->v.data();
  int32_t* prod = scratch->prod.data();
  WinogradInputTiles(img.data, img.wp, cp, tr0, tr1, tw, c, v);
  // One GEMM per transformed position (the weights are centered: no zero points).
  for (int64_t x = 0; x < 16; ++x)
    QGemmI16Packed(tiles, m, v + x * tiles * c, c, ww.u[static_cast<size_t>(x)], 0, nullptr,
                   prod + x * tiles * m, m);
  WinogradOutputTiles(prod, tr0, tr1, tw, m, oh, ow, acc);
}

}  // namespace onnx_light::kernels
