// What the two API tables of the host share (ort_api_impl.cc: the initial profile and the
// registration functions; ort_api_extensions.cc: the extensions profile's further slots).
#pragma once

#include <string>

#include "onnx_light/core/status.h"
#include "onnxruntime_c_api.h"

namespace onnx_light_ort::hosting {

// A status the host created (ConsumePluginStatus accepts only those); null when out of
// memory.
OrtStatus* MakeStatus(OrtErrorCode code, const std::string& message) noexcept;
OrtStatus* Invalid(const std::string& message) noexcept;
OrtStatus* FromStatus(const onnx_light::Status& s) noexcept;

// The initial profile's slots (status, registration, attributes, context, tensors).
void FillInitialApi(OrtApi* api);
// The extensions profile's further slots, its registration functions included.
void FillExtensionsApi(OrtApi* api);

}  // namespace onnx_light_ort::hosting
