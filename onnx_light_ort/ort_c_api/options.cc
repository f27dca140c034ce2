// Session options and run options of ORT's C API, onto onnx_light::SessionOptions and
// onnx_light::RunOptions.
#include <dlfcn.h>

#include "onnx_light_ort/hosting/plugin_host.h"
#include "onnx_light_ort/ort_c_api/objects.h"

namespace onnx_light_ort::c_api {
namespace {

// --- Session options --------------------------------------------------------------------

OrtStatus* ORT_API_CALL CreateSessionOptions(OrtSessionOptions** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("CreateSessionOptions", out);
  auto* options = new OrtSessionOptions;
  options->options.intra_op_threads = 0;  // ORT's default: one per physical core
  *out = options;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CreateSessionOptions")
}
OrtStatus* ORT_API_CALL CloneSessionOptions(const OrtSessionOptions* in,
                                            OrtSessionOptions** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("CloneSessionOptions", in);
  ONNX_LIGHT_ORT_ARG("CloneSessionOptions", out);
  *out = new OrtSessionOptions(*in);
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CloneSessionOptions")
}
void ORT_API_CALL ReleaseSessionOptions(OrtSessionOptions* options) noexcept {
  delete options;
}
OrtStatus* ORT_API_CALL SetOptimizedModelFilePath(OrtSessionOptions* options,
                                                  const ORTCHAR_T* path) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("SetOptimizedModelFilePath", options);
  ONNX_LIGHT_ORT_ARG("SetOptimizedModelFilePath", path);
  options->options.optimized_model_path = path;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("SetOptimizedModelFilePath")
}
// Parallel execution mode runs sequentially (onnx-light runs nodes in plan order); both
// modes give the same results.
OrtStatus* ORT_API_CALL SetSessionExecutionMode(OrtSessionOptions* options,
                                                ExecutionMode mode) noexcept {
  ONNX_LIGHT_ORT_ARG("SetSessionExecutionMode", options);
  if (mode != ORT_SEQUENTIAL && mode != ORT_PARALLEL) {
    return Fail(ORT_INVALID_ARGUMENT,
                "SetSessionExecutionMode: unknown mode " + std::to_string(static_cast<int>(mode)));
  }
  options->execution_mode = mode;
  return nullptr;
}
OrtStatus* ORT_API_CALL EnableProfiling(OrtSessionOptions* options,
                                        const ORTCHAR_T* prefix) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("EnableProfiling", options);
  ONNX_LIGHT_ORT_ARG("EnableProfiling", prefix);
  options->profiling = true;
  options->profile_prefix = prefix;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("EnableProfiling")
}
OrtStatus* ORT_API_CALL DisableProfiling(OrtSessionOptions* options) noexcept {
  ONNX_LIGHT_ORT_ARG("DisableProfiling", options);
  options->profiling = false;
  return nullptr;
}
OrtStatus* ORT_API_CALL EnableMemPattern(OrtSessionOptions* options) noexcept {
  ONNX_LIGHT_ORT_ARG("EnableMemPattern", options);
  options->options.enable_mem_pattern = true;
  return nullptr;
}
OrtStatus* ORT_API_CALL DisableMemPattern(OrtSessionOptions* options) noexcept {
  ONNX_LIGHT_ORT_ARG("DisableMemPattern", options);
  options->options.enable_mem_pattern = false;
  return nullptr;
}
// onnx-light's buffer cache plays the arena's part; disabling the arena empties the cache.
OrtStatus* ORT_API_CALL EnableCpuMemArena(OrtSessionOptions* options) noexcept {
  ONNX_LIGHT_ORT_ARG("EnableCpuMemArena", options);
  options->options.buffer_cache_bytes = onnx_light::SessionOptions{}.buffer_cache_bytes;
  return nullptr;
}
OrtStatus* ORT_API_CALL DisableCpuMemArena(OrtSessionOptions* options) noexcept {
  ONNX_LIGHT_ORT_ARG("DisableCpuMemArena", options);
  options->options.buffer_cache_bytes = 0;
  return nullptr;
}
OrtStatus* ORT_API_CALL SetSessionLogId(OrtSessionOptions* options, const char* id) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("SetSessionLogId", options);
  ONNX_LIGHT_ORT_ARG("SetSessionLogId", id);
  options->log_id = id;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("SetSessionLogId")
}
OrtStatus* ORT_API_CALL SetSessionLogVerbosityLevel(OrtSessionOptions* options,
                                                    int level) noexcept {
  ONNX_LIGHT_ORT_ARG("SetSessionLogVerbosityLevel", options);
  options->log_verbosity = level;
  return nullptr;
}
OrtStatus* ORT_API_CALL SetSessionLogSeverityLevel(OrtSessionOptions* options, int level) noexcept {
  ONNX_LIGHT_ORT_ARG("SetSessionLogSeverityLevel", options);
  if (level < 0 || level > 4) {
    return Fail(ORT_INVALID_ARGUMENT, "SetSessionLogSeverityLevel: the level must be 0 to 4, got " +
                                          std::to_string(level));
  }
  options->log_severity = level;
  return nullptr;
}
OrtStatus* ORT_API_CALL SetSessionGraphOptimizationLevel(OrtSessionOptions* options,
                                                         GraphOptimizationLevel level) noexcept {
  using L = onnx_light::GraphOptimizationLevel;
  ONNX_LIGHT_ORT_ARG("SetSessionGraphOptimizationLevel", options);
  switch (level) {
    case ORT_DISABLE_ALL:
      options->options.graph_optimization_level = L::kNone;
      break;
    case ORT_ENABLE_BASIC:
      options->options.graph_optimization_level = L::kBasic;
      break;
    case ORT_ENABLE_EXTENDED:
      options->options.graph_optimization_level = L::kExtended;
      break;
    case ORT_ENABLE_ALL:
      options->options.graph_optimization_level = L::kAll;
      break;
    default:
      if (static_cast<int>(level) < 0 || static_cast<int>(level) > 99) {
        return Fail(ORT_INVALID_ARGUMENT, "SetSessionGraphOptimizationLevel: unknown level " +
                                              std::to_string(static_cast<int>(level)));
      }
      options->options.graph_optimization_level = L::kAll;  // ORT 1.2x's ENABLE_LAYOUT (3)
  }
  return nullptr;
}
OrtStatus* ORT_API_CALL SetIntraOpNumThreads(OrtSessionOptions* options, int threads) noexcept {
  ONNX_LIGHT_ORT_ARG("SetIntraOpNumThreads", options);
  if (threads < 0) {
    return Fail(ORT_INVALID_ARGUMENT,
                "SetIntraOpNumThreads: the count must be 0 (default) or more, got " +
                    std::to_string(threads));
  }
  options->options.intra_op_threads = threads;
  return nullptr;
}
// Inter-op threads run independent nodes in parallel in ORT's parallel mode; onnx-light
// runs nodes in sequence, so the count is kept and does not change a run.
OrtStatus* ORT_API_CALL SetInterOpNumThreads(OrtSessionOptions* options, int threads) noexcept {
  ONNX_LIGHT_ORT_ARG("SetInterOpNumThreads", options);
  if (threads < 0) {
    return Fail(ORT_INVALID_ARGUMENT,
                "SetInterOpNumThreads: the count must be 0 (default) or more, got " +
                    std::to_string(threads));
  }
  options->inter_op_threads = threads;
  return nullptr;
}
OrtStatus* ORT_API_CALL AddSessionConfigEntry(OrtSessionOptions* options, const char* key,
                                              const char* value) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("AddSessionConfigEntry", options);
  ONNX_LIGHT_ORT_ARG("AddSessionConfigEntry", key);
  ONNX_LIGHT_ORT_ARG("AddSessionConfigEntry", value);
  options->config[key] = value;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("AddSessionConfigEntry")
}
OrtStatus* ORT_API_CALL HasSessionConfigEntry(const OrtSessionOptions* options, const char* key,
                                              int* out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("HasSessionConfigEntry", options);
  ONNX_LIGHT_ORT_ARG("HasSessionConfigEntry", key);
  ONNX_LIGHT_ORT_ARG("HasSessionConfigEntry", out);
  *out = options->config.count(key) != 0 ? 1 : 0;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("HasSessionConfigEntry")
}
// ORT's string protocol: with `out` null (or *size too small) the size with the
// terminating zero is returned in *size (too small: an INVALID_ARGUMENT status).
OrtStatus* CopyOut(const std::string& text, char* out, size_t* size, const char* fn) {
  ONNX_LIGHT_ORT_ARG(fn, size);
  const size_t need = text.size() + 1;
  if (out == nullptr) {
    *size = need;
    return nullptr;
  }
  if (*size < need) {
    *size = need;
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": the buffer holds " +
                                          std::to_string(*size) + " bytes, " +
                                          std::to_string(need) + " are needed");
  }
  std::memcpy(out, text.c_str(), need);
  *size = need;
  return nullptr;
}
OrtStatus* ORT_API_CALL GetSessionConfigEntry(const OrtSessionOptions* options, const char* key,
                                              char* out, size_t* size) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("GetSessionConfigEntry", options);
  ONNX_LIGHT_ORT_ARG("GetSessionConfigEntry", key);
  auto it = options->config.find(key);
  if (it == options->config.end()) {
    return Fail(ORT_INVALID_ARGUMENT,
                std::string("GetSessionConfigEntry: no session config entry '") + key + "'");
  }
  return CopyOut(it->second, out, size, "GetSessionConfigEntry");
  ONNX_LIGHT_ORT_CATCH("GetSessionConfigEntry")
}
OrtStatus* ORT_API_CALL AddFreeDimensionOverride(OrtSessionOptions* options, const char* denotation,
                                                 int64_t value) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("AddFreeDimensionOverride", options);
  ONNX_LIGHT_ORT_ARG("AddFreeDimensionOverride", denotation);
  options->dim_by_denotation.emplace_back(denotation, value);
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("AddFreeDimensionOverride")
}
OrtStatus* ORT_API_CALL AddFreeDimensionOverrideByName(OrtSessionOptions* options, const char* name,
                                                       int64_t value) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("AddFreeDimensionOverrideByName", options);
  ONNX_LIGHT_ORT_ARG("AddFreeDimensionOverrideByName", name);
  options->dim_by_name.emplace_back(name, value);
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("AddFreeDimensionOverrideByName")
}
// Providers by name: the CPU (onnx-light's only one) is accepted; any other is refused as
// ORT refuses a provider it was not built with.
OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider(OrtSessionOptions* options,
                                                              const char* name, const char* const*,
                                                              const char* const*, size_t) noexcept {
  ONNX_LIGHT_ORT_ARG("SessionOptionsAppendExecutionProvider", options);
  ONNX_LIGHT_ORT_ARG("SessionOptionsAppendExecutionProvider", name);
  if (std::strcmp(name, "CPU") == 0 || std::strcmp(name, "CPUExecutionProvider") == 0) {
    return nullptr;
  }
  return Fail(ORT_INVALID_ARGUMENT, std::string("SessionOptionsAppendExecutionProvider: '") + name +
                                        "' is not available; onnx-light runs on the CPU only");
}
OrtStatus* ORT_API_CALL SessionOptionsSetEpSelectionPolicy(
    OrtSessionOptions* options, OrtExecutionProviderDevicePolicy) noexcept {
  ONNX_LIGHT_ORT_ARG("SessionOptionsSetEpSelectionPolicy", options);
  return nullptr;  // every policy picks the CPU
}
// Sessions then take the thread count of the env's global pools (CreateEnvWithGlobal-
// ThreadPools); onnx-light still gives each session a pool of its own.
OrtStatus* ORT_API_CALL DisablePerSessionThreads(OrtSessionOptions* options) noexcept {
  ONNX_LIGHT_ORT_ARG("DisablePerSessionThreads", options);
  options->per_session_threads = false;
  return nullptr;
}
OrtStatus* AddTo(std::vector<std::pair<std::string, onnx_light::Tensor>>* list, const char* name,
                 const OrtValue* value, const char* fn) {
  ONNX_LIGHT_ORT_ARG(fn, name);
  ONNX_LIGHT_ORT_ARG(fn, value);
  const onnx_light::Tensor* t = value->value.tensor_or_null();
  if (t == nullptr) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": the value is not a tensor");
  }
  for (const auto& [existing, tensor] : *list) {
    if (existing == name) {
      return Fail(ORT_INVALID_ARGUMENT,
                  std::string(fn) + ": an initializer named '" + name + "' was added already");
    }
  }
  list->emplace_back(name, *t);
  return nullptr;
}
OrtStatus* ORT_API_CALL AddInitializer(OrtSessionOptions* options, const char* name,
                                       const OrtValue* value) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("AddInitializer", options);
  return AddTo(&options->initializers, name, value, "AddInitializer");
  ONNX_LIGHT_ORT_CATCH("AddInitializer")
}
// Only for initializers whose data is in an external file (checked at session creation).
OrtStatus* ORT_API_CALL AddExternalInitializers(OrtSessionOptions* options,
                                                const char* const* names,
                                                const OrtValue* const* values, size_t n) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("AddExternalInitializers", options);
  if (n != 0) {
    ONNX_LIGHT_ORT_ARG("AddExternalInitializers", names);
    ONNX_LIGHT_ORT_ARG("AddExternalInitializers", values);
  }
  for (size_t i = 0; i < n; ++i) {
    if (OrtStatus* st = AddTo(&options->external_initializers, names[i], values[i],
                              "AddExternalInitializers")) {
      return st;
    }
  }
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("AddExternalInitializers")
}
OrtStatus* ORT_API_CALL AddExternalInitializersFromFilesInMemory(OrtSessionOptions* options,
                                                                 const ORTCHAR_T* const* names,
                                                                 char* const* buffers,
                                                                 const size_t* lengths,
                                                                 size_t n) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "AddExternalInitializersFromFilesInMemory";
  ONNX_LIGHT_ORT_ARG(fn, options);
  if (n != 0) {
    ONNX_LIGHT_ORT_ARG(fn, names);
    ONNX_LIGHT_ORT_ARG(fn, buffers);
    ONNX_LIGHT_ORT_ARG(fn, lengths);
  }
  for (size_t i = 0; i < n; ++i) {
    if (names[i] == nullptr || (buffers[i] == nullptr && lengths[i] != 0)) {
      return Fail(ORT_INVALID_ARGUMENT,
                  std::string(fn) + ": file " + std::to_string(i) + " is null");
    }
    options->external_files.emplace_back(
        names[i], std::make_shared<const std::string>(buffers[i], lengths[i]));
  }
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("AddExternalInitializersFromFilesInMemory")
}
// Custom-op libraries: through onnx-light's plugin host, with the profile that runs
// onnxruntime-extensions' CPU ops (docs/plugins.md); the ops join the session's registry.
OrtStatus* ORT_API_CALL RegisterCustomOpsLibrary_V2(OrtSessionOptions* options,
                                                    const ORTCHAR_T* path) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("RegisterCustomOpsLibrary_V2", options);
  ONNX_LIGHT_ORT_ARG("RegisterCustomOpsLibrary_V2", path);
  return FromStatus(onnx_light_ort::hosting::RegisterCustomOpsLibrary(
                        &options->options, path, onnx_light_ort::hosting::Profile::kExtensions),
                    "RegisterCustomOpsLibrary_V2");
  ONNX_LIGHT_ORT_CATCH("RegisterCustomOpsLibrary_V2")
}
// The first version hands back the library's handle for the program to dlclose after its
// sessions: a reference of its own (the host keeps the library loaded for the sessions).
OrtStatus* ORT_API_CALL RegisterCustomOpsLibrary(OrtSessionOptions* options, const char* path,
                                                 void** handle) noexcept {
  ONNX_LIGHT_ORT_ARG("RegisterCustomOpsLibrary", handle);
  *handle = nullptr;
  if (OrtStatus* st = RegisterCustomOpsLibrary_V2(options, path)) return st;
  *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  return nullptr;
}
OrtStatus* ORT_API_CALL SetDeterministicCompute(OrtSessionOptions* options, bool) noexcept {
  ONNX_LIGHT_ORT_ARG("SetDeterministicCompute", options);
  return nullptr;  // onnx-light's kernels give the same result run after run
}

