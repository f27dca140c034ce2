#include "nn/resize_planes.h"

#include <algorithm>
#include <cstring>

#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

// One axis's taps flattened: output o reads first[o] .. first[o + 1] of index/weight.
struct FlatTaps {
  std::vector<int64_t> first, index;
  std::vector<double> weight;
  bool single = true;  // every output has one tap of weight 1 (nearest)
};

FlatTaps Flatten(const std::vector<std::vector<ResizeTap>>& axis) {
  FlatTaps f;
  f.first.push_back(0);
  for (const std::vector<ResizeTap>& taps : axis) {
    size_t kept = 0;
    for (const ResizeTap& t : taps) {
      if (t.weight == 0) continue;
      f.index.push_back(t.index);
      f.weight.push_back(t.weight);
      ++kept;
    }
    f.single = f.single && kept == 1 && f.weight.back() == 1.0;
    f.first.push_back(static_cast<int64_t>(f.index.size()));
  }
  return f;
}

}  // namespace

template <typename T>
bool ResizeLastTwoAxes(const T* x, T* y, const std::vector<int64_t>& in,
                       const std::vector<int64_t>& out,
                       const std::vector<std::vector<std::vector<ResizeTap>>>& taps,
                       ThreadPool* pool) {
  const size_t rank = in.size();
  if (rank < 2) return false;
  int64_t planes = 1;
  for (size_t a = 0; a + 2 < rank; ++a) {
    if (in[a] != out[a]) return false;
    for (int64_t o = 0; o < out[a]; ++o) {
      const std::vector<ResizeTap>& t = taps[a][static_cast<size_t>(o)];
      if (t.size() != 1 || t[0].index != o || t[0].weight != 1.0) return false;
    }
    planes *= in[a];
  }
  const FlatTaps h = Flatten(taps[rank - 2]);
  const FlatTaps w = Flatten(taps[rank - 1]);
  const int64_t ih = in[rank - 2], iw = in[rank - 1], oh = out[rank - 2], ow = out[rank - 1];
  // Nearest at twice the width (a 2x upsampling): each value written twice, a loop the
  // compiler vectorizes, not a gather through the index table.
  bool twice = h.single && w.single && ow == 2 * iw;
  for (int64_t c = 0; twice && c < ow; ++c)
    twice = w.index[static_cast<size_t>(c)] == c / 2;
  auto run = [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * ih * iw;
      T* yp = y + p * oh * ow;
      for (int64_t r = 0; r < oh; ++r) {
        T* yrow = yp + r * ow;
        if (h.single && w.single) {
          // Nearest: a row equal to the previous one (upsampling) is copied whole.
          if (r > 0 && h.index[static_cast<size_t>(r)] == h.index[static_cast<size_t>(r - 1)]) {
            std::memcpy(yrow, yrow - ow, static_cast<size_t>(ow) * sizeof(T));
            continue;
          }
          const T* xrow = xp + h.index[static_cast<size_t>(r)] * iw;
          if (twice) {
            for (int64_t c = 0; c < iw; ++c)
              yrow[2 * c] = yrow[2 * c + 1] = xrow[c];
            continue;
          }
          for (int64_t c = 0; c < ow; ++c)
            yrow[c] = xrow[w.index[static_cast<size_t>(c)]];
          continue;
        }
        for (int64_t c = 0; c < ow; ++c) {
          double sum = 0;
          for (int64_t i = h.first[static_cast<size_t>(r)]; i < h.first[static_cast<size_t>(r) + 1];
               ++i) {
            const T* xrow = xp + h.index[static_cast<size_t>(i)] * iw;
            double row = 0;
            for (int64_t j = w.first[static_cast<size_t>(c)];
                 j < w.first[static_cast<size_t>(c) + 1]; ++j) {
              row += w.weight[static_cast<size_t>(j)] *
                     static_cast<double>(xrow[w.index[static_cast<size_t>(j)]]);
            }
            sum += h.weight[static_cast<size_t>(i)] * row;
          }
          yrow[c] = static_cast<T>(sum);
        }
      }
    }
  };
  // Planes split between the threads (a feature pyramid's upsampling: 128 planes of 40x40
  // had run on one thread, its input and output in the other thread's cache).
  const int64_t work = planes * oh * ow;
  if (pool != nullptr && pool->threads() > 1 && planes > 1 && work >= (int64_t{1} << 15)) {
    pool->ParallelFor(planes, std::max<int64_t>(1, planes / pool->threads()), run);
  } else {
    run(0, planes);
  }
  return true;
}

template bool ResizeLastTwoAxes<float>(const float*, float*, const std::vector<int64_t>&,
                                       const std::vector<int64_t>&,
                                       const std::vector<std::vector<std::vector<ResizeTap>>>&,
                                       ThreadPool*);
template bool ResizeLastTwoAxes<double>(const double*, double*, const std::vector<int64_t>&,
                                        const std::vector<int64_t>&,
                                        const std::vector<std::vector<std::vector<ResizeTap>>>&,
                                        ThreadPool*);

}  // namespace onnx_light::kernels
