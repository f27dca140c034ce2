// Test plugins for the host, one source built once per variant (TEST_PLUGIN_VARIANT):
// a good plugin with several ops, and one plugin per registration rule the host enforces.
// Written against the pinned ORT C API header only, like a real plugin.
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "onnxruntime_c_api.h"

#define V_GOOD 0
#define V_NULL_DESCRIPTOR 1
#define V_CUDA 2
#define V_INT64 3
#define V_MISMATCHED_TYPES 4
#define V_UNDEFINED_TYPE 5
#define V_DUPLICATE 6
#define V_OPTIONAL_INPUT 7
#define V_VARIADIC_INPUT 8
#define V_ALIAS_MAP 9
#define V_MAY_INPLACE 10
#define V_SHAPE_INFERENCE 11
#define V_VERSION_17 12
#define V_NO_CREATE_V2 13
#define V_TWO_INPUTS 14
#define V_NON_CPU_MEMORY 15
#define V_FOREIGN_STATUS 16
#define V_NO_OPS 17
#define V_BAD_OPSET_RANGE 18
#define V_DOMAIN_TWICE 19

#ifndef TEST_PLUGIN_VARIANT
#error "define TEST_PLUGIN_VARIANT"
#endif

namespace {

const OrtApi* g_api = nullptr;

// Appends a line to $ONNX_LIGHT_TEST_PLUGIN_LOG (if set): lets tests see the order of
// kernel creation, destruction and library unload.
void Log(const char* what) {
  const char* path = std::getenv("ONNX_LIGHT_TEST_PLUGIN_LOG");
  if (path == nullptr) return;
  if (std::FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", what);
    std::fclose(f);
  }
}

struct UnloadLogger {
  ~UnloadLogger() { Log("unload"); }
} g_unload_logger;

// kWritesInput: y = x, then negates x in place (the API hands out a mutable input).
// kBadOutput: asks the host for an output its limits refuse, by attribute "case":
// 0 a negative dimension, 1 more than 64 MiB, 2 rank 17.
enum class Kind { kDouble, kCounter, kNeedsScale, kFailCompute, kWritesInput, kBadOutput };

struct Kernel {
  Kind kind;
  ONNXTensorElementDataType type;
  int64_t calls = 0;
  int64_t scale = 1;
};

struct OpSpec {
  OrtCustomOp op;  // first member: the host hands us back this pointer
  const char* name;
  Kind kind;
  ONNXTensorElementDataType type;
};

const OpSpec* Spec(const OrtCustomOp* op) {
  return reinterpret_cast<const OpSpec*>(op);
}

float ToFloat(ONNXTensorElementDataType t, const void* p, size_t i) {
  uint32_t bits = 0;
  float f;
  switch (t) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      return static_cast<const float*>(p)[i];
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      return static_cast<float>(static_cast<const double*>(p)[i]);
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
      bits = static_cast<uint32_t>(static_cast<const uint16_t*>(p)[i]) << 16;
      std::memcpy(&f, &bits, 4);
      return f;
    default: {  // float16, exact for the small integers the tests use
      const uint16_t h = static_cast<const uint16_t*>(p)[i];
      const int e = (h >> 10) & 31;
      const int m = h & 1023;
      const float v = e == 0 ? m / 16777216.0f : (1024 + m) * std::ldexp(1.0f, e - 25);
      return (h & 0x8000) ? -v : v;
    }
  }
}

void FromFloat(ONNXTensorElementDataType t, void* p, size_t i, float v) {
  uint32_t bits;
  switch (t) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      static_cast<float*>(p)[i] = v;
      return;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      static_cast<double*>(p)[i] = v;
      return;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
      std::memcpy(&bits, &v, 4);
      static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(bits >> 16);  // exact for the tests
      return;
    default: {  // float16 of small integers and halves
      if (v == 0) {
        static_cast<uint16_t*>(p)[i] = 0;
        return;
      }
      const uint16_t sign = v < 0 ? 0x8000 : 0;
      float a = v < 0 ? -v : v;
      int e = 0;
      const float mant = std::frexp(a, &e);  // a = mant * 2^e, mant in [0.5, 1)
      const int biased = e - 1 + 15;
      const int m = static_cast<int>((mant * 2 - 1) * 1024 + 0.5f);
      static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(sign | (biased << 10) | m);
    }
  }
}

