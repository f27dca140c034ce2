// ort_custom_ops::LeakyRelu: an ONNX Runtime custom-op plugin written only against the
// pinned ORT C API header, with its own numerics, float32 only. It does not link
// onnx-light: it loads unchanged into real ONNX Runtime
// (SessionOptions.register_custom_ops_library) and into onnx-light's standalone host.
//
// It uses the audited API-18 subset only: GetApi(18), the custom-op domain calls, the
// kernel-info attribute getter, the kernel-context input/output calls and the tensor
// type-and-shape calls. The descriptor is version 18 with V2 callbacks (ORT needs version
// >= 16 for V2-only ops) and sets GetInputMemoryType (ORT calls it for version > 12).
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "onnxruntime_c_api.h"

#ifndef ORT_CUSTOM_OPS_API_VERSION
#define ORT_CUSTOM_OPS_API_VERSION 18  // a test build asks for another one
#endif

namespace ort_custom_ops {
namespace {

constexpr uint32_t kApiVersion = ORT_CUSTOM_OPS_API_VERSION;
constexpr float kDefaultAlpha = 0.01f;  // ONNX LeakyRelu's default

struct LeakyReluKernel {
  const OrtApi* api;
  float alpha;
};

// Returns early with the status of an API call that failed.
#define RETURN_IF_STATUS(expr)              \
  do {                                      \
    OrtStatus* status_ = (expr);            \
    if (status_ != nullptr) return status_; \
  } while (0)

OrtStatus* ORT_API_CALL CreateKernel(const OrtCustomOp*, const OrtApi* api,
                                     const OrtKernelInfo* info, void** kernel) {
  *kernel = nullptr;
  float alpha = kDefaultAlpha;
  if (OrtStatus* s = api->KernelInfoGetAttribute_float(info, "alpha", &alpha)) {
    api->ReleaseStatus(s);  // no "alpha": the ONNX default
    alpha = kDefaultAlpha;
  }
  auto* k = new (std::nothrow) LeakyReluKernel{api, alpha};
  if (k == nullptr) return api->CreateStatus(ORT_FAIL, "ort_custom_ops::LeakyRelu: out of memory");
  *kernel = k;
  return nullptr;
}

OrtStatus* ORT_API_CALL Compute(void* kernel, OrtKernelContext* context) {
  const auto* k = static_cast<const LeakyReluKernel*>(kernel);
  const OrtApi* api = k->api;
  const OrtValue* input = nullptr;
  RETURN_IF_STATUS(api->KernelContext_GetInput(context, 0, &input));
  OrtTensorTypeAndShapeInfo* info = nullptr;
  RETURN_IF_STATUS(api->GetTensorTypeAndShape(input, &info));
  size_t rank = 0;
  size_t count = 0;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  OrtStatus* s = api->GetDimensionsCount(info, &rank);
  std::vector<int64_t> dims(rank);
  if (s == nullptr) s = api->GetDimensions(info, dims.data(), rank);
  if (s == nullptr) s = api->GetTensorShapeElementCount(info, &count);
  if (s == nullptr) s = api->GetTensorElementType(info, &type);
  api->ReleaseTensorTypeAndShapeInfo(info);
  if (s != nullptr) return s;
  if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
    return api->CreateStatus(ORT_INVALID_ARGUMENT, "ort_custom_ops::LeakyRelu: float32 only");
  }
  OrtValue* output = nullptr;
  RETURN_IF_STATUS(api->KernelContext_GetOutput(context, 0, dims.data(), rank, &output));
  void* x = nullptr;
  void* y = nullptr;
  RETURN_IF_STATUS(api->GetTensorMutableData(const_cast<OrtValue*>(input), &x));
  RETURN_IF_STATUS(api->GetTensorMutableData(output, &y));
  const float* in = static_cast<const float*>(x);
  float* out = static_cast<float*>(y);
  const float alpha = k->alpha;
  for (size_t i = 0; i < count; ++i)
    out[i] = in[i] < 0.0f ? in[i] * alpha : in[i];
  return nullptr;
}

void ORT_API_CALL Destroy(void* kernel) {
  delete static_cast<LeakyReluKernel*>(kernel);
}

const char* ORT_API_CALL GetName(const OrtCustomOp*) {
  return "LeakyRelu";
}
const char* ORT_API_CALL GetExecutionProviderType(const OrtCustomOp*) {
  return "CPUExecutionProvider";
}
ONNXTensorElementDataType ORT_API_CALL GetType(const OrtCustomOp*, size_t) {
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}
size_t ORT_API_CALL GetOne(const OrtCustomOp*) {
  return 1;
}
OrtCustomOpInputOutputCharacteristic ORT_API_CALL GetRequired(const OrtCustomOp*, size_t) {
  return INPUT_OUTPUT_REQUIRED;
}
OrtMemType ORT_API_CALL GetInputMemoryType(const OrtCustomOp*, size_t) {
  return OrtMemTypeDefault;
}
int ORT_API_CALL GetMinArity(const OrtCustomOp*) {
  return 1;
}
int ORT_API_CALL GetHomogeneity(const OrtCustomOp*) {
  return 1;
}
int ORT_API_CALL GetStartVersion(const OrtCustomOp*) {
  return 1;
}
int ORT_API_CALL GetEndVersion(const OrtCustomOp*) {
  return INT_MAX;
}

OrtCustomOp MakeLeakyRelu() {
  OrtCustomOp op{};
  op.version = 18;
  op.GetName = &GetName;
  op.GetExecutionProviderType = &GetExecutionProviderType;
  op.GetInputType = &GetType;
  op.GetInputTypeCount = &GetOne;
  op.GetOutputType = &GetType;
  op.GetOutputTypeCount = &GetOne;
  op.KernelDestroy = &Destroy;
  op.GetInputCharacteristic = &GetRequired;
  op.GetOutputCharacteristic = &GetRequired;
  op.GetInputMemoryType = &GetInputMemoryType;
  op.GetVariadicInputMinArity = &GetMinArity;
  op.GetVariadicInputHomogeneity = &GetHomogeneity;
  op.GetVariadicOutputMinArity = &GetMinArity;
  op.GetVariadicOutputHomogeneity = &GetHomogeneity;
  op.CreateKernelV2 = &CreateKernel;
  op.KernelComputeV2 = &Compute;
  op.GetStartVersion = &GetStartVersion;
  op.GetEndVersion = &GetEndVersion;
  return op;
}

const OrtCustomOp kLeakyRelu = MakeLeakyRelu();

// Domains live until the library is unloaded (the runtimes that loaded it must be done
// with them by then). Each registration makes its own, and each is released through the
// API that created it: one process may load the library into two runtimes.
struct Domains {
  std::mutex mu;
  std::vector<std::pair<const OrtApi*, OrtCustomOpDomain*>> list;
  ~Domains() {
    for (auto& entry : list)
      entry.first->ReleaseCustomOpDomain(entry.second);
  }
};
Domains g_domains;

}  // namespace
}  // namespace ort_custom_ops

// The entry point both runtimes look up.
extern "C" __attribute__((visibility("default"))) OrtStatus* ORT_API_CALL
RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* api_base);

OrtStatus* ORT_API_CALL RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* api_base) {
  using ort_custom_ops::g_domains;
  const OrtApi* api = api_base->GetApi(ort_custom_ops::kApiVersion);
  if (api == nullptr) return nullptr;  // the host reports the refused version
  OrtCustomOpDomain* domain = nullptr;
  if (OrtStatus* s = api->CreateCustomOpDomain("ort_custom_ops", &domain)) return s;
  {
    std::lock_guard<std::mutex> lock(g_domains.mu);
    g_domains.list.push_back(std::make_pair(api, domain));
  }
  if (OrtStatus* s = api->CustomOpDomain_Add(domain, &ort_custom_ops::kLeakyRelu)) return s;
  return api->AddCustomOpDomain(options, domain);
}
