// The C ABI of the runtime (include/onnx_light/c_api.h).
#include "onnx_light/c_api.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "onnx_light/runtime/session.h"
#include "onnx_light_ort/hosting/plugin_host.h"

struct OnnxLightSession {
  std::unique_ptr<onnx_light::RuntimeSession> session;
};
struct OnnxLightSessionOptions {
  onnx_light::SessionOptions options;
};

struct OnnxLightRunOptions {
  onnx_light::RunOptions options;
};
struct OnnxLightValue {
  onnx_light::Value value;
};

namespace {

thread_local std::string g_error;

int32_t Fail(const onnx_light::Status& s) {
  g_error = s.message();
  return static_cast<int32_t>(s.code());
}

int32_t Wrap(onnx_light::Result<std::unique_ptr<onnx_light::RuntimeSession>> r,
             OnnxLightSession** out) {
  if (!r.ok()) return Fail(r.status());
  for (const auto* list : {&(*r)->inputs(), &(*r)->outputs()}) {
    for (const onnx_light::ValueMeta& m : *list) {
      if (m.type == onnx_light::DataType::kString) {
        return Fail(onnx_light::Status(onnx_light::StatusCode::kNotImplemented,
                                       "graph input or output '" + m.name +
                                           "' is a string tensor: the C ABI passes numeric "
                                           "and bool tensors only (use the C++ or Python API)"));
      }
      if (m.key_type == onnx_light::DataType::kString) {
        return Fail(onnx_light::Status(onnx_light::StatusCode::kNotImplemented,
                                       "graph input or output '" + m.name +
                                           "' is a map with string keys: the C ABI passes "
                                           "numeric and bool tensors only (use the C++ or "
                                           "Python API)"));
      }
      if (m.is_sequence() || m.is_optional()) {
        return Fail(onnx_light::Status(
            onnx_light::StatusCode::kNotImplemented,
            "graph input or output '" + m.name + "' is " +
                (m.is_optional() ? "an optional" : "a sequence") +
                ": the C ABI passes tensors and maps only (use the C++ or Python API)"));
      }
    }
  }
  *out = new OnnxLightSession{std::move(*r)};
  g_error.clear();
  return 0;
}

int32_t Invalid(const char* what) {
  return Fail(onnx_light::Status(onnx_light::StatusCode::kInvalidArgument, what));
}

// A caller's tensor as a borrowed Tensor, after the checks the header lists.
onnx_light::Result<onnx_light::Tensor> FromC(const OnnxLightTensor& in, const std::string& where) {
  using onnx_light::Status;
  using onnx_light::StatusCode;
  auto type = onnx_light::DataTypeFromInt(in.element_type);
  if (!type.ok()) return type.status().WithContext(where);
  if (*type == onnx_light::DataType::kString) {
    return Status(StatusCode::kNotImplemented,
                  where + ": string tensors do not pass through the C ABI");
  }
  auto shape = onnx_light::Shape::Create(in.shape, in.rank);
  if (!shape.ok()) return shape.status().WithContext(where);
  // The buffer holds element_count elements: a shape that says more would be read past
  // its end.
  if (static_cast<uint64_t>(shape->num_elements()) != in.element_count) {
    return Status(StatusCode::kInvalidArgument,
                  where + ": element_count " + std::to_string(in.element_count) +
                      " does not match shape " + shape->ToString() + " (" +
                      std::to_string(shape->num_elements()) + " elements)");
  }
  auto bytes = onnx_light::StorageBytes(*type, shape->num_elements());
  if (!bytes.ok()) return bytes.status();
  auto t = onnx_light::Tensor::Borrow(*type, std::move(*shape), in.data, *bytes);
  if (!t.ok()) return t.status().WithContext(where);
  return std::move(*t);
}

// A view of `t` for a C caller: read-only in fact, owned by whatever holds `t`.
int32_t View(const onnx_light::Tensor& t, const char* name, OnnxLightTensor* out) {
  if (t.dtype() == onnx_light::DataType::kString) {
    return Fail(onnx_light::Status(onnx_light::StatusCode::kNotImplemented,
                                   "string tensors do not pass through the C ABI"));
  }
  out->name = name;
  out->data = const_cast<void*>(t.raw_data());
  out->element_type = static_cast<int32_t>(t.dtype());
  out->element_count = static_cast<uint64_t>(t.num_elements());
  out->rank = t.shape().rank();
  out->shape = t.shape().dims().data();
  out->internal = nullptr;
  g_error.clear();
  return 0;
}

// The first map input or output of the session, or null.
const onnx_light::ValueMeta* FirstMap(const onnx_light::RuntimeSession& s) {
  for (const auto* list : {&s.inputs(), &s.outputs()}) {
    for (const onnx_light::ValueMeta& m : *list)
      if (m.is_map() || m.is_map_sequence()) return &m;
  }
  return nullptr;
}

// The C++ options behind a C caller's (null: the defaults).
onnx_light::SessionOptions OptionsOf(const OnnxLightSessionOptions* options) {
  return options != nullptr ? options->options : onnx_light::SessionOptions();
}

// A fresh options object for a C caller: *out, or a code.
template <typename T>
int32_t NewHandle(T** out) {
  if (out == nullptr) return Invalid("null argument");
  *out = new (std::nothrow) T();
  if (*out == nullptr) {
    return Fail(onnx_light::Status(onnx_light::StatusCode::kResourceExhausted, "out of memory"));
  }
  g_error.clear();
  return 0;
}

}  // namespace

