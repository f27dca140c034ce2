// Convolutions of many small images with many output channels (Keras Conv1D stacks over
// short windows: 400 windows of 21 characters into 100-200 filters each, DeepCut and its
// kin). An image's product [m x k] x [k x n] has only n = 10-21 columns, far too narrow for
// the kernels that vectorize along the columns. Computed transposed, each image's
// positions are the rows and its output channels the vector: out^T [n x m] = rows [n x k]
// x W^T [k x m], with W^T packed once per session for a constant W (else once per call:
// every image reads it) and the rows read in
// place through offsets (simd/gemm_gather_simd.cc: row r's tap p at roff[r] + koff[p] of the
// image, or of a zero-padded copy of it when the convolution pads). The
// product lands in a small buffer that the epilogue (bias first, as ORT orders the sums;
// residual; activation) transposes into Y. Each image is computed alone, the same way
// whatever the batch, so an image's result does not depend on its neighbours
// (docs/batch_inference.md). ONNX Runtime's NCHWc convolution vectorizes along output
// channels for the same reason.
#include <algorithm>
#include <cstring>
#include <vector>

#include "math/gemm.h"
#include "nn/conv2d_f32.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/transpose_simd.h"

namespace onnx_light::kernels {
namespace {

struct Positions {
  int64_t n, k;           // output positions per image, k = c_in * kh * kw
  int64_t hp, wp;         // the rows and columns the windows reach, from the top-left pad
  bool padded;            // the windows read padding: each image copied into a padded buffer
  int64_t chunk, chunks;  // an image's positions in chunks (a task each) of `chunk` rows
  int64_t packed;         // W^T packed
  int64_t image, out;     // per worker: the padded image (0 when not padded), the product
  bool by_channels;       // fewer images than threads: the output channels split instead
  int64_t per() const { return image + out; }
};

Positions MakePositions(const Conv2DShape& s, int64_t workers) {
  Positions p{};
  p.n = s.oh * s.ow;
  p.k = s.c_in * s.kh * s.kw;
  // Chunks of at most 256 positions (their products, 256 x m floats, stay in L2), and
  // enough of them for every thread when the batch is small, in a number the threads
  // share equally (each element is summed the same way in any chunk: the split changes
  // no result).
  const auto ceil = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  p.chunks = ceil(p.n, 256);
  // Fewer images of at most 256 positions than threads: each thread takes all the
  // positions and a share of the output channels, reading only its share of W. Split by
  // positions, every thread streamed all of W with half the rows to use it on (a 3x3 layer
  // of 512 channels on a 7x7 image, 9.4 MB of W: 1.42x faster on 2 threads than on 1
  // where ORT was 2x; AVX2 EPYC).
  p.by_channels = workers > 1 && s.batch < workers && p.chunks == 1 &&
                  s.m >= 2 * workers * static_cast<int64_t>(SgemmPackedTileColumns());
  if (p.by_channels) {
    // (one chunk, the whole image)
  } else if (workers > 1 && s.batch * p.chunks < 8 * workers) {
    p.chunks = std::max(p.chunks, std::min(ceil(workers, s.batch), ceil(p.n, 16)));
    while ((s.batch * p.chunks) % workers != 0 && p.chunks < ceil(p.n, 16))
      ++p.chunks;
  }
  p.chunk = ceil(p.n, p.chunks);
  p.chunks = ceil(p.n, p.chunk);
  p.hp = (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1;
  p.wp = (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1;
  p.padded = s.pt != 0 || s.pl != 0 || p.hp > s.h || p.wp > s.w;
  p.packed = Lines(static_cast<int64_t>(SgemmPackedBFloats(p.k, s.m)));
  p.image = p.padded ? Lines(s.c_in * p.hp * p.wp) : 0;
  p.out = Lines(p.chunk * s.m);
  return p;
}

// Rows [r0, r1) of the padded image (image rows [-pt, hp - pt), columns [-pl, wp - pl),
// zero outside it), each at its place in `out`.
void PadImage(const float* x, const Conv2DShape& s, const Positions& p, int64_t r0, int64_t r1,
              float* out) {
  const int64_t l0 = std::min(p.wp, s.pl), l1 = std::clamp<int64_t>(s.w + s.pl, l0, p.wp);
  for (int64_t c = 0; c < s.c_in; ++c) {
    for (int64_t r = r0; r < r1; ++r) {
      float* row = out + (c * p.hp + r) * p.wp;
      const int64_t ih = r - s.pt;
      if (ih < 0 || ih >= s.h || l0 >= l1) {
        std::fill(row, row + p.wp, 0.0f);
        continue;
      }
      std::fill(row, row + l0, 0.0f);
      std::memcpy(row + l0, x + (c * s.h + ih) * s.w + (l0 - s.pl),
                  static_cast<size_t>(l1 - l0) * sizeof(float));
      std::fill(row + l1, row + p.wp, 0.0f);
    }
  }
}

// A 1x1 convolution of a 1x1 image (a squeeze-excite's, a classifier head's): a product
// of the weights with one vector, W^T packed once and streamed through (the batch-1
// layer's kernel of MatMul). The dot products of plain rows, 4 rows of W at a time, reached
// half of memory's bandwidth once W left the L2 cache: a 512 -> 1280 head took 230 us in a
// MobileNetV3 against ORT's 121 (41.9 MB of such weights: 11.8 GB/s against 19.3).
bool OnePosition(const Conv2DShape& s) {
  return s.h == 1 && s.w == 1 && s.kh == 1 && s.kw == 1 && s.pt == 0 && s.pl == 0 && s.oh == 1 &&
         s.ow == 1;
}

// Each image alone (its result the same in any batch), its output channels split between
// the threads in whole panels (PrepackedGemm's split).
void OnePositionConvF32(const float* x, const float* packed, const float* bias, const float* z,
                        float* y, const Conv2DShape& s, const Activation& act, ThreadPool* pool) {
  for (int64_t b = 0; b < s.batch; ++b) {
    float* yb = y + b * s.m;
    if (bias != nullptr) {
      std::memcpy(yb, bias, static_cast<size_t>(s.m) * sizeof(float));
    } else {
      std::fill(yb, yb + s.m, 0.0f);
    }
    PrepackedGemm(x + b * s.c_in, s.c_in, packed, yb, 1, s.m, s.c_in, pool, /*force=*/true);
  }
  if (z != nullptr || HasEffect(act))
    BiasActivationF32(y, static_cast<size_t>(s.batch * s.m), 0.0f, z, act);
}

// Positions [o0, o0 + rows) by output channels [j0, j1) of one image (j0 a multiple of W's
// packed panel width), its windows read from `a` through roff (this block's first) and
// koff: the bias first, as ORT orders the sums, the product into out (rows x m), the
// activation over it when there is no residual, the transpose into yb's planes, then a
// residual zb added plane by plane with the activation.
void PositionsBlock(const float* a, const int64_t* roff, const int64_t* koff, const float* packed,
                    const float* bias, const float* zb, float* yb, const Conv2DShape& s,
                    const Positions& p, const Activation& act, int64_t o0, int64_t rows, int64_t j0,
                    int64_t j1, float* out) {
  const int64_t cols = j1 - j0;
  for (int64_t o = 0; o < rows; ++o) {
    float* r = out + o * s.m + j0;
    if (bias != nullptr) {
      std::memcpy(r, bias + j0, static_cast<size_t>(cols) * sizeof(float));
    } else {
      std::fill(r, r + cols, 0.0f);
    }
  }
  SgemmGatherA(rows, cols, p.k, a, roff, koff, packed + j0 * p.k, out + j0, s.m);
  if (zb == nullptr && HasEffect(act)) {
    for (int64_t o = 0; o < rows; ++o)
      BiasActivationF32(out + o * s.m + j0, static_cast<size_t>(cols), 0.0f, nullptr, act);
  }
  TransposeTileU32(reinterpret_cast<const uint32_t*>(out), reinterpret_cast<uint32_t*>(yb + o0), j0,
                   j1, 0, rows, s.m, p.n);
  if (zb != nullptr) {
    for (int64_t oc = j0; oc < j1; ++oc) {
      const int64_t at = oc * p.n + o0;
      BiasActivationF32(yb + at, static_cast<size_t>(rows), 0.0f, zb + at, act);
    }
  }
}

// One image, its output channels in panels split between the threads (Positions::
// by_channels): the padded copy made once, then each thread's block of all the positions
// by its channels.
void ByChannels(const float* xb, const float* packed, const float* bias, const float* zb, float* yb,
                const Conv2DShape& s, const Positions& p, const Activation& act,
                const int64_t* roff, const int64_t* koff, float* scratch, ThreadPool* pool) {
  float* image = scratch;
  float* out = image + p.image;
  if (p.padded) PadImage(xb, s, p, 0, p.hp, image);
  const auto nr = static_cast<int64_t>(SgemmPackedTileColumns());
  const int64_t panels = (s.m + nr - 1) / nr;
  pool->ParallelFor(panels, std::max<int64_t>(1, panels / pool->threads()),
                    [&](int64_t q0, int64_t q1) {
                      PositionsBlock(p.padded ? image : xb, roff, koff, packed, bias, zb, yb, s, p,
                                     act, 0, p.n, q0 * nr, std::min(s.m, q1 * nr), out);
                    });
}

}  // namespace

bool UsePositionsConv(const Conv2DShape& s) {
  // Small images (at most 64 positions, where the kernels that vectorize along the
  // positions waste lanes or run as dot products) into enough output channels to fill the
  // vector; and up to 64x64 windowed layers deep enough (k >= 128) to keep the tile busy
  // (ResNet's 3x3 stages: 1.08-1.46x -> 1.04-1.07x ORT's time at one thread). A network's
  // stem (k = 27) and 1x1 layers of larger images stay with the kernels that read the
  // image along its rows (measured in docs/performance.md). Not by the batch: an image's
  // result must not depend on how many others run with it.
  const int64_t n = s.oh * s.ow, k = s.c_in * s.kh * s.kw;
  if (s.group != 1 || s.m < 32 || k < 16) return false;
  if (OnePosition(s)) return true;
  if (n < 4) return false;
  return n <= 64 || (n <= 4096 && s.kh * s.kw > 1 && k >= 128);
}

size_t PositionsWeightsFloats(const Conv2DShape& s) {
  return static_cast<size_t>(MakePositions(s, 1).packed);
}

void PackPositionsWeights(const float* w, const Conv2DShape& s, float* out) {
  const int64_t k = s.c_in * s.kh * s.kw;
  SgemmPackB(k, s.m, w, k, out, /*b_trans=*/true);  // W [m x k] is W^T transposed
}

size_t PositionsConvScratchFloats(const Conv2DShape& s, int64_t workers, bool w_packed) {
  // Room for packing W only when it does not come packed (the scratch is zeroed when it
  // grows: a constant's packed size held there too raised a ResNet's peak by 9 MB).
  const Positions p = MakePositions(s, workers);
  return static_cast<size_t>((w_packed ? 0 : p.packed) + p.per() * std::max<int64_t>(1, workers));
}

void PositionsConvF32(const float* x, const float* w, const float* bias, const float* z, float* y,
                      const Conv2DShape& s, const Activation& act, float* scratch, ThreadPool* pool,
                      const float* w_packed) {
  const int64_t workers = pool != nullptr ? pool->threads() : 1;
  const Positions p = MakePositions(s, workers);
  const float* packed = w_packed;
  if (packed == nullptr) {
    PackPositionsWeights(w, s, scratch);
    packed = scratch;
    scratch += p.packed;
  }
  if (OnePosition(s)) {
    OnePositionConvF32(x, packed, bias, z, y, s, act, pool);
    return;
  }
  // Where each position's window starts and where each tap lies in it, in the image (rows
  // w apart) or its padded copy (rows wp apart).
  const int64_t ld = p.padded ? p.wp : s.w, plane = p.padded ? p.hp * p.wp : s.h * s.w;
  std::vector<int64_t> roff(static_cast<size_t>(p.n)), koff(static_cast<size_t>(p.k));
  for (int64_t oh = 0; oh < s.oh; ++oh) {
    for (int64_t ow = 0; ow < s.ow; ++ow)
      roff[static_cast<size_t>(oh * s.ow + ow)] = oh * s.sh * ld + ow * s.sw;
  }
  for (int64_t c = 0; c < s.c_in; ++c) {
    for (int64_t i = 0; i < s.kh; ++i) {
      for (int64_t j = 0; j < s.kw; ++j)
        koff[static_cast<size_t>((c * s.kh + i) * s.kw + j)] = c * plane + i * s.dh * ld + j * s.dw;
    }
  }
  if (p.by_channels) {
    for (int64_t b = 0; b < s.batch; ++b)
      ByChannels(x + b * s.c_in * s.h * s.w, packed, bias,
                 z == nullptr ? nullptr : z + b * s.m * p.n, y + b * s.m * p.n, s, p, act,
                 roff.data(), koff.data(), scratch, pool);
    return;
  }
  RunShares(pool, workers, s.batch * p.chunks, [&](int64_t task, int64_t worker) {
    const int64_t b = task / p.chunks, o0 = task % p.chunks * p.chunk;
    const int64_t rows = std::min(p.chunk, p.n - o0);
    float* image = scratch + worker * p.per();
    float* out = image + p.image;
    const float* xb = x + b * s.c_in * s.h * s.w;
    if (p.padded) {  // the rows this chunk's windows read (a 56x56 image padded whole
      // by each of two threads was a tenth of their time)
      const int64_t oh0 = o0 / s.ow, oh1 = (o0 + rows - 1) / s.ow;
      PadImage(xb, s, p, oh0 * s.sh, oh1 * s.sh + (s.kh - 1) * s.dh + 1, image);
    }
    PositionsBlock(p.padded ? image : xb, roff.data() + o0, koff.data(), packed, bias,
                   z == nullptr ? nullptr : z + b * s.m * p.n, y + b * s.m * p.n, s, p, act, o0,
                   rows, 0, s.m, out);
  });
}

}  // namespace onnx_light::kernels
