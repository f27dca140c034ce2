// The host's definitions of ONNX Runtime's opaque C API types. Plugins only ever see
// pointers to these.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "onnx_light/core/tensor.h"
#include "onnx_light/onnx/onnx.h"
#include "onnx_light/runtime/kernel.h"
#include "onnx_light_ort/hosting/plugin_host.h"
#include "onnxruntime_c_api.h"

struct OrtStatus {
  OrtErrorCode code;
  std::string message;
};

// A domain a plugin builds with CreateCustomOpDomain / CustomOpDomain_Add. The plugin
// owns it (and releases it with ReleaseCustomOpDomain); the host copies what it needs.
struct OrtCustomOpDomain {
  std::string domain;
  std::vector<const OrtCustomOp*> ops;
  std::string first_error;  // the first refused descriptor, reported at registration
  onnx_light_ort::hosting::Profile profile;  // of the table that created it
};

// The registration context handed to RegisterCustomOps in place of session options.
struct OrtSessionOptions {
  std::vector<OrtCustomOpDomain> domains;  // copies, taken at AddCustomOpDomain
  std::string first_error;
};

struct OrtKernelInfo {
  const onnx_light::KernelInfo* info;
};

// Inputs view the runtime's tensors; an output points at the runtime's output slot.
struct OrtValue {
  const onnx_light::Tensor* tensor;
};

struct OrtKernelContext {
  onnx_light::KernelContext* context;
  std::vector<OrtValue> inputs;
  std::vector<std::unique_ptr<OrtValue>> outputs;
  // The extensions profile: numeric outputs get slack after their end (see
  // KernelContext_GetOutput).
  bool padded_outputs = false;
};

struct OrtTensorTypeAndShapeInfo {
  ONNXTensorElementDataType type;
  std::vector<int64_t> dims;
};

// The one memory the host has: CPU memory ("Cpu", device 0, the default memory type).
struct OrtMemoryInfo {
  OrtAllocatorType allocator_type;
  OrtMemType mem_type;
};
