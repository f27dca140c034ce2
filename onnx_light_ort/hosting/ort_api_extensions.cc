// The extensions profile's slots beyond the initial profile's
// (docs/custom_ops_ort_called_by_light.md): the functions onnxruntime-extensions' CPU ops call,
// found in its sources and checked by the tracer test: string tensors, CPU memory info, the kernel
// context's allocator, array attributes and SetDimensions. Each is noexcept, checks its pointers
// and reports errors as OrtStatus, with ORT's contracts (buffer sizes, element counts).
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "api_internal.h"
#include "ort_structs.h"

namespace onnx_light_ort::hosting {
namespace {

using onnx_light::DataType;
using onnx_light::Tensor;

OrtMemoryInfo g_cpu_memory{OrtDeviceAllocator, OrtMemTypeDefault};

// A string tensor's elements (null unless `value` holds a string tensor).
const std::string* Strings(const OrtValue* value) {
  if (value == nullptr || value->tensor == nullptr) return nullptr;
  return value->tensor->data<std::string>();
}
// Outputs are the runtime's own tensors, written through the value the plugin got from
// KernelContext_GetOutput.
std::string* MutableStrings(OrtValue* value) {
  if (value == nullptr || value->tensor == nullptr) return nullptr;
  return const_cast<Tensor*>(value->tensor)->mutable_data<std::string>();
}
size_t Count(const OrtValue* value) {
  return static_cast<size_t>(value->tensor->num_elements());
}

// --- string tensors ------------------------------------------------------------------------

OrtStatus* ORT_API_CALL FillStringTensor(OrtValue* value, const char* const* s,
                                         size_t s_len) NO_EXCEPTION {
  std::string* out = MutableStrings(value);
  if (out == nullptr) return Invalid("FillStringTensor: not a writable string tensor");
  if (s_len != Count(value)) {
    return Invalid("FillStringTensor: " + std::to_string(s_len) + " strings for a tensor of " +
                   std::to_string(Count(value)) + " elements");
  }
  if (s_len > 0 && s == nullptr) return Invalid("FillStringTensor: null strings");
  try {
    for (size_t i = 0; i < s_len; ++i)
      out[i] = s[i] != nullptr ? s[i] : "";
  } catch (...) {
    return MakeStatus(ORT_FAIL, "FillStringTensor: out of memory");
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL GetStringTensorDataLength(const OrtValue* value, size_t* len) NO_EXCEPTION {
  const std::string* in = Strings(value);
  if (in == nullptr || len == nullptr)
    return Invalid("GetStringTensorDataLength: not a string tensor");
  size_t total = 0;
  for (size_t i = 0, n = Count(value); i < n; ++i)
    total += in[i].size();
  *len = total;
  return nullptr;
}

// The strings back to back (no terminators) in s, and where each starts in offsets.
OrtStatus* ORT_API_CALL GetStringTensorContent(const OrtValue* value, void* s, size_t s_len,
                                               size_t* offsets, size_t offsets_len) NO_EXCEPTION {
  const std::string* in = Strings(value);
  if (in == nullptr) return Invalid("GetStringTensorContent: not a string tensor");
  const size_t n = Count(value);
  if (offsets_len != n) {
    return Invalid("GetStringTensorContent: offsets_len " + std::to_string(offsets_len) +
                   " differs from the " + std::to_string(n) + " elements");
  }
  size_t total = 0;
  for (size_t i = 0; i < n; ++i)
    total += in[i].size();
  if (s_len < total) return Invalid("GetStringTensorContent: the buffer is too small");
  if ((n > 0 && offsets == nullptr) || (total > 0 && s == nullptr)) {
    return Invalid("GetStringTensorContent: null buffer");
  }
  auto* dst = static_cast<char*>(s);
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    offsets[i] = at;
    std::memcpy(dst + at, in[i].data(), in[i].size());
    at += in[i].size();
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL GetStringTensorElementLength(const OrtValue* value, size_t index,
                                                     size_t* out) NO_EXCEPTION {
  const std::string* in = Strings(value);
  if (in == nullptr || out == nullptr)
    return Invalid("GetStringTensorElementLength: not a string tensor");
  if (index >= Count(value)) return Invalid("GetStringTensorElementLength: index out of range");
  *out = in[index].size();
  return nullptr;
}

OrtStatus* ORT_API_CALL GetStringTensorElement(const OrtValue* value, size_t s_len, size_t index,
                                               void* s) NO_EXCEPTION {
  const std::string* in = Strings(value);
  if (in == nullptr) return Invalid("GetStringTensorElement: not a string tensor");
  if (index >= Count(value)) return Invalid("GetStringTensorElement: index out of range");
  if (s_len < in[index].size()) return Invalid("GetStringTensorElement: the buffer is too small");
  if (!in[index].empty() && s == nullptr) return Invalid("GetStringTensorElement: null buffer");
  std::memcpy(s, in[index].data(), in[index].size());
  return nullptr;
}

OrtStatus* ORT_API_CALL FillStringTensorElement(OrtValue* value, const char* s,
                                                size_t index) NO_EXCEPTION {
  std::string* out = MutableStrings(value);
  if (out == nullptr) return Invalid("FillStringTensorElement: not a writable string tensor");
  if (index >= Count(value)) return Invalid("FillStringTensorElement: index out of range");
  try {
    out[index] = s != nullptr ? s : "";
  } catch (...) {
    return MakeStatus(ORT_FAIL, "FillStringTensorElement: out of memory");
  }
  return nullptr;
}

// --- shapes --------------------------------------------------------------------------------

OrtStatus* ORT_API_CALL SetDimensions(OrtTensorTypeAndShapeInfo* info, const int64_t* dims,
                                      size_t count) NO_EXCEPTION {
  if (info == nullptr || (count > 0 && dims == nullptr))
    return Invalid("SetDimensions: null argument");
  try {
    info->dims.assign(dims, dims + count);
  } catch (...) {
    return MakeStatus(ORT_FAIL, "SetDimensions: out of memory");
  }
  return nullptr;
}

// --- memory --------------------------------------------------------------------------------

OrtStatus* ORT_API_CALL CreateCpuMemoryInfo(OrtAllocatorType type, OrtMemType mem_type,
                                            OrtMemoryInfo** out) NO_EXCEPTION {
  if (out == nullptr) return Invalid("CreateCpuMemoryInfo: null output");
  *out = new (std::nothrow) OrtMemoryInfo{type, mem_type};
  return *out != nullptr ? nullptr : MakeStatus(ORT_FAIL, "CreateCpuMemoryInfo: out of memory");
}

OrtStatus* ORT_API_CALL MemoryInfoGetName(const OrtMemoryInfo* info,
                                          const char** out) NO_EXCEPTION {
  if (info == nullptr || out == nullptr) return Invalid("MemoryInfoGetName: null argument");
  *out = "Cpu";  // ORT's name of CPU memory
  return nullptr;
}

void ORT_API_CALL ReleaseMemoryInfo(OrtMemoryInfo* info) NO_EXCEPTION {
  if (info != &g_cpu_memory) delete info;  // GetTensorMemoryInfo's is not the caller's
}

OrtStatus* ORT_API_CALL GetTensorMemoryInfo(const OrtValue* value,
                                            const OrtMemoryInfo** out) NO_EXCEPTION {
  if (value == nullptr || value->tensor == nullptr || out == nullptr) {
    return Invalid("GetTensorMemoryInfo: null argument");
  }
  *out = &g_cpu_memory;  // every tensor here is in CPU memory
  return nullptr;
}

// The kernel context's allocator: aligned CPU memory.
void* ORT_API_CALL CpuAlloc(OrtAllocator*, size_t size) NO_EXCEPTION {
  const size_t aligned = (size + Tensor::kAlignment - 1) / Tensor::kAlignment * Tensor::kAlignment;
  return std::aligned_alloc(Tensor::kAlignment, aligned == 0 ? Tensor::kAlignment : aligned);
}
void ORT_API_CALL CpuFree(OrtAllocator*, void* p) NO_EXCEPTION {
  std::free(p);
}
const OrtMemoryInfo* ORT_API_CALL CpuInfo(const OrtAllocator*) NO_EXCEPTION {
  return &g_cpu_memory;
}
OrtAllocator MakeCpuAllocator() {
  OrtAllocator a;
  std::memset(&a, 0, sizeof(a));
  a.version = 18;
  a.Alloc = &CpuAlloc;
  a.Free = &CpuFree;
  a.Info = &CpuInfo;
  a.Reserve = &CpuAlloc;
  return a;
}
OrtAllocator g_cpu_allocator = MakeCpuAllocator();

OrtStatus* ORT_API_CALL KernelContext_GetAllocator(const OrtKernelContext* context,
                                                   const OrtMemoryInfo* info,
                                                   OrtAllocator** out) NO_EXCEPTION {
  if (context == nullptr || info == nullptr || out == nullptr) {
    return Invalid("KernelContext_GetAllocator: null argument");
  }
  *out = &g_cpu_allocator;
  return nullptr;
}

void ORT_API_CALL ReleaseAllocator(OrtAllocator*) NO_EXCEPTION {
  // The one allocator is the host's: nothing to release.
}

// --- array attributes ----------------------------------------------------------------------

// ORT's contract: a null buffer asks for the count; a buffer shorter than the count fails
// and reports it; else the values are copied.
template <typename T, typename Get>
OrtStatus* AttributeArray(const OrtKernelInfo* info, const char* name, T* out, size_t* size,
                          onnx_light::onnx::AttributeType type, const char* fn, Get get) noexcept {
  if (size == nullptr) return Invalid(std::string(fn) + ": null size");
  return WithAttribute(info, name, type, [&](const onnx_light::onnx::AttributeProto& a) {
    const auto& values = get(a);
    if (out == nullptr) {
      *size = values.size();
      return static_cast<OrtStatus*>(nullptr);
    }
    if (*size < values.size()) {
      *size = values.size();
      return Invalid(std::string(fn) + ": the buffer is too small");
    }
    for (size_t i = 0; i < values.size(); ++i)
      out[i] = values[i];
    *size = values.size();
    return static_cast<OrtStatus*>(nullptr);
  });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttributeArray_float(const OrtKernelInfo* info,
                                                          const char* name, float* out,
                                                          size_t* size) NO_EXCEPTION {
  return AttributeArray(
      info, name, out, size, onnx_light::onnx::AttributeType::kFloats,
      "KernelInfoGetAttributeArray_float",
      [](const onnx_light::onnx::AttributeProto& a) -> const auto& { return a.floats; });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttributeArray_int64(const OrtKernelInfo* info,
                                                          const char* name, int64_t* out,
                                                          size_t* size) NO_EXCEPTION {
  return AttributeArray(
      info, name, out, size, onnx_light::onnx::AttributeType::kInts,
      "KernelInfoGetAttributeArray_int64",
      [](const onnx_light::onnx::AttributeProto& a) -> const auto& { return a.ints; });
}

}  // namespace

void FillExtensionsApi(OrtApi* api) {
  api->FillStringTensor = &FillStringTensor;
  api->GetStringTensorDataLength = &GetStringTensorDataLength;
  api->GetStringTensorContent = &GetStringTensorContent;
  api->SetDimensions = &SetDimensions;
  api->CreateCpuMemoryInfo = &CreateCpuMemoryInfo;
  api->MemoryInfoGetName = &MemoryInfoGetName;
  api->ReleaseMemoryInfo = &ReleaseMemoryInfo;
  api->GetStringTensorElementLength = &GetStringTensorElementLength;
  api->GetStringTensorElement = &GetStringTensorElement;
  api->FillStringTensorElement = &FillStringTensorElement;
  api->ReleaseAllocator = &ReleaseAllocator;
  api->KernelInfoGetAttributeArray_float = &KernelInfoGetAttributeArray_float;
  api->KernelInfoGetAttributeArray_int64 = &KernelInfoGetAttributeArray_int64;
  api->GetTensorMemoryInfo = &GetTensorMemoryInfo;
  api->KernelContext_GetAllocator = &KernelContext_GetAllocator;
}

}  // namespace onnx_light_ort::hosting
