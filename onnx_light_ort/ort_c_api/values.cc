// Values of ORT's C API: tensors (allocated, or over the caller's buffer), string tensors,
// sequences and maps (GetValue, GetValueCount, CreateValue), and their type queries.
#include "onnx_light_ort/ort_c_api/objects.h"

namespace onnx_light_ort::c_api {
namespace {

using onnx_light::DataType;
using onnx_light::Tensor;

OrtStatus* CheckType(ONNXTensorElementDataType type, const char* fn) {
  const auto t = static_cast<int32_t>(type);
  if (t <= 0 || t >= onnx_light::kDataTypeCount) {
    return Fail(ORT_INVALID_ARGUMENT,
                std::string(fn) + ": unknown element type " + std::to_string(t));
  }
  return nullptr;
}

OrtStatus* MakeShape(const int64_t* dims, size_t rank, onnx_light::Shape* shape, const char* fn) {
  if (rank != 0) ONNX_LIGHT_ORT_ARG(fn, dims);
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] < 0) {
      return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": dimension " + std::to_string(i) +
                                            " is negative (" + std::to_string(dims[i]) + ")");
    }
  }
  auto made = onnx_light::Shape::Create(dims, rank);
  if (!made.ok()) return FromStatus(made.status(), fn);
  *shape = std::move(*made);
  return nullptr;
}

const Tensor* TensorOf(const OrtValue* v) {
  return v != nullptr ? v->value.tensor_or_null() : nullptr;
}
Tensor* MutableTensorOf(OrtValue* v) {
  return v != nullptr && !v->value.is_container() && v->value.tensor.is_defined() ? &v->value.tensor
                                                                                  : nullptr;
}
OrtStatus* NotATensor(const char* fn) {
  return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": the value is not a tensor");
}

// --- Tensors ----------------------------------------------------------------------------

OrtStatus* ORT_API_CALL CreateTensorAsOrtValue(OrtAllocator* allocator, const int64_t* dims,
                                               size_t rank, ONNXTensorElementDataType type,
                                               OrtValue** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "CreateTensorAsOrtValue";
  ONNX_LIGHT_ORT_ARG(fn, allocator);
  ONNX_LIGHT_ORT_ARG(fn, out);
  if (OrtStatus* st = CheckType(type, fn)) return st;
  onnx_light::Shape shape;
  if (OrtStatus* st = MakeShape(dims, rank, &shape, fn)) return st;
  // The runtime's own aligned storage (the allocator names CPU memory, the only kind).
  auto t = Tensor::Allocate(static_cast<DataType>(type), shape);
  if (!t.ok()) return FromStatus(t.status(), fn);
  onnx_light::Value v;
  v.tensor = std::move(*t);
  *out = new OrtValue{std::move(v)};
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CreateTensorAsOrtValue")
}

OrtStatus* ORT_API_CALL CreateTensorWithDataAsOrtValue(const OrtMemoryInfo* info, void* data,
                                                       size_t size, const int64_t* dims,
                                                       size_t rank, ONNXTensorElementDataType type,
                                                       OrtValue** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "CreateTensorWithDataAsOrtValue";
  ONNX_LIGHT_ORT_ARG(fn, info);
  ONNX_LIGHT_ORT_ARG(fn, out);
  if (OrtStatus* st = CheckType(type, fn)) return st;
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) +
                                          ": string tensors cannot view a user buffer; use "
                                          "CreateTensorAsOrtValue and FillStringTensor");
  }
  if (!info->on_cpu()) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": memory '" + info->name +
                                          "' is not CPU memory (onnx-light runs on the CPU only)");
  }
  onnx_light::Shape shape;
  if (OrtStatus* st = MakeShape(dims, rank, &shape, fn)) return st;
  auto bytes = onnx_light::StorageBytes(static_cast<DataType>(type), shape.num_elements());
  if (!bytes.ok()) return FromStatus(bytes.status(), fn);
  const size_t need = *bytes;
  if (size < need) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": the buffer holds " +
                                          std::to_string(size) + " bytes, the " + shape.ToString() +
                                          " tensor needs " + std::to_string(need));
  }
  if (data == nullptr && need != 0) return NullArgument(fn, "p_data");
  static char empty_tensor_data alignas(64)[64];
  auto t = Tensor::BorrowMutable(static_cast<DataType>(type), shape,
                                 data != nullptr ? data : empty_tensor_data, size);
  if (!t.ok()) return FromStatus(t.status(), fn);
  onnx_light::Value v;
  v.tensor = std::move(*t);
  *out = new OrtValue{std::move(v)};
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CreateTensorWithDataAsOrtValue")
}

