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
      if (m.is_sequence() || m.is_optional()) {
        return Fail(onnx_light::Status(onnx_light::StatusCode::kNotImplemented,
                                       "graph input or output '" + m.name + "' is " +
                                           (m.is_sequence() ? "a sequence" : "an optional") +
                                           ": the C ABI passes tensors only "
                                           "(use the C++ or Python API)"));
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
    std::vector<onnx_light::NamedTensor> feeds;
    for (size_t i = 0; i < input_count; ++i) {
      const OnnxLightTensor& in = inputs[i];
      if (in.name == nullptr) return Invalid("input without a name");
      const std::string where = std::string("input '") + in.name + "'";
      auto type = onnx_light::DataTypeFromInt(in.element_type);
      if (!type.ok()) return Fail(type.status().WithContext(where));
      if (*type == onnx_light::DataType::kString) {
        return Fail(onnx_light::Status(onnx_light::StatusCode::kNotImplemented,
                                       where + ": string tensors do not pass through the C ABI"));
      }
      auto shape = onnx_light::Shape::Create(in.shape, in.rank);
      if (!shape.ok()) return Fail(shape.status().WithContext(where));
      // The buffer holds element_count elements: a shape that says more would be read
      // past its end.
      if (static_cast<uint64_t>(shape->num_elements()) != in.element_count) {
        return Invalid((where + ": element_count " + std::to_string(in.element_count) +
                        " does not match shape " + shape->ToString() + " (" +
                        std::to_string(shape->num_elements()) + " elements)")
                           .c_str());
      }
      auto bytes = onnx_light::StorageBytes(*type, shape->num_elements());
      if (!bytes.ok()) return Fail(bytes.status());
      auto t = onnx_light::Tensor::Borrow(*type, std::move(*shape), in.data, *bytes);
      if (!t.ok()) return Fail(t.status().WithContext(where));
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

void OnnxLightTensorRelease(OnnxLightTensor* tensor) {
  if (tensor == nullptr) return;
  delete static_cast<onnx_light::Tensor*>(tensor->internal);
  std::memset(tensor, 0, sizeof(*tensor));
}

const char* OnnxLightLastErrorMessage(void) {
  return g_error.c_str();
}

}  // extern "C"