OrtStatus* ORT_API_CALL CreateKernel(const OrtCustomOp* op, const OrtApi* api,
                                     const OrtKernelInfo* info, void** kernel) {
  const OpSpec* spec = Spec(op);
  auto* k = new (std::nothrow) Kernel{spec->kind, spec->type};
  if (k == nullptr) return api->CreateStatus(ORT_FAIL, "out of memory");
  if (spec->kind == Kind::kNeedsScale || spec->kind == Kind::kBadOutput) {
    const char* name = spec->kind == Kind::kNeedsScale ? "scale" : "case";
    if (OrtStatus* s = api->KernelInfoGetAttribute_int64(info, name, &k->scale)) {
      delete k;
      return s;  // the host's own message: no attribute named 'scale'
    }
  }
  Log(spec->kind == Kind::kCounter ? "create Counter" : "create");
  *kernel = k;
  return nullptr;
}

OrtStatus* ORT_API_CALL Compute(void* kernel, OrtKernelContext* context) {
  auto* k = static_cast<Kernel*>(kernel);
  const OrtApi* api = g_api;
  if (k->kind == Kind::kFailCompute) {
    return api->CreateStatus(ORT_RUNTIME_EXCEPTION, "deliberate failure in FailCompute");
  }
  if (k->kind == Kind::kBadOutput) {
    static const int64_t kNegative[] = {2, -3};
    static const int64_t kHuge[] = {(16 << 20) + 1};  // floats: 64 MiB + 4 bytes
    static const int64_t kRank17[17] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    OrtValue* out = nullptr;
    switch (k->scale) {
      case 0:
        return api->KernelContext_GetOutput(context, 0, kNegative, 2, &out);
      case 1:
        return api->KernelContext_GetOutput(context, 0, kHuge, 1, &out);
      case 3: {  // the same output twice: same shape (the same value), then another
        static const int64_t kTwo[] = {2}, kThree[] = {3};
        OrtValue* again = nullptr;
        if (OrtStatus* s = api->KernelContext_GetOutput(context, 0, kTwo, 1, &out)) return s;
        if (OrtStatus* s = api->KernelContext_GetOutput(context, 0, kTwo, 1, &again)) return s;
        if (again != out) return api->CreateStatus(ORT_FAIL, "a second value for one output");
        return api->KernelContext_GetOutput(context, 0, kThree, 1, &again);
      }
      default:
        return api->KernelContext_GetOutput(context, 0, kRank17, 17, &out);
    }
  }
  const OrtValue* in = nullptr;
  if (OrtStatus* s = api->KernelContext_GetInput(context, 0, &in)) return s;
  OrtTensorTypeAndShapeInfo* info = nullptr;
  if (OrtStatus* s = api->GetTensorTypeAndShape(in, &info)) return s;
  size_t rank = 0, count = 0;
  api->GetDimensionsCount(info, &rank);
  std::vector<int64_t> dims(rank);
  api->GetDimensions(info, dims.data(), rank);
  api->GetTensorShapeElementCount(info, &count);
  api->ReleaseTensorTypeAndShapeInfo(info);
  OrtValue* out = nullptr;
  if (OrtStatus* s = api->KernelContext_GetOutput(context, 0, dims.data(), rank, &out)) return s;
  void* x = nullptr;
  void* y = nullptr;
  api->GetTensorMutableData(const_cast<OrtValue*>(in), &x);
  api->GetTensorMutableData(out, &y);
  for (size_t i = 0; i < count; ++i) {
    const float v = ToFloat(k->type, x, i);
    float r = 0;
    switch (k->kind) {
      case Kind::kDouble:
        r = 2 * v;
        break;
      case Kind::kCounter:
        r = v + static_cast<float>(k->calls);
        break;
      case Kind::kNeedsScale:
        r = v * static_cast<float>(k->scale);
        break;
      case Kind::kWritesInput:
        r = v;
        FromFloat(k->type, x, i, -v);
        break;
      default:
        break;
    }
    FromFloat(k->type, y, i, r);
  }
  ++k->calls;
  return nullptr;
}

void ORT_API_CALL Destroy(void* kernel) {
  auto* k = static_cast<Kernel*>(kernel);
  Log(k->kind == Kind::kCounter ? "destroy Counter" : "destroy");
  delete k;
}