void ORT_API_CALL ReleaseValue(OrtValue* value) noexcept {
  delete value;
}
OrtStatus* ORT_API_CALL IsTensor(const OrtValue* value, int* out) noexcept {
  ONNX_LIGHT_ORT_ARG("IsTensor", value);
  ONNX_LIGHT_ORT_ARG("IsTensor", out);
  *out = TensorOf(value) != nullptr ? 1 : 0;
  return nullptr;
}
OrtStatus* ORT_API_CALL HasValue(const OrtValue* value, int* out) noexcept {
  ONNX_LIGHT_ORT_ARG("HasValue", value);
  ONNX_LIGHT_ORT_ARG("HasValue", out);
  *out = value->value.has_value() ? 1 : 0;
  return nullptr;
}
OrtStatus* ORT_API_CALL GetTensorMutableData(OrtValue* value, void** out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetTensorMutableData", value);
  ONNX_LIGHT_ORT_ARG("GetTensorMutableData", out);
  Tensor* t = MutableTensorOf(value);
  if (t == nullptr) return NotATensor("GetTensorMutableData");
  *out = t->mutable_raw_data();
  if (*out == nullptr) *out = const_cast<void*>(t->raw_data());  // a read-only input view
  return nullptr;
}
OrtStatus* ORT_API_CALL GetTensorData(const OrtValue* value, const void** out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetTensorData", value);
  ONNX_LIGHT_ORT_ARG("GetTensorData", out);
  const Tensor* t = TensorOf(value);
  if (t == nullptr) return NotATensor("GetTensorData");
  *out = t->raw_data();
  return nullptr;
}
OrtStatus* ORT_API_CALL GetTensorSizeInBytes(const OrtValue* value, size_t* out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetTensorSizeInBytes", value);
  ONNX_LIGHT_ORT_ARG("GetTensorSizeInBytes", out);
  const Tensor* t = TensorOf(value);
  if (t == nullptr) return NotATensor("GetTensorSizeInBytes");
  if (t->dtype() == DataType::kString) {
    return Fail(ORT_INVALID_ARGUMENT, "GetTensorSizeInBytes: not for string tensors");
  }
  *out = t->byte_size();
  return nullptr;
}
OrtStatus* ORT_API_CALL GetTensorMemoryInfo(const OrtValue* value,
                                            const OrtMemoryInfo** out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetTensorMemoryInfo", value);
  ONNX_LIGHT_ORT_ARG("GetTensorMemoryInfo", out);
  if (TensorOf(value) == nullptr) return NotATensor("GetTensorMemoryInfo");
  *out = CpuMemoryInfo();
  return nullptr;
}
OrtStatus* ORT_API_CALL GetTensorTypeAndShape(const OrtValue* value,
                                              OrtTensorTypeAndShapeInfo** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("GetTensorTypeAndShape", value);
  ONNX_LIGHT_ORT_ARG("GetTensorTypeAndShape", out);
  const Tensor* t = TensorOf(value);
  if (t == nullptr) return NotATensor("GetTensorTypeAndShape");
  auto* info = new OrtTensorTypeAndShapeInfo;
  info->type = static_cast<ONNXTensorElementDataType>(static_cast<int32_t>(t->dtype()));
  info->dims = t->shape().dims();
  info->dim_params.assign(info->dims.size(), std::string());
  *out = info;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("GetTensorTypeAndShape")
}
OrtStatus* ORT_API_CALL GetTensorElementTypeAndShapeDataReference(const OrtValue* value,
                                                                  ONNXTensorElementDataType* type,
                                                                  const int64_t** dims,
                                                                  size_t* rank) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "GetTensorElementTypeAndShapeDataReference";
  ONNX_LIGHT_ORT_ARG(fn, value);
  ONNX_LIGHT_ORT_ARG(fn, type);
  ONNX_LIGHT_ORT_ARG(fn, dims);
  ONNX_LIGHT_ORT_ARG(fn, rank);
  const Tensor* t = TensorOf(value);
  if (t == nullptr) return NotATensor(fn);
  *type = static_cast<ONNXTensorElementDataType>(static_cast<int32_t>(t->dtype()));
  const std::vector<int64_t>& d = t->shape().dims();
  *dims = d.empty() ? nullptr : d.data();
  *rank = d.size();
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("GetTensorElementTypeAndShapeDataReference")
}
OrtStatus* ORT_API_CALL GetTypeInfo(const OrtValue* value, OrtTypeInfo** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("GetTypeInfo", value);
  ONNX_LIGHT_ORT_ARG("GetTypeInfo", out);
  *out = value->value.has_value() ? TypeInfoOfValue(value->value).release() : nullptr;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("GetTypeInfo")
}
OrtStatus* ORT_API_CALL GetValueType(const OrtValue* value, ONNXType* out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetValueType", value);
  ONNX_LIGHT_ORT_ARG("GetValueType", out);
  const onnx_light::Value& v = value->value;
  *out = v.is_sequence() || v.is_map_sequence() ? ONNX_TYPE_SEQUENCE
         : v.is_map()                           ? ONNX_TYPE_MAP
         : v.tensor.is_defined()                ? ONNX_TYPE_TENSOR
                                                : ONNX_TYPE_UNKNOWN;
  return nullptr;
}

