#include "literal.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <vector>

#include "onnx_light/core/float16.h"

namespace onnx_light::cli {
namespace {

// A parsed literal: a number, or a list of literals.
struct Node {
  bool list = false;
  double value = 0;
  std::vector<Node> items;
};

// A recursive-descent reader of numbers (and true/false) and nested lists.
class Reader {
 public:
  explicit Reader(const std::string& text) : s_(text) {}

  Result<Node> Read() {
    ONNX_LIGHT_ASSIGN_OR_RETURN(Node n, Value(0));
    Skip();
    if (i_ != s_.size()) return Error("unexpected '" + std::string(1, s_[i_]) + "'");
    return n;
  }

  Status Error(const std::string& what) const {
    return Status(StatusCode::kInvalidArgument,
                  "'" + s_ + "' is not a literal (a number, or [numbers, ...] nested): " + what +
                      " at character " + std::to_string(i_ + 1));
  }

 private:
  void Skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
      ++i_;
  }
  Result<Node> Value(size_t depth) {
    Skip();
    if (depth > 16) return Error("lists nested deeper than 16");
    Node n;
    if (i_ < s_.size() && s_[i_] == '[') {
      ++i_;
      n.list = true;
      Skip();
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return n;
      }
      while (true) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(Node item, Value(depth + 1));
        n.items.push_back(std::move(item));
        Skip();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
        } else if (i_ < s_.size() && s_[i_] == ']') {
          ++i_;
          return n;
        } else {
          return Error("expected ',' or ']'");
        }
      }
    }
    for (const std::string w : {"true", "false"}) {
      if (s_.compare(i_, w.size(), w) == 0) {
        i_ += w.size();
        n.value = w == "true" ? 1.0 : 0.0;
        return n;
      }
    }
    const char* start = s_.c_str() + i_;
    char* end = nullptr;
    n.value = std::strtod(start, &end);
    if (end == start) return Error("expected a number");
    i_ += static_cast<size_t>(end - start);
    return n;
  }

  const std::string& s_;
  size_t i_ = 0;
};

// Appends the node's numbers in order, checking that it has `shape` from `axis` on.
bool Flatten(const Node& n, const std::vector<int64_t>& shape, size_t axis,
             std::vector<double>* out) {
  if (axis == shape.size()) {
    if (n.list) return false;
    out->push_back(n.value);
    return true;
  }
  if (!n.list || static_cast<int64_t>(n.items.size()) != shape[axis]) return false;
  for (const Node& item : n.items)
    if (!Flatten(item, shape, axis + 1, out)) return false;
  return true;
}

template <typename T>
Status Fill(const std::vector<double>& values, Tensor* t) {
  T* out = t->mutable_data<T>();
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if constexpr (std::is_integral_v<T>) {
      if (std::nearbyint(v) != v || v < static_cast<double>(std::numeric_limits<T>::lowest()) ||
          v > static_cast<double>(std::numeric_limits<T>::max())) {
        return Status(StatusCode::kInvalidArgument,
                      std::to_string(v) + " is not a " + DataTypeName(t->dtype()) + " value");
      }
    }
    out[i] = static_cast<T>(v);
  }
  return Status::Ok();
}

}  // namespace

Result<Tensor> ParseLiteral(const std::string& text, DataType type) {
  Reader reader(text);
  ONNX_LIGHT_ASSIGN_OR_RETURN(Node root, reader.Read());
  // The shape from the first item at each depth; then every list must match it.
  std::vector<int64_t> shape;
  for (const Node* n = &root; n->list; n = &n->items[0]) {
    shape.push_back(static_cast<int64_t>(n->items.size()));
    if (n->items.empty()) break;
  }
  std::vector<double> values;
  if (!Flatten(root, shape, 0, &values)) {
    return Status(StatusCode::kInvalidArgument,
                  "'" + text + "' is not rectangular: its lists differ in length or depth");
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape s, Shape::Create(shape));
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(type, std::move(s)));
  Status st;
  switch (type) {
    case DataType::kFloat:
      st = Fill<float>(values, &t);
      break;
    case DataType::kDouble:
      st = Fill<double>(values, &t);
      break;
    case DataType::kFloat16:
      st = Fill<float16>(values, &t);
      break;
    case DataType::kBFloat16:
      st = Fill<bfloat16>(values, &t);
      break;
    case DataType::kInt8:
      st = Fill<int8_t>(values, &t);
      break;
    case DataType::kInt16:
      st = Fill<int16_t>(values, &t);
      break;
    case DataType::kInt32:
      st = Fill<int32_t>(values, &t);
      break;
    case DataType::kInt64:
      st = Fill<int64_t>(values, &t);
      break;
    case DataType::kUint8:
      st = Fill<uint8_t>(values, &t);
      break;
    case DataType::kUint16:
      st = Fill<uint16_t>(values, &t);
      break;
    case DataType::kUint32:
      st = Fill<uint32_t>(values, &t);
      break;
    case DataType::kUint64:
      st = Fill<uint64_t>(values, &t);
      break;
    case DataType::kBool:
      st = Fill<bool>(values, &t);
      break;
    default:
      return Status(StatusCode::kInvalidArgument,
                    std::string(DataTypeName(type)) + " inputs take a .npy file, not a literal");
  }
  ONNX_LIGHT_RETURN_IF_ERROR(st);
  return t;
}

}  // namespace onnx_light::cli