extern "C" {

int32_t OnnxLightSessionCreate(const void* model, size_t size, OnnxLightSession** session) {
  return OnnxLightSessionCreateWithOptions(model, size, nullptr, session);
}

int32_t OnnxLightSessionCreateFromFile(const char* path, OnnxLightSession** session) {
  return OnnxLightSessionCreateFromFileWithOptions(path, nullptr, session);
}

int32_t OnnxLightSessionCreateWithOptions(const void* model, size_t size,
                                          const OnnxLightSessionOptions* options,
                                          OnnxLightSession** session) {
  if (session == nullptr || (model == nullptr && size > 0)) return Invalid("null argument");
  *session = nullptr;
  try {
    return Wrap(onnx_light::RuntimeSession::CreateFromBytes(model, size, OptionsOf(options)),
                session);
  } catch (...) {
    return Invalid("unexpected exception");
  }
}

int32_t OnnxLightSessionCreateFromFileWithOptions(const char* path,
                                                  const OnnxLightSessionOptions* options,
                                                  OnnxLightSession** session) {
  if (session == nullptr || path == nullptr) return Invalid("null argument");
  *session = nullptr;
  try {
    return Wrap(onnx_light::RuntimeSession::CreateFromFile(path, OptionsOf(options)), session);
  } catch (...) {
    return Invalid("unexpected exception");
  }
}

int32_t OnnxLightSessionOptionsCreate(OnnxLightSessionOptions** options) {
  return NewHandle(options);
}

void OnnxLightSessionOptionsRelease(OnnxLightSessionOptions* options) {
  delete options;
}

int32_t OnnxLightSessionOptionsSetMemoryBudget(OnnxLightSessionOptions* options, uint64_t bytes) {
  if (options == nullptr) return Invalid("null argument");
  options->options.memory_budget_bytes = bytes;
  g_error.clear();
  return 0;
}

int32_t OnnxLightSessionOptionsSetMaxTensorBytes(OnnxLightSessionOptions* options, uint64_t bytes) {
  if (options == nullptr) return Invalid("null argument");
  if (bytes == 0) return Invalid("max tensor bytes must be at least 1");
  options->options.max_tensor_bytes = bytes;
  g_error.clear();
  return 0;
}

int32_t OnnxLightSessionOptionsSetIntraOpThreads(OnnxLightSessionOptions* options,
                                                 int32_t threads) {
  if (options == nullptr) return Invalid("null argument");
  if (threads < 0 || threads > 1024) {
    return Fail(onnx_light::Status(onnx_light::StatusCode::kInvalidArgument,
                                   "intra-op threads must be 0 (one per physical core) or 1 to "
                                   "1024, got " +
                                       std::to_string(threads)));
  }
  options->options.intra_op_threads = threads;
  g_error.clear();
  return 0;
}

int32_t OnnxLightSessionOptionsRegisterCustomOpsLibrary(OnnxLightSessionOptions* options,
                                                        const char* path, int32_t profile) {
  if (options == nullptr || path == nullptr) return Invalid("null argument");
  if (profile != ONNX_LIGHT_PLUGIN_PROFILE_EXTENSIONS) {
    return Fail(onnx_light::Status(
        onnx_light::StatusCode::kInvalidArgument,
        "profile " + std::to_string(profile) +
            ": session-level registration takes ONNX_LIGHT_PLUGIN_PROFILE_EXTENSIONS (1); the "
            "initial profile is the LightOrt* C ABI's"));
  }
  try {
    onnx_light::Status s = onnx_light_ort::hosting::RegisterCustomOpsLibrary(
        &options->options, path, onnx_light_ort::hosting::Profile::kExtensions);
    if (!s.ok()) return Fail(s);
  } catch (...) {
    return Fail(onnx_light::Status(onnx_light::StatusCode::kInternal, "out of memory"));
  }
  g_error.clear();
  return 0;
}

void OnnxLightSessionRelease(OnnxLightSession* session) {
  delete session;
}

size_t OnnxLightSessionOutputCount(const OnnxLightSession* session) {
  return session ? session->session->outputs().size() : 0;
}

int32_t OnnxLightRunOptionsCreate(OnnxLightRunOptions** options) {
  return NewHandle(options);
}

void OnnxLightRunOptionsRelease(OnnxLightRunOptions* options) {
  delete options;
}

void OnnxLightRunOptionsTerminate(OnnxLightRunOptions* options) {
  if (options != nullptr) options->options.Terminate();
}

void OnnxLightRunOptionsSetTimeoutMs(OnnxLightRunOptions* options, uint64_t milliseconds) {
  if (options == nullptr) return;
  // Capped at about 292 years (the largest nanosecond count): beyond that is no limit.
  constexpr uint64_t kMaxMs = uint64_t{INT64_MAX} / 1000000u;
  options->options.timeout =
      std::chrono::milliseconds(static_cast<int64_t>(std::min(milliseconds, kMaxMs)));
}

int32_t OnnxLightRun(OnnxLightSession* session, const OnnxLightTensor* inputs, size_t input_count,
                     OnnxLightTensor* outputs) {
  return OnnxLightRunWithOptions(session, inputs, input_count, outputs, nullptr);
}

int32_t OnnxLightRunWithOptions(OnnxLightSession* session, const OnnxLightTensor* inputs,
                                size_t input_count, OnnxLightTensor* outputs,
                                const OnnxLightRunOptions* options) {
  if (session == nullptr || outputs == nullptr || (inputs == nullptr && input_count > 0)) {
    return Invalid("null argument");
  }
  try {
    if (const onnx_light::ValueMeta* m = FirstMap(*session->session)) {
      return Fail(onnx_light::Status(onnx_light::StatusCode::kNotImplemented,
                                     "'" + m->name + "' is a " +
                                         onnx_light::ValueKindName(m->kind) +
                                         ": run this model with OnnxLightRunValues"));
    }
    std::vector<onnx_light::NamedTensor> feeds;
    for (size_t i = 0; i < input_count; ++i) {
      const OnnxLightTensor& in = inputs[i];
      if (in.name == nullptr) return Invalid("input without a name");
      auto t = FromC(in, std::string("input '") + in.name + "'");
      if (!t.ok()) return Fail(t.status());
      feeds.emplace_back(in.name, std::move(*t));
    }
    auto result =
        session->session->Run(feeds, {}, options != nullptr ? &options->options : nullptr);
    if (!result.ok()) return Fail(result.status());
    for (size_t i = 0; i < result->size(); ++i) {
      if ((*result)[i].dtype() == onnx_light::DataType::kString) {
        return Fail(onnx_light::Status(
            onnx_light::StatusCode::kNotImplemented,
            "output '" + session->session->outputs()[i].name +
                "' is a string tensor: the C ABI passes numeric and bool tensors only"));
      }
    }
    for (size_t i = 0; i < result->size(); ++i) {
      auto* keep = new onnx_light::Tensor(std::move((*result)[i]));
      OnnxLightTensor& out = outputs[i];
      out.name = session->session->outputs()[i].name.c_str();
      out.data = keep->mutable_raw_data();
      out.element_type = static_cast<int32_t>(keep->dtype());
      out.element_count = static_cast<uint64_t>(keep->num_elements());
      out.rank = keep->shape().rank();
      out.shape = keep->shape().dims().data();
      out.internal = keep;
    }
    g_error.clear();
    return 0;
  } catch (const std::bad_alloc&) {
    return Fail(onnx_light::Status(onnx_light::StatusCode::kResourceExhausted, "out of memory"));
  } catch (...) {
    return Invalid("unexpected exception");
  }
}

int32_t OnnxLightRunValues(OnnxLightSession* session, const OnnxLightTensor* inputs,
                           size_t input_count, const OnnxLightMap* maps, size_t map_count,
                           OnnxLightValue** outputs, const OnnxLightRunOptions* options) {
  if (session == nullptr || outputs == nullptr || (inputs == nullptr && input_count > 0) ||
      (maps == nullptr && map_count > 0)) {
    return Invalid("null argument");
  }
  const size_t count = session->session->outputs().size();
  std::fill(outputs, outputs + count, nullptr);
  try {
    std::vector<onnx_light::NamedValue> feeds;
    for (size_t i = 0; i < input_count; ++i) {
      const OnnxLightTensor& in = inputs[i];
      if (in.name == nullptr) return Invalid("input without a name");
      auto t = FromC(in, std::string("input '") + in.name + "'");
      if (!t.ok()) return Fail(t.status());
      feeds.emplace_back(in.name, onnx_light::Value{std::move(*t), nullptr});
    }
    for (size_t i = 0; i < map_count; ++i) {
      if (maps[i].name == nullptr) return Invalid("map input without a name");
      const std::string where = std::string("map input '") + maps[i].name + "'";
      auto keys = FromC(maps[i].keys, where + " keys");
      if (!keys.ok()) return Fail(keys.status());
      auto values = FromC(maps[i].values, where + " values");
      if (!values.ok()) return Fail(values.status());
      onnx_light::Value v;
      v.map = std::make_shared<const onnx_light::TensorMap>(
          onnx_light::TensorMap{std::move(*keys), std::move(*values)});
      feeds.emplace_back(maps[i].name, std::move(v));
    }
    auto result =
        session->session->RunValues(feeds, {}, options != nullptr ? &options->options : nullptr);
    if (!result.ok()) return Fail(result.status());
    // The outputs were checked at creation (no sequences, optionals or strings declared);
    // an undeclared output type is checked here, before any is handed out.
    for (size_t i = 0; i < result->size(); ++i) {
      const onnx_light::Value& v = (*result)[i];
      if (v.is_sequence() || v.none || v.tensor.dtype() == onnx_light::DataType::kString) {
        return Fail(onnx_light::Status(onnx_light::StatusCode::kNotImplemented,
                                       "output '" + session->session->outputs()[i].name +
                                           "' is a " +
                                           (v.none            ? "none"
                                            : v.is_sequence() ? "sequence"
                                                              : "string tensor") +
                                           ": the C ABI passes numeric tensors and maps only"));
      }
    }
    for (size_t i = 0; i < result->size(); ++i)
      outputs[i] = new OnnxLightValue{std::move((*result)[i])};
    g_error.clear();
    return 0;
  } catch (const std::bad_alloc&) {
    for (size_t i = 0; i < count; ++i) {
      delete outputs[i];
      outputs[i] = nullptr;
    }
    return Fail(onnx_light::Status(onnx_light::StatusCode::kResourceExhausted, "out of memory"));
  } catch (...) {
    return Invalid("unexpected exception");
  }
}

int32_t OnnxLightValueKind(const OnnxLightValue* value) {
  if (value == nullptr) return -1;
  return value->value.is_map()            ? ONNX_LIGHT_VALUE_MAP
         : value->value.is_map_sequence() ? ONNX_LIGHT_VALUE_MAP_SEQUENCE
                                          : ONNX_LIGHT_VALUE_TENSOR;
}

size_t OnnxLightValueMapCount(const OnnxLightValue* value) {
  if (value == nullptr) return 0;
  if (value->value.is_map()) return 1;
  return value->value.is_map_sequence() ? value->value.maps->size() : 0;
}

int32_t OnnxLightValueGetTensor(const OnnxLightValue* value, OnnxLightTensor* tensor) {
  if (value == nullptr || tensor == nullptr) return Invalid("null argument");
  if (value->value.is_container()) return Invalid("the value is a map, not a tensor");
  return View(value->value.tensor, nullptr, tensor);
}

int32_t OnnxLightValueGetMap(const OnnxLightValue* value, size_t index, OnnxLightTensor* keys,
                             OnnxLightTensor* values) {
  if (value == nullptr || keys == nullptr || values == nullptr) return Invalid("null argument");
  const size_t count = OnnxLightValueMapCount(value);
  if (count == 0) return Invalid("the value is a tensor, not a map");
  if (index >= count) {
    return Invalid(("map " + std::to_string(index) + " of " + std::to_string(count)).c_str());
  }
  const onnx_light::TensorMap& m =
      value->value.is_map() ? *value->value.map : (*value->value.maps)[index];
  const int32_t rc = View(m.keys, nullptr, keys);
  return rc != 0 ? rc : View(m.values, nullptr, values);
}

void OnnxLightValueRelease(OnnxLightValue* value) {
  delete value;
}

void OnnxLightTensorRelease(OnnxLightTensor* tensor) {
  if (tensor == nullptr) return;
  delete static_cast<onnx_light::Tensor*>(tensor->internal);
  std::memset(tensor, 0, sizeof(*tensor));
}

const char* OnnxLightLastErrorMessage(void) {
  return g_error.c_str();
}

}  // extern "C"
