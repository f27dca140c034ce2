// onnx-light's kernels as an ONNX Runtime custom-op library: onnx_light::LeakyRelu and
// onnx_light_cpu::Log, each in float16, bfloat16, float and double, computed by the same
// Highway SIMD code the runtime uses. Load it into ONNX Runtime with
// SessionOptions.register_custom_ops_library, or into onnx-light's own host
// (onnx_light_ort.CustomOpSession): the descriptors (version 18, V2 callbacks,
// GetInputMemoryType set) satisfy both. It exports RegisterCustomOps only, depends on the
// pinned ORT headers only, and never links ONNX Runtime.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "onnxruntime_c_api.h"
#include "simd/elementwise_simd.h"

namespace onnx_light_plugin {
namespace {

constexpr uint32_t kApiVersion = 18;
constexpr float kDefaultAlpha = 0.01f;  // ONNX LeakyRelu's default

enum class Op { kLeakyRelu, kLog };

struct Descriptor {
  OrtCustomOp op;  // first member: callbacks get this pointer back
  Op kind;
  ONNXTensorElementDataType type;
};

const Descriptor& Desc(const OrtCustomOp* op) {
  return *reinterpret_cast<const Descriptor*>(op);
}

struct Kernel {
  const OrtApi* api;
  Op kind;
  ONNXTensorElementDataType type;
  float alpha;
};

// `alpha` is read once, here. Absent: the default. Present with another type: an error
// (told apart from "absent" by probing the other getters of the API-18 subset).
OrtStatus* ORT_API_CALL CreateKernel(const OrtCustomOp* op, const OrtApi* api,
                                     const OrtKernelInfo* info, void** kernel) {
  *kernel = nullptr;
  const Descriptor& d = Desc(op);
  float alpha = kDefaultAlpha;
  if (d.kind == Op::kLeakyRelu) {
    if (OrtStatus* s = api->KernelInfoGetAttribute_float(info, "alpha", &alpha)) {
      api->ReleaseStatus(s);
      alpha = kDefaultAlpha;
      int64_t as_int = 0;
      size_t length = 0;
      OrtStatus* int_probe = api->KernelInfoGetAttribute_int64(info, "alpha", &as_int);
      OrtStatus* str_probe = api->KernelInfoGetAttribute_string(info, "alpha", nullptr, &length);
      const bool wrong_type = int_probe == nullptr || str_probe == nullptr;
      if (int_probe) api->ReleaseStatus(int_probe);
      if (str_probe) api->ReleaseStatus(str_probe);
      if (wrong_type) {
        return api->CreateStatus(ORT_INVALID_ARGUMENT,
                                 "onnx_light::LeakyRelu: attribute 'alpha' must be a float");
      }
    }
  }
  auto* k = new (std::nothrow) Kernel{api, d.kind, d.type, alpha};
  if (k == nullptr) return api->CreateStatus(ORT_FAIL, "onnx-light plugin: out of memory");
  *kernel = k;
  return nullptr;
}

#define RETURN_IF_STATUS(expr)              \
  do {                                      \
    OrtStatus* status_ = (expr);            \
    if (status_ != nullptr) return status_; \
  } while (0)

OrtStatus* ORT_API_CALL Compute(void* kernel, OrtKernelContext* context) {
  const auto* k = static_cast<const Kernel*>(kernel);
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
  if (type != k->type) {
    return api->CreateStatus(ORT_INVALID_ARGUMENT, "onnx-light plugin: unexpected input type");
  }
  OrtValue* output = nullptr;
  RETURN_IF_STATUS(api->KernelContext_GetOutput(context, 0, dims.data(), rank, &output));
  if (count == 0) return nullptr;
  void* x = nullptr;
  void* y = nullptr;
  RETURN_IF_STATUS(api->GetTensorMutableData(const_cast<OrtValue*>(input), &x));
  RETURN_IF_STATUS(api->GetTensorMutableData(output, &y));
  namespace kn = onnx_light::kernels;
  const bool leaky = k->kind == Op::kLeakyRelu;
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      leaky
          ? kn::LeakyReluF32(static_cast<const float*>(x), static_cast<float*>(y), count, k->alpha)
          : kn::LogF32(static_cast<const float*>(x), static_cast<float*>(y), count);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      leaky ? kn::LeakyReluF64(static_cast<const double*>(x), static_cast<double*>(y), count,
                               k->alpha)
            : kn::LogF64(static_cast<const double*>(x), static_cast<double*>(y), count);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
      leaky ? kn::LeakyReluF16(static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y), count,
                               k->alpha)
            : kn::LogF16(static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y), count);
      break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
      leaky ? kn::LeakyReluBF16(static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y), count,
                                k->alpha)
            : kn::LogBF16(static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y), count);
      break;
    default:
      return api->CreateStatus(ORT_INVALID_ARGUMENT, "onnx-light plugin: unsupported type");
  }
  return nullptr;
}

