// ORT's C API table on onnx-light: OrtGetApiBase, GetApi(N), and a typed stub in every slot
// that no file fills. No client checks a slot for null (a null slot crashed each of the five
// traced, shared/design/ORT_C_API.md), so none is: a status-returning stub returns
// ORT_NOT_IMPLEMENTED naming its function, a void one does nothing, the others return zero
// (null from the sub-API getters: training, model editor, compile, EP, interop).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "cpu_provider_factory.h"
#include "onnx_light_ort/ort_c_api/objects.h"
#include "onnx_light_ort/ort_c_api/slots.h"

// The slots' types carry the header's warn_unused_result (ORT_MUST_USE_RESULT), which a
// template argument drops: nothing to warn about, the stubs' types match the slots'.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace onnx_light_ort::c_api {
namespace {

// One static name per slot (the stubs' template arguments), from the generated list.
#define ONNX_LIGHT_ORT_SLOT(index, name) constexpr char kSlotName_##name[] = #name;
#include "ort_api_slots.inc"
#undef ONNX_LIGHT_ORT_SLOT

template <typename R>
R NotSupported(const char* name) noexcept {
  if constexpr (std::is_same_v<R, OrtStatus*>) {
    return Fail(ORT_NOT_IMPLEMENTED, std::string(name) + " is not supported by onnx-light");
  } else if constexpr (!std::is_void_v<R>) {
    return R{};
  }
}

template <typename F>
struct Stub;
template <typename R, typename... A>
struct Stub<R (*)(A...) noexcept> {
  template <const char* kName>
  static R Fn(A...) noexcept {
    return NotSupported<R>(kName);
  }
};
template <typename R, typename... A>
struct Stub<R (*)(A...)> {
  template <const char* kName>
  static R Fn(A...) noexcept {
    return NotSupported<R>(kName);
  }
};

// Slot tracing for the tests (ONNX_LIGHT_ORT_TRACE=FILE in the environment when the table
// is first made): every slot, stubs too, goes through a trampoline that marks it used; the
// names of the slots used are appended to FILE when the library unloads (exit or dlclose).
// Tells which slots the client programs really call (tests/python/ort_c_api).
void (*g_real[ONNX_LIGHT_ORT_API_SLOTS])() = {};
std::atomic<bool> g_used[ONNX_LIGHT_ORT_API_SLOTS] = {};

template <size_t I, typename F>
struct Trace;
template <size_t I, typename R, typename... A>
struct Trace<I, R (*)(A...) noexcept> {
  static R Fn(A... a) noexcept {
    g_used[I].store(true, std::memory_order_relaxed);
    return reinterpret_cast<R (*)(A...) noexcept>(g_real[I])(a...);
  }
};
template <size_t I, typename R, typename... A>
struct Trace<I, R (*)(A...)> {
  static R Fn(A... a) {
    g_used[I].store(true, std::memory_order_relaxed);
    return reinterpret_cast<R (*)(A...)>(g_real[I])(a...);
  }
};

struct TraceWriter {
  std::string path;
  ~TraceWriter();
};
TraceWriter g_trace;

struct Table {
  OrtApi api{};
  bool stub[ONNX_LIGHT_ORT_API_SLOTS] = {};
  Table() {
    FillStatusAndEnvSlots(api);
    FillOptionsSlots(api);
    FillSessionSlots(api);
    FillValueSlots(api);
    FillTypeInfoSlots(api);
    FillBindingSlots(api);
    FillMetadataSlots(api);
#define ONNX_LIGHT_ORT_SLOT(index, name)                                                          \
  if (api.name == nullptr) {                                                                      \
    api.name = &Stub<std::remove_reference_t<decltype(api.name)>>::template Fn<kSlotName_##name>; \
    stub[index] = true;                                                                           \
  }
#include "ort_api_slots.inc"
#undef ONNX_LIGHT_ORT_SLOT
    const char* trace = std::getenv("ONNX_LIGHT_ORT_TRACE");
    if (trace == nullptr || *trace == '\0') return;
    g_trace.path = trace;
#define ONNX_LIGHT_ORT_SLOT(index, name)                  \
  g_real[index] = reinterpret_cast<void (*)()>(api.name); \
  api.name = &Trace<index, std::remove_reference_t<decltype(api.name)>>::Fn;
#include "ort_api_slots.inc"
#undef ONNX_LIGHT_ORT_SLOT
  }
};
static_assert(sizeof(OrtApi) == ONNX_LIGHT_ORT_API_SLOTS * sizeof(void (*)()),
              "OrtApi is one flat table of function pointers");

const char* const kSlotNames[] = {
#define ONNX_LIGHT_ORT_SLOT(index, name) #name,
#include "ort_api_slots.inc"
#undef ONNX_LIGHT_ORT_SLOT
};

TraceWriter::~TraceWriter() {
  if (path.empty()) return;
  if (FILE* f = std::fopen(path.c_str(), "a")) {
    for (size_t i = 0; i < ONNX_LIGHT_ORT_API_SLOTS; ++i) {
      if (g_used[i].load(std::memory_order_relaxed)) std::fprintf(f, "%s\n", kSlotNames[i]);
    }
    std::fclose(f);
  }
}

const Table& TheTable() {
  static const Table table;
  return table;
}

// The ORT release whose headers (ORT_API_VERSION) this table follows: clients parse it
// (Rust's `ort` refuses a minor version below the API it asks for).
constexpr const char* kVersion = "1.29.0";
static_assert(ORT_API_VERSION == 29, "kVersion names the release of the pinned headers");

const OrtApi* ORT_API_CALL GetApi(uint32_t version) noexcept {
  if (version >= 1 && version <= ORT_API_VERSION) return &TheTable().api;
  std::fprintf(stderr,
               "The requested API version [%u] is not available, only API versions [1, %d] are "
               "supported in this build (onnx-light). Current ORT Version is: %s\n",
               version, ORT_API_VERSION, kVersion);
  return nullptr;
}

const char* ORT_API_CALL GetVersionString() noexcept {
  return kVersion;
}

const OrtApiBase kApiBase = {&GetApi, &GetVersionString};

}  // namespace
}  // namespace onnx_light_ort::c_api

