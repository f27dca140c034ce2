// Model metadata of ORT's C API: producer, graph name and description, domain, version
// and the custom metadata map (the model's metadata_props).
#include "onnx_light_ort/ort_c_api/objects.h"

namespace onnx_light_ort::c_api {
namespace {

OrtStatus* ORT_API_CALL SessionGetModelMetadata(const OrtSession* s,
                                                OrtModelMetadata** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("SessionGetModelMetadata", s);
  ONNX_LIGHT_ORT_ARG("SessionGetModelMetadata", out);
  *out = new OrtModelMetadata(s->metadata);
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("SessionGetModelMetadata")
}
void ORT_API_CALL ReleaseModelMetadata(OrtModelMetadata* m) noexcept {
  delete m;
}
#define ONNX_LIGHT_ORT_METADATA_STRING(Slot, field)                                               \
  OrtStatus* ORT_API_CALL Slot(const OrtModelMetadata* m, OrtAllocator* a, char** out) noexcept { \
    ONNX_LIGHT_ORT_ARG(#Slot, m);                                                                 \
    ONNX_LIGHT_ORT_ARG(#Slot, a);                                                                 \
    ONNX_LIGHT_ORT_ARG(#Slot, out);                                                               \
    *out = CopyString(a, m->field);                                                               \
    return *out != nullptr ? nullptr : Fail(ORT_FAIL, #Slot ": out of memory");                   \
  }
ONNX_LIGHT_ORT_METADATA_STRING(ModelMetadataGetProducerName, producer)
ONNX_LIGHT_ORT_METADATA_STRING(ModelMetadataGetGraphName, graph_name)
ONNX_LIGHT_ORT_METADATA_STRING(ModelMetadataGetDomain, domain)
ONNX_LIGHT_ORT_METADATA_STRING(ModelMetadataGetDescription, description)
ONNX_LIGHT_ORT_METADATA_STRING(ModelMetadataGetGraphDescription, graph_description)
#undef ONNX_LIGHT_ORT_METADATA_STRING
OrtStatus* ORT_API_CALL ModelMetadataGetVersion(const OrtModelMetadata* m, int64_t* out) noexcept {
  ONNX_LIGHT_ORT_ARG("ModelMetadataGetVersion", m);
  ONNX_LIGHT_ORT_ARG("ModelMetadataGetVersion", out);
  *out = m->version;
  return nullptr;
}
OrtStatus* ORT_API_CALL ModelMetadataLookupCustomMetadataMap(const OrtModelMetadata* m,
                                                             OrtAllocator* a, const char* key,
                                                             char** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("ModelMetadataLookupCustomMetadataMap", m);
  ONNX_LIGHT_ORT_ARG("ModelMetadataLookupCustomMetadataMap", a);
  ONNX_LIGHT_ORT_ARG("ModelMetadataLookupCustomMetadataMap", key);
  ONNX_LIGHT_ORT_ARG("ModelMetadataLookupCustomMetadataMap", out);
  *out = nullptr;  // absent key: null, no error (as ORT)
  for (const auto& [k, v] : m->custom) {
    if (k == key) {
      *out = CopyString(a, v);
      if (*out == nullptr)
        return Fail(ORT_FAIL, "ModelMetadataLookupCustomMetadataMap: out of memory");
      break;
    }
  }
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("ModelMetadataLookupCustomMetadataMap")
}
OrtStatus* ORT_API_CALL ModelMetadataGetCustomMetadataMapKeys(const OrtModelMetadata* m,
                                                              OrtAllocator* a, char*** keys,
                                                              int64_t* count) noexcept {
  ONNX_LIGHT_ORT_ARG("ModelMetadataGetCustomMetadataMapKeys", m);
  ONNX_LIGHT_ORT_ARG("ModelMetadataGetCustomMetadataMapKeys", a);
  ONNX_LIGHT_ORT_ARG("ModelMetadataGetCustomMetadataMapKeys", keys);
  ONNX_LIGHT_ORT_ARG("ModelMetadataGetCustomMetadataMapKeys", count);
  *keys = nullptr;
  *count = static_cast<int64_t>(m->custom.size());
  if (m->custom.empty()) return nullptr;
  auto** list = static_cast<char**>(a->Alloc(a, m->custom.size() * sizeof(char*)));
  if (list == nullptr)
    return Fail(ORT_FAIL, "ModelMetadataGetCustomMetadataMapKeys: out of memory");
  for (size_t i = 0; i < m->custom.size(); ++i) {
    list[i] = CopyString(a, m->custom[i].first);
    if (list[i] == nullptr) {
      for (size_t j = 0; j < i; ++j)
        a->Free(a, list[j]);
      a->Free(a, list);
      return Fail(ORT_FAIL, "ModelMetadataGetCustomMetadataMapKeys: out of memory");
    }
  }
  *keys = list;
  return nullptr;
}

}  // namespace

void FillMetadataSlots(OrtApi& api) {
  api.SessionGetModelMetadata = &SessionGetModelMetadata;
  api.ReleaseModelMetadata = &ReleaseModelMetadata;
  api.ModelMetadataGetProducerName = &ModelMetadataGetProducerName;
  api.ModelMetadataGetGraphName = &ModelMetadataGetGraphName;
  api.ModelMetadataGetDomain = &ModelMetadataGetDomain;
  api.ModelMetadataGetDescription = &ModelMetadataGetDescription;
  api.ModelMetadataGetGraphDescription = &ModelMetadataGetGraphDescription;
  api.ModelMetadataGetVersion = &ModelMetadataGetVersion;
  api.ModelMetadataLookupCustomMetadataMap = &ModelMetadataLookupCustomMetadataMap;
  api.ModelMetadataGetCustomMetadataMapKeys = &ModelMetadataGetCustomMetadataMapKeys;
}

}  // namespace onnx_light_ort::c_api
