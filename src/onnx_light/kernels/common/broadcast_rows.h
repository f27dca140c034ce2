// A broadcast output walked as rows (Expand, Where, Tile-like copies): the output's axes
// merged wherever every operand runs on contiguously across them (or stays put), so that
// the last axis is as long as it can be, then each row handed to the caller with every
// operand's offset and its stride along the row (0 or 1), rows split across the pool.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "common/kernel_util.h"

namespace onnx_light::kernels {

// dims: the output's; strides[k]: operand k's BroadcastStrides over it. Both rewritten:
// axes of size 1 dropped, adjacent axes merged where every operand's outer stride is its
// inner stride times the inner size (contiguous, or 0 on both).
template <size_t kOperands>
void MergeBroadcastAxes(std::vector<int64_t>* dims,
                        std::array<std::vector<int64_t>, kOperands>* strides) {
  std::vector<int64_t> d_out;
  std::array<std::vector<int64_t>, kOperands> s_out;
  for (size_t d = dims->size(); d-- > 0;) {  // innermost first
    const int64_t size = (*dims)[d];
    if (size == 1) continue;
    bool merge = !d_out.empty();
    for (size_t k = 0; k < kOperands && merge; ++k)
      merge = (*strides)[k][d] == s_out[k].back() * d_out.back();
    if (merge) {
      d_out.back() *= size;
      continue;
    }
    d_out.push_back(size);
    for (size_t k = 0; k < kOperands; ++k)
      s_out[k].push_back((*strides)[k][d]);
  }
  if (d_out.empty()) {  // a single element
    d_out.push_back(1);
    for (size_t k = 0; k < kOperands; ++k)
      s_out[k].push_back(0);
  }
  std::reverse(d_out.begin(), d_out.end());
  *dims = std::move(d_out);
  for (size_t k = 0; k < kOperands; ++k) {
    std::reverse(s_out[k].begin(), s_out[k].end());
    (*strides)[k] = std::move(s_out[k]);
  }
}

// fn(out_offset, offsets, steps, len) for every row of the merged output: the row starts
// at out_offset in the output and at offsets[k] in operand k, which moves steps[k] (0 or 1)
// per element. Rows (long ones in pieces) split across `pool`, 64k elements or more a chunk.
template <size_t kOperands, typename Fn>
void ForEachBroadcastRow(std::vector<int64_t> dims, std::array<std::vector<int64_t>, kOperands> st,
                         ThreadPool* pool, Fn fn) {
  MergeBroadcastAxes(&dims, &st);
  const size_t rank = dims.size();
  const int64_t len = dims[rank - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d)
    rows *= dims[d];
  if (len == 0 || rows == 0) return;
  std::array<int64_t, kOperands> steps;
  for (size_t k = 0; k < kOperands; ++k)
    steps[k] = st[k][rank - 1];
  // Long rows in pieces of 64k elements, so that a few rows still split between threads.
  constexpr int64_t kPiece = int64_t{1} << 16;
  const int64_t pieces = pool != nullptr && pool->threads() > 1 ? (len + kPiece - 1) / kPiece : 1;
  const int64_t piece = (len + pieces - 1) / pieces;
  ParallelElements(
      pool, rows * pieces,
      [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t r = t / pieces, j0 = t % pieces * piece;
          std::array<int64_t, kOperands> off{};
          int64_t rest = r;
          for (size_t d = rank - 1; d-- > 0;) {
            const int64_t i = rest % dims[d];
            rest /= dims[d];
            for (size_t k = 0; k < kOperands; ++k)
              off[k] += i * st[k][d];
          }
          for (size_t k = 0; k < kOperands; ++k)
            off[k] += j0 * steps[k];
          fn(r * len + j0, off, steps, std::min(piece, len - j0));
        }
      },
      std::max<int64_t>(1, kPiece / std::min(len, kPiece)));
}

}  // namespace onnx_light::kernels