// --- Run options ------------------------------------------------------------------------

OrtStatus* ORT_API_CALL CreateRunOptions(OrtRunOptions** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("CreateRunOptions", out);
  *out = new OrtRunOptions;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CreateRunOptions")
}
void ORT_API_CALL ReleaseRunOptions(OrtRunOptions* options) noexcept {
  delete options;
}
OrtStatus* ORT_API_CALL RunOptionsSetRunLogVerbosityLevel(OrtRunOptions* options,
                                                          int level) noexcept {
  ONNX_LIGHT_ORT_ARG("RunOptionsSetRunLogVerbosityLevel", options);
  options->log_verbosity = level;
  return nullptr;
}
OrtStatus* ORT_API_CALL RunOptionsSetRunLogSeverityLevel(OrtRunOptions* options,
                                                         int level) noexcept {
  ONNX_LIGHT_ORT_ARG("RunOptionsSetRunLogSeverityLevel", options);
  options->log_severity = level;
  return nullptr;
}
OrtStatus* ORT_API_CALL RunOptionsGetRunLogVerbosityLevel(const OrtRunOptions* options,
                                                          int* out) noexcept {
  ONNX_LIGHT_ORT_ARG("RunOptionsGetRunLogVerbosityLevel", options);
  ONNX_LIGHT_ORT_ARG("RunOptionsGetRunLogVerbosityLevel", out);
  *out = options->log_verbosity;
  return nullptr;
}
OrtStatus* ORT_API_CALL RunOptionsGetRunLogSeverityLevel(const OrtRunOptions* options,
                                                         int* out) noexcept {
  ONNX_LIGHT_ORT_ARG("RunOptionsGetRunLogSeverityLevel", options);
  ONNX_LIGHT_ORT_ARG("RunOptionsGetRunLogSeverityLevel", out);
  *out = options->log_severity;
  return nullptr;
}
OrtStatus* ORT_API_CALL RunOptionsSetRunTag(OrtRunOptions* options, const char* tag) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("RunOptionsSetRunTag", options);
  options->tag = tag != nullptr ? tag : "";
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("RunOptionsSetRunTag")
}
OrtStatus* ORT_API_CALL RunOptionsGetRunTag(const OrtRunOptions* options,
                                            const char** out) noexcept {
  ONNX_LIGHT_ORT_ARG("RunOptionsGetRunTag", options);
  ONNX_LIGHT_ORT_ARG("RunOptionsGetRunTag", out);
  *out = options->tag.c_str();
  return nullptr;
}
OrtStatus* ORT_API_CALL RunOptionsSetTerminate(OrtRunOptions* options) noexcept {
  ONNX_LIGHT_ORT_ARG("RunOptionsSetTerminate", options);
  options->options.Terminate();
  return nullptr;
}
OrtStatus* ORT_API_CALL RunOptionsUnsetTerminate(OrtRunOptions* options) noexcept {
  ONNX_LIGHT_ORT_ARG("RunOptionsUnsetTerminate", options);
  options->options.Reset();
  return nullptr;
}
OrtStatus* ORT_API_CALL AddRunConfigEntry(OrtRunOptions* options, const char* key,
                                          const char* value) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("AddRunConfigEntry", options);
  ONNX_LIGHT_ORT_ARG("AddRunConfigEntry", key);
  ONNX_LIGHT_ORT_ARG("AddRunConfigEntry", value);
  options->config[key] = value;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("AddRunConfigEntry")
}
const char* ORT_API_CALL GetRunConfigEntry(const OrtRunOptions* options, const char* key) noexcept {
  if (options == nullptr || key == nullptr) return nullptr;
  try {
    auto it = options->config.find(key);
    return it != options->config.end() ? it->second.c_str() : nullptr;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

void FillOptionsSlots(OrtApi& api) {
  api.CreateSessionOptions = &CreateSessionOptions;
  api.CloneSessionOptions = &CloneSessionOptions;
  api.ReleaseSessionOptions = &ReleaseSessionOptions;
  api.SetOptimizedModelFilePath = &SetOptimizedModelFilePath;
  api.SetSessionExecutionMode = &SetSessionExecutionMode;
  api.EnableProfiling = &EnableProfiling;
  api.DisableProfiling = &DisableProfiling;
  api.EnableMemPattern = &EnableMemPattern;
  api.DisableMemPattern = &DisableMemPattern;
  api.EnableCpuMemArena = &EnableCpuMemArena;
  api.DisableCpuMemArena = &DisableCpuMemArena;
  api.SetSessionLogId = &SetSessionLogId;
  api.SetSessionLogVerbosityLevel = &SetSessionLogVerbosityLevel;
  api.SetSessionLogSeverityLevel = &SetSessionLogSeverityLevel;
  api.SetSessionGraphOptimizationLevel = &SetSessionGraphOptimizationLevel;
  api.SetIntraOpNumThreads = &SetIntraOpNumThreads;
  api.SetInterOpNumThreads = &SetInterOpNumThreads;
  api.AddSessionConfigEntry = &AddSessionConfigEntry;
  api.HasSessionConfigEntry = &HasSessionConfigEntry;
  api.GetSessionConfigEntry = &GetSessionConfigEntry;
  api.AddFreeDimensionOverride = &AddFreeDimensionOverride;
  api.AddFreeDimensionOverrideByName = &AddFreeDimensionOverrideByName;
  api.SessionOptionsAppendExecutionProvider = &SessionOptionsAppendExecutionProvider;
  api.SessionOptionsSetEpSelectionPolicy = &SessionOptionsSetEpSelectionPolicy;
  api.DisablePerSessionThreads = &DisablePerSessionThreads;
  api.AddInitializer = &AddInitializer;
  api.AddExternalInitializers = &AddExternalInitializers;
  api.AddExternalInitializersFromFilesInMemory = &AddExternalInitializersFromFilesInMemory;
  api.RegisterCustomOpsLibrary = &RegisterCustomOpsLibrary;
  api.RegisterCustomOpsLibrary_V2 = &RegisterCustomOpsLibrary_V2;
  api.SetDeterministicCompute = &SetDeterministicCompute;
  api.CreateRunOptions = &CreateRunOptions;
  api.ReleaseRunOptions = &ReleaseRunOptions;
  api.RunOptionsSetRunLogVerbosityLevel = &RunOptionsSetRunLogVerbosityLevel;
  api.RunOptionsSetRunLogSeverityLevel = &RunOptionsSetRunLogSeverityLevel;
  api.RunOptionsGetRunLogVerbosityLevel = &RunOptionsGetRunLogVerbosityLevel;
  api.RunOptionsGetRunLogSeverityLevel = &RunOptionsGetRunLogSeverityLevel;
  api.RunOptionsSetRunTag = &RunOptionsSetRunTag;
  api.RunOptionsGetRunTag = &RunOptionsGetRunTag;
  api.RunOptionsSetTerminate = &RunOptionsSetTerminate;
  api.RunOptionsUnsetTerminate = &RunOptionsUnsetTerminate;
  api.AddRunConfigEntry = &AddRunConfigEntry;
  api.GetRunConfigEntry = &GetRunConfigEntry;
}

}  // namespace onnx_light_ort::c_api
