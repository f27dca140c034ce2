// Statuses, the environment, memory infos and the CPU allocator of ORT's C API.
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <system_error>

#include "onnx_light_ort/ort_c_api/objects.h"

namespace onnx_light_ort::c_api {

OrtStatus* Fail(OrtErrorCode code, std::string message) noexcept {
  try {
    return new OrtStatus{code, std::move(message)};
  } catch (...) {
    // Out of memory while reporting: a static status would be freed by ReleaseStatus,
    // so the best left is a status without a message.
    return new (std::nothrow) OrtStatus{code, std::string()};
  }
}

OrtStatus* NullArgument(const char* function, const char* argument) noexcept {
  return Fail(ORT_INVALID_ARGUMENT, std::string(function) + ": " + argument + " is null");
}

OrtStatus* FromCurrentException(const char* function) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return Fail(ORT_FAIL, std::string(function) + ": out of memory");
  } catch (const std::exception& e) {
    return Fail(ORT_RUNTIME_EXCEPTION, std::string(function) + ": " + e.what());
  } catch (...) {
    return Fail(ORT_RUNTIME_EXCEPTION, std::string(function) + ": unknown exception");
  }
}

OrtStatus* FromStatus(const onnx_light::Status& status, const char* function) noexcept {
  using onnx_light::StatusCode;
  if (status.ok()) return nullptr;
  OrtErrorCode code = ORT_FAIL;
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kTypeMismatch:
    case StatusCode::kOutOfRange:
    case StatusCode::kNotFound:
      code = ORT_INVALID_ARGUMENT;
      break;
    case StatusCode::kNotImplemented:
      code = ORT_NOT_IMPLEMENTED;
      break;
    case StatusCode::kInvalidModel:
      code = ORT_INVALID_GRAPH;
      break;
    case StatusCode::kIoError:
      code = ORT_NO_SUCHFILE;
      break;
    case StatusCode::kInternal:
      code = ORT_RUNTIME_EXCEPTION;
      break;
    default:
      code = ORT_FAIL;
  }
  try {
    return Fail(code, std::string(function) + ": " + status.message());
  } catch (...) {
    return Fail(code, std::string());
  }
}

