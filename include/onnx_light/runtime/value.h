// Value: what flows along a graph edge — a tensor, a sequence of tensors, or an optional
// (none or a tensor). The one value type of the API, the planner (ValueKind), a run's
// frame and the kernels (KernelContext's inputs and outputs); and how a graph's inputs and
// outputs are described (ValueMeta) and named (NamedTensor, NamedValue).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onnx_light/core/tensor.h"

namespace onnx_light {

// An ONNX sequence of tensors (all of one element type).
using TensorSequence = std::vector<Tensor>;

// What a value is: a tensor, a sequence of tensors, or an optional tensor (none or one).
enum class ValueKind : uint8_t { kTensor, kSequence, kOptional };

// A tensor, a sequence of tensors (when `sequence` is set), or for an optional either a
// tensor or none.
struct Value {
  Tensor tensor;
  std::shared_ptr<const TensorSequence> sequence;
  bool none = false;  // an empty optional (for optional inputs and outputs)
  bool is_sequence() const noexcept { return sequence != nullptr; }
  // Holds something: a defined tensor or a sequence.
  bool has_value() const noexcept { return sequence != nullptr || tensor.is_defined(); }
  // The tensor, or null for a sequence or an empty value.
  const Tensor* tensor_or_null() const noexcept {
    return sequence == nullptr && tensor.is_defined() ? &tensor : nullptr;
  }
};

// Name, element type and shape of a graph input or output. A dimension is a number
// (dims[i] >= 0), a symbol (dim_params[i] non-empty, dims[i] = -1) or unknown (-1, "").
struct ValueMeta {
  std::string name;
  DataType type = DataType::kUndefined;  // for a sequence or an optional: its element type
  ValueKind kind = ValueKind::kTensor;
  bool is_sequence() const noexcept { return kind == ValueKind::kSequence; }
  bool is_optional() const noexcept { return kind == ValueKind::kOptional; }
  bool has_shape = false;
  std::vector<int64_t> dims;
  std::vector<std::string> dim_params;
};

using NamedTensor = std::pair<std::string, Tensor>;

using NamedValue = std::pair<std::string, Value>;

}  // namespace onnx_light
