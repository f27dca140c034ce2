// Shared support for hosting ONNX Runtime custom-op plugins without ONNX Runtime.
//
// A PluginHost loads one plugin library from an explicit path, hands its
// RegisterCustomOps an OrtApiBase that offers one audited profile of the API-18 table,
// validates every custom-op descriptor the plugin registers, and turns each accepted
// (domain, name, types) overload into a KernelDef whose kernels call the plugin's kernel
// callbacks. The host is generic: it knows no op.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "onnx_light/core/status.h"
#include "onnx_light/platform/dynamic_library.h"
#include "onnx_light/runtime/kernel_registry.h"
#include "onnx_light/runtime/session_options.h"
#include "onnxruntime_c_api.h"

namespace onnx_light_ort::hosting {

// The only OrtApi version offered to plugins (and, in the initial profile, of OrtCustomOp
// descriptors accepted).
inline constexpr uint32_t kHostApiVersion = 18;

// The audited profiles (docs/custom_ops_ort_called_by_light.md). The caller names one; it
// is never guessed from the plugin.
enum class Profile {
  // Spec 000's initial audited profile: API-18 descriptors of one float16/bfloat16/float/
  // double input and output, V2 kernels, 22 slots. CustomOpSession and the LightOrt* C ABI.
  kInitial,
  // onnxruntime-extensions' CPU ops (session-level registration): several inputs and
  // outputs of any runtime element type, strings included, optional ones, V1 and V2
  // kernels, and the further slots its CPU ops call. A descriptor it cannot run is
  // recorded and refused only when a model uses it.
  kExtensions,
};
const char* ProfileName(Profile profile);

// The profile's API-18 function table: its subset is set, every other slot is null and
// must not be called.
const OrtApi* HostApi(Profile profile = Profile::kInitial);
const OrtApiBase* HostApiBase(Profile profile = Profile::kInitial);

// One custom-op overload the plugin registered.
struct HostedOp {
  const OrtCustomOp* op;
  std::string domain;
  std::string name;
  ONNXTensorElementDataType type;  // input 0's
  int start_version;
  int end_version;
  // The extensions profile: every input's and output's type (UNDEFINED: any), which may
  // be left out, the kernel interface, and why it cannot run (empty: it can).
  std::vector<ONNXTensorElementDataType> input_types, output_types;
  std::vector<bool> optional_inputs, optional_outputs;
  bool v2 = true;
  std::string refusal;
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
  static onnx_light::Result<std::unique_ptr<PluginHost>> Load(const std::string& path,
                                                              Profile profile = Profile::kInitial);

  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;
  // Unloads the plugin. Sessions using kernels of this host must be destroyed first.
  ~PluginHost();

  const std::vector<HostedOp>& ops() const noexcept { return ops_; }
  const std::string& path() const noexcept { return library_->path(); }
  Profile profile() const noexcept { return profile_; }

  // The initial profile: a registry (no parent) holding one KernelDef per hosted overload.
  // The caller keeps the host alive while sessions use it.
  onnx_light::Result<std::shared_ptr<onnx_light::KernelRegistry>> MakeRegistry() const;

  // The extensions profile: a registry over `parent` with one KernelDef per overload
  // (a refused one fails when its node's kernel is made, at the first run, naming the op
  // and why); the registry and
  // every kernel hold `host`, so the plugin stays loaded while any of them lives.
  static onnx_light::Result<std::shared_ptr<onnx_light::KernelRegistry>> MakeLayeredRegistry(
      const std::shared_ptr<const PluginHost>& host,
      std::shared_ptr<const onnx_light::KernelRegistry> parent);

 private:
  PluginHost() = default;
  std::unique_ptr<onnx_light::DynamicLibrary> library_;  // unloaded last
  std::vector<HostedOp> ops_;
  Profile profile_ = Profile::kInitial;
};

// Session-level registration, ORT's RegisterCustomOpsLibrary: loads the plugin at `path`
// in `profile` (kExtensions; the initial profile is CustomOpSession's) and layers its
// kernels over options->registry (the built-in CPU kernels when null), so one graph mixes
// standard ops and the plugin's. The plugin stays loaded while any session using it lives.
onnx_light::Status RegisterCustomOpsLibrary(onnx_light::SessionOptions* options,
                                            const std::string& path, Profile profile);

}  // namespace onnx_light_ort::hosting