namespace {

// --- Statuses ---------------------------------------------------------------------------

OrtStatus* ORT_API_CALL CreateStatus(OrtErrorCode code, const char* msg) noexcept {
  try {
    return new OrtStatus{code, msg != nullptr ? msg : ""};
  } catch (...) {
    return nullptr;
  }
}
OrtErrorCode ORT_API_CALL GetErrorCode(const OrtStatus* status) noexcept {
  return status != nullptr ? status->code : ORT_OK;
}
const char* ORT_API_CALL GetErrorMessage(const OrtStatus* status) noexcept {
  return status != nullptr ? status->message.c_str() : "";
}
void ORT_API_CALL ReleaseStatus(OrtStatus* status) noexcept {
  delete status;
}

// --- The environment --------------------------------------------------------------------

OrtStatus* NewEnv(OrtLoggingLevel level, const char* logid, OrtEnv** out, const char* fn) {
  ONNX_LIGHT_ORT_ARG(fn, out);
  *out = new OrtEnv;
  (*out)->level = level;
  (*out)->logid = logid != nullptr ? logid : "";
  return nullptr;
}
OrtStatus* ORT_API_CALL CreateEnv(OrtLoggingLevel level, const char* logid, OrtEnv** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  return NewEnv(level, logid, out, "CreateEnv");
  ONNX_LIGHT_ORT_CATCH("CreateEnv")
}
// onnx-light logs nothing through ORT's logger: the function is accepted and never called.
OrtStatus* ORT_API_CALL CreateEnvWithCustomLogger(OrtLoggingFunction, void*, OrtLoggingLevel level,
                                                  const char* logid, OrtEnv** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  return NewEnv(level, logid, out, "CreateEnvWithCustomLogger");
  ONNX_LIGHT_ORT_CATCH("CreateEnvWithCustomLogger")
}
OrtStatus* ORT_API_CALL CreateThreadingOptions(OrtThreadingOptions** out) noexcept {
  ONNX_LIGHT_ORT_ARG("CreateThreadingOptions", out);
  *out = new (std::nothrow) OrtThreadingOptions;
  return *out != nullptr ? nullptr : Fail(ORT_FAIL, "CreateThreadingOptions: out of memory");
}
void ORT_API_CALL ReleaseThreadingOptions(OrtThreadingOptions* options) noexcept {
  delete options;
}
OrtStatus* ORT_API_CALL SetGlobalIntraOpNumThreads(OrtThreadingOptions* options,
                                                   int threads) noexcept {
  ONNX_LIGHT_ORT_ARG("SetGlobalIntraOpNumThreads", options);
  if (threads < 0) return Fail(ORT_INVALID_ARGUMENT, "SetGlobalIntraOpNumThreads: negative count");
  options->intra_threads = threads;
  return nullptr;
}
OrtStatus* ORT_API_CALL SetGlobalInterOpNumThreads(OrtThreadingOptions* options,
                                                   int threads) noexcept {
  ONNX_LIGHT_ORT_ARG("SetGlobalInterOpNumThreads", options);
  if (threads < 0) return Fail(ORT_INVALID_ARGUMENT, "SetGlobalInterOpNumThreads: negative count");
  options->inter_threads = threads;
  return nullptr;
}
// Spinning and denormals: onnx-light's pools block when idle and its kernels flush
// denormals where it matters (simd/denormals.h); accepted, nothing to change.
OrtStatus* ORT_API_CALL SetGlobalSpinControl(OrtThreadingOptions* options, int) noexcept {
  ONNX_LIGHT_ORT_ARG("SetGlobalSpinControl", options);
  return nullptr;
}
OrtStatus* ORT_API_CALL SetGlobalDenormalAsZero(OrtThreadingOptions* options) noexcept {
  ONNX_LIGHT_ORT_ARG("SetGlobalDenormalAsZero", options);
  return nullptr;
}
OrtStatus* GlobalPools(OrtEnv* env, const OrtThreadingOptions* tp, const char* fn) {
  ONNX_LIGHT_ORT_ARG(fn, tp);
  env->global_pools = true;
  env->global_intra_threads = tp->intra_threads;
  return nullptr;
}
OrtStatus* ORT_API_CALL CreateEnvWithGlobalThreadPools(OrtLoggingLevel level, const char* logid,
                                                       const OrtThreadingOptions* tp,
                                                       OrtEnv** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "CreateEnvWithGlobalThreadPools";
  ONNX_LIGHT_ORT_ARG(fn, tp);
  if (OrtStatus* st = NewEnv(level, logid, out, fn)) return st;
  return GlobalPools(*out, tp, fn);
  ONNX_LIGHT_ORT_CATCH("CreateEnvWithGlobalThreadPools")
}
OrtStatus* ORT_API_CALL CreateEnvWithCustomLoggerAndGlobalThreadPools(OrtLoggingFunction, void*,
                                                                      OrtLoggingLevel level,
                                                                      const char* logid,
                                                                      const OrtThreadingOptions* tp,
                                                                      OrtEnv** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "CreateEnvWithCustomLoggerAndGlobalThreadPools";
  ONNX_LIGHT_ORT_ARG(fn, tp);
  if (OrtStatus* st = NewEnv(level, logid, out, fn)) return st;
  return GlobalPools(*out, tp, fn);
  ONNX_LIGHT_ORT_CATCH("CreateEnvWithCustomLoggerAndGlobalThreadPools")
}
void ORT_API_CALL ReleaseEnv(OrtEnv* env) noexcept {
  delete env;
}
OrtStatus* ORT_API_CALL EnableTelemetryEvents(const OrtEnv*) noexcept {
  return nullptr;  // onnx-light sends no telemetry
}
OrtStatus* ORT_API_CALL DisableTelemetryEvents(const OrtEnv*) noexcept {
  return nullptr;
}
OrtStatus* ORT_API_CALL SetLanguageProjection(const OrtEnv* env, OrtLanguageProjection) noexcept {
  ONNX_LIGHT_ORT_ARG("SetLanguageProjection", env);
  return nullptr;
}
OrtStatus* ORT_API_CALL UpdateEnvWithCustomLogLevel(OrtEnv* env, OrtLoggingLevel level) noexcept {
  ONNX_LIGHT_ORT_ARG("UpdateEnvWithCustomLogLevel", env);
  env->level = level;
  return nullptr;
}
const char* ORT_API_CALL GetBuildInfoString() noexcept {
  return "ORT Build Info: onnx-light (ORT C API 29 on the onnx-light runtime; CPU only)";
}
OrtStatus* ORT_API_CALL GetAvailableProviders(char*** out, int* length) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("GetAvailableProviders", out);
  ONNX_LIGHT_ORT_ARG("GetAvailableProviders", length);
  static const char kCpu[] = "CPUExecutionProvider";
  auto** list = new char*[1];
  list[0] = new char[sizeof(kCpu)];
  std::memcpy(list[0], kCpu, sizeof(kCpu));
  *out = list;
  *length = 1;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("GetAvailableProviders")
}
OrtStatus* ORT_API_CALL ReleaseAvailableProviders(char** list, int length) noexcept {
  if (list == nullptr) return nullptr;
  for (int i = 0; i < length; ++i)
    delete[] list[i];
  delete[] list;
  return nullptr;
}

