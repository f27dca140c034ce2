// How `onnx-light run` prints an output (summary.h).
#include "summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace onnx_light::cli {
namespace {

double ToDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat:
      return t.data<float>()[i];
    case DataType::kDouble:
      return t.data<double>()[i];
    case DataType::kFloat16:
      return static_cast<double>(t.data<float16>()[i]);
    case DataType::kBFloat16:
      return static_cast<double>(t.data<bfloat16>()[i]);
    case DataType::kInt8:
      return t.data<int8_t>()[i];
    case DataType::kInt16:
      return t.data<int16_t>()[i];
    case DataType::kInt32:
      return t.data<int32_t>()[i];
    case DataType::kInt64:
      return static_cast<double>(t.data<int64_t>()[i]);
    case DataType::kUint8:
      return t.data<uint8_t>()[i];
    case DataType::kUint16:
      return t.data<uint16_t>()[i];
    case DataType::kUint32:
      return t.data<uint32_t>()[i];
    case DataType::kUint64:
      return static_cast<double>(t.data<uint64_t>()[i]);
    case DataType::kBool:
      return t.data<bool>()[i] ? 1 : 0;
    default:
      return std::nan("");
  }
}

// Entry i of a map's keys or values as text.
std::string Item(const Tensor& t, int64_t i) {
  if (t.dtype() == DataType::kString) return "\"" + t.data<std::string>()[i] + "\"";
  if (t.dtype() == DataType::kInt64) return std::to_string(t.data<int64_t>()[i]);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", ToDouble(t, i));
  return buf;
}

std::string MapText(const TensorMap& m) {
  const int64_t n = m.keys.num_elements();
  std::string s = "{";
  for (int64_t i = 0; i < std::min<int64_t>(n, 4); ++i)
    s += (i ? ", " : "") + Item(m.keys, i) + ": " + Item(m.values, i);
  return s + (n > 4 ? ", ...}" : "}");
}

std::string MapTypes(const TensorMap& m) {
  return std::string(DataTypeName(m.keys.dtype())) + " -> " + DataTypeName(m.values.dtype());
}

}  // namespace

std::string Summary(const Tensor& t) {
  const int64_t n = t.num_elements();
  if (n == 0) return "(empty)";
  if (t.dtype() == DataType::kString) {
    return "first: \"" + t.data<std::string>()[0] + "\"";
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t nans = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = ToDouble(t, i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  char buf[256];
  std::snprintf(buf, sizeof(buf), "min %.6g max %.6g mean %.6g", lo, hi,
                n > nans ? sum / static_cast<double>(n - nans) : NAN);
  std::string s = buf;
  if (nans) s += " nan " + std::to_string(nans);
  s += " first [";
  for (int64_t i = 0; i < std::min<int64_t>(n, 4); ++i) {
    std::snprintf(buf, sizeof(buf), "%s%.6g", i ? ", " : "", ToDouble(t, i));
    s += buf;
  }
  return s + (n > 4 ? ", ...]" : "]");
}

std::string TypeText(const Value& v) {
  if (v.is_map()) {
    return "map " + MapTypes(*v.map) + " (" + std::to_string(v.map->keys.num_elements()) +
           " entries)";
  }
  if (v.is_map_sequence()) {
    return "sequence of " + std::to_string(v.maps->size()) + " maps" +
           (v.maps->empty() ? "" : " " + MapTypes(v.maps->front()));
  }
  if (v.is_sequence()) {
    return "sequence of " + std::to_string(v.sequence->size()) +
           (v.sequence->empty() ? ""
                                : std::string(" ") + DataTypeName(v.sequence->front().dtype()));
  }
  if (!v.tensor.is_defined()) return "none";
  return std::string(DataTypeName(v.tensor.dtype())) + " " + v.tensor.shape().ToString();
}

std::string ValueSummary(const Value& v) {
  if (v.is_map()) return MapText(*v.map);
  if (v.is_map_sequence()) return v.maps->empty() ? "" : "first " + MapText(v.maps->front());
  if (v.is_sequence()) {
    return v.sequence->empty() ? "" : "first: " + Summary(v.sequence->front());
  }
  return v.tensor.is_defined() ? Summary(v.tensor) : "";
}

}  // namespace onnx_light::cli
