// The audited API-18 subset of the ONNX Runtime C API, implemented over onnx-light.
// Every function is noexcept, checks its pointers, and reports errors as OrtStatus.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_set>

#include "api_internal.h"
#include "onnx_light_ort/hosting/plugin_host.h"
#include "ort_structs.h"

namespace onnx_light_ort::hosting {
namespace onnx = onnx_light::onnx;
namespace {

// Every status the host created and has not released: ConsumePluginStatus only
// dereferences pointers found here.
std::mutex g_status_mu;
std::unordered_set<const OrtStatus*>& LiveStatuses() {
  static auto* live = new std::unordered_set<const OrtStatus*>();
  return *live;
}

}  // namespace

OrtStatus* MakeStatus(OrtErrorCode code, const std::string& message) noexcept {
  OrtStatus* s = new (std::nothrow) OrtStatus{code, std::string()};
  if (s == nullptr) return nullptr;
  try {
    s->message = message;
    std::lock_guard<std::mutex> lock(g_status_mu);
    LiveStatuses().insert(s);
  } catch (...) {
    delete s;
    return nullptr;
  }
  return s;
}

OrtStatus* Invalid(const std::string& message) noexcept {
  return MakeStatus(ORT_INVALID_ARGUMENT, message);
}

OrtStatus* FromStatus(const onnx_light::Status& s) noexcept {
  if (s.ok()) return nullptr;
  return MakeStatus(s.code() == onnx_light::StatusCode::kInvalidArgument ||
                            s.code() == onnx_light::StatusCode::kOutOfRange
                        ? ORT_INVALID_ARGUMENT
                        : ORT_FAIL,
                    s.message());
}

namespace {

// --- status -------------------------------------------------------------------------------

OrtStatus* ORT_API_CALL CreateStatus(OrtErrorCode code, const char* msg) NO_EXCEPTION {
  return MakeStatus(code, msg ? msg : "");
}
OrtErrorCode ORT_API_CALL GetErrorCode(const OrtStatus* status) NO_EXCEPTION {
  return status ? status->code : ORT_OK;
}
const char* ORT_API_CALL GetErrorMessage(const OrtStatus* status) NO_EXCEPTION {
  return status ? status->message.c_str() : "";
}
void ORT_API_CALL ReleaseStatus(OrtStatus* status) NO_EXCEPTION {
  if (status == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(g_status_mu);
    if (LiveStatuses().erase(status) == 0) return;  // not ours (or released twice)
  }
  delete status;
}

// --- registration --------------------------------------------------------------------------

OrtStatus* NewDomain(const char* domain, Profile profile, OrtCustomOpDomain** out) noexcept {
  if (out == nullptr) return Invalid("CreateCustomOpDomain: null output pointer");
  *out = nullptr;
  if (domain == nullptr) return Invalid("CreateCustomOpDomain: null domain name");
  try {
    *out = new OrtCustomOpDomain{domain, {}, {}, profile};
  } catch (...) {
    return MakeStatus(ORT_FAIL, "CreateCustomOpDomain: out of memory");
  }
  return nullptr;
}
OrtStatus* ORT_API_CALL CreateCustomOpDomain(const char* domain,
                                             OrtCustomOpDomain** out) NO_EXCEPTION {
  return NewDomain(domain, Profile::kInitial, out);
}
// The extensions profile's domains take every descriptor that has a name: what a
// descriptor cannot run is recorded at load and refused only when a model uses it.
OrtStatus* ORT_API_CALL CreateCustomOpDomainExtensions(const char* domain,
                                                       OrtCustomOpDomain** out) NO_EXCEPTION {
  return NewDomain(domain, Profile::kExtensions, out);
}

// Descriptor validation against the audited profile.
std::string CheckDescriptor(const OrtCustomOp* op) {
  if (op == nullptr) return "missing custom-op descriptor (null OrtCustomOp)";
  if (op->version != kHostApiVersion) {
    return "custom-op descriptor version " + std::to_string(op->version) +
           " is not supported; this host accepts API-18 descriptors (version 18) only";
  }
  if (op->GetName == nullptr) return "descriptor has no GetName";
  const char* name = op->GetName(op);
  if (name == nullptr || *name == '\0') return "descriptor GetName returned an empty name";
  const std::string where = std::string("custom op '") + name + "': ";
  if (op->GetExecutionProviderType != nullptr) {
    const char* ep = op->GetExecutionProviderType(op);
    if (ep != nullptr && *ep != '\0' && std::strcmp(ep, "CPUExecutionProvider") != 0) {
      return where + "execution provider '" + ep + "' is not supported (CPU only)";
    }
  }
  if (op->GetInputTypeCount == nullptr || op->GetOutputTypeCount == nullptr ||
      op->GetInputType == nullptr || op->GetOutputType == nullptr) {
    return where + "descriptor lacks input/output type callbacks";
  }
  const size_t n_in = op->GetInputTypeCount(op);
  const size_t n_out = op->GetOutputTypeCount(op);
  if (n_in != 1 || n_out != 1) {
    return where + "has " + std::to_string(n_in) + " inputs and " + std::to_string(n_out) +
           " outputs; exactly one of each is supported";
  }
  const ONNXTensorElementDataType in = op->GetInputType(op, 0);
  const ONNXTensorElementDataType out = op->GetOutputType(op, 0);
  if (in == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED ||
      out == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) {
    return where +
           "generic UNDEFINED type descriptors are not supported; register one "
           "concrete type per overload";
  }
  auto supported = [](ONNXTensorElementDataType t) {
    return t == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 ||
           t == ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 ||
           t == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || t == ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE;
  };
  if (!supported(in)) {
    return where + "input type " + onnx_light::DataTypeName(static_cast<onnx_light::DataType>(in)) +
           " is not supported (float16, bfloat16, float or double)";
  }
  if (out != in) {
    return where + "output type " +
           onnx_light::DataTypeName(static_cast<onnx_light::DataType>(out)) +
           " differs from input type " +
           onnx_light::DataTypeName(static_cast<onnx_light::DataType>(in));
  }
  if ((op->GetInputCharacteristic && op->GetInputCharacteristic(op, 0) != INPUT_OUTPUT_REQUIRED) ||
      (op->GetOutputCharacteristic &&
       op->GetOutputCharacteristic(op, 0) != INPUT_OUTPUT_REQUIRED)) {
    return where + "optional or variadic arguments are not supported";
  }
  if (op->GetInputMemoryType && op->GetInputMemoryType(op, 0) != OrtMemTypeDefault) {
    return where + "input memory type other than the default (CPU) is not supported";
  }
  if (op->CreateKernelV2 == nullptr || op->KernelComputeV2 == nullptr ||
      op->KernelDestroy == nullptr) {
    return where + "CreateKernelV2, KernelComputeV2 and KernelDestroy are required";
  }
  if (op->InferOutputShapeFn != nullptr) {
    return where +
           "shape-inference callbacks are not supported (output shapes are decided "
           "at execution)";
  }
  if (op->GetMayInplace || op->ReleaseMayInplace || op->GetAliasMap || op->ReleaseAliasMap) {
    return where + "in-place and alias callbacks are not supported";
  }
  const int start = op->GetStartVersion ? op->GetStartVersion(op) : 1;
  const int end = op->GetEndVersion ? op->GetEndVersion(op) : INT_MAX;
  if (start < 1 || end < start) {
    return where + "invalid opset range " + std::to_string(start) + ".." + std::to_string(end);
  }
  return "";
}

OrtStatus* ORT_API_CALL CustomOpDomain_Add(OrtCustomOpDomain* domain,
                                           const OrtCustomOp* op) NO_EXCEPTION {
  if (domain == nullptr) return Invalid("CustomOpDomain_Add: null domain");
  if (domain->profile == Profile::kExtensions) {
    if (op == nullptr)
      return Invalid("domain '" + domain->domain + "': missing custom-op descriptor");
    try {
      const char* name = op->GetName != nullptr ? op->GetName(op) : nullptr;
      if (name == nullptr || *name == '\0') {
        return Invalid("domain '" + domain->domain + "': a descriptor without a name");
      }
      domain->ops.push_back(op);
    } catch (...) {
      return MakeStatus(ORT_FAIL, "CustomOpDomain_Add: the descriptor threw or out of memory");
    }
    return nullptr;
  }
  try {
    std::string error = CheckDescriptor(op);
    if (error.empty()) {
      const char* name = op->GetName(op);
      const ONNXTensorElementDataType type = op->GetInputType(op, 0);
      for (const OrtCustomOp* other : domain->ops) {
        if (std::strcmp(other->GetName(other), name) == 0 &&
            other->GetInputType(other, 0) == type) {
          error = "duplicate registration of " + domain->domain + "::" + name + " for type " +
                  onnx_light::DataTypeName(static_cast<onnx_light::DataType>(type));
        }
      }
    }
    if (!error.empty()) {
      error = "domain '" + domain->domain + "': " + error;
      if (domain->first_error.empty()) domain->first_error = error;
      return Invalid(error);
    }
    domain->ops.push_back(op);
  } catch (...) {
    return MakeStatus(ORT_FAIL, "CustomOpDomain_Add: out of memory");
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL AddCustomOpDomain(OrtSessionOptions* options,
                                          OrtCustomOpDomain* domain) NO_EXCEPTION {
  if (options == nullptr || domain == nullptr) return Invalid("AddCustomOpDomain: null argument");
  try {
    for (const OrtCustomOpDomain& d : options->domains) {
      if (d.domain == domain->domain) {
        const std::string error = "domain '" + domain->domain + "' added twice";
        if (options->first_error.empty()) options->first_error = error;
        return Invalid(error);
      }
    }
    if (!domain->first_error.empty() && options->first_error.empty()) {
      options->first_error = domain->first_error;
    }
    options->domains.push_back(*domain);
  } catch (...) {
    return MakeStatus(ORT_FAIL, "AddCustomOpDomain: out of memory");
  }
  return nullptr;
}

void ORT_API_CALL ReleaseCustomOpDomain(OrtCustomOpDomain* domain) NO_EXCEPTION {
  delete domain;
}

// --- kernel info ---------------------------------------------------------------------------

OrtStatus* ORT_API_CALL KernelInfoGetAttribute_float(const OrtKernelInfo* info, const char* name,
                                                     float* out) NO_EXCEPTION {
  if (out == nullptr) return Invalid("KernelInfoGetAttribute_float: null output");
  return WithAttribute(info, name, onnx::AttributeType::kFloat,
                       [&](const onnx_light::onnx::AttributeProto& a) -> OrtStatus* {
                         *out = a.f.get();
                         return nullptr;
                       });
}

OrtStatus* ORT_API_CALL KernelInfoGetAttribute_int64(const OrtKernelInfo* info, const char* name,
                                                     int64_t* out) NO_EXCEPTION {
  if (out == nullptr) return Invalid("KernelInfoGetAttribute_int64: null output");
  return WithAttribute(info, name, onnx::AttributeType::kInt,
                       [&](const onnx_light::onnx::AttributeProto& a) -> OrtStatus* {
                         *out = a.i.get();
                         return nullptr;
                       });
}

// ORT's contract: with a null buffer, report the size needed (with the NUL); with a buffer
// too small, report the size and fail; otherwise copy and NUL-terminate.
OrtStatus* ORT_API_CALL KernelInfoGetAttribute_string(const OrtKernelInfo* info, const char* name,
                                                      char* out, size_t* size) NO_EXCEPTION {
  if (size == nullptr) return Invalid("KernelInfoGetAttribute_string: null size");
  return WithAttribute(info, name, onnx::AttributeType::kString,
                       [&](const onnx_light::onnx::AttributeProto& a) -> OrtStatus* {
                         const std::string& s = a.s.get();
                         const size_t need = s.size() + 1;
                         if (out == nullptr) {
                           *size = need;
                           return nullptr;
                         }
                         if (*size < need) {
                           *size = need;
                           return Invalid("Result buffer is not large enough");
                         }
                         std::memcpy(out, s.data(), s.size());
                         out[s.size()] = '\0';
                         *size = need;
                         return nullptr;
                       });
}

// --- kernel context and values ---------------------------------------------------------------

// The slack after each numeric output of an extensions-profile kernel (bytes).
constexpr int64_t kOutputSlackBytes = 64;

OrtStatus* ORT_API_CALL KernelContext_GetInputCount(const OrtKernelContext* context,
                                                    size_t* out) NO_EXCEPTION {
  if (context == nullptr || out == nullptr) return Invalid("KernelContext_GetInputCount: null");
  *out = context->inputs.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_GetOutputCount(const OrtKernelContext* context,
                                                     size_t* out) NO_EXCEPTION {
  if (context == nullptr || out == nullptr) return Invalid("KernelContext_GetOutputCount: null");
  *out = context->outputs.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_GetInput(const OrtKernelContext* context, size_t index,
                                               const OrtValue** out) NO_EXCEPTION {
  if (context == nullptr || out == nullptr) return Invalid("KernelContext_GetInput: null");
  if (index >= context->inputs.size()) {
    *out = nullptr;
    return Invalid("KernelContext_GetInput: index " + std::to_string(index) + " out of range");
  }
  // An absent optional input (extensions profile) is a null value, as in ORT.
  *out = context->inputs[index].tensor != nullptr ? &context->inputs[index] : nullptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContext_GetOutput(OrtKernelContext* context, size_t index,
                                                const int64_t* dims, size_t dim_count,
                                                OrtValue** out) NO_EXCEPTION {
  if (context == nullptr || out == nullptr) return Invalid("KernelContext_GetOutput: null");
  *out = nullptr;
  if (index >= context->outputs.size()) {
    return Invalid("KernelContext_GetOutput: index " + std::to_string(index) + " out of range");
  }
  if (dim_count > 0 && dims == nullptr) return Invalid("KernelContext_GetOutput: null dims");
  try {
    std::vector<int64_t> shape(dims, dims + dim_count);
    // Asked again: the same output for the same shape, an error for another (as ORT's
    // shape verification); the plugin may hold pointers into the first one.
    if (const std::unique_ptr<OrtValue>& before = context->outputs[index]) {
      if (before->tensor->shape().dims() == shape) {  // (outputs are made with a tensor)
        *out = before.get();
        return nullptr;
      }
      return Invalid("KernelContext_GetOutput: output " + std::to_string(index) +
                     " was already made with shape " + before->tensor->shape().ToString());
    }
    onnx_light::Result<onnx_light::Tensor*> t = context->context->AllocateOutput(index, shape);
    if (!t.ok()) return FromStatus(t.status());
    if (context->padded_outputs && (*t)->dtype() != onnx_light::DataType::kString) {
      // Slack after a numeric output's last element, as ORT's arena leaves: a plugin that
      // writes a little past its output (onnxruntime-extensions 0.15.2's HfBertTokenizer
      // writes 16 bytes past its offset mapping; valgrind shows it under ORT too) writes
      // there instead of into the heap. The output is a view of the padded buffer.
      onnx_light::Tensor& made = **t;
      const int64_t width = onnx_light::DataTypeBitWidth(made.dtype()) / 8;
      const int64_t pad = width > 0 ? kOutputSlackBytes / width : kOutputSlackBytes;
      onnx_light::Result<onnx_light::Tensor> big =
          context->context->AllocateTemporary(made.dtype(), {made.num_elements() + pad});
      if (!big.ok()) return FromStatus(big.status());
      auto keep = std::make_shared<onnx_light::Tensor>(std::move(*big));
      onnx_light::Result<onnx_light::Tensor> view = onnx_light::Tensor::BorrowMutable(
          made.dtype(), made.shape(), keep->mutable_raw_data(), made.byte_size(), keep);
      if (!view.ok()) return FromStatus(view.status());
      onnx_light::Status set = context->context->SetOutput(index, std::move(*view));
      if (!set.ok()) return FromStatus(set);
      t = context->context->mutable_output(index);
    }
    context->outputs[index] = std::make_unique<OrtValue>(OrtValue{*t});
    *out = context->outputs[index].get();
  } catch (...) {
    return MakeStatus(ORT_FAIL, "KernelContext_GetOutput: out of memory");
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorMutableData(OrtValue* value, void** out) NO_EXCEPTION {
  if (value == nullptr || out == nullptr || value->tensor == nullptr) {
    return Invalid("GetTensorMutableData: null argument");
  }
  if (value->tensor->dtype() == onnx_light::DataType::kString) {
    return Invalid(
        "GetTensorMutableData: a string tensor is read with GetStringTensorContent and "
        "written with FillStringTensor");
  }
  // The API is mutable for inputs too (as in ORT); audited plugins do not write inputs.
  *out = const_cast<void*>(value->tensor->raw_data());
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorTypeAndShape(const OrtValue* value,
                                              OrtTensorTypeAndShapeInfo** out) NO_EXCEPTION {
  if (value == nullptr || out == nullptr || value->tensor == nullptr) {
    return Invalid("GetTensorTypeAndShape: null argument");
  }
  try {
    *out = new OrtTensorTypeAndShapeInfo{
        static_cast<ONNXTensorElementDataType>(value->tensor->dtype()),
        value->tensor->shape().dims()};
  } catch (...) {
    *out = nullptr;
    return MakeStatus(ORT_FAIL, "GetTensorTypeAndShape: out of memory");
  }
  return nullptr;
}

void ORT_API_CALL ReleaseTensorTypeAndShapeInfo(OrtTensorTypeAndShapeInfo* info) NO_EXCEPTION {
  delete info;
}

OrtStatus* ORT_API_CALL GetTensorElementType(const OrtTensorTypeAndShapeInfo* info,
                                             ONNXTensorElementDataType* out) NO_EXCEPTION {
  if (info == nullptr || out == nullptr) return Invalid("GetTensorElementType: null argument");
  *out = info->type;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetDimensionsCount(const OrtTensorTypeAndShapeInfo* info,
                                           size_t* out) NO_EXCEPTION {
  if (info == nullptr || out == nullptr) return Invalid("GetDimensionsCount: null argument");
  *out = info->dims.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL GetDimensions(const OrtTensorTypeAndShapeInfo* info, int64_t* values,
                                      size_t length) NO_EXCEPTION {
  if (info == nullptr || (values == nullptr && length > 0)) {
    return Invalid("GetDimensions: null argument");
  }
  const size_t n = std::min(length, info->dims.size());
  for (size_t i = 0; i < n; ++i)
    values[i] = info->dims[i];
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorShapeElementCount(const OrtTensorTypeAndShapeInfo* info,
                                                   size_t* out) NO_EXCEPTION {
  if (info == nullptr || out == nullptr) return Invalid("GetTensorShapeElementCount: null");
  size_t n = 1;
  for (int64_t d : info->dims)
    n *= static_cast<size_t>(d);  // shapes were checked on creation
  *out = n;
  return nullptr;
}

// --- the tables ----------------------------------------------------------------------------

}  // namespace

void FillInitialApi(OrtApi* out) {
  OrtApi& api = *out;
  api.CreateStatus = &CreateStatus;
  api.GetErrorCode = &GetErrorCode;
  api.GetErrorMessage = &GetErrorMessage;
  api.CreateCustomOpDomain = &CreateCustomOpDomain;
  api.CustomOpDomain_Add = &CustomOpDomain_Add;
  api.AddCustomOpDomain = &AddCustomOpDomain;
  api.GetTensorMutableData = &GetTensorMutableData;
  api.GetTensorElementType = &GetTensorElementType;
  api.GetDimensionsCount = &GetDimensionsCount;
  api.GetDimensions = &GetDimensions;
  api.GetTensorShapeElementCount = &GetTensorShapeElementCount;
  api.GetTensorTypeAndShape = &GetTensorTypeAndShape;
  api.KernelInfoGetAttribute_float = &KernelInfoGetAttribute_float;
  api.KernelInfoGetAttribute_int64 = &KernelInfoGetAttribute_int64;
  api.KernelInfoGetAttribute_string = &KernelInfoGetAttribute_string;
  api.KernelContext_GetInputCount = &KernelContext_GetInputCount;
  api.KernelContext_GetOutputCount = &KernelContext_GetOutputCount;
  api.KernelContext_GetInput = &KernelContext_GetInput;
  api.KernelContext_GetOutput = &KernelContext_GetOutput;
  api.ReleaseStatus = &ReleaseStatus;
  api.ReleaseTensorTypeAndShapeInfo = &ReleaseTensorTypeAndShapeInfo;
  api.ReleaseCustomOpDomain = &ReleaseCustomOpDomain;
}

namespace {

OrtApi MakeApi(Profile profile) {
  OrtApi api;
  std::memset(&api, 0, sizeof(api));  // every slot outside the profile stays null
  FillInitialApi(&api);
  if (profile == Profile::kExtensions) {
    FillExtensionsApi(&api);
    api.CreateCustomOpDomain = &CreateCustomOpDomainExtensions;
  }
  return api;
}

// The last unsupported version a plugin asked GetApi for (0: none), per thread, so a
// registration that fails to negotiate reports what was asked.
thread_local uint32_t g_refused_version = 0;

const OrtApi* ORT_API_CALL GetApi(uint32_t version) NO_EXCEPTION {
  if (version != kHostApiVersion) {
    g_refused_version = version;
    return nullptr;
  }
  return HostApi(Profile::kInitial);
}
const OrtApi* ORT_API_CALL GetApiExtensions(uint32_t version) NO_EXCEPTION {
  if (version != kHostApiVersion) {
    g_refused_version = version;
    return nullptr;
  }
  return HostApi(Profile::kExtensions);
}

const char* ORT_API_CALL GetVersionString() NO_EXCEPTION {
  return "1.18.0";
}

}  // namespace

// Slot numbers the bridges rely on (API-18 numbering); a drifted header fails to build.
static_assert(offsetof(OrtApi, CreateCustomOpDomain) / sizeof(void*) == 26);
static_assert(offsetof(OrtApi, KernelContext_GetOutput) / sizeof(void*) == 91);
static_assert(offsetof(OrtApi, ReleaseCustomOpDomain) / sizeof(void*) == 101);

const char* ProfileName(Profile profile) {
  return profile == Profile::kExtensions ? "extensions" : "initial";
}

const OrtApi* HostApi(Profile profile) {
  static const OrtApi initial = MakeApi(Profile::kInitial);
  static const OrtApi extensions = MakeApi(Profile::kExtensions);
  return profile == Profile::kExtensions ? &extensions : &initial;
}

const OrtApiBase* HostApiBase(Profile profile) {
  static const OrtApiBase initial = {&GetApi, &GetVersionString};
  static const OrtApiBase extensions = {&GetApiExtensions, &GetVersionString};
  return profile == Profile::kExtensions ? &extensions : &initial;
}

uint32_t TakeRefusedApiVersion() {
  const uint32_t v = g_refused_version;
  g_refused_version = 0;
  return v;
}

onnx_light::Status ConsumePluginStatus(OrtStatus* status, const std::string& context) {
  if (status == nullptr) return onnx_light::Status::Ok();
  {
    std::lock_guard<std::mutex> lock(g_status_mu);
    if (LiveStatuses().count(status) == 0) {
      return onnx_light::Status(onnx_light::StatusCode::kInternal,
                                context +
                                    ": the plugin returned a status this host did not "
                                    "create");
    }
  }
  const std::string message = status->message;
  const OrtErrorCode code = status->code;
  ReleaseStatus(status);
  return onnx_light::Status(code == ORT_INVALID_ARGUMENT ? onnx_light::StatusCode::kInvalidArgument
                                                         : onnx_light::StatusCode::kInternal,
                            context + ": " + message);
}

}  // namespace onnx_light_ort::hosting