// --- Memory infos -----------------------------------------------------------------------

OrtStatus* ORT_API_CALL CreateMemoryInfo(const char* name, OrtAllocatorType type, int id,
                                         OrtMemType mem_type, OrtMemoryInfo** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("CreateMemoryInfo", name);
  ONNX_LIGHT_ORT_ARG("CreateMemoryInfo", out);
  if (*name == '\0') return Fail(ORT_INVALID_ARGUMENT, "CreateMemoryInfo: the name is empty");
  // "Cpu" and the host-side pinned memories are CPU memory; any other name is a device's
  // (ORT's bindings describe every device they know at start-up: onnxruntime-node makes a
  // "WebGPU_Buf" info): recorded, and refused where data would have to be there.
  const std::string n = name;
  const bool cpu = n == "Cpu" || (n.size() > 6 && n.compare(n.size() - 6, 6, "Pinned") == 0);
  *out = new OrtMemoryInfo{n, id, type, mem_type,
                           cpu ? OrtMemoryInfoDeviceType_CPU : OrtMemoryInfoDeviceType_GPU};
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CreateMemoryInfo")
}
OrtStatus* ORT_API_CALL CreateCpuMemoryInfo(OrtAllocatorType type, OrtMemType mem_type,
                                            OrtMemoryInfo** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("CreateCpuMemoryInfo", out);
  *out = new OrtMemoryInfo{"Cpu", 0, type, mem_type, OrtMemoryInfoDeviceType_CPU};
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CreateCpuMemoryInfo")
}
void ORT_API_CALL ReleaseMemoryInfo(OrtMemoryInfo* info) noexcept {
  if (info != CpuMemoryInfo()) delete info;
}
OrtStatus* ORT_API_CALL CompareMemoryInfo(const OrtMemoryInfo* a, const OrtMemoryInfo* b,
                                          int* out) noexcept {
  ONNX_LIGHT_ORT_ARG("CompareMemoryInfo", a);
  ONNX_LIGHT_ORT_ARG("CompareMemoryInfo", b);
  ONNX_LIGHT_ORT_ARG("CompareMemoryInfo", out);
  // As ORT: equal when name, id, memory type and allocator type agree (0), else -1.
  *out = a->name == b->name && a->id == b->id && a->mem_type == b->mem_type && a->type == b->type
             ? 0
             : -1;
  return nullptr;
}
OrtStatus* ORT_API_CALL MemoryInfoGetName(const OrtMemoryInfo* info, const char** out) noexcept {
  ONNX_LIGHT_ORT_ARG("MemoryInfoGetName", info);
  ONNX_LIGHT_ORT_ARG("MemoryInfoGetName", out);
  *out = info->name.c_str();
  return nullptr;
}
OrtStatus* ORT_API_CALL MemoryInfoGetId(const OrtMemoryInfo* info, int* out) noexcept {
  ONNX_LIGHT_ORT_ARG("MemoryInfoGetId", info);
  ONNX_LIGHT_ORT_ARG("MemoryInfoGetId", out);
  *out = info->id;
  return nullptr;
}
OrtStatus* ORT_API_CALL MemoryInfoGetMemType(const OrtMemoryInfo* info, OrtMemType* out) noexcept {
  ONNX_LIGHT_ORT_ARG("MemoryInfoGetMemType", info);
  ONNX_LIGHT_ORT_ARG("MemoryInfoGetMemType", out);
  *out = info->mem_type;
  return nullptr;
}
OrtStatus* ORT_API_CALL MemoryInfoGetType(const OrtMemoryInfo* info,
                                          OrtAllocatorType* out) noexcept {
  ONNX_LIGHT_ORT_ARG("MemoryInfoGetType", info);
  ONNX_LIGHT_ORT_ARG("MemoryInfoGetType", out);
  *out = info->type;
  return nullptr;
}
void ORT_API_CALL MemoryInfoGetDeviceType(const OrtMemoryInfo* info,
                                          OrtMemoryInfoDeviceType* out) noexcept {
  if (out != nullptr) *out = info != nullptr ? info->device : OrtMemoryInfoDeviceType_CPU;
}