const char* ORT_API_CALL GetName(const OrtCustomOp* op) {
  return Spec(op)->name;
}
const char* ORT_API_CALL GetCpu(const OrtCustomOp*) {
  return "CPUExecutionProvider";
}
const char* ORT_API_CALL GetCuda(const OrtCustomOp*) {
  return "CUDAExecutionProvider";
}
ONNXTensorElementDataType ORT_API_CALL GetType(const OrtCustomOp* op, size_t) {
  return Spec(op)->type;
}
ONNXTensorElementDataType ORT_API_CALL GetDoubleType(const OrtCustomOp*, size_t) {
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE;
}
size_t ORT_API_CALL One(const OrtCustomOp*) {
  return 1;
}
size_t ORT_API_CALL Two(const OrtCustomOp*) {
  return 2;
}
OrtCustomOpInputOutputCharacteristic ORT_API_CALL Required(const OrtCustomOp*, size_t) {
  return INPUT_OUTPUT_REQUIRED;
}
OrtCustomOpInputOutputCharacteristic ORT_API_CALL Optional(const OrtCustomOp*, size_t) {
  return INPUT_OUTPUT_OPTIONAL;
}
OrtCustomOpInputOutputCharacteristic ORT_API_CALL Variadic(const OrtCustomOp*, size_t) {
  return INPUT_OUTPUT_VARIADIC;
}
OrtMemType ORT_API_CALL DefaultMemory(const OrtCustomOp*, size_t) {
  return OrtMemTypeDefault;
}
OrtMemType ORT_API_CALL CpuInputMemory(const OrtCustomOp*, size_t) {
  return OrtMemTypeCPUInput;
}
int ORT_API_CALL BadStartVersion(const OrtCustomOp*) {
  return 3;
}
int ORT_API_CALL StartVersion(const OrtCustomOp*) {
  return 1;
}
int ORT_API_CALL EndVersion(const OrtCustomOp*) {
  return 1;
}
size_t ORT_API_CALL MapFn(int** a, int** b) {
  *a = *b = nullptr;
  return 0;
}
void ORT_API_CALL ReleaseMapFn(int*, int*) {}
OrtStatus* ORT_API_CALL InferShape(const OrtCustomOp*, OrtShapeInferContext*) {
  return nullptr;
}

OpSpec MakeOp(const char* name, Kind kind, ONNXTensorElementDataType type) {
  OpSpec s{};
  OrtCustomOp& op = s.op;
  op.version = 18;
  op.GetName = &GetName;
  op.GetExecutionProviderType = &GetCpu;
  op.GetInputType = &GetType;
  op.GetInputTypeCount = &One;
  op.GetOutputType = &GetType;
  op.GetOutputTypeCount = &One;
  op.KernelDestroy = &Destroy;
  op.GetInputCharacteristic = &Required;
  op.GetOutputCharacteristic = &Required;
  op.GetInputMemoryType = &DefaultMemory;
  op.CreateKernelV2 = &CreateKernel;
  op.KernelComputeV2 = &Compute;
  op.GetStartVersion = &StartVersion;
  op.GetEndVersion = &EndVersion;
  s.name = name;
  s.kind = kind;
  s.type = type;
  return s;
}

