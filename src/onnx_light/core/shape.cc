#include "onnx_light/core/shape.h"

namespace onnx_light {

Result<Shape> Shape::Create(const int64_t* dims, size_t rank, const ShapeLimits& limits) {
  if (rank > limits.max_rank) {
    return Status(StatusCode::kOutOfRange, "rank " + std::to_string(rank) +
                                               " exceeds the limit of " +
                                               std::to_string(limits.max_rank));
  }
  if (rank > 0 && dims == nullptr) {
    return Status(StatusCode::kInvalidArgument, "null dimensions for rank " + std::to_string(rank));
  }
  Shape shape;
  shape.dims_.assign(dims, dims + rank);
  int64_t nonzero_product = 1;
  bool has_zero = false;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t d = dims[i];
    if (d < 0) {
      return Status(StatusCode::kInvalidArgument, "negative dimension " + std::to_string(d) +
                                                      " at axis " + std::to_string(i) +
                                                      " of shape " + shape.ToString());
    }
    if (d == 0) {
      has_zero = true;
      continue;
    }
    if (nonzero_product > std::numeric_limits<int64_t>::max() / d) {
      return Status(StatusCode::kOutOfRange,
                    "element count of shape " + shape.ToString() + " overflows int64");
    }
    nonzero_product *= d;
  }
  shape.num_elements_ = has_zero ? 0 : nonzero_product;
  if (shape.num_elements_ > limits.max_elements) {
    return Status(StatusCode::kOutOfRange,
                  "shape " + shape.ToString() + " has " + std::to_string(shape.num_elements_) +
                      " elements, over the limit of " + std::to_string(limits.max_elements));
  }
  return shape;
}

Result<Shape> Shape::Create(const std::vector<int64_t>& dims, const ShapeLimits& limits) {
  return Create(dims.data(), dims.size(), limits);
}

Result<Shape> Shape::Create(std::initializer_list<int64_t> dims, const ShapeLimits& limits) {
  return Create(dims.begin(), dims.size(), limits);
}

std::string Shape::ToString() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

}  // namespace onnx_light
