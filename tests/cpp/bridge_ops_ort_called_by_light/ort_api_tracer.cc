// The OrtApi tracer: a proxy ORT custom-op library that loads the plugin named by
// ONNX_LIGHT_TRACE_TARGET, hands its RegisterCustomOps a copy of the host's OrtApi table
// whose every non-null slot counts its calls and jumps on to the host's function
// (ort_api_tracer_stubs.S), and does the same for the table the host passes to each
// kernel's CreateKernel/CreateKernelV2 (its descriptors are wrapped for that). Loaded as
// the plugin by onnx-light's host or by ONNX Runtime, it tells which API functions the
// plugin really calls under each (OnnxLightTraceCounts). A slot the host leaves null stays
// null in the copy: the plugin sees exactly the host's table.
//
// Test support only (tests/python/bridge_ops_ort_called_by_light/test_extensions_*.py);
// x86-64 (the stubs are assembly). Written against the pinned ORT C API header only.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "onnxruntime_c_api.h"

namespace {
constexpr size_t kSlots = 512;  // ort_api_tracer_stubs.S makes as many stubs
constexpr size_t kApiSlots = sizeof(OrtApi) / sizeof(void*);
static_assert(kApiSlots <= kSlots, "more OrtApi slots than stubs");
}  // namespace

extern "C" {
// Read and written by the stubs (hidden: reached PC-relative).
__attribute__((visibility("hidden"))) uint64_t onnx_light_trace_counts[kSlots];
__attribute__((visibility("hidden"))) const void* onnx_light_trace_real[kSlots];
__attribute__((visibility("hidden"))) extern const void* const onnx_light_trace_stubs[kSlots];
}

