// Type infos of ORT's C API: tensors (element type, dims, symbolic dims), maps, sequences
// and optionals, built from the runtime's ValueMeta or from a value.
#include "onnx_light_ort/ort_c_api/objects.h"

namespace onnx_light_ort::c_api {

namespace {

ONNXTensorElementDataType ElementType(onnx_light::DataType t) {
  // The runtime's DataType values are ONNX's TensorProto codes, as ORT's element types.
  return static_cast<ONNXTensorElementDataType>(static_cast<int32_t>(t));
}

std::unique_ptr<OrtTypeInfo> TensorInfo(onnx_light::DataType type, const std::vector<int64_t>& dims,
                                        const std::vector<std::string>& params, bool has_shape) {
  auto info = std::make_unique<OrtTypeInfo>();
  info->type = ONNX_TYPE_TENSOR;
  info->tensor.type = ElementType(type);
  info->tensor.has_shape = has_shape;
  if (has_shape) {
    info->tensor.dims = dims;
    info->tensor.dim_params = params;
    info->tensor.dim_params.resize(dims.size());
  }
  return info;
}

std::unique_ptr<OrtTypeInfo> Clone(const OrtTypeInfo& in) {
  auto out = std::make_unique<OrtTypeInfo>();
  out->type = in.type;
  out->denotation = in.denotation;
  out->tensor = in.tensor;
  out->map.key = in.map.key;
  if (in.map.value) out->map.value = Clone(*in.map.value);
  if (in.sequence.element) out->sequence.element = Clone(*in.sequence.element);
  if (in.optional.contained) out->optional.contained = Clone(*in.optional.contained);
  return out;
}

std::unique_ptr<OrtTypeInfo> MapInfo(onnx_light::DataType key, onnx_light::DataType value) {
  auto info = std::make_unique<OrtTypeInfo>();
  info->type = ONNX_TYPE_MAP;
  info->map.key = ElementType(key);
  info->map.value = TensorInfo(value, {}, {}, false);
  return info;
}

std::unique_ptr<OrtTypeInfo> SequenceOf(std::unique_ptr<OrtTypeInfo> element) {
  auto info = std::make_unique<OrtTypeInfo>();
  info->type = ONNX_TYPE_SEQUENCE;
  info->sequence.element = std::move(element);
  return info;
}

}  // namespace

std::unique_ptr<OrtTypeInfo> TypeInfoOf(const onnx_light::ValueMeta& meta) {
  using onnx_light::ValueKind;
  switch (meta.kind) {
    case ValueKind::kSequence:
      return SequenceOf(TensorInfo(meta.type, meta.dims, meta.dim_params, meta.has_shape));
    case ValueKind::kMap:
      return MapInfo(meta.key_type, meta.type);
    case ValueKind::kMapSequence:
      return SequenceOf(MapInfo(meta.key_type, meta.type));
    case ValueKind::kOptional: {
      auto info = std::make_unique<OrtTypeInfo>();
      info->type = ONNX_TYPE_OPTIONAL;
      info->optional.contained = TensorInfo(meta.type, meta.dims, meta.dim_params, meta.has_shape);
      return info;
    }
    case ValueKind::kTensor:
      break;
  }
  return TensorInfo(meta.type, meta.dims, meta.dim_params, meta.has_shape);
}

std::unique_ptr<OrtTypeInfo> TypeInfoOfValue(const onnx_light::Value& v) {
  if (v.is_sequence()) {
    const auto& seq = *v.sequence;
    return SequenceOf(seq.empty() ? TensorInfo(onnx_light::DataType::kUndefined, {}, {}, false)
                                  : TensorInfo(seq[0].dtype(), seq[0].shape().dims(), {}, true));
  }
  if (v.is_map()) return MapInfo(v.map->keys.dtype(), v.map->values.dtype());
  if (v.is_map_sequence()) {
    const auto& maps = *v.maps;
    return SequenceOf(maps.empty()
                          ? MapInfo(onnx_light::DataType::kInt64, onnx_light::DataType::kFloat)
                          : MapInfo(maps[0].keys.dtype(), maps[0].values.dtype()));
  }
  return TensorInfo(v.tensor.dtype(), v.tensor.shape().dims(), {}, true);
}

namespace {

// --- Type infos -------------------------------------------------------------------------

void ORT_API_CALL ReleaseTypeInfo(OrtTypeInfo* info) noexcept {
  delete info;
}
OrtStatus* ORT_API_CALL GetOnnxTypeFromTypeInfo(const OrtTypeInfo* info, ONNXType* out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetOnnxTypeFromTypeInfo", info);
  ONNX_LIGHT_ORT_ARG("GetOnnxTypeFromTypeInfo", out);
  *out = info->type;
  return nullptr;
}
// The casts return null (no error) for another kind, as ORT.
OrtStatus* ORT_API_CALL CastTypeInfoToTensorInfo(const OrtTypeInfo* info,
                                                 const OrtTensorTypeAndShapeInfo** out) noexcept {
  ONNX_LIGHT_ORT_ARG("CastTypeInfoToTensorInfo", info);
  ONNX_LIGHT_ORT_ARG("CastTypeInfoToTensorInfo", out);
  *out = info->type == ONNX_TYPE_TENSOR ? &info->tensor : nullptr;
  return nullptr;
}
OrtStatus* ORT_API_CALL CastTypeInfoToMapTypeInfo(const OrtTypeInfo* info,
                                                  const OrtMapTypeInfo** out) noexcept {
  ONNX_LIGHT_ORT_ARG("CastTypeInfoToMapTypeInfo", info);
  ONNX_LIGHT_ORT_ARG("CastTypeInfoToMapTypeInfo", out);
  *out = info->type == ONNX_TYPE_MAP ? &info->map : nullptr;
  return nullptr;
}
OrtStatus* ORT_API_CALL CastTypeInfoToSequenceTypeInfo(const OrtTypeInfo* info,
                                                       const OrtSequenceTypeInfo** out) noexcept {
  ONNX_LIGHT_ORT_ARG("CastTypeInfoToSequenceTypeInfo", info);
  ONNX_LIGHT_ORT_ARG("CastTypeInfoToSequenceTypeInfo", out);
  *out = info->type == ONNX_TYPE_SEQUENCE ? &info->sequence : nullptr;
  return nullptr;
}
OrtStatus* ORT_API_CALL CastTypeInfoToOptionalTypeInfo(const OrtTypeInfo* info,
                                                       const OrtOptionalTypeInfo** out) noexcept {
  ONNX_LIGHT_ORT_ARG("CastTypeInfoToOptionalTypeInfo", info);
  ONNX_LIGHT_ORT_ARG("CastTypeInfoToOptionalTypeInfo", out);
  *out = info->type == ONNX_TYPE_OPTIONAL ? &info->optional : nullptr;
  return nullptr;
}
OrtStatus* ORT_API_CALL GetDenotationFromTypeInfo(const OrtTypeInfo* info, const char** const out,
                                                  size_t* len) noexcept {
  ONNX_LIGHT_ORT_ARG("GetDenotationFromTypeInfo", info);
  ONNX_LIGHT_ORT_ARG("GetDenotationFromTypeInfo", out);
  ONNX_LIGHT_ORT_ARG("GetDenotationFromTypeInfo", len);
  *out = info->denotation.c_str();
  *len = info->denotation.size();
  return nullptr;
}
OrtStatus* ORT_API_CALL GetMapKeyType(const OrtMapTypeInfo* info,
                                      ONNXTensorElementDataType* out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetMapKeyType", info);
  ONNX_LIGHT_ORT_ARG("GetMapKeyType", out);
  *out = info->key;
  return nullptr;
}
OrtStatus* ORT_API_CALL GetMapValueType(const OrtMapTypeInfo* info, OrtTypeInfo** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("GetMapValueType", info);
  ONNX_LIGHT_ORT_ARG("GetMapValueType", out);
  *out = info->value ? Clone(*info->value).release() : nullptr;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("GetMapValueType")
}
void ORT_API_CALL ReleaseMapTypeInfo(OrtMapTypeInfo*) noexcept {
  // Cast results belong to their OrtTypeInfo (as in ORT, where releasing them is a no-op
  // for the pointer a cast returned).
}
OrtStatus* ORT_API_CALL GetSequenceElementType(const OrtSequenceTypeInfo* info,
                                               OrtTypeInfo** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("GetSequenceElementType", info);
  ONNX_LIGHT_ORT_ARG("GetSequenceElementType", out);
  *out = info->element ? Clone(*info->element).release() : nullptr;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("GetSequenceElementType")
}
void ORT_API_CALL ReleaseSequenceTypeInfo(OrtSequenceTypeInfo*) noexcept {}
OrtStatus* ORT_API_CALL GetOptionalContainedTypeInfo(const OrtOptionalTypeInfo* info,
                                                     OrtTypeInfo** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("GetOptionalContainedTypeInfo", info);
  ONNX_LIGHT_ORT_ARG("GetOptionalContainedTypeInfo", out);
  *out = info->contained ? Clone(*info->contained).release() : nullptr;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("GetOptionalContainedTypeInfo")
}

// --- Tensor type and shape infos --------------------------------------------------------

OrtStatus* ORT_API_CALL CreateTensorTypeAndShapeInfo(OrtTensorTypeAndShapeInfo** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("CreateTensorTypeAndShapeInfo", out);
  *out = new OrtTensorTypeAndShapeInfo;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CreateTensorTypeAndShapeInfo")
}
void ORT_API_CALL ReleaseTensorTypeAndShapeInfo(OrtTensorTypeAndShapeInfo* info) noexcept {
  delete info;
}
OrtStatus* ORT_API_CALL SetTensorElementType(OrtTensorTypeAndShapeInfo* info,
                                             ONNXTensorElementDataType type) noexcept {
  ONNX_LIGHT_ORT_ARG("SetTensorElementType", info);
  info->type = type;
  return nullptr;
}
OrtStatus* ORT_API_CALL SetDimensions(OrtTensorTypeAndShapeInfo* info, const int64_t* dims,
                                      size_t count) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("SetDimensions", info);
  if (count != 0) ONNX_LIGHT_ORT_ARG("SetDimensions", dims);
  info->dims.assign(dims, dims + count);
  info->dim_params.assign(count, std::string());
  info->has_shape = true;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("SetDimensions")
}
OrtStatus* ORT_API_CALL SetSymbolicDimensions(OrtTensorTypeAndShapeInfo* info, const char* params[],
                                              size_t count) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("SetSymbolicDimensions", info);
  if (count != 0) ONNX_LIGHT_ORT_ARG("SetSymbolicDimensions", params);
  info->dim_params.assign(count, std::string());
  for (size_t i = 0; i < count; ++i)
    info->dim_params[i] = params[i] != nullptr ? params[i] : "";
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("SetSymbolicDimensions")
}
OrtStatus* ORT_API_CALL GetTensorElementType(const OrtTensorTypeAndShapeInfo* info,
                                             ONNXTensorElementDataType* out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetTensorElementType", info);
  ONNX_LIGHT_ORT_ARG("GetTensorElementType", out);
  *out = info->type;
  return nullptr;
}
OrtStatus* ORT_API_CALL GetDimensionsCount(const OrtTensorTypeAndShapeInfo* info,
                                           size_t* out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetDimensionsCount", info);
  ONNX_LIGHT_ORT_ARG("GetDimensionsCount", out);
  *out = info->dims.size();
  return nullptr;
}
// Copies min(length, rank) dims (ORT's rule); a symbolic dimension is -1.
OrtStatus* ORT_API_CALL GetDimensions(const OrtTensorTypeAndShapeInfo* info, int64_t* dims,
                                      size_t length) noexcept {
  ONNX_LIGHT_ORT_ARG("GetDimensions", info);
  if (length != 0) ONNX_LIGHT_ORT_ARG("GetDimensions", dims);
  const size_t n = std::min(length, info->dims.size());
  for (size_t i = 0; i < n; ++i)
    dims[i] = info->dims[i];
  return nullptr;
}
OrtStatus* ORT_API_CALL GetSymbolicDimensions(const OrtTensorTypeAndShapeInfo* info,
                                              const char* params[], size_t length) noexcept {
  ONNX_LIGHT_ORT_ARG("GetSymbolicDimensions", info);
  if (length != 0) ONNX_LIGHT_ORT_ARG("GetSymbolicDimensions", params);
  const size_t n = std::min(length, info->dim_params.size());
  for (size_t i = 0; i < n; ++i)
    params[i] = info->dim_params[i].c_str();
  return nullptr;
}
// The product of the dims; refused while a dimension is symbolic (-1).
OrtStatus* ORT_API_CALL GetTensorShapeElementCount(const OrtTensorTypeAndShapeInfo* info,
                                                   size_t* out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetTensorShapeElementCount", info);
  ONNX_LIGHT_ORT_ARG("GetTensorShapeElementCount", out);
  int64_t count = 1;
  for (int64_t d : info->dims) {
    if (d < 0) {
      return Fail(ORT_INVALID_ARGUMENT,
                  "GetTensorShapeElementCount: the shape has a symbolic dimension");
    }
    count *= d;
  }
  *out = static_cast<size_t>(count);
  return nullptr;
}

}  // namespace

