// Value: what flows along a graph edge — a tensor, a sequence of tensors, an optional
// (none or a tensor), a map or a sequence of maps (ai.onnx.ml's ZipMap, DictVectorizer). The one
// value type of the API, the planner (ValueKind), a run's frame and the kernels (KernelContext's
// inputs and outputs); and how a graph's inputs and outputs are described (ValueMeta) and named
// (NamedTensor, NamedValue).
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

// An ONNX map: `keys` (1-D, INT64 or STRING, each key once) and `values` (1-D, the same
// length, the map's value type), entry i being keys[i] -> values[i], in no particular order.
struct TensorMap {
  Tensor keys;
  Tensor values;
};

// An ONNX sequence of maps (all of one key and one value type).
using MapSequence = std::vector<TensorMap>;

// What a value is: a tensor, a sequence of tensors, an optional tensor (none or one), a map
// or a sequence of maps.
enum class ValueKind : uint8_t { kTensor, kSequence, kOptional, kMap, kMapSequence };

// "tensor", "sequence", "optional", "map", "sequence of maps".
inline const char* ValueKindName(ValueKind kind) noexcept {
  switch (kind) {
    case ValueKind::kSequence:
      return "sequence";
    case ValueKind::kOptional:
      return "optional";
    case ValueKind::kMap:
      return "map";
    case ValueKind::kMapSequence:
      return "sequence of maps";
    case ValueKind::kTensor:
      break;
  }
  return "tensor";
}

// A tensor, a sequence of tensors (when `sequence` is set), a map (`map`), a sequence of
// maps (`maps`), or for an optional either a tensor or none. At most one is set.
struct Value {
  Tensor tensor;
  std::shared_ptr<const TensorSequence> sequence;
  bool none = false;  // an empty optional (for optional inputs and outputs)
  std::shared_ptr<const TensorMap> map{};
  std::shared_ptr<const MapSequence> maps{};
  bool is_sequence() const noexcept { return sequence != nullptr; }
  bool is_map() const noexcept { return map != nullptr; }
  bool is_map_sequence() const noexcept { return maps != nullptr; }
  // Holds something other than a tensor or none: a sequence, a map or maps.
  bool is_container() const noexcept {
    return sequence != nullptr || map != nullptr || maps != nullptr;
  }
  // Which of the kinds it holds (a tensor or none: kTensor).
  ValueKind kind() const noexcept {
    return sequence ? ValueKind::kSequence
           : map    ? ValueKind::kMap
           : maps   ? ValueKind::kMapSequence
                    : ValueKind::kTensor;
  }
  // Holds something: a defined tensor, a sequence, a map or maps.
  bool has_value() const noexcept { return is_container() || tensor.is_defined(); }
  // The tensor, or null for a sequence, a map, maps or an empty value.
  const Tensor* tensor_or_null() const noexcept {
    return !is_container() && tensor.is_defined() ? &tensor : nullptr;
  }
};

// Name, element type and shape of a graph input or output. A dimension is a number
// (dims[i] >= 0), a symbol (dim_params[i] non-empty, dims[i] = -1) or unknown (-1, "").
struct ValueMeta {
  std::string name;
  // For a sequence or an optional: its element type; for a map (or maps): the value type.
  DataType type = DataType::kUndefined;
  ValueKind kind = ValueKind::kTensor;
  DataType key_type = DataType::kUndefined;  // a map's (or maps') key type, when declared
  bool is_sequence() const noexcept { return kind == ValueKind::kSequence; }
  bool is_optional() const noexcept { return kind == ValueKind::kOptional; }
  bool is_map() const noexcept { return kind == ValueKind::kMap; }
  bool is_map_sequence() const noexcept { return kind == ValueKind::kMapSequence; }
  bool has_shape = false;
  std::vector<int64_t> dims;
  std::vector<std::string> dim_params;
};

using NamedTensor = std::pair<std::string, Tensor>;

using NamedValue = std::pair<std::string, Value>;

}  // namespace onnx_light
