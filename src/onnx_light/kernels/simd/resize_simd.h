// ONNX Runtime's linear Resize formula on float32, in vector code (Highway, runtime
// dispatch): bilinear and trilinear output rows, each element the sum, in ORT's order, of
// the corner values times the products of the per-axis distances, every product and sum
// rounded to float as ORT's scalar loop rounds it (no multiply-add contracted), so the
// results are ORT's bit for bit. The caller builds the per-axis tables (nn/resize_linear.cc).
#pragma once

#include <cstddef>
#include <cstdint>

namespace onnx_light::kernels {

// One output row along the last axis. rows: the input rows of the corners, in ORT's order
// (bilinear: y1, y2; trilinear: z1y1, z1y2, z2y1, z2y2); dy = {dy1, dy2}; dz = {dz1, dz2}
// for trilinear, nullptr for bilinear. For x < n, with a = r[x1[x]] and b = r[x2[x]] of
// each row r, y[x] = sum of (dx2[x] * dy2 (* dz2)) * a, (dx1[x] * dy2 (* dz2)) * b, ...
// (dx1 is the distance to x1: it weighs x2's value).
void LinearRowF32(const float* const* rows, const int32_t* x1, const int32_t* x2, const float* dx1,
                  const float* dx2, const float* dy, const float* dz, float* y, size_t n);

// Channels-last: y[c] = ((w[0] * src[0][c] + w[1] * src[1][c]) + w[2] * src[2][c]) + ...
// over `terms` corners (4 or 8), c < n.
void LinearChannelsF32(const float* const* src, const float* w, int terms, float* y, size_t n);

}  // namespace onnx_light::kernels