namespace {

using RegisterFn = OrtStatus*(ORT_API_CALL*)(OrtSessionOptions*, const OrtApiBase*);

std::mutex g_mu;
const OrtApiBase* g_host_base = nullptr;
const OrtApi* g_host_api = nullptr;
OrtApi g_proxy;

// A plugin descriptor wrapped so that its kernels get the traced table: every callback
// that takes the descriptor is called with the plugin's own (it may be a derived object).
struct Wrapped {
  OrtCustomOp op;  // first: the host sees &op
  const OrtCustomOp* orig;
};
const OrtCustomOp* Orig(const OrtCustomOp* op) {
  return reinterpret_cast<const Wrapped*>(op)->orig;
}

const char* ORT_API_CALL WGetName(const OrtCustomOp* op) {
  return Orig(op)->GetName(Orig(op));
}
const char* ORT_API_CALL WGetEp(const OrtCustomOp* op) {
  return Orig(op)->GetExecutionProviderType(Orig(op));
}
ONNXTensorElementDataType ORT_API_CALL WGetInputType(const OrtCustomOp* op, size_t i) {
  return Orig(op)->GetInputType(Orig(op), i);
}
size_t ORT_API_CALL WGetInputTypeCount(const OrtCustomOp* op) {
  return Orig(op)->GetInputTypeCount(Orig(op));
}
ONNXTensorElementDataType ORT_API_CALL WGetOutputType(const OrtCustomOp* op, size_t i) {
  return Orig(op)->GetOutputType(Orig(op), i);
}
size_t ORT_API_CALL WGetOutputTypeCount(const OrtCustomOp* op) {
  return Orig(op)->GetOutputTypeCount(Orig(op));
}
OrtCustomOpInputOutputCharacteristic ORT_API_CALL WGetInputChar(const OrtCustomOp* op, size_t i) {
  return Orig(op)->GetInputCharacteristic(Orig(op), i);
}
OrtCustomOpInputOutputCharacteristic ORT_API_CALL WGetOutputChar(const OrtCustomOp* op, size_t i) {
  return Orig(op)->GetOutputCharacteristic(Orig(op), i);
}
OrtMemType ORT_API_CALL WGetInputMem(const OrtCustomOp* op, size_t i) {
  return Orig(op)->GetInputMemoryType(Orig(op), i);
}
int ORT_API_CALL WInMinArity(const OrtCustomOp* op) {
  return Orig(op)->GetVariadicInputMinArity(Orig(op));
}
int ORT_API_CALL WInHomogeneity(const OrtCustomOp* op) {
  return Orig(op)->GetVariadicInputHomogeneity(Orig(op));
}
int ORT_API_CALL WOutMinArity(const OrtCustomOp* op) {
  return Orig(op)->GetVariadicOutputMinArity(Orig(op));
}
int ORT_API_CALL WOutHomogeneity(const OrtCustomOp* op) {
  return Orig(op)->GetVariadicOutputHomogeneity(Orig(op));
}
void* ORT_API_CALL WCreateKernel(const OrtCustomOp* op, const OrtApi*, const OrtKernelInfo* info) {
  return Orig(op)->CreateKernel(Orig(op), &g_proxy, info);
}
OrtStatusPtr ORT_API_CALL WCreateKernelV2(const OrtCustomOp* op, const OrtApi*,
                                          const OrtKernelInfo* info, void** kernel) {
  return Orig(op)->CreateKernelV2(Orig(op), &g_proxy, info, kernel);
}
OrtStatusPtr ORT_API_CALL WInferShape(const OrtCustomOp* op, OrtShapeInferContext* ctx) {
  return Orig(op)->InferOutputShapeFn(Orig(op), ctx);
}
int ORT_API_CALL WStart(const OrtCustomOp* op) {
  return Orig(op)->GetStartVersion(Orig(op));
}
int ORT_API_CALL WEnd(const OrtCustomOp* op) {
  return Orig(op)->GetEndVersion(Orig(op));
}

template <typename F>
void Set(F* slot, F orig, F wrapper) {
  *slot = orig != nullptr ? wrapper : nullptr;
}

// Every descriptor the plugin adds, wrapped (kept for the process: the host holds them).
OrtStatus* ORT_API_CALL TracedCustomOpDomainAdd(OrtCustomOpDomain* domain,
                                                const OrtCustomOp* op) NO_EXCEPTION {
  __atomic_add_fetch(&onnx_light_trace_counts[offsetof(OrtApi, CustomOpDomain_Add) / sizeof(void*)],
                     1, __ATOMIC_RELAXED);
  if (op == nullptr) return g_host_api->CustomOpDomain_Add(domain, op);
  auto* w = new Wrapped;
  std::memcpy(&w->op, op, sizeof(OrtCustomOp));  // a plugin built with this header
  w->orig = op;
  OrtCustomOp& o = w->op;
  Set(&o.GetName, op->GetName, &WGetName);
  Set(&o.GetExecutionProviderType, op->GetExecutionProviderType, &WGetEp);
  Set(&o.GetInputType, op->GetInputType, &WGetInputType);
  Set(&o.GetInputTypeCount, op->GetInputTypeCount, &WGetInputTypeCount);
  Set(&o.GetOutputType, op->GetOutputType, &WGetOutputType);
  Set(&o.GetOutputTypeCount, op->GetOutputTypeCount, &WGetOutputTypeCount);
  Set(&o.GetInputCharacteristic, op->GetInputCharacteristic, &WGetInputChar);
  Set(&o.GetOutputCharacteristic, op->GetOutputCharacteristic, &WGetOutputChar);
  Set(&o.GetInputMemoryType, op->GetInputMemoryType, &WGetInputMem);
  Set(&o.GetVariadicInputMinArity, op->GetVariadicInputMinArity, &WInMinArity);
  Set(&o.GetVariadicInputHomogeneity, op->GetVariadicInputHomogeneity, &WInHomogeneity);
  Set(&o.GetVariadicOutputMinArity, op->GetVariadicOutputMinArity, &WOutMinArity);
  Set(&o.GetVariadicOutputHomogeneity, op->GetVariadicOutputHomogeneity, &WOutHomogeneity);
  Set(&o.CreateKernel, op->CreateKernel, &WCreateKernel);
  Set(&o.CreateKernelV2, op->CreateKernelV2, &WCreateKernelV2);
  Set(&o.InferOutputShapeFn, op->InferOutputShapeFn, &WInferShape);
  Set(&o.GetStartVersion, op->GetStartVersion, &WStart);
  Set(&o.GetEndVersion, op->GetEndVersion, &WEnd);
  return g_host_api->CustomOpDomain_Add(domain, &o);
}

const OrtApi* ORT_API_CALL ProxyGetApi(uint32_t version) NO_EXCEPTION {
  const OrtApi* host = g_host_base->GetApi(version);
  if (host == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(g_mu);
  g_host_api = host;
  const auto* in = reinterpret_cast<const void* const*>(host);
  auto* out = reinterpret_cast<const void**>(&g_proxy);
  for (size_t i = 0; i < kApiSlots; ++i) {
    onnx_light_trace_real[i] = in[i];
    out[i] = in[i] != nullptr ? onnx_light_trace_stubs[i] : nullptr;
  }
  if (host->CustomOpDomain_Add != nullptr) g_proxy.CustomOpDomain_Add = &TracedCustomOpDomainAdd;
  return &g_proxy;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) OrtStatus* ORT_API_CALL
RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* api_base) {
  static OrtApiBase proxy_base;
  const char* target = std::getenv("ONNX_LIGHT_TRACE_TARGET");
  if (target == nullptr || api_base == nullptr) std::abort();  // a test-setup error
  void* lib = dlopen(target, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) std::abort();
  auto reg = reinterpret_cast<RegisterFn>(dlsym(lib, "RegisterCustomOps"));
  if (reg == nullptr) std::abort();
  g_host_base = api_base;
  proxy_base.GetApi = &ProxyGetApi;
  proxy_base.GetVersionString = api_base->GetVersionString;
  return reg(options, &proxy_base);
}

// Copies the call count of each OrtApi slot (up to n) into counts; returns the number of
// slots in the table (the pinned header's OrtApi).
extern "C" __attribute__((visibility("default"))) size_t OnnxLightTraceCounts(uint64_t* counts,
                                                                              size_t n) {
  for (size_t i = 0; i < n && i < kApiSlots; ++i)
    counts[i] = __atomic_load_n(&onnx_light_trace_counts[i], __ATOMIC_RELAXED);
  return kApiSlots;
}