// --- The CPU allocator ------------------------------------------------------------------
// Clients free strings through the struct's own Free member (C++ and Node), not the
// AllocatorFree slot, so every member of the struct works.

void* ORT_API_CALL CpuAlloc(OrtAllocator*, size_t size) noexcept {
  return std::aligned_alloc(64, (std::max<size_t>(size, 1) + 63) / 64 * 64);
}
void ORT_API_CALL CpuFree(OrtAllocator*, void* p) noexcept {
  std::free(p);
}
const OrtMemoryInfo* ORT_API_CALL CpuInfo(const OrtAllocator*) noexcept {
  return CpuMemoryInfo();
}
OrtStatus* ORT_API_CALL CpuStats(const OrtAllocator*, OrtKeyValuePairs** out) noexcept {
  if (out != nullptr) *out = nullptr;
  return Fail(ORT_NOT_IMPLEMENTED, "OrtAllocator::GetStats is not supported by onnx-light");
}
void* ORT_API_CALL CpuAllocOnStream(OrtAllocator* self, size_t size, OrtSyncStream*) noexcept {
  return CpuAlloc(self, size);
}
OrtStatus* ORT_API_CALL CpuShrink(OrtAllocator*) noexcept {
  return nullptr;
}

OrtAllocator MakeCpuAllocator() {
  OrtAllocator a{};
  a.version = ORT_API_VERSION;
  a.Alloc = &CpuAlloc;
  a.Free = &CpuFree;
  a.Info = &CpuInfo;
  a.Reserve = &CpuAlloc;
  a.GetStats = &CpuStats;
  a.AllocOnStream = &CpuAllocOnStream;
  a.Shrink = &CpuShrink;
  return a;
}

