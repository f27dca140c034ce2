// Axes permuted into an allocated output, shared by Transpose, DepthToSpace and
// SpaceToDepth (tensor/transpose.cc): whole rows copied where the last axis stays, else
// batches of blocked 2-D transposes, across the pool.
#pragma once

#include <cstdint>
#include <vector>

#include "onnx_light/core/tensor.h"

namespace onnx_light {
class ThreadPool;
}

namespace onnx_light::kernels {

// y = x, read as row-major `in_dims` (x's element count), with its axes permuted by
// `perm` (a valid permutation: output axis i is input axis perm[i]); y is allocated with
// that many elements. Returns false, writing nothing, for types not of 1, 2, 4 or 8 whole
// bytes (strings, 4-bit) or an empty tensor.
bool PermuteInto(const Tensor& x, const std::vector<int64_t>& in_dims,
                 const std::vector<int64_t>& perm, Tensor* y, ThreadPool* pool);

}  // namespace onnx_light::kernels
