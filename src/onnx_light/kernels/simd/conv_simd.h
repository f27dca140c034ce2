// Vectorized pieces of convolution (Highway, runtime CPU dispatch, like
// elementwise_simd.h): the rows of a direct depthwise convolution and the fused epilogue
// (bias, residual, activation) that Conv and FusedConv apply to their outputs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnx_light::kernels {

// An activation fused into a convolution or matrix product's output (ONNX semantics).
enum class ActivationKind : uint8_t {
  kNone,
  kRelu,
  kClip,       // a = min, b = max
  kLeakyRelu,  // a = alpha
  kSigmoid,
  kHardSigmoid,  // max(0, min(1, a*x + b))
  kHardSwish,    // x * max(0, min(1, x/6 + 1/2))
  kTanh,
  kSilu,  // x * sigmoid(x)
  kExp,
  kErf,
  kGelu,       // 0.5 x (1 + erf(x / sqrt 2))
  kGeluTanh,   // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
  kQuickGelu,  // x * sigmoid(a * x) (com.microsoft QuickGelu)
};
// After the activation, an optional scale and shift (Paddle's "learnable affine" after
// HardSwish: Mul and Add by scalars), each rounded as the separate op rounds it.
struct Activation {
  ActivationKind kind = ActivationKind::kNone;
  float a = 0, b = 0;
  bool has_scale = false, has_shift = false;
  float scale = 1, shift = 0;
  // Last, an optional floor: max(v, floor), NaN kept (a Max by a scalar after the
  // activation: TensorFlow exports of LeakyRelu models write Max(LeakyRelu(x), -0.4)).
  bool has_floor = false;
  float floor = 0;
};
// Whether the activation changes anything (the epilogue can be skipped when not).
inline bool HasEffect(const Activation& act) {
  return act.kind != ActivationKind::kNone || act.has_scale || act.has_shift || act.has_floor;
}

// y[i] += a * x[i * stride] for i < n (any stride; 1 and 2 vectorized).
void AxpyStridedF32(float* y, const float* x, size_t n, float a, size_t stride);
// even[i] = x[2i], odd[i] = x[2i + 1] for i < n: a row split by stride phase.
void DeinterleaveF32(const float* x, size_t n, float* even, float* odd);
// Rows of a plane split by stride phase: for each r < rows, the n floats x[r * w + i] go to
// out[r * pw + (c0 + i) / 2], plus `odd` when c0 + i is odd (the padded rows of a stride-2
// depthwise plane, DepthwiseGeometry::odd; nothing else of `out` is written). The plane's
// rows after the first are read as a row's tail.
void SplitRowsF32(const float* x, int64_t rows, int64_t w, int64_t n, int64_t c0, float* out,
                  int64_t pw, int64_t odd);
// y[i] = act(x[i]): the unary ops with a vector form (Tanh, Sigmoid, HardSigmoid,
// HardSwish, Exp, ...), within a few ULP of the C library. In place allowed.
void ActivationF32(const float* x, float* y, size_t n, const Activation& act);
// y[i] = act(y[i] + bias + (z ? z[i] : 0)): the epilogue of one output plane (the
// activation's scale and shift included, as everywhere an Activation is applied).
void BiasActivationF32(float* y, size_t n, float bias, const float* z, const Activation& act);

// One batch row of an LSTM step with the default activations (f Sigmoid, g Tanh, h Tanh):
// gates g [4h] in ONNX's order i, o, f, c (the input and recurrent products and biases
// summed), optional peepholes p [3h] (i, o, f), `clip` > 0 clamps each gate's sum,
// input_forget couples f = 1 - i. Updates the cell c [h] and writes hid [h]; g is only read.
struct LstmCell {
  const float* g;
  float* c;
  float* hid;
  const float* p;
  size_t h;
  float clip;
  bool input_forget;
};
void LstmCellF32(const LstmCell& a);