void ORT_API_CALL Destroy(void* kernel) {
  delete static_cast<Kernel*>(kernel);
}

const char* ORT_API_CALL GetName(const OrtCustomOp* op) {
  return Desc(op).kind == Op::kLeakyRelu ? "LeakyRelu" : "Log";
}
const char* ORT_API_CALL GetExecutionProviderType(const OrtCustomOp*) {
  return "CPUExecutionProvider";
}
ONNXTensorElementDataType ORT_API_CALL GetType(const OrtCustomOp* op, size_t) {
  return Desc(op).type;
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

Descriptor Make(Op kind, ONNXTensorElementDataType type) {
  Descriptor d{};
  OrtCustomOp& op = d.op;
  op.version = 18;  // >= 16 for V2-only ops in ORT; exactly 18 for onnx-light's host
  op.GetName = &GetName;
  op.GetExecutionProviderType = &GetExecutionProviderType;
  op.GetInputType = &GetType;
  op.GetInputTypeCount = &GetOne;
  op.GetOutputType = &GetType;
  op.GetOutputTypeCount = &GetOne;
  op.KernelDestroy = &Destroy;
  op.GetInputCharacteristic = &GetRequired;
  op.GetOutputCharacteristic = &GetRequired;
  op.GetInputMemoryType = &GetInputMemoryType;  // ORT calls it for version > 12
  op.GetVariadicInputMinArity = &GetMinArity;
  op.GetVariadicInputHomogeneity = &GetHomogeneity;
  op.GetVariadicOutputMinArity = &GetMinArity;
  op.GetVariadicOutputHomogeneity = &GetHomogeneity;
  op.CreateKernelV2 = &CreateKernel;
  op.KernelComputeV2 = &Compute;
  op.GetStartVersion = &GetStartVersion;
  op.GetEndVersion = &GetEndVersion;
  d.kind = kind;
  d.type = type;
  return d;
}

constexpr ONNXTensorElementDataType kTypes[] = {
    ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE};

const std::vector<Descriptor>& Descriptors(Op kind) {
  static const std::vector<Descriptor> leaky = [] {
    std::vector<Descriptor> v;
    for (auto t : kTypes)
      v.push_back(Make(Op::kLeakyRelu, t));
    return v;
  }();
  static const std::vector<Descriptor> log = [] {
    std::vector<Descriptor> v;
    for (auto t : kTypes)
      v.push_back(Make(Op::kLog, t));
    return v;
  }();
  return kind == Op::kLeakyRelu ? leaky : log;
}

// Domains live until the library is unloaded; each is released through the API that
// created it (a process may load the library into ORT and into onnx-light's host).
struct Domains {
  std::mutex mu;
  std::vector<std::pair<const OrtApi*, OrtCustomOpDomain*>> list;
  ~Domains() {
    for (auto& entry : list)
      entry.first->ReleaseCustomOpDomain(entry.second);
  }
};
Domains g_domains;

OrtStatus* AddDomain(OrtSessionOptions* options, const OrtApi* api, const char* name, Op kind) {
  OrtCustomOpDomain* domain = nullptr;
  if (OrtStatus* s = api->CreateCustomOpDomain(name, &domain)) return s;
  {
    std::lock_guard<std::mutex> lock(g_domains.mu);
    g_domains.list.push_back(std::make_pair(api, domain));
  }
  for (const Descriptor& d : Descriptors(kind)) {
    if (OrtStatus* s = api->CustomOpDomain_Add(domain, &d.op)) return s;
  }
  return api->AddCustomOpDomain(options, domain);
}

}  // namespace
}  // namespace onnx_light_plugin

extern "C" __attribute__((visibility("default"))) OrtStatus* ORT_API_CALL
RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* api_base);

OrtStatus* ORT_API_CALL RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* api_base) {
  using onnx_light_plugin::Op;
  const OrtApi* api = api_base->GetApi(onnx_light_plugin::kApiVersion);
  if (api == nullptr) return nullptr;  // the runtime offers no API 18
  if (OrtStatus* s = onnx_light_plugin::AddDomain(options, api, "onnx_light", Op::kLeakyRelu)) {
    return s;
  }
  return onnx_light_plugin::AddDomain(options, api, "onnx_light_cpu", Op::kLog);
}