// --- String tensors ---------------------------------------------------------------------

OrtStatus* Strings(const OrtValue* value, const std::string** first, size_t* count,
                   const char* fn) {
  ONNX_LIGHT_ORT_ARG(fn, value);
  const Tensor* t = TensorOf(value);
  if (t == nullptr || t->dtype() != DataType::kString) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": the value is not a string tensor");
  }
  *first = t->data<std::string>();
  *count = static_cast<size_t>(t->num_elements());
  return nullptr;
}
OrtStatus* ORT_API_CALL FillStringTensor(OrtValue* value, const char* const* s, size_t n) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "FillStringTensor";
  const std::string* first = nullptr;
  size_t count = 0;
  if (OrtStatus* st = Strings(value, &first, &count, fn)) return st;
  if (n != count) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": " + std::to_string(n) +
                                          " strings for a tensor of " + std::to_string(count));
  }
  if (n != 0) ONNX_LIGHT_ORT_ARG(fn, s);
  auto* out = value->value.tensor.mutable_data<std::string>();
  for (size_t i = 0; i < n; ++i)
    out[i] = s[i] != nullptr ? s[i] : "";
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("FillStringTensor")
}
OrtStatus* ORT_API_CALL FillStringTensorElement(OrtValue* value, const char* s,
                                                size_t index) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "FillStringTensorElement";
  const std::string* first = nullptr;
  size_t count = 0;
  if (OrtStatus* st = Strings(value, &first, &count, fn)) return st;
  ONNX_LIGHT_ORT_ARG(fn, s);
  if (index >= count) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": index " + std::to_string(index) +
                                          " is out of range (" + std::to_string(count) + ")");
  }
  value->value.tensor.mutable_data<std::string>()[index] = s;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("FillStringTensorElement")
}
OrtStatus* ORT_API_CALL GetStringTensorDataLength(const OrtValue* value, size_t* out) noexcept {
  const std::string* first = nullptr;
  size_t count = 0;
  if (OrtStatus* st = Strings(value, &first, &count, "GetStringTensorDataLength")) return st;
  ONNX_LIGHT_ORT_ARG("GetStringTensorDataLength", out);
  size_t total = 0;
  for (size_t i = 0; i < count; ++i)
    total += first[i].size();
  *out = total;
  return nullptr;
}
// All strings back to back (no terminators) and each one's offset, as ORT lays them out.
OrtStatus* ORT_API_CALL GetStringTensorContent(const OrtValue* value, void* s, size_t s_len,
                                               size_t* offsets, size_t offsets_len) noexcept {
  constexpr const char* fn = "GetStringTensorContent";
  const std::string* first = nullptr;
  size_t count = 0;
  if (OrtStatus* st = Strings(value, &first, &count, fn)) return st;
  // (ORT_FAIL for the sizes, as ORT's checks report them.)
  if (offsets_len != count) {
    return Fail(ORT_FAIL, std::string(fn) + ": offsets_len is " + std::to_string(offsets_len) +
                              ", the tensor has " + std::to_string(count) + " strings");
  }
  size_t total = 0;
  for (size_t i = 0; i < count; ++i)
    total += first[i].size();
  if (s_len < total) {
    return Fail(ORT_FAIL, std::string(fn) + ": the buffer holds " + std::to_string(s_len) +
                              " bytes, the strings need " + std::to_string(total));
  }
  if (count != 0) ONNX_LIGHT_ORT_ARG(fn, offsets);
  if (total != 0) ONNX_LIGHT_ORT_ARG(fn, s);
  size_t at = 0;
  for (size_t i = 0; i < count; ++i) {
    offsets[i] = at;
    if (!first[i].empty())
      std::memcpy(static_cast<char*>(s) + at, first[i].data(), first[i].size());
    at += first[i].size();
  }
  return nullptr;
}
OrtStatus* ORT_API_CALL GetStringTensorElementLength(const OrtValue* value, size_t index,
                                                     size_t* out) noexcept {
  constexpr const char* fn = "GetStringTensorElementLength";
  const std::string* first = nullptr;
  size_t count = 0;
  if (OrtStatus* st = Strings(value, &first, &count, fn)) return st;
  ONNX_LIGHT_ORT_ARG(fn, out);
  if (index >= count) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": index " + std::to_string(index) +
                                          " is out of range (" + std::to_string(count) + ")");
  }
  *out = first[index].size();
  return nullptr;
}
OrtStatus* ORT_API_CALL GetStringTensorElement(const OrtValue* value, size_t s_len, size_t index,
                                               void* s) noexcept {
  constexpr const char* fn = "GetStringTensorElement";
  const std::string* first = nullptr;
  size_t count = 0;
  if (OrtStatus* st = Strings(value, &first, &count, fn)) return st;
  if (index >= count) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": index " + std::to_string(index) +
                                          " is out of range (" + std::to_string(count) + ")");
  }
  if (s_len < first[index].size()) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": the buffer holds " +
                                          std::to_string(s_len) + " bytes, the string has " +
                                          std::to_string(first[index].size()));
  }
  if (!first[index].empty()) {
    ONNX_LIGHT_ORT_ARG(fn, s);
    std::memcpy(s, first[index].data(), first[index].size());
  }
  return nullptr;
}

