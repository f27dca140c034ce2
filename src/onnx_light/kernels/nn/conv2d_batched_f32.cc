// Many small images through one convolution: Keras Conv1D layers exported by tf2onnx run
// a batch of short sequences (DeepCut: 400 windows of 21 characters, 14 outputs each;
// slovorez: 32 words of 24 letters), and one product per image is [m x k] by [k x 14],
// far too narrow for the matrix kernels. Here the columns of a chunk of images sit side by
// side (about 256 columns a chunk), one product computes them all, and each image's rows
// are copied out with the epilogue (bias first, as the other paths order the sums). Chunks
// go to the threads whole when there are enough of them, else each product splits.
#include <algorithm>
#include <cstring>

#include "nn/conv2d_f32.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/conv_simd.h"
#include "simd/gemm_simd.h"

namespace onnx_light::kernels {
namespace {

constexpr int64_t kChunkColumns = 256;

struct Batched {
  int64_t opos, k, per, chunks, cols, col_floats, out_floats, gemm_floats, per_worker;
  int64_t apack_floats;  // the weights packed once per call (0: no product reads them so)
  bool by_chunk;
};

Batched MakeBatched(const Conv2DShape& s, int64_t workers) {
  Batched p{};
  p.opos = s.oh * s.ow;
  p.k = s.c_in * s.kh * s.kw;
  // About kChunkColumns columns a chunk, and with several threads a whole number of
  // chunks for each (32 words of 24 letters on two threads: one chunk each, built and
  // multiplied on its own thread, not one product split while the columns were serial).
  int64_t chunks = (s.batch * p.opos + kChunkColumns - 1) / kChunkColumns;
  if (workers > 1) chunks = (std::max(chunks, workers) + workers - 1) / workers * workers;
  chunks = std::clamp<int64_t>(chunks, 1, s.batch);
  p.per = (s.batch + chunks - 1) / chunks;
  p.chunks = (s.batch + p.per - 1) / p.per;
  p.cols = p.per * p.opos;
  p.by_chunk = workers > 1 && p.chunks >= workers;
  p.col_floats = Lines(p.k * p.cols);
  p.out_floats = Lines(s.m * p.cols);
  // A short last chunk may take another kernel: room for either.
  const int64_t last = (s.batch - (p.chunks - 1) * p.per) * p.opos;
  const int64_t gemm_workers = p.by_chunk ? 1 : workers;
  p.gemm_floats =
      Lines(static_cast<int64_t>(std::max(ConvGemmWorkFloats(s.m, p.cols, p.k, gemm_workers),
                                          ConvGemmWorkFloats(s.m, last, p.k, gemm_workers))));
  p.per_worker = p.col_floats + p.out_floats + p.gemm_floats;
  p.apack_floats = ConvGemmReadsPackedA(p.cols) || ConvGemmReadsPackedA(last)
                       ? Lines(static_cast<int64_t>(SgemmPackedAFloats(s.m, p.k)))
                       : 0;
  return p;
}

}  // namespace

bool UseBatchedConv(const Conv2DShape& s) {
  const int64_t opos = s.oh * s.ow;
  return s.batch > 1 && s.group == 1 && !s.depthwise() && opos > 0 && opos < 64 &&
         s.batch * opos >= 128 && s.m >= 8;
}

size_t BatchedConvScratchFloats(const Conv2DShape& s, int64_t workers) {
  const Batched p = MakeBatched(s, workers);
  return static_cast<size_t>(p.apack_floats + p.per_worker * (p.by_chunk ? workers : 1));
}

void BatchedConvF32(const float* x, const float* w, const float* bias, const float* z, float* y,
                    const Conv2DShape& s, const Activation& act, float* scratch, ThreadPool* pool) {
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  const Batched p = MakeBatched(s, workers);
  const int64_t in_image = s.c_in * s.h * s.w, out_image = s.m * p.opos;
  const bool epilogue = z != nullptr || HasEffect(act);
  // The weights packed once for every chunk (a 192 x 1280 layer's packing per chunk cost
  // as much as a third of its product).
  const float* apack = nullptr;
  if (p.apack_floats > 0) {
    SgemmPackA(s.m, p.k, w, p.k, scratch);
    apack = scratch;
    scratch += p.apack_floats;
  }
  auto run_chunk = [&](int64_t c, float* work, ThreadPool* gemm_pool) {
    const int64_t b0 = c * p.per, nb = std::min(p.per, s.batch - b0), n = nb * p.opos;
    float* col = work;
    float* out = work + p.col_floats;
    for (int64_t i = 0; i < nb; ++i)
      Im2Col(x + (b0 + i) * in_image, s.c_in, s, 0, s.oh, col + i * p.opos, n);
    for (int64_t oc = 0; oc < s.m; ++oc)
      std::fill(out + oc * n, out + (oc + 1) * n, bias != nullptr ? bias[oc] : 0.0f);
    ConvGemm(s.m, n, p.k, w, col, out, n, work + p.col_floats + p.out_floats, gemm_pool, apack);
    for (int64_t i = 0; i < nb; ++i) {
      float* yi = y + (b0 + i) * out_image;
      for (int64_t oc = 0; oc < s.m; ++oc) {
        std::memcpy(yi + oc * p.opos, out + oc * n + i * p.opos,
                    static_cast<size_t>(p.opos) * sizeof(float));
      }
      if (epilogue) {
        BiasActivationF32(yi, static_cast<size_t>(out_image), 0.0f,
                          z != nullptr ? z + (b0 + i) * out_image : nullptr, act);
      }
    }
  };
  if (p.by_chunk) {
    RunShares(pool, workers, p.chunks,
              [&](int64_t c, int64_t k) { run_chunk(c, scratch + k * p.per_worker, nullptr); });
    return;
  }
  for (int64_t c = 0; c < p.chunks; ++c)
    run_chunk(c, scratch, pool);
}

}  // namespace onnx_light::kernels
