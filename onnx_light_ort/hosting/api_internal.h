// What the two API tables of the host share (ort_api_impl.cc: the initial profile and the
// registration functions; ort_api_extensions.cc: the extensions profile's further slots).
#pragma once

#include <string>

#include "onnx_light/core/status.h"
#include "onnxruntime_c_api.h"
#include "ort_structs.h"

namespace onnx_light_ort::hosting {

// A status the host created (ConsumePluginStatus accepts only those); null when out of
// memory.
OrtStatus* MakeStatus(OrtErrorCode code, const std::string& message) noexcept;
OrtStatus* Invalid(const std::string& message) noexcept;
OrtStatus* FromStatus(const onnx_light::Status& s) noexcept;

// fn(attribute) for the node's attribute `name` of type `type`; a missing attribute or one
// of another type is an error status naming the node.
template <typename Fn>
OrtStatus* WithAttribute(const OrtKernelInfo* info, const char* name,
                         onnx_light::onnx::AttributeType type, Fn fn) noexcept {
  if (info == nullptr || info->info == nullptr || name == nullptr) {
    return Invalid("KernelInfoGetAttribute: null argument");
  }
  try {
    const onnx_light::onnx::AttributeProto* a = info->info->Find(name);
    if (a == nullptr) {
      return MakeStatus(ORT_FAIL, info->info->Describe() + ": no attribute named '" + name + "'");
    }
    if (a->type.get() != static_cast<int32_t>(type)) {
      return MakeStatus(ORT_FAIL, info->info->Describe() + ": attribute '" + name +
                                      "' has another type than requested");
    }
    return fn(*a);
  } catch (...) {
    return MakeStatus(ORT_FAIL, "KernelInfoGetAttribute: internal error");
  }
}

// The initial profile's slots (status, registration, attributes, context, tensors).
void FillInitialApi(OrtApi* api);
// The extensions profile's further slots, its registration functions included.
void FillExtensionsApi(OrtApi* api);

}  // namespace onnx_light_ort::hosting
