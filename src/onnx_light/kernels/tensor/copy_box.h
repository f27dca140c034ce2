// Copying a strided box of a tensor (Slice, and Split's pieces).
#pragma once

#include <cstdint>
#include <vector>

#include "common/kernel_util.h"

namespace onnx_light::kernels {

// Copies the strided box (start, step per axis, out dims) of x into y; large copies of
// long runs split between the pool's threads.
inline void CopyBox(const Tensor& x, const std::vector<int64_t>& start,
                    const std::vector<int64_t>& step, Tensor* y, ThreadPool* pool = nullptr) {
  const std::vector<int64_t>& in = x.shape().dims();
  const std::vector<int64_t>& out = y->shape().dims();
  const size_t rank = in.size();
  const std::vector<int64_t> strides = RowMajorStrides(in);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d)
    base += start[d] * strides[d];
  std::vector<int64_t> pos(rank, 0);
  const size_t item = ItemSize(x.dtype());
  int64_t off = base;
  if (rank > 0 && step[rank - 1] == 1 && DataTypeBitWidth(x.dtype()) % 8 == 0) {
    // Unit step along the last axis: whole runs at a time (memcpy for numbers). Trailing
    // axes copied whole (all of the input, unit step) join the run with the axis before
    // them, so a slice of [N, C, H, 1] along H copies H elements at a time, not one.
    size_t first = rank - 1;  // the run covers axes first .. rank - 1
    int64_t run = out[rank - 1];
    while (first > 0 && out[first] == in[first] && step[first - 1] == 1) {
      --first;
      run *= out[first];
    }
    if (run == 0) return;
    const int64_t total = y->num_elements(), bytes = total * static_cast<int64_t>(item);
    if (pool != nullptr && pool->threads() > 1 && x.dtype() != DataType::kString &&
        bytes >= (int64_t{1} << 18) && run * static_cast<int64_t>(item) >= 256) {
      // Megabytes of copying (Split's halves of a feature map: one run each) is bound by
      // memory bandwidth, which two cores double: element ranges split between the
      // threads, each run's source offset computed from its index.
      ParallelElements(
          pool, total,
          [&](int64_t e0, int64_t e1) {
            for (int64_t j = e0; j < e1;) {
              const int64_t within = j % run, count = std::min(run - within, e1 - j);
              int64_t r = j / run, o = base;
              for (size_t d = first; d-- > 0;) {
                o += (r % out[d]) * step[d] * strides[d];
                r /= out[d];
              }
              CopyElements(x, o + within, y, j, item, count);
              j += count;
            }
          },
          (int64_t{1} << 17) / static_cast<int64_t>(item));
      return;
    }
    for (int64_t j = 0; j < y->num_elements(); j += run) {
      CopyElements(x, off, y, j, item, run);
      for (size_t d = first; d-- > 0;) {
        off += step[d] * strides[d];
        if (++pos[d] < out[d]) break;
        off -= step[d] * strides[d] * out[d];
        pos[d] = 0;
      }
    }
    return;
  }
  if (rank > 0 && (item == 1 || item == 2 || item == 4 || item == 8) &&
      static_cast<size_t>(DataTypeBitWidth(x.dtype())) == 8 * item) {
    // A strided last axis (e.g. x[..., ::2] in YOLO's Focus layer): one output row at a
    // time with typed loads, the position carried once per row.
    auto rows = [&](auto* src, auto* dst) {
      const int64_t run = out[rank - 1], st = step[rank - 1];
      for (int64_t j = 0; j < y->num_elements(); j += run) {
        for (int64_t k = 0; k < run; ++k)
          dst[j + k] = src[off + k * st];
        for (size_t d = rank - 1; d-- > 0;) {
          off += step[d] * strides[d];
          if (++pos[d] < out[d]) break;
          off -= step[d] * strides[d] * out[d];
          pos[d] = 0;
        }
      }
    };
    switch (item) {
      case 1:
        rows(static_cast<const uint8_t*>(x.raw_data()),
             static_cast<uint8_t*>(y->mutable_raw_data()));
        break;
      case 2:
        rows(static_cast<const uint16_t*>(x.raw_data()),
             static_cast<uint16_t*>(y->mutable_raw_data()));
        break;
      case 4:
        rows(static_cast<const uint32_t*>(x.raw_data()),
             static_cast<uint32_t*>(y->mutable_raw_data()));
        break;
      default:
        rows(static_cast<const uint64_t*>(x.raw_data()),
             static_cast<uint64_t*>(y->mutable_raw_data()));
    }
    return;
  }
  for (int64_t j = 0; j < y->num_elements(); ++j) {
    CopyElement(x, off, y, j, item);
    for (size_t d = rank; d-- > 0;) {
      off += step[d] * strides[d];
      if (++pos[d] < out[d]) break;
      off -= step[d] * strides[d] * out[d];
      pos[d] = 0;
    }
  }
}

}  // namespace onnx_light::kernels
