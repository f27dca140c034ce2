// Sessions of ORT's C API: creation from a file or bytes, inputs and outputs, metadata,
// profiling, and Run (outputs allocated, or written into the caller's tensors).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <unordered_map>

#include "onnx_light_ort/ort_c_api/objects.h"

namespace onnx_light_ort::c_api {
namespace {

using onnx_light::RuntimeSession;
using onnx_light::Status;
using onnx_light::StatusCode;
namespace onnx = onnx_light::onnx;

// The session options as the runtime takes them, with ORT's profiling prefix.
onnx_light::SessionOptions RuntimeOptions(const OrtSessionOptions* options) {
  onnx_light::SessionOptions o;
  if (options != nullptr) {
    o = options->options;
    o.enable_profiling = options->profiling;
  } else {
    o.intra_op_threads = 0;
  }
  return o;
}

OrtStatus* Finish(onnx_light::Result<std::unique_ptr<RuntimeSession>> made,
                  const OrtSessionOptions* options, OrtSession** out, const char* fn) {
  if (!made.ok()) {
    // ORT's codes for what never became a session: a missing file, a malformed model.
    const Status& st = made.status();
    OrtErrorCode code = st.code() == StatusCode::kIoError || st.code() == StatusCode::kNotFound
                            ? ORT_NO_SUCHFILE
                        : st.code() == StatusCode::kInvalidModel ? ORT_INVALID_PROTOBUF
                                                                 : ORT_FAIL;
    if (st.code() == StatusCode::kNotImplemented) {
      // An op with no kernel at all is one ORT has no schema for either (ORT has a kernel
      // for nearly every ONNX op): ORT calls that an invalid graph. An op whose kernels do
      // not take these types is ORT's "could not find an implementation": NOT_IMPLEMENTED.
      code = st.message().find("No kernel is registered for this op") != std::string::npos
                 ? ORT_INVALID_GRAPH
                 : ORT_NOT_IMPLEMENTED;
    }
    return Fail(code, std::string(fn) + ": " + st.message());
  }
  auto session = std::make_unique<OrtSession>();
  session->session = std::move(*made);
  const onnx::ModelProto& m = session->session->model();
  const onnx::GraphProto& g = m.graph.get();
  for (const onnx_light::ValueMeta& v : session->session->inputs()) {
    bool initializer = false;
    for (const onnx::TensorProto& t : g.initializer) {
      if (t.name.get() == v.name) {
        initializer = true;
        break;
      }
    }
    (initializer ? session->overridables : session->inputs).push_back(v);
  }
  session->outputs = session->session->outputs();
  OrtModelMetadata& md = session->metadata;
  md.producer = m.producer_name.get();
  md.graph_name = g.name.get();
  md.domain = m.domain.get();
  md.description = m.doc_string.get();
  md.graph_description = g.doc_string.get();
  md.version = m.model_version.get();
  for (const onnx::StringStringEntryProto& e : m.metadata_props)
    md.custom.emplace_back(e.key.get(), e.value.get());
  if (options != nullptr && options->profiling) {
    session->profiling = true;
    // ORT's name: PREFIX_YYYY-MM-DD_hh-mm-ss_mmm.json (local time, milliseconds).
    const auto now = std::chrono::system_clock::now();
    session->profiling_start_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count());
    const std::time_t secs = std::chrono::system_clock::to_time_t(now);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000;
    std::tm tm{};
    localtime_r(&secs, &tm);
    char stamp[48];
    std::strftime(stamp, sizeof(stamp), "%Y-%m-%d_%H-%M-%S", &tm);
    char millis[8];
    std::snprintf(millis, sizeof(millis), "_%03d", static_cast<int>(ms));
    session->profile_path = options->profile_prefix + "_" + stamp + millis + ".json";
  }
  *out = session.release();
  return nullptr;
}

// The model edited as the options say (model_edits.cc), then the session.
onnx_light::Result<std::unique_ptr<RuntimeSession>> Make(onnx_light::Result<onnx::ModelProto> model,
                                                         const OrtSessionOptions& options,
                                                         onnx_light::SessionOptions runtime,
                                                         const std::string& base_dir) {
  if (!model.ok()) return model.status();
  ONNX_LIGHT_RETURN_IF_ERROR(EditModel(options, base_dir, &*model));
  return RuntimeSession::Create(std::move(*model), std::move(runtime));
}

std::string FolderOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// The runtime's options for a session of `env`: a session without threads of its own
// takes the env's global count (CreateEnvWithGlobalThreadPools), as ORT's would its pool.
OrtStatus* SessionOptionsFor(const OrtEnv* env, const OrtSessionOptions* options,
                             onnx_light::SessionOptions* out, const char* fn) {
  *out = RuntimeOptions(options);
  if (options != nullptr && !options->per_session_threads) {
    if (!env->global_pools) {
      return Fail(ORT_FAIL,
                  std::string(fn) +
                      ": When the session is not configured to use per session threadpools, the "
                      "env must be created with the the CreateEnvWithGlobalThreadPools API.");
    }
    out->intra_op_threads = env->global_intra_threads;
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateSession(const OrtEnv* env, const ORTCHAR_T* path,
                                      const OrtSessionOptions* options, OrtSession** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "CreateSession";
  ONNX_LIGHT_ORT_ARG(fn, env);
  ONNX_LIGHT_ORT_ARG(fn, path);
  ONNX_LIGHT_ORT_ARG(fn, out);
  *out = nullptr;
  onnx_light::SessionOptions o;
  if (OrtStatus* st = SessionOptionsFor(env, options, &o, fn)) return st;
  if (options != nullptr && options->edits_model()) {
    onnx_light::onnx::LoadOptions load = o.load;
    if (options->edits_external_data()) load.load_external_data = false;
    return Finish(Make(onnx::LoadModel(path, load), *options, std::move(o), FolderOf(path)),
                  options, out, fn);
  }
  return Finish(RuntimeSession::CreateFromFile(path, std::move(o)), options, out, fn);
  ONNX_LIGHT_ORT_CATCH("CreateSession")
}
OrtStatus* ORT_API_CALL CreateSessionFromArray(const OrtEnv* env, const void* data, size_t size,
                                               const OrtSessionOptions* options,
                                               OrtSession** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "CreateSessionFromArray";
  ONNX_LIGHT_ORT_ARG(fn, env);
  ONNX_LIGHT_ORT_ARG(fn, data);
  ONNX_LIGHT_ORT_ARG(fn, out);
  *out = nullptr;
  onnx_light::SessionOptions o;
  if (OrtStatus* st = SessionOptionsFor(env, options, &o, fn)) return st;
  if (options != nullptr && options->edits_model()) {
    auto model = onnx::LoadModelFromBytes(data, size, o.load.parse);
    return Finish(Make(std::move(model), *options, std::move(o), "."), options, out, fn);
  }
  return Finish(RuntimeSession::CreateFromBytes(data, size, std::move(o)), options, out, fn);
  ONNX_LIGHT_ORT_CATCH("CreateSessionFromArray")
}
void ORT_API_CALL ReleaseSession(OrtSession* session) noexcept {
  if (session != nullptr && session->profiling && session->session->profiler() != nullptr) {
    try {
      (void)session->session->profiler()->WriteChromeTrace(session->profile_path);
    } catch (...) {
    }
  }
  delete session;
}

// --- Inputs and outputs -----------------------------------------------------------------

enum class Io { kInput, kOutput, kOverridable };
const std::vector<onnx_light::ValueMeta>& List(const OrtSession* s, Io io) {
  return io == Io::kInput ? s->inputs : io == Io::kOutput ? s->outputs : s->overridables;
}
OrtStatus* Count(const OrtSession* s, Io io, size_t* out, const char* fn) {
  ONNX_LIGHT_ORT_ARG(fn, s);
  ONNX_LIGHT_ORT_ARG(fn, out);
  *out = List(s, io).size();
  return nullptr;
}
OrtStatus* At(const OrtSession* s, Io io, size_t index, const onnx_light::ValueMeta** meta,
              const char* fn) {
  ONNX_LIGHT_ORT_ARG(fn, s);
  const auto& list = List(s, io);
  if (index >= list.size()) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": index " + std::to_string(index) +
                                          " is out of range (the model has " +
                                          std::to_string(list.size()) + ")");
  }
  *meta = &list[index];
  return nullptr;
}
OrtStatus* Name(const OrtSession* s, Io io, size_t index, OrtAllocator* allocator, char** out,
                const char* fn) {
  ONNX_LIGHT_ORT_ARG(fn, allocator);
  ONNX_LIGHT_ORT_ARG(fn, out);
  const onnx_light::ValueMeta* meta = nullptr;
  if (OrtStatus* st = At(s, io, index, &meta, fn)) return st;
  *out = CopyString(allocator, meta->name);
  return *out != nullptr ? nullptr : Fail(ORT_FAIL, std::string(fn) + ": out of memory");
}
OrtStatus* TypeInfo(const OrtSession* s, Io io, size_t index, OrtTypeInfo** out, const char* fn) {
  ONNX_LIGHT_ORT_ARG(fn, out);
  const onnx_light::ValueMeta* meta = nullptr;
  if (OrtStatus* st = At(s, io, index, &meta, fn)) return st;
  *out = TypeInfoOf(*meta).release();
  return nullptr;
}

#define ONNX_LIGHT_ORT_IO_SLOTS(Kind, IoKind)                                                    \
  OrtStatus* ORT_API_CALL SessionGet##Kind##Count(const OrtSession* s, size_t* out) noexcept {   \
    return Count(s, IoKind, out, "SessionGet" #Kind "Count");                                    \
  }                                                                                              \
  OrtStatus* ORT_API_CALL SessionGet##Kind##Name(const OrtSession* s, size_t i, OrtAllocator* a, \
                                                 char** out) noexcept {                          \
    ONNX_LIGHT_ORT_TRY                                                                           \
    return Name(s, IoKind, i, a, out, "SessionGet" #Kind "Name");                                \
    ONNX_LIGHT_ORT_CATCH("SessionGet" #Kind "Name")                                              \
  }                                                                                              \
  OrtStatus* ORT_API_CALL SessionGet##Kind##TypeInfo(const OrtSession* s, size_t i,              \
                                                     OrtTypeInfo** out) noexcept {               \
    ONNX_LIGHT_ORT_TRY                                                                           \
    return TypeInfo(s, IoKind, i, out, "SessionGet" #Kind "TypeInfo");                           \
    ONNX_LIGHT_ORT_CATCH("SessionGet" #Kind "TypeInfo")                                          \
  }
ONNX_LIGHT_ORT_IO_SLOTS(Input, Io::kInput)
ONNX_LIGHT_ORT_IO_SLOTS(Output, Io::kOutput)
ONNX_LIGHT_ORT_IO_SLOTS(OverridableInitializer, Io::kOverridable)
#undef ONNX_LIGHT_ORT_IO_SLOTS

OrtStatus* MemoryInfos(const OrtSession* s, const OrtMemoryInfo** out, size_t n, Io io,
                       const char* fn) {
  ONNX_LIGHT_ORT_ARG(fn, s);
  ONNX_LIGHT_ORT_ARG(fn, out);
  if (n != List(s, io).size()) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": the session has " +
                                          std::to_string(List(s, io).size()) + ", not " +
                                          std::to_string(n));
  }
  for (size_t i = 0; i < n; ++i)
    out[i] = CpuMemoryInfo();
  return nullptr;
}
OrtStatus* ORT_API_CALL SessionGetMemoryInfoForInputs(const OrtSession* s,
                                                      const OrtMemoryInfo** out,
                                                      size_t n) noexcept {
  return MemoryInfos(s, out, n, Io::kInput, "SessionGetMemoryInfoForInputs");
}
OrtStatus* ORT_API_CALL SessionGetMemoryInfoForOutputs(const OrtSession* s,
                                                       const OrtMemoryInfo** out,
                                                       size_t n) noexcept {
  return MemoryInfos(s, out, n, Io::kOutput, "SessionGetMemoryInfoForOutputs");
}

// --- Run --------------------------------------------------------------------------------

// Copies a computed output into the caller's preallocated tensor (same type and shape).
OrtStatus* WriteInto(const onnx_light::Value& got, OrtValue* into, const std::string& name) {
  const onnx_light::Tensor* src = got.tensor_or_null();
  onnx_light::Tensor* dst = into->value.is_container() ? nullptr : &into->value.tensor;
  if (src == nullptr || dst == nullptr || !dst->is_defined()) {
    return Fail(ORT_INVALID_ARGUMENT,
                "Run: output '" + name + "' was given a preallocated value that is not a tensor");
  }
  if (src->dtype() != dst->dtype() || src->shape() != dst->shape()) {
    return Fail(ORT_INVALID_ARGUMENT,
                "Run: output '" + name + "' is " + onnx_light::DataTypeName(src->dtype()) +
                    src->shape().ToString() + ", the preallocated tensor is " +
                    onnx_light::DataTypeName(dst->dtype()) + dst->shape().ToString());
  }
  if (src->dtype() == onnx_light::DataType::kString) {
    const auto* from = src->data<std::string>();
    auto* to = dst->mutable_data<std::string>();
    if (to == nullptr) return Fail(ORT_INVALID_ARGUMENT, "Run: output '" + name + "' is read-only");
    std::copy(from, from + src->num_elements(), to);
    return nullptr;
  }
  void* to = dst->mutable_raw_data();
  if (to == nullptr) return Fail(ORT_INVALID_ARGUMENT, "Run: output '" + name + "' is read-only");
  if (src->byte_size() != 0) std::memcpy(to, src->raw_data(), src->byte_size());
  return nullptr;
}

// An output handed to the caller: tensors that view memory the session owns (an
// initializer passed through) are copied, so the caller may write into any output.
OrtStatus* NewOutput(onnx_light::Value v, OrtValue** out) {
  if (!v.is_container() && v.tensor.is_defined() && v.tensor.is_read_only()) {
    auto copy = v.tensor.Clone();
    if (!copy.ok()) return FromStatus(copy.status(), "Run");
    v.tensor = std::move(*copy);
  }
  *out = new OrtValue{std::move(v)};
  return nullptr;
}

}  // namespace