// A depthwise convolution's window over one plane: kernel kh x kw, strides (sh, sw = 1 or
// 2), dilations, and the output width.
struct DepthwiseGeometry {
  int64_t kh, kw, sh, sw, dh, dw, ow;
  // DepthwiseRowsF32 with sw 2: each padded row holds its even columns first, then its
  // odd ones from `odd` = (pw + 1) / 2 on (PadPlane's split layout), so that every tap
  // reads consecutive floats. 0: the row as it is (DirectConvRowsF32).
  int64_t odd = 0;
};
// Output rows [oh0, oh1) of one depthwise plane, y[oh, ow] = act(bias + z[oh, ow] + sum
// over taps of w[kh, kw] * xp[(oh*sh + kh*dh) * pw + ow*sw + kw*dw]) (z may be null),
// from a plane padded by the caller (rows pw apart, zeros where the window reads padding;
// with sw 2, each row split into its even and odd columns, g.odd) and followed by
// DepthwiseSlackFloats() readable floats: whole vectors are loaded past the last output of
// a row.
void DepthwiseRowsF32(const float* xp, int64_t pw, const float* w, const DepthwiseGeometry& g,
                      float bias, const float* z, float* y, int64_t oh0, int64_t oh1,
                      const Activation& act);
size_t DepthwiseSlackFloats();
// The unpadded plane of a depthwise convolution: x is h x w, read with pads pt (top) and
// pl (left); `zeros` holds w zeros (the rows above and below the plane read it).
struct DepthwiseSource {
  const float* x;
  int64_t h, w, pt, pl;
  const float* zeros;
};
// Whether DepthwiseInPlaceF32 takes this window on the running CPU: 3x3 and 5x5, strides
// 1 or 2 (the same both ways), dilation 1, at least four output rows, on AVX2 and AVX-512
// (elsewhere the caller pads the plane for DepthwiseRowsF32).
bool DepthwiseInPlaceFits(const DepthwiseGeometry& g, int64_t oh);
// All oh output rows of one depthwise plane as DepthwiseRowsF32 computes them, read
// straight from the unpadded plane: columns outside it masked off, rows outside it read
// from `zeros` (copying each plane into a padded one had cost as much as its taps on
// 14x14 and 7x7 planes).
void DepthwiseInPlaceF32(const DepthwiseSource& in, const float* w, const DepthwiseGeometry& g,
                         int64_t oh, float bias, const float* z, float* y, const Activation& act);
// A depthwise convolution at stride 1 whose output rows are as wide as the input's (ow ==
// w: "same" columns), over planes of h x w (simd/depthwise_flat_simd.cc).
struct DepthwiseFlat {
  int64_t h, w, oh, ow, kh, kw, dh, dw, pt, pl;
};
// Whether DepthwiseFlatF32 takes it on the running CPU: AVX-512, rows narrower than a
// vector (7, 14), at most 256 output positions, 3x3 or 5x5 windows without dilation.
bool DepthwiseFlatFits(const DepthwiseFlat& f);
// `planes` planes of x (h x w each) into y (oh x ow each), plane q being channel (first +
// q) % channels: y = act(bias[c] + z + sum over taps of w[c, kh, kw] * x[oh + kh * dh -
// pt, ow + kw * dw - pl]), zero outside the plane. bias and z may be null. Each plane is
// one flat run of positions, 16 to a vector across row ends, each tap a masked load.
// `buf`: DepthwiseFlatFloats(f) floats of scratch.
size_t DepthwiseFlatFloats(const DepthwiseFlat& f);
void DepthwiseFlatF32(const DepthwiseFlat& f, const float* x, int64_t planes, int64_t first,
                      int64_t channels, const float* w, const float* bias, const float* z, float* y,
                      const Activation& act, float* buf);
// Output rows [oh0, oh1) of `oc` output channels of a direct convolution over `channels`
// input planes padded as for DepthwiseRowsF32 (each followed by its slack, `cstride`
// floats apart): y[o, oh, ow] = act(bias[o] + z[o, oh, ow] + sum over c, kh, kw of
// w[o, c, kh, kw] * xp[c][(oh*sh + kh*dh) * pw + ow*sw + kw*dw]); y and z hold `oc`
// planes of out_plane floats (bias and z may be null). For small filters (a network's
// first layers), where building columns would cost more than the product.
void DirectConvRowsF32(const float* xp, int64_t cstride, int64_t pw, int64_t channels,
                       const float* w, int64_t oc, const DepthwiseGeometry& g, const float* bias,
                       const float* z, float* y, int64_t out_plane, int64_t oh0, int64_t oh1,
                       const Activation& act);

}  // namespace onnx_light::kernels