// --- Sequences and maps -----------------------------------------------------------------

OrtStatus* ORT_API_CALL GetValueCount(const OrtValue* value, size_t* out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetValueCount", value);
  ONNX_LIGHT_ORT_ARG("GetValueCount", out);
  const onnx_light::Value& v = value->value;
  if (v.is_sequence()) {
    *out = v.sequence->size();
  } else if (v.is_map_sequence()) {
    *out = v.maps->size();
  } else if (v.is_map()) {
    *out = 2;  // keys and values
  } else {
    return Fail(ORT_INVALID_ARGUMENT, "GetValueCount: the value is not a sequence or a map");
  }
  return nullptr;
}
OrtValue* Wrap(onnx_light::Value v) {
  return new OrtValue{std::move(v)};
}
onnx_light::Value TensorValue(const Tensor& t) {
  onnx_light::Value v;
  v.tensor = t;
  return v;
}
// Element `index` of a sequence (a tensor, or a map), or a map's keys (0) or values (1),
// as a new value (sharing the tensors' storage, as ORT's copies of them do not change).
OrtStatus* ORT_API_CALL GetValue(const OrtValue* value, int index, OrtAllocator* allocator,
                                 OrtValue** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "GetValue";
  ONNX_LIGHT_ORT_ARG(fn, value);
  ONNX_LIGHT_ORT_ARG(fn, allocator);
  ONNX_LIGHT_ORT_ARG(fn, out);
  const onnx_light::Value& v = value->value;
  size_t count = 0;
  if (OrtStatus* st = GetValueCount(value, &count)) return st;
  if (index < 0 || static_cast<size_t>(index) >= count) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": index " + std::to_string(index) +
                                          " is out of range (" + std::to_string(count) + ")");
  }
  const auto i = static_cast<size_t>(index);
  if (v.is_sequence()) {
    *out = Wrap(TensorValue((*v.sequence)[i]));
  } else if (v.is_map_sequence()) {
    onnx_light::Value m;
    m.map = std::make_shared<const onnx_light::TensorMap>((*v.maps)[i]);
    *out = Wrap(std::move(m));
  } else {
    *out = Wrap(TensorValue(i == 0 ? v.map->keys : v.map->values));
  }
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("GetValue")
}
// A sequence of tensors (all of one element type), of maps, or a map from a keys and a
// values tensor of equal length. The values are shared, not copied.
OrtStatus* ORT_API_CALL CreateValue(const OrtValue* const* in, size_t n, ONNXType type,
                                    OrtValue** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "CreateValue";
  ONNX_LIGHT_ORT_ARG(fn, out);
  if (n != 0) ONNX_LIGHT_ORT_ARG(fn, in);
  for (size_t i = 0; i < n; ++i) {
    if (in[i] == nullptr)
      return Fail(ORT_INVALID_ARGUMENT, "CreateValue: value " + std::to_string(i) + " is null");
  }
  if (type == ONNX_TYPE_MAP) {
    if (n != 2)
      return Fail(ORT_INVALID_ARGUMENT,
                  "CreateValue: a map takes 2 values (keys, values), got " + std::to_string(n));
    const Tensor* keys = TensorOf(in[0]);
    const Tensor* values = TensorOf(in[1]);
    if (keys == nullptr || values == nullptr || keys->shape().rank() != 1 ||
        values->shape().rank() != 1 || keys->num_elements() != values->num_elements()) {
      return Fail(ORT_INVALID_ARGUMENT,
                  "CreateValue: a map's keys and values must be 1-D tensors of equal length");
    }
    // ORT's maps: int64 or string keys; string, int64, float or double values.
    const DataType kt = keys->dtype(), vt = values->dtype();
    if (kt != DataType::kInt64 && kt != DataType::kString) {
      return Fail(ORT_INVALID_ARGUMENT, std::string("CreateValue: map keys must be int64 or "
                                                    "string, not ") +
                                            onnx_light::DataTypeName(kt));
    }
    if (vt != DataType::kInt64 && vt != DataType::kString && vt != DataType::kFloat &&
        vt != DataType::kDouble) {
      return Fail(ORT_INVALID_ARGUMENT, std::string("CreateValue: map values must be int64, "
                                                    "string, float or double, not ") +
                                            onnx_light::DataTypeName(vt));
    }
    onnx_light::Value m;
    m.map = std::make_shared<const onnx_light::TensorMap>(onnx_light::TensorMap{*keys, *values});
    *out = Wrap(std::move(m));
    return nullptr;
  }
  if (type != ONNX_TYPE_SEQUENCE) {
    return Fail(ORT_INVALID_ARGUMENT,
                "CreateValue: the type must be ONNX_TYPE_SEQUENCE or ONNX_TYPE_MAP");
  }
  if (n == 0) return Fail(ORT_INVALID_ARGUMENT, "CreateValue: a sequence needs at least one value");
  if (in[0]->value.is_map()) {
    onnx_light::MapSequence maps;
    for (size_t i = 0; i < n; ++i) {
      if (!in[i]->value.is_map()) {
        return Fail(ORT_INVALID_ARGUMENT, "CreateValue: a sequence mixes maps and other values");
      }
      maps.push_back(*in[i]->value.map);
    }
    onnx_light::Value v;
    v.maps = std::make_shared<const onnx_light::MapSequence>(std::move(maps));
    *out = Wrap(std::move(v));
    return nullptr;
  }
  onnx_light::TensorSequence seq;
  for (size_t i = 0; i < n; ++i) {
    const Tensor* t = TensorOf(in[i]);
    if (t == nullptr)
      return Fail(ORT_INVALID_ARGUMENT,
                  "CreateValue: sequence element " + std::to_string(i) + " is not a tensor");
    if (t->dtype() != TensorOf(in[0])->dtype()) {
      return Fail(ORT_INVALID_ARGUMENT,
                  "CreateValue: the sequence's tensors differ in element type");
    }
    seq.push_back(*t);
  }
  onnx_light::Value v;
  v.sequence = std::make_shared<const onnx_light::TensorSequence>(std::move(seq));
  *out = Wrap(std::move(v));
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CreateValue")
}

}  // namespace

