// Shape: the dimensions of a dense tensor, validated on construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "onnx_light/core/status.h"

namespace onnx_light {

struct ShapeLimits {
  // ONNX sets no rank limit; 64 is far above any real model and keeps every shape cheap.
  // The ORT bridge uses 16 (spec 000).
  size_t max_rank = 64;
  // Upper bound on the element count (the product of all dimensions).
  int64_t max_elements = std::numeric_limits<int64_t>::max();
};

// Rank 0 is a scalar with one element; any zero dimension makes the tensor empty.
// Construction checks: every dimension >= 0, rank <= limits.max_rank, the product of the
// nonzero dimensions fits in int64 (so no intermediate product ever overflows, even when
// a zero dimension makes the true count 0), and the element count <= limits.max_elements.
class Shape {
 public:
  Shape() = default;  // scalar

  static Result<Shape> Create(const int64_t* dims, size_t rank, const ShapeLimits& limits = {});
  static Result<Shape> Create(const std::vector<int64_t>& dims, const ShapeLimits& limits = {});
  static Result<Shape> Create(std::initializer_list<int64_t> dims, const ShapeLimits& limits = {});

  size_t rank() const noexcept { return dims_.size(); }
  int64_t operator[](size_t axis) const { return dims_[axis]; }
  const std::vector<int64_t>& dims() const noexcept { return dims_; }
  int64_t num_elements() const noexcept { return num_elements_; }
  bool is_scalar() const noexcept { return dims_.empty(); }
  bool is_empty() const noexcept { return num_elements_ == 0; }

  std::string ToString() const;  // "[]" for a scalar, "[2, 0, 3]"

  friend bool operator==(const Shape& a, const Shape& b) { return a.dims_ == b.dims_; }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  std::vector<int64_t> dims_;
  int64_t num_elements_ = 1;
};

}  // namespace onnx_light
