// libonnxruntime.so on onnx-light: the objects behind ORT's opaque C API handles, and what
// the slot implementations share. Programs only ever see pointers to these.
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "onnx_light/runtime/session.h"
#include "onnx_light/runtime/session_options.h"
#include "onnx_light/runtime/value.h"
#include "onnxruntime_c_api.h"

struct OrtStatus {
  OrtErrorCode code;
  std::string message;
};

// ORT's environment: logging settings only (onnx-light has no global state to set up).
struct OrtEnv {
  OrtLoggingLevel level = ORT_LOGGING_LEVEL_WARNING;
  std::string logid;
  // CreateEnvWithGlobalThreadPools: the intra-op thread count sessions that disable
  // per-session threads take (onnx-light's pools are per session; the count is shared).
  bool global_pools = false;
  int global_intra_threads = 0;
};

// CreateThreadingOptions: what CreateEnvWithGlobalThreadPools reads.
struct OrtThreadingOptions {
  int intra_threads = 0;
  int inter_threads = 0;
};

// What a memory info names. onnx-light computes in one memory, the CPU's ("Cpu", device
// 0); infos naming a device's memory can be made (bindings make them for every device they
// know) and are refused where data would have to live there.
struct OrtMemoryInfo {
  std::string name = "Cpu";
  int id = 0;
  OrtAllocatorType type = OrtDeviceAllocator;
  OrtMemType mem_type = OrtMemTypeDefault;
  OrtMemoryInfoDeviceType device = OrtMemoryInfoDeviceType_CPU;
  bool on_cpu() const { return device == OrtMemoryInfoDeviceType_CPU; }
};

struct OrtSessionOptions {
  onnx_light::SessionOptions options;
  ExecutionMode execution_mode = ORT_SEQUENTIAL;
  int inter_op_threads = 0;
  bool profiling = false;
  std::string profile_prefix = "onnxruntime_profile_";
  std::string log_id;
  int log_severity = 2;
  int log_verbosity = 0;
  std::map<std::string, std::string> config;
  // AddFreeDimensionOverride (by denotation) and ...ByName: (name, value)
  std::vector<std::pair<std::string, int64_t>> dim_by_denotation;
  std::vector<std::pair<std::string, int64_t>> dim_by_name;
  bool per_session_threads = true;  // DisablePerSessionThreads: the env's global count
  // AddInitializer: tensors that replace (or add) initializers; AddExternalInitializers:
  // tensors that replace initializers whose data is in an external file.
  std::vector<std::pair<std::string, onnx_light::Tensor>> initializers;
  std::vector<std::pair<std::string, onnx_light::Tensor>> external_initializers;
  // AddExternalInitializersFromFilesInMemory: external data files by name.
  std::vector<std::pair<std::string, std::shared_ptr<const std::string>>> external_files;
  // Whether the model must be edited before the session is made.
  bool edits_model() const {
    return !dim_by_name.empty() || !dim_by_denotation.empty() || !initializers.empty() ||
           !external_initializers.empty() || !external_files.empty();
  }
  // Whether external data must wait until the model has been edited.
  bool edits_external_data() const {
    return !external_initializers.empty() || !external_files.empty();
  }
};

struct OrtRunOptions {
  onnx_light::RunOptions options;
  std::string tag;
  int log_severity = 2;
  int log_verbosity = 0;
  std::map<std::string, std::string> config;
};

// A value: a tensor (owning, or a view of the caller's buffer), a sequence or a map.
struct OrtValue {
  onnx_light::Value value;
};

struct OrtTensorTypeAndShapeInfo {
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<int64_t> dims;
  std::vector<std::string> dim_params;  // "" where a dimension has no name
  bool has_shape = true;
};

struct OrtTypeInfo;

struct OrtMapTypeInfo {
  ONNXTensorElementDataType key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::unique_ptr<OrtTypeInfo> value;
};

struct OrtSequenceTypeInfo {
  std::unique_ptr<OrtTypeInfo> element;
};

struct OrtOptionalTypeInfo {
  std::unique_ptr<OrtTypeInfo> contained;
};

struct OrtTypeInfo {
  ONNXType type = ONNX_TYPE_UNKNOWN;
  std::string denotation;
  OrtTensorTypeAndShapeInfo tensor;  // ONNX_TYPE_TENSOR
  OrtMapTypeInfo map;                // ONNX_TYPE_MAP
  OrtSequenceTypeInfo sequence;      // ONNX_TYPE_SEQUENCE
  OrtOptionalTypeInfo optional;      // ONNX_TYPE_OPTIONAL
};