void FillValueSlots(OrtApi& api) {
  api.CreateTensorAsOrtValue = &CreateTensorAsOrtValue;
  api.CreateTensorWithDataAsOrtValue = &CreateTensorWithDataAsOrtValue;
  api.ReleaseValue = &ReleaseValue;
  api.IsTensor = &IsTensor;
  api.HasValue = &HasValue;
  api.GetTensorMutableData = &GetTensorMutableData;
  api.GetTensorData = &GetTensorData;
  api.GetTensorSizeInBytes = &GetTensorSizeInBytes;
  api.GetTensorMemoryInfo = &GetTensorMemoryInfo;
  api.GetTensorTypeAndShape = &GetTensorTypeAndShape;
  api.GetTensorElementTypeAndShapeDataReference = &GetTensorElementTypeAndShapeDataReference;
  api.GetTypeInfo = &GetTypeInfo;
  api.GetValueType = &GetValueType;
  api.FillStringTensor = &FillStringTensor;
  api.FillStringTensorElement = &FillStringTensorElement;
  api.GetStringTensorDataLength = &GetStringTensorDataLength;
  api.GetStringTensorContent = &GetStringTensorContent;
  api.GetStringTensorElementLength = &GetStringTensorElementLength;
  api.GetStringTensorElement = &GetStringTensorElement;
  api.GetValueCount = &GetValueCount;
  api.GetValue = &GetValue;
  api.CreateValue = &CreateValue;
}

}  // namespace onnx_light_ort::c_api
