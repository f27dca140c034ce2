// A broadcast output walked as rows (Expand, Where, Tile-like copies): the output's axes
// merged wherever every operand runs on contiguously across them (or stays put), so that
// the last axis is as long as it can be, then each row handed to the caller with every
// operand's offset and its stride along the row (0 or 1), rows split across the pool.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
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

// dst[0, n) = n copies of the item at src (item bytes each).
inline void RepeatItem(const char* src, size_t item, char* dst, int64_t n) {
  auto fill = [&](auto tag) {
    using U = decltype(tag);
    U v;
    std::memcpy(&v, src, sizeof(U));
    std::fill(reinterpret_cast<U*>(dst), reinterpret_cast<U*>(dst) + n, v);
  };
  switch (item) {
    case 1:
      std::memset(dst, static_cast<unsigned char>(*src), static_cast<size_t>(n));
      return;
    case 2:
      return fill(uint16_t{});
    case 4:
      return fill(uint32_t{});
    case 8:
      return fill(uint64_t{});
    default:
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + i * static_cast<int64_t>(item), src, item);
  }
}

// dst (dims, row-major) = src broadcast over dims, st being src's strides over them in
// items of `item` bytes (0 on the broadcast axes): each row of the merged output a run of
// src copied whole or one value repeated (Expand, Tile).
inline void BroadcastCopy(const std::vector<int64_t>& dims, const std::vector<int64_t>& st,
                          const void* src, void* dst, size_t item, ThreadPool* pool) {
  const auto* s = static_cast<const char*>(src);
  auto* d = static_cast<char*>(dst);
  const auto b = static_cast<int64_t>(item);
  ForEachBroadcastRow<1>(dims, {st}, pool, [&](int64_t o, auto off, auto step, int64_t len) {
    if (step[0] == 1) {
      std::memcpy(d + o * b, s + off[0] * b, static_cast<size_t>(len * b));
    } else {
      RepeatItem(s + off[0] * b, item, d + o * b, len);
    }
  });
}

}  // namespace onnx_light::kernels
