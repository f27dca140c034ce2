// The host's definitions of ONNX Runtime's opaque C API types. Plugins only ever see
// pointers to these.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "onnx_light/core/tensor.h"
#include "onnx_light/onnx/onnx.h"
#include "onnx_light/runtime/kernel.h"
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
};

struct OrtTensorTypeAndShapeInfo {
  ONNXTensorElementDataType type;
  std::vector<int64_t> dims;
};