OrtStatus* ORT_API_CALL AllocatorAlloc(OrtAllocator* allocator, size_t size, void** out) noexcept {
  ONNX_LIGHT_ORT_ARG("AllocatorAlloc", allocator);
  ONNX_LIGHT_ORT_ARG("AllocatorAlloc", out);
  *out = allocator->Alloc(allocator, size);
  if (*out == nullptr) return Fail(ORT_FAIL, "AllocatorAlloc: out of memory");
  return nullptr;
}
OrtStatus* ORT_API_CALL AllocatorFree(OrtAllocator* allocator, void* p) noexcept {
  ONNX_LIGHT_ORT_ARG("AllocatorFree", allocator);
  allocator->Free(allocator, p);
  return nullptr;
}
OrtStatus* ORT_API_CALL AllocatorGetInfo(const OrtAllocator* allocator,
                                         const OrtMemoryInfo** out) noexcept {
  ONNX_LIGHT_ORT_ARG("AllocatorGetInfo", allocator);
  ONNX_LIGHT_ORT_ARG("AllocatorGetInfo", out);
  *out = allocator->Info(allocator);
  return nullptr;
}
OrtStatus* ORT_API_CALL GetAllocatorWithDefaultOptions(OrtAllocator** out) noexcept {
  ONNX_LIGHT_ORT_ARG("GetAllocatorWithDefaultOptions", out);
  *out = DefaultAllocator();
  return nullptr;
}
// A session's allocator for a memory info: the CPU allocator (a new handle each time, as
// ORT hands out; released with ReleaseAllocator).
OrtStatus* ORT_API_CALL CreateAllocator(const OrtSession* session, const OrtMemoryInfo* info,
                                        OrtAllocator** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("CreateAllocator", session);
  ONNX_LIGHT_ORT_ARG("CreateAllocator", info);
  ONNX_LIGHT_ORT_ARG("CreateAllocator", out);
  if (!info->on_cpu()) {
    return Fail(ORT_INVALID_ARGUMENT, "CreateAllocator: no allocator for memory '" + info->name +
                                          "' (onnx-light has CPU memory only)");
  }
  *out = new OrtAllocator(MakeCpuAllocator());
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CreateAllocator")
}
void ORT_API_CALL ReleaseAllocator(OrtAllocator* allocator) noexcept {
  if (allocator != DefaultAllocator()) delete allocator;
}

// Shared allocators and arenas: onnx-light's buffers are its own; the calls are accepted
// (programs make them for ORT's arena tuning) and change nothing.
struct ArenaCfgToken {};
OrtStatus* ORT_API_CALL CreateArenaCfg(size_t, int, int, int, OrtArenaCfg** out) noexcept {
  ONNX_LIGHT_ORT_ARG("CreateArenaCfg", out);
  *out = reinterpret_cast<OrtArenaCfg*>(new (std::nothrow) ArenaCfgToken);
  return *out != nullptr ? nullptr : Fail(ORT_FAIL, "CreateArenaCfg: out of memory");
}
OrtStatus* ORT_API_CALL CreateArenaCfgV2(const char* const*, const size_t*, size_t,
                                         OrtArenaCfg** out) noexcept {
  return CreateArenaCfg(0, 0, 0, 0, out);
}
void ORT_API_CALL ReleaseArenaCfg(OrtArenaCfg* cfg) noexcept {
  delete reinterpret_cast<ArenaCfgToken*>(cfg);
}
OrtStatus* ORT_API_CALL CreateAndRegisterAllocator(OrtEnv* env, const OrtMemoryInfo* info,
                                                   const OrtArenaCfg*) noexcept {
  ONNX_LIGHT_ORT_ARG("CreateAndRegisterAllocator", env);
  ONNX_LIGHT_ORT_ARG("CreateAndRegisterAllocator", info);
  return nullptr;
}

OrtStatus* ORT_API_CALL UnregisterAllocator(OrtEnv* env, const OrtMemoryInfo* info) noexcept {
  ONNX_LIGHT_ORT_ARG("UnregisterAllocator", env);
  ONNX_LIGHT_ORT_ARG("UnregisterAllocator", info);
  return nullptr;  // CreateAndRegisterAllocator registered nothing to remove
}

}  // namespace

