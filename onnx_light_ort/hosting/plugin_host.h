// Shared support for hosting ONNX Runtime custom-op plugins without ONNX Runtime.
//
// A PluginHost loads one plugin library from an explicit path, hands its
// RegisterCustomOps an OrtApiBase that offers the audited API-18 subset only, validates
// every custom-op descriptor the plugin registers, and turns each accepted (domain, name,
// type) overload into a KernelDef whose kernels call the plugin's CreateKernelV2 /
// KernelComputeV2 / KernelDestroy. The host is generic: it knows no op.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "onnx_light/core/status.h"
#include "onnx_light/platform/dynamic_library.h"
#include "onnx_light/runtime/kernel_registry.h"
#include "onnxruntime_c_api.h"

namespace onnx_light_ort::hosting {

// The only OrtApi version offered to plugins, and of OrtCustomOp descriptors accepted.
inline constexpr uint32_t kHostApiVersion = 18;

// The API-18 function table: the custom-op subset is set, every other slot is null and
// must not be called (see docs/custom_ops_ort_called_by_light.md).
const OrtApi* HostApi();
const OrtApiBase* HostApiBase();

// One accepted custom-op overload.
struct HostedOp {
  const OrtCustomOp* op;
  std::string domain;
  std::string name;
  ONNXTensorElementDataType type;
  int start_version;
  int end_version;
};

// Converts a status the plugin returned (created by HostApi()->CreateStatus) into an
// onnx_light status and releases it; a pointer the host did not create is reported as
// such and not dereferenced.
onnx_light::Status ConsumePluginStatus(OrtStatus* status, const std::string& context);

// The last OrtApi version a plugin asked for and was refused on this thread (0: none),
// cleared by the call.
uint32_t TakeRefusedApiVersion();

class PluginHost {
 public:
  // Loads the plugin and runs its registration. Errors: the path (see DynamicLibrary),
  // a missing RegisterCustomOps, API negotiation failure, and every descriptor refusal.
  static onnx_light::Result<std::unique_ptr<PluginHost>> Load(const std::string& path);

  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;
  // Unloads the plugin. Sessions using kernels of this host must be destroyed first.
  ~PluginHost();

  const std::vector<HostedOp>& ops() const noexcept { return ops_; }
  const std::string& path() const noexcept { return library_->path(); }

  // A registry (no parent) holding one KernelDef per hosted overload.
  onnx_light::Result<std::shared_ptr<onnx_light::KernelRegistry>> MakeRegistry() const;

 private:
  PluginHost() = default;
  std::unique_ptr<onnx_light::DynamicLibrary> library_;  // unloaded last
  std::vector<HostedOp> ops_;
};

}  // namespace onnx_light_ort::hosting