extern "C" {

__attribute__((visibility("default"))) const OrtApiBase* ORT_API_CALL OrtGetApiBase(void) noexcept {
  return &onnx_light_ort::c_api::kApiBase;
}

// ORT exports this for programs that append the CPU provider by name (the Java binding
// imports it). The CPU is onnx-light's only provider: nothing to do.
__attribute__((visibility("default"))) OrtStatus* ORT_API_CALL
OrtSessionOptionsAppendExecutionProvider_CPU(OrtSessionOptions* options, int use_arena) noexcept {
  // (The header declares the arguments non-null: no check here.)
  (void)options;
  (void)use_arena;
  return nullptr;
}

// For the tests and the docs: the table's size, each slot's name, and whether onnx-light
// implements it (0) or it is a stub (1); -1 past the end.
__attribute__((visibility("default"))) size_t OnnxLightOrtApiSlotCount(void) {
  return ONNX_LIGHT_ORT_API_SLOTS;
}
__attribute__((visibility("default"))) const char* OnnxLightOrtApiSlotName(size_t index) {
  return index < ONNX_LIGHT_ORT_API_SLOTS ? onnx_light_ort::c_api::kSlotNames[index] : nullptr;
}
__attribute__((visibility("default"))) int OnnxLightOrtApiSlotIsStub(size_t index) {
  if (index >= ONNX_LIGHT_ORT_API_SLOTS) return -1;
  return onnx_light_ort::c_api::TheTable().stub[index] ? 1 : 0;
}

}  // extern "C"