std::vector<OpSpec>& Ops() {
  static std::vector<OpSpec> ops = [] {
    std::vector<OpSpec> v;
    v.push_back(MakeOp("Double", Kind::kDouble, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16));
    v.push_back(MakeOp("Double", Kind::kDouble, ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16));
    v.push_back(MakeOp("Double", Kind::kDouble, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT));
    v.push_back(MakeOp("Double", Kind::kDouble, ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE));
    v.push_back(MakeOp("Counter", Kind::kCounter, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT));
    v.push_back(MakeOp("NeedsScale", Kind::kNeedsScale, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT));
    v.push_back(MakeOp("FailCompute", Kind::kFailCompute, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT));
    v.push_back(MakeOp("WritesInput", Kind::kWritesInput, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT));
    v.push_back(MakeOp("BadOutput", Kind::kBadOutput, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT));
    OrtCustomOp& bad = v[2].op;  // the defect under test goes on Double(float)
    (void)bad;
#if TEST_PLUGIN_VARIANT == V_CUDA
    bad.GetExecutionProviderType = &GetCuda;
#elif TEST_PLUGIN_VARIANT == V_INT64
    v[2].type = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
#elif TEST_PLUGIN_VARIANT == V_MISMATCHED_TYPES
    bad.GetOutputType = &GetDoubleType;
#elif TEST_PLUGIN_VARIANT == V_UNDEFINED_TYPE
    v[2].type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
#elif TEST_PLUGIN_VARIANT == V_OPTIONAL_INPUT
    bad.GetInputCharacteristic = &Optional;
#elif TEST_PLUGIN_VARIANT == V_VARIADIC_INPUT
    bad.GetInputCharacteristic = &Variadic;
#elif TEST_PLUGIN_VARIANT == V_ALIAS_MAP
    bad.GetAliasMap = &MapFn;
    bad.ReleaseAliasMap = &ReleaseMapFn;
#elif TEST_PLUGIN_VARIANT == V_MAY_INPLACE
    bad.GetMayInplace = &MapFn;
    bad.ReleaseMayInplace = &ReleaseMapFn;
#elif TEST_PLUGIN_VARIANT == V_SHAPE_INFERENCE
    bad.InferOutputShapeFn = &InferShape;
#elif TEST_PLUGIN_VARIANT == V_VERSION_17
    bad.version = 17;
#elif TEST_PLUGIN_VARIANT == V_NO_CREATE_V2
    bad.CreateKernelV2 = nullptr;
#elif TEST_PLUGIN_VARIANT == V_TWO_INPUTS
    bad.GetInputTypeCount = &Two;
#elif TEST_PLUGIN_VARIANT == V_NON_CPU_MEMORY
    bad.GetInputMemoryType = &CpuInputMemory;
#elif TEST_PLUGIN_VARIANT == V_BAD_OPSET_RANGE
    bad.GetStartVersion = &BadStartVersion;  // 3..1: ends before it starts
#endif
    return v;
  }();
  return ops;
}

struct Domains {
  std::vector<OrtCustomOpDomain*> list;
  ~Domains() {
    for (OrtCustomOpDomain* d : list)
      g_api->ReleaseCustomOpDomain(d);
  }
} g_domains;

}  // namespace

struct OrtStatus {
  int unused;
};  // this plugin's own type: a status the host never created
static OrtStatus g_foreign{};

extern "C" __attribute__((visibility("default"))) OrtStatus* ORT_API_CALL
RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* api_base);

// The OrtApi the host handed to RegisterCustomOps (null before), for the test that every
// slot outside the audited subset is null.
extern "C" __attribute__((visibility("default"))) const OrtApi* TestPluginApi() {
  return g_api;
}

#if TEST_PLUGIN_VARIANT != V_NO_OPS
OrtStatus* ORT_API_CALL RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* api_base) {
  g_api = api_base->GetApi(18);
  if (g_api == nullptr) return nullptr;
#if TEST_PLUGIN_VARIANT == V_FOREIGN_STATUS
  (void)options;
  return &g_foreign;
#else
  OrtCustomOpDomain* domain = nullptr;
  if (OrtStatus* s = g_api->CreateCustomOpDomain("test.plugin", &domain)) return s;
  g_domains.list.push_back(domain);
#if TEST_PLUGIN_VARIANT == V_NULL_DESCRIPTOR
  if (OrtStatus* s = g_api->CustomOpDomain_Add(domain, nullptr)) return s;
#endif
  for (const OpSpec& spec : Ops()) {
    if (OrtStatus* s = g_api->CustomOpDomain_Add(domain, &spec.op)) return s;
  }
#if TEST_PLUGIN_VARIANT == V_DUPLICATE
  if (OrtStatus* s = g_api->CustomOpDomain_Add(domain, &Ops()[2].op)) return s;
#endif
#if TEST_PLUGIN_VARIANT == V_DOMAIN_TWICE
  if (OrtStatus* s = g_api->AddCustomOpDomain(options, domain)) return s;
#endif
  return g_api->AddCustomOpDomain(options, domain);
#endif
}
#else
OrtStatus* ORT_API_CALL RegisterCustomOps(OrtSessionOptions*, const OrtApiBase* api_base) {
  g_api = api_base->GetApi(18);
  return nullptr;  // registers nothing
}
#endif
