// The float32 2-D convolution behind Conv and FusedConv: small images (at most 64 output
// positions) and windowed layers up to 64x64 run transposed, output channels as the vector
// (conv2d_positions_f32.cc); depthwise convolutions run
// directly (vector rows, no im2col); on AVX-512 the other convolutions with a window, and
// most 1x1 ones, run as an implicit product over the input read in place
// (conv2d_implicit_f32.cc); elsewhere 1x1 stride-1 convolutions multiply the input as it
// is, small filters run directly over padded planes, and the rest build columns row by
// row (contiguous copies, zero padding written once) and multiply through math/gemm.h.
// Every path ends with the fused epilogue: bias, an optional residual Z, an activation.
#pragma once

#include <cstdint>
#include <vector>

#include "onnx_light/runtime/thread_pool.h"
#include "simd/conv_simd.h"
#include "simd/gemm_simd.h"

namespace onnx_light::kernels {

// floats rounded up to whole 64-byte lines, so every region carved from one scratch block
// stays aligned.
inline int64_t Lines(int64_t floats) {
  return (floats + 15) / 16 * 16;
}

struct Conv2DShape {
  int64_t batch, c_in, h, w;       // X [batch, c_in, h, w]
  int64_t m, kh, kw, group;        // W [m, c_in / group, kh, kw]
  int64_t oh, ow;                  // Y [batch, m, oh, ow]
  int64_t sh, sw, dh, dw, pt, pl;  // strides, dilations, top and left pads
  bool depthwise() const { return group == c_in && m == c_in; }
};

// The same convolution with one-pixel-wide images and kx1 kernels (1-D convolutions
// exported along the height) as one-row images with 1xk kernels: the same memory, whose
// rows are contiguous.
Conv2DShape AsRows(const Conv2DShape& s);

// The scratch Conv2DF32 needs (floats) with a pool of `workers` threads.
// `w_packed`: W comes packed for the positions path (no room for packing it).
size_t Conv2DScratchFloats(const Conv2DShape& s, int64_t workers, bool w_packed = false);

// y = act(conv(x, w) + bias + z). bias and z may be null. `scratch` holds
// Conv2DScratchFloats(s, pool threads) floats, 64-byte aligned. `w_positions`: W packed by
// PackPositionsWeights, where UsePositionsConv(s) and W is a constant, else null.
void Conv2DF32(const float* x, const float* w, const float* bias, const float* z, float* y,
               const Conv2DShape& s, const Activation& act, float* scratch, ThreadPool* pool,
               const float* w_positions = nullptr);

// Runs fn(task, worker) for tasks [0, tasks) in equal consecutive shares, one share per
// worker of the pool (`workers` of them; each worker keeps its own scratch), or all of
// them as worker 0 without a pool or with one worker.
void RunShares(ThreadPool* pool, int64_t workers, int64_t tasks, ParallelBody fn);

// Dense convolutions with a window (taps > 1) on AVX-512, where the implicit product over
// stride-phase planes (conv2d_implicit_f32.cc) beats columns and packing.
bool UseImplicitConv(const Conv2DShape& s);
size_t ImplicitConvScratchFloats(const Conv2DShape& s, int64_t workers);
void ImplicitConvF32(const float* x, const float* w, const float* bias, const float* z, float* y,
                     const Conv2DShape& s, const Activation& act, float* scratch, ThreadPool* pool);

// Many small images (at most 32 output positions) into many output channels, each image's
// product transposed so that the output channels are the vector (conv2d_positions_f32.cc).
// `w_packed`, if not null, is W packed by PackPositionsWeights (a constant W, packed once per
// session); else W is packed into the scratch on every call.
bool UsePositionsConv(const Conv2DShape& s);
size_t PositionsWeightsFloats(const Conv2DShape& s);
void PackPositionsWeights(const float* w, const Conv2DShape& s, float* out);
size_t PositionsConvScratchFloats(const Conv2DShape& s, int64_t workers, bool w_packed);
void PositionsConvF32(const float* x, const float* w, const float* bias, const float* z, float* y,
                      const Conv2DShape& s, const Activation& act, float* scratch, ThreadPool* pool,
                      const float* w_packed);

// c[m x n] += a[m x k] * b[k x n] (row-major, c's rows ldc apart; ldc == n unless the
// packed or the narrow kernel runs, UsePacked and UseNarrow in conv2d_f32.cc): dot
// products for a few columns (SgemmNarrow), the packed Highway kernel where it is faster
// (AVX-512 and n of at least 64, simd/gemm_simd.h), else Gemm2D (math/gemm.h). With a pool of
// several threads the columns (or, for narrow products, the rows) are split between them. `work`
// holds ConvGemmWorkFloats(m, n, k, workers) floats, 64-byte aligned.
size_t ConvGemmWorkFloats(int64_t m, int64_t n, int64_t k, int64_t workers);
// `a_packed`, if not null, is `a` packed by SgemmPackA (used when the packed kernel is).
void ConvGemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
              int64_t ldc, float* work, ThreadPool* pool, const float* a_packed = nullptr);

}  // namespace onnx_light::kernels