OrtAllocator* DefaultAllocator() noexcept {
  static OrtAllocator allocator = MakeCpuAllocator();
  return &allocator;
}
const OrtMemoryInfo* CpuMemoryInfo() noexcept {
  static const OrtMemoryInfo info{"Cpu", 0, OrtDeviceAllocator, OrtMemTypeDefault,
                                  OrtMemoryInfoDeviceType_CPU};
  return &info;
}
char* CopyString(OrtAllocator* allocator, const std::string& text) noexcept {
  auto* p = static_cast<char*>(allocator->Alloc(allocator, text.size() + 1));
  if (p != nullptr) std::memcpy(p, text.c_str(), text.size() + 1);
  return p;
}

void FillStatusAndEnvSlots(OrtApi& api) {
  api.CreateStatus = &CreateStatus;
  api.GetErrorCode = &GetErrorCode;
  api.GetErrorMessage = &GetErrorMessage;
  api.ReleaseStatus = &ReleaseStatus;
  api.CreateEnv = &CreateEnv;
  api.CreateEnvWithCustomLogger = &CreateEnvWithCustomLogger;
  api.ReleaseEnv = &ReleaseEnv;
  api.CreateThreadingOptions = &CreateThreadingOptions;
  api.ReleaseThreadingOptions = &ReleaseThreadingOptions;
  api.SetGlobalIntraOpNumThreads = &SetGlobalIntraOpNumThreads;
  api.SetGlobalInterOpNumThreads = &SetGlobalInterOpNumThreads;
  api.SetGlobalSpinControl = &SetGlobalSpinControl;
  api.SetGlobalDenormalAsZero = &SetGlobalDenormalAsZero;
  api.CreateEnvWithGlobalThreadPools = &CreateEnvWithGlobalThreadPools;
  api.CreateEnvWithCustomLoggerAndGlobalThreadPools =
      &CreateEnvWithCustomLoggerAndGlobalThreadPools;
  api.EnableTelemetryEvents = &EnableTelemetryEvents;
  api.DisableTelemetryEvents = &DisableTelemetryEvents;
  api.SetLanguageProjection = &SetLanguageProjection;
  api.UpdateEnvWithCustomLogLevel = &UpdateEnvWithCustomLogLevel;
  api.GetBuildInfoString = &GetBuildInfoString;
  api.GetAvailableProviders = &GetAvailableProviders;
  api.ReleaseAvailableProviders = &ReleaseAvailableProviders;
  api.CreateMemoryInfo = &CreateMemoryInfo;
  api.CreateCpuMemoryInfo = &CreateCpuMemoryInfo;
  api.ReleaseMemoryInfo = &ReleaseMemoryInfo;
  api.CompareMemoryInfo = &CompareMemoryInfo;
  api.MemoryInfoGetName = &MemoryInfoGetName;
  api.MemoryInfoGetId = &MemoryInfoGetId;
  api.MemoryInfoGetMemType = &MemoryInfoGetMemType;
  api.MemoryInfoGetType = &MemoryInfoGetType;
  api.MemoryInfoGetDeviceType = &MemoryInfoGetDeviceType;
  api.AllocatorAlloc = &AllocatorAlloc;
  api.AllocatorFree = &AllocatorFree;
  api.AllocatorGetInfo = &AllocatorGetInfo;
  api.GetAllocatorWithDefaultOptions = &GetAllocatorWithDefaultOptions;
  api.CreateAllocator = &CreateAllocator;
  api.ReleaseAllocator = &ReleaseAllocator;
  api.CreateArenaCfg = &CreateArenaCfg;
  api.CreateArenaCfgV2 = &CreateArenaCfgV2;
  api.ReleaseArenaCfg = &ReleaseArenaCfg;
  api.CreateAndRegisterAllocator = &CreateAndRegisterAllocator;
  api.UnregisterAllocator = &UnregisterAllocator;
}

}  // namespace onnx_light_ort::c_api