OrtStatus* ParseRun(const char* const* input_names, const OrtValue* const* inputs, size_t input_len,
                    const char* const* output_names, size_t output_len, OrtValue** outputs,
                    std::vector<onnx_light::NamedValue>* feeds, std::vector<std::string>* names,
                    const char* fn) {
  if (input_len != 0) {
    ONNX_LIGHT_ORT_ARG(fn, input_names);
    ONNX_LIGHT_ORT_ARG(fn, inputs);
  }
  if (output_len == 0) {
    return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": at least one output must be requested");
  }
  ONNX_LIGHT_ORT_ARG(fn, output_names);
  ONNX_LIGHT_ORT_ARG(fn, outputs);
  feeds->reserve(input_len);
  for (size_t i = 0; i < input_len; ++i) {
    if (input_names[i] == nullptr || inputs[i] == nullptr) {
      return Fail(ORT_INVALID_ARGUMENT, std::string(fn) + ": input " + std::to_string(i) +
                                            " has a null " +
                                            (input_names[i] == nullptr ? "name" : "value"));
    }
    feeds->emplace_back(input_names[i], inputs[i]->value);
  }
  names->reserve(output_len);
  for (size_t i = 0; i < output_len; ++i) {
    if (output_names[i] == nullptr) {
      return Fail(ORT_INVALID_ARGUMENT,
                  std::string(fn) + ": output name " + std::to_string(i) + " is null");
    }
    names->emplace_back(output_names[i]);
  }
  return nullptr;
}