void FillTypeInfoSlots(OrtApi& api) {
  api.ReleaseTypeInfo = &ReleaseTypeInfo;
  api.GetOnnxTypeFromTypeInfo = &GetOnnxTypeFromTypeInfo;
  api.CastTypeInfoToTensorInfo = &CastTypeInfoToTensorInfo;
  api.CastTypeInfoToMapTypeInfo = &CastTypeInfoToMapTypeInfo;
  api.CastTypeInfoToSequenceTypeInfo = &CastTypeInfoToSequenceTypeInfo;
  api.CastTypeInfoToOptionalTypeInfo = &CastTypeInfoToOptionalTypeInfo;
  api.GetDenotationFromTypeInfo = &GetDenotationFromTypeInfo;
  api.GetMapKeyType = &GetMapKeyType;
  api.GetMapValueType = &GetMapValueType;
  api.ReleaseMapTypeInfo = &ReleaseMapTypeInfo;
  api.GetSequenceElementType = &GetSequenceElementType;
  api.ReleaseSequenceTypeInfo = &ReleaseSequenceTypeInfo;
  api.GetOptionalContainedTypeInfo = &GetOptionalContainedTypeInfo;
  api.CreateTensorTypeAndShapeInfo = &CreateTensorTypeAndShapeInfo;
  api.ReleaseTensorTypeAndShapeInfo = &ReleaseTensorTypeAndShapeInfo;
  api.SetTensorElementType = &SetTensorElementType;
  api.SetDimensions = &SetDimensions;
  api.SetSymbolicDimensions = &SetSymbolicDimensions;
  api.GetTensorElementType = &GetTensorElementType;
  api.GetDimensionsCount = &GetDimensionsCount;
  api.GetDimensions = &GetDimensions;
  api.GetSymbolicDimensions = &GetSymbolicDimensions;
  api.GetTensorShapeElementCount = &GetTensorShapeElementCount;
}

}  // namespace onnx_light_ort::c_api