struct OrtModelMetadata {
  std::string producer, graph_name, graph_description, domain, description;
  int64_t version = 0;
  std::vector<std::pair<std::string, std::string>> custom;  // metadata_props, in order
};

struct OrtSession {
  std::unique_ptr<onnx_light::RuntimeSession> session;
  std::vector<onnx_light::ValueMeta> inputs;        // graph inputs without an initializer
  std::vector<onnx_light::ValueMeta> overridables;  // initializers that are graph inputs
  std::vector<onnx_light::ValueMeta> outputs;
  OrtModelMetadata metadata;
  bool profiling = false;
  std::string profile_path;
  uint64_t profiling_start_ns = 0;  // since the epoch, when profiling is on (else 0)
};

namespace onnx_light_ort::c_api {

// Statuses. Every slot returns one of these or null (success); none throws.
OrtStatus* Fail(OrtErrorCode code, std::string message) noexcept;
OrtStatus* FromStatus(const onnx_light::Status& status, const char* function) noexcept;
OrtStatus* NullArgument(const char* function, const char* argument) noexcept;
// The status for an exception caught at the C boundary (bad_alloc and the rest).
OrtStatus* FromCurrentException(const char* function) noexcept;

// A string copied into memory from `allocator` (the caller frees it through the
// allocator's Free member); null when the allocation failed.
char* CopyString(OrtAllocator* allocator, const std::string& text) noexcept;

// The default CPU allocator and its memory info.
OrtAllocator* DefaultAllocator() noexcept;
const OrtMemoryInfo* CpuMemoryInfo() noexcept;

// The type info of a graph input or output as ORT describes it.
std::unique_ptr<OrtTypeInfo> TypeInfoOf(const onnx_light::ValueMeta& meta);
// The type info of a value.
std::unique_ptr<OrtTypeInfo> TypeInfoOfValue(const onnx_light::Value& value);

// A Run call's arguments as the runtime takes them (Run and RunAsync): feeds and output
// names, null entries refused with the slot's name `fn`.
OrtStatus* ParseRun(const char* const* input_names, const OrtValue* const* inputs, size_t input_len,
                    const char* const* output_names, size_t output_len, OrtValue** outputs,
                    std::vector<onnx_light::NamedValue>* feeds, std::vector<std::string>* names,
                    const char* fn);

// A run of `s` (the part Run, RunWithBinding and RunAsync share): ORT's errors for a
// missing input, a terminated run, the runtime's failures (`fn` names the slot).
OrtStatus* RunSession(OrtSession* s, const OrtRunOptions* run_options,
                      const std::vector<onnx_light::NamedValue>& feeds,
                      const std::vector<std::string>& names, std::vector<onnx_light::Value>* got,
                      const char* fn);
// The outputs to the caller: written into its tensors where outputs[i] is set (same type
// and shape), else new values; on failure the caller gets none of the new ones.
OrtStatus* DeliverOutputs(std::vector<onnx_light::Value>& got,
                          const std::vector<std::string>& names, OrtValue** outputs);

// Each file's slots into the table.
void FillStatusAndEnvSlots(OrtApi& api);
void FillOptionsSlots(OrtApi& api);
void FillSessionSlots(OrtApi& api);
void FillValueSlots(OrtApi& api);
void FillTypeInfoSlots(OrtApi& api);
void FillBindingSlots(OrtApi& api);
void FillMetadataSlots(OrtApi& api);

// The edits the options ask for (free-dimension overrides, the program's initializers,
// external data in memory), then the rest of the external data from `base_dir`
// (model_edits.cc).
onnx_light::Status EditModel(const OrtSessionOptions& options, const std::string& base_dir,
                             onnx_light::onnx::ModelProto* model);

}  // namespace onnx_light_ort::c_api

// A slot body: exceptions become a status naming the function.
#define ONNX_LIGHT_ORT_TRY try {
#define ONNX_LIGHT_ORT_CATCH(function)                              \
  }                                                                 \
  catch (...) {                                                     \
    return ::onnx_light_ort::c_api::FromCurrentException(function); \
  }
// An argument that must not be null.
#define ONNX_LIGHT_ORT_ARG(function, arg)                                               \
  do {                                                                                  \
    if ((arg) == nullptr) return ::onnx_light_ort::c_api::NullArgument(function, #arg); \
  } while (0)