OrtStatus* RunSession(OrtSession* s, const OrtRunOptions* run_options,
                      const std::vector<onnx_light::NamedValue>& feeds,
                      const std::vector<std::string>& names, std::vector<onnx_light::Value>* got,
                      const char* fn) {
  // A required input not fed: ORT 1.29 gets as far as the first kernel that reads it and
  // fails there with ORT_FAIL ("Missing Input: x"); the same code and words, before running.
  for (const onnx_light::ValueMeta& in : s->inputs) {
    if (in.is_optional()) continue;
    bool fed = false;
    for (size_t i = 0; i < feeds.size() && !fed; ++i)
      fed = in.name == feeds[i].first;
    if (!fed) return Fail(ORT_FAIL, std::string(fn) + ": Missing Input: " + in.name);
  }
  auto result =
      s->session->RunValues(feeds, names, run_options != nullptr ? &run_options->options : nullptr);
  if (!result.ok()) {
    const Status& st = result.status();
    if (st.code() == StatusCode::kCancelled) {
      return Fail(ORT_FAIL, "Exiting due to terminate flag being set to true.");
    }
    return FromStatus(st, fn);
  }
  *got = std::move(*result);
  return nullptr;
}

OrtStatus* DeliverOutputs(std::vector<onnx_light::Value>& got,
                          const std::vector<std::string>& names, OrtValue** outputs) {
  // Preallocated outputs first: nothing is handed out when one of them does not fit.
  for (size_t i = 0; i < names.size(); ++i) {
    if (outputs[i] != nullptr) {
      if (OrtStatus* st = WriteInto(got[i], outputs[i], names[i])) return st;
    }
  }
  std::vector<size_t> made;
  for (size_t i = 0; i < names.size(); ++i) {
    if (outputs[i] != nullptr) continue;
    if (OrtStatus* st = NewOutput(std::move(got[i]), &outputs[i])) {
      for (size_t j : made) {  // the caller gets none of this call's outputs
        delete outputs[j];
        outputs[j] = nullptr;
      }
      return st;
    }
    made.push_back(i);
  }
  return nullptr;
}

