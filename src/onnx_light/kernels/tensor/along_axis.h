// The geometry of a tensor along one axis (or flattened), for the ops that select along an
// axis: Compress and Unique.
#pragma once

#include <cstdint>
#include <vector>

#include "common/kernel_util.h"

namespace onnx_light::kernels {

// The geometry along `axis` (or along the flattened input without one): the dims seen,
// the axis, its length, and the element counts before and after it.
struct AxisGeometry {
  std::vector<int64_t> dims;
  int64_t axis = 0, len = 0, outer = 1, inner = 1;
};

inline Result<AxisGeometry> AlongAxis(const Tensor& x, bool has_axis, int64_t axis_attr) {
  AxisGeometry g;
  g.dims = x.shape().dims();
  if (has_axis) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(g.axis,
                                NormalizeAxis(axis_attr, static_cast<int64_t>(g.dims.size())));
  } else {
    g.dims = {x.num_elements()};
  }
  g.len = g.dims[static_cast<size_t>(g.axis)];
  for (size_t d = 0; d < g.dims.size(); ++d) {
    if (static_cast<int64_t>(d) < g.axis) g.outer *= g.dims[d];
    if (static_cast<int64_t>(d) > g.axis) g.inner *= g.dims[d];
  }
  return g;
}

}  // namespace onnx_light::kernels