namespace {

OrtStatus* RunImpl(OrtSession* s, const OrtRunOptions* run_options, const char* const* input_names,
                   const OrtValue* const* inputs, size_t input_len, const char* const* output_names,
                   size_t output_len, OrtValue** outputs) {
  ONNX_LIGHT_ORT_ARG("Run", s);
  std::vector<onnx_light::NamedValue> feeds;
  std::vector<std::string> names;
  if (OrtStatus* st = ParseRun(input_names, inputs, input_len, output_names, output_len, outputs,
                               &feeds, &names, "Run")) {
    return st;
  }
  std::vector<onnx_light::Value> got;
  if (OrtStatus* st = RunSession(s, run_options, feeds, names, &got, "Run")) return st;
  return DeliverOutputs(got, names, outputs);
}

OrtStatus* ORT_API_CALL Run(OrtSession* s, const OrtRunOptions* run_options,
                            const char* const* input_names, const OrtValue* const* inputs,
                            size_t input_len, const char* const* output_names, size_t output_len,
                            OrtValue** outputs) noexcept {
  ONNX_LIGHT_ORT_TRY
  return RunImpl(s, run_options, input_names, inputs, input_len, output_names, output_len, outputs);
  ONNX_LIGHT_ORT_CATCH("Run")
}

// --- Profiling --------------------------------------------------------------------------

OrtStatus* ORT_API_CALL SessionEndProfiling(OrtSession* s, OrtAllocator* allocator,
                                            char** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("SessionEndProfiling", s);
  ONNX_LIGHT_ORT_ARG("SessionEndProfiling", allocator);
  ONNX_LIGHT_ORT_ARG("SessionEndProfiling", out);
  std::string path;
  if (s->profiling && s->session->profiler() != nullptr) {
    if (OrtStatus* st = FromStatus(s->session->profiler()->WriteChromeTrace(s->profile_path),
                                   "SessionEndProfiling")) {
      return st;
    }
    path = s->profile_path;
    s->profiling = false;
  }
  *out = CopyString(allocator, path);  // "" when profiling was off, as ORT
  return *out != nullptr ? nullptr : Fail(ORT_FAIL, "SessionEndProfiling: out of memory");
  ONNX_LIGHT_ORT_CATCH("SessionEndProfiling")
}
OrtStatus* ORT_API_CALL SessionGetProfilingStartTimeNs(const OrtSession* s,
                                                       uint64_t* out) noexcept {
  ONNX_LIGHT_ORT_ARG("SessionGetProfilingStartTimeNs", s);
  ONNX_LIGHT_ORT_ARG("SessionGetProfilingStartTimeNs", out);
  *out = s->profiling_start_ns;
  return nullptr;
}

}  // namespace

void FillSessionSlots(OrtApi& api) {
  api.CreateSession = &CreateSession;
  api.CreateSessionFromArray = &CreateSessionFromArray;
  api.ReleaseSession = &ReleaseSession;
  api.Run = &Run;
  api.SessionGetInputCount = &SessionGetInputCount;
  api.SessionGetOutputCount = &SessionGetOutputCount;
  api.SessionGetOverridableInitializerCount = &SessionGetOverridableInitializerCount;
  api.SessionGetInputName = &SessionGetInputName;
  api.SessionGetOutputName = &SessionGetOutputName;
  api.SessionGetOverridableInitializerName = &SessionGetOverridableInitializerName;
  api.SessionGetInputTypeInfo = &SessionGetInputTypeInfo;
  api.SessionGetOutputTypeInfo = &SessionGetOutputTypeInfo;
  api.SessionGetOverridableInitializerTypeInfo = &SessionGetOverridableInitializerTypeInfo;
  api.SessionGetMemoryInfoForInputs = &SessionGetMemoryInfoForInputs;
  api.SessionGetMemoryInfoForOutputs = &SessionGetMemoryInfoForOutputs;
  api.SessionEndProfiling = &SessionEndProfiling;
  api.SessionGetProfilingStartTimeNs = &SessionGetProfilingStartTimeNs;
}

}  // namespace onnx_light_ort::c_api
