// The C ABI of the "ORT custom ops called by onnx-light" bridge.
#include "onnx_light_ort/bridge_ops_ort_called_by_light/host.h"

#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>

#include "onnx_light/onnx/model_io.h"
#include "onnx_light/runtime/session.h"
#include "onnx_light_ort/hosting/plugin_host.h"

namespace {

using onnx_light::DataType;
using onnx_light::Result;
using onnx_light::Status;
using onnx_light::StatusCode;

thread_local std::string g_last_error;

int32_t Fail(const Status& s) {
  g_last_error = s.message();
  return static_cast<int32_t>(s.code());
}

int32_t Fail(StatusCode code, const std::string& message) {
  return Fail(Status(code, message));
}

int32_t Ok() {
  g_last_error.clear();
  return LIGHT_ORT_OK;
}

bool IsHostedType(int32_t t) {
  return t == static_cast<int32_t>(DataType::kFloat16) ||
         t == static_cast<int32_t>(DataType::kBFloat16) ||
         t == static_cast<int32_t>(DataType::kFloat) ||
         t == static_cast<int32_t>(DataType::kDouble);
}

// The model contract of the initial profile: one custom node, one input and one output of
// the same supported type, no initializers, no local functions.
Result<DataType> CheckModel(const onnx_light::onnx::ModelProto& model) {
  auto bad = [](const std::string& why) { return Status(StatusCode::kInvalidModel, why); };
  if (!model.graph.has()) return bad("the model has no graph");
  const auto& g = model.graph.get();
  if (g.node.size() != 1) {
    return bad("the model must contain exactly one custom node, it has " +
               std::to_string(g.node.size()) + " nodes");
  }
  const auto& node = g.node[0];
  const std::string& domain = node.domain.get();
  if (domain.empty() || domain == "ai.onnx") {
    return bad("node '" + node.name.get() + "' (" + node.op_type.get() +
               ") is not a custom op: it must use a custom domain");
  }
  bool imported = false;
  for (const auto& o : model.opset_import)
    imported |= o.domain.get() == domain;
  if (!imported) return bad("the model does not import the custom domain '" + domain + "'");
  if (!g.initializer.empty() || !g.sparse_initializer.empty()) {
    return bad("the model must not have initializers");
  }
  if (!model.functions.empty()) return bad("the model must not have local functions");
  if (g.input.size() != 1 || g.output.size() != 1) {
    return bad("the model must have exactly one graph input and one graph output");
  }
  const std::string& in = g.input[0].name.get();
  const std::string& out = g.output[0].name.get();
  if (in == out) return bad("the graph input and output must be distinct");
  if (node.input.size() != 1 || node.output.size() != 1 || node.input[0] != in ||
      node.output[0] != out) {
    return bad("the custom node must read the graph input and write the graph output");
  }
  const auto& in_type = g.input[0].type.get();
  const auto& out_type = g.output[0].type.get();
  if (!in_type.tensor_type.has() || !out_type.tensor_type.has()) {
    return bad("the graph input and output must be tensors");
  }
  const int32_t ti = in_type.tensor_type->elem_type.get();
  const int32_t to = out_type.tensor_type->elem_type.get();
  if (!IsHostedType(ti)) {
    return bad("graph input type " +
               std::string(onnx_light::DataTypeName(static_cast<DataType>(ti))) +
               " is not supported (float16, bfloat16, float or double)");
  }
  if (to != ti) return bad("graph input and output types differ");
  return static_cast<DataType>(ti);
}

}  // namespace

// Members are destroyed in reverse order: the session (and its kernels, which call the
// plugin's KernelDestroy) goes before the host (which unloads the plugin).
struct LightOrtSession {
  std::unique_ptr<onnx_light_ort::hosting::PluginHost> host;
  std::unique_ptr<onnx_light::RuntimeSession> session;
  DataType type = DataType::kUndefined;
  // Serializes runs: plugins of the audited profile need not be reentrant (host.h).
  std::mutex run_mu;
};

extern "C" {

int32_t LightOrtSessionCreate(const char* plugin_path, const void* model_data, size_t model_size,
                              LightOrtSession** session) {
  try {
    if (session == nullptr) return Fail(StatusCode::kInvalidArgument, "null session pointer");
    *session = nullptr;
    if (plugin_path == nullptr) return Fail(StatusCode::kInvalidArgument, "null plugin path");
    if (model_data == nullptr && model_size > 0) {
      return Fail(StatusCode::kInvalidArgument, "null model data");
    }
    if (model_size > LIGHT_ORT_MAX_MODEL_BYTES) {
      return Fail(StatusCode::kOutOfRange, "model of " + std::to_string(model_size) +
                                               " bytes exceeds the limit of " +
                                               std::to_string(LIGHT_ORT_MAX_MODEL_BYTES));
    }
    Result<onnx_light::onnx::ModelProto> model =
        onnx_light::onnx::LoadModelFromBytes(model_data, model_size);
    if (!model.ok()) return Fail(model.status());
    Result<DataType> type = CheckModel(*model);
    if (!type.ok()) return Fail(type.status());

    auto s = std::make_unique<LightOrtSession>();
    s->type = *type;
    auto host = onnx_light_ort::hosting::PluginHost::Load(plugin_path);
    if (!host.ok()) return Fail(host.status());
    s->host = std::move(*host);
    auto registry = s->host->MakeRegistry();
    if (!registry.ok()) return Fail(registry.status());
    onnx_light::SessionOptions options;
    options.registry = *registry;
    options.shape_limits.max_rank = LIGHT_ORT_MAX_RANK;
    options.max_tensor_bytes = LIGHT_ORT_MAX_TENSOR_BYTES;
    auto created = onnx_light::RuntimeSession::Create(std::move(*model), options);
    if (!created.ok()) return Fail(created.status());
    s->session = std::move(*created);
    *session = s.release();
    return Ok();
  } catch (const std::bad_alloc&) {
    return Fail(StatusCode::kResourceExhausted, "out of memory");
  } catch (...) {
    return Fail(StatusCode::kInternal, "unexpected exception in LightOrtSessionCreate");
  }
}

void LightOrtSessionRelease(LightOrtSession* session) {
  try {
    delete session;
  } catch (...) {
    // A plugin's KernelDestroy threw; nothing more can be done safely.
  }
}

int32_t LightOrtSessionElementType(const LightOrtSession* session) {
  return session ? static_cast<int32_t>(session->type) : 0;
}

int32_t LightOrtRunTyped(LightOrtSession* session, const void* input, int32_t element_type,
                         uint64_t element_count, const int64_t* shape, size_t rank,
                         LightOrtTensor* output) {
  try {
    if (output == nullptr) return Fail(StatusCode::kInvalidArgument, "null output");
    std::memset(output, 0, sizeof(*output));
    if (session == nullptr) return Fail(StatusCode::kInvalidArgument, "null session");
    if (element_type != static_cast<int32_t>(session->type)) {
      const char* got = (element_type >= 0 && element_type < onnx_light::kDataTypeCount)
                            ? onnx_light::DataTypeName(static_cast<DataType>(element_type))
                            : "an unknown type";
      return Fail(StatusCode::kTypeMismatch, std::string("input element type ") + got +
                                                 " does not match the model's " +
                                                 onnx_light::DataTypeName(session->type));
    }
    if (rank > LIGHT_ORT_MAX_RANK) {
      return Fail(StatusCode::kOutOfRange, "rank " + std::to_string(rank) +
                                               " exceeds the limit of " +
                                               std::to_string(LIGHT_ORT_MAX_RANK));
    }
    if (rank > 0 && shape == nullptr) return Fail(StatusCode::kInvalidArgument, "null shape");
    onnx_light::ShapeLimits limits;
    limits.max_rank = LIGHT_ORT_MAX_RANK;
    Result<onnx_light::Shape> s = onnx_light::Shape::Create(shape, rank, limits);
    if (!s.ok()) return Fail(s.status());
    if (static_cast<uint64_t>(s->num_elements()) != element_count) {
      return Fail(StatusCode::kInvalidArgument,
                  "element count " + std::to_string(element_count) + " does not match shape " +
                      s->ToString() + " (" + std::to_string(s->num_elements()) + " elements)");
    }
    const size_t item = static_cast<size_t>(onnx_light::DataTypeBitWidth(session->type) / 8);
    if (element_count > LIGHT_ORT_MAX_TENSOR_BYTES / item) {
      return Fail(StatusCode::kOutOfRange,
                  "input of " + std::to_string(element_count) + " " +
                      onnx_light::DataTypeName(session->type) + " elements exceeds the limit of " +
                      std::to_string(LIGHT_ORT_MAX_TENSOR_BYTES) + " bytes");
    }
    if (element_count > 0 && input == nullptr) {
      return Fail(StatusCode::kInvalidArgument, "null input");
    }
    if (reinterpret_cast<uintptr_t>(input) % item != 0) {
      return Fail(StatusCode::kInvalidArgument,
                  "input pointer is not aligned to " + std::to_string(item) + " bytes");
    }
    // Only now is the input read.
    static const double kEmpty = 0;
    Result<onnx_light::Tensor> x =
        onnx_light::Tensor::Borrow(session->type, std::move(*s), input ? input : &kEmpty,
                                   static_cast<size_t>(element_count) * item);
    if (!x.ok()) return Fail(x.status());
    const std::string& name = session->session->inputs()[0].name;
    std::unique_lock<std::mutex> lock(session->run_mu);
    Result<std::vector<onnx_light::Tensor>> out = session->session->Run({{name, std::move(*x)}});
    lock.unlock();
    if (!out.ok()) return Fail(out.status());
    auto* keep = new onnx_light::Tensor(std::move((*out)[0]));
    output->data = keep->mutable_raw_data();
    output->element_type = static_cast<int32_t>(keep->dtype());
    output->element_count = static_cast<uint64_t>(keep->num_elements());
    output->rank = keep->shape().rank();
    for (size_t i = 0; i < output->rank; ++i)
      output->shape[i] = keep->shape()[i];
    output->internal = keep;
    return Ok();
  } catch (const std::bad_alloc&) {
    return Fail(StatusCode::kResourceExhausted, "out of memory");
  } catch (...) {
    return Fail(StatusCode::kInternal, "unexpected exception in LightOrtRunTyped");
  }
}

int32_t LightOrtRun(LightOrtSession* session, const float* input, uint64_t element_count,
                    const int64_t* shape, size_t rank, LightOrtTensor* output) {
  if (session != nullptr && session->type != DataType::kFloat) {
    if (output != nullptr) std::memset(output, 0, sizeof(*output));
    return Fail(StatusCode::kTypeMismatch,
                std::string("LightOrtRun is float32 only and the model is ") +
                    onnx_light::DataTypeName(session->type) + ": use LightOrtRunTyped");
  }
  return LightOrtRunTyped(session, input, static_cast<int32_t>(DataType::kFloat), element_count,
                          shape, rank, output);
}

void LightOrtTensorRelease(LightOrtTensor* tensor) {
  if (tensor == nullptr) return;
  delete static_cast<onnx_light::Tensor*>(tensor->internal);
  std::memset(tensor, 0, sizeof(*tensor));
}

const char* LightOrtLastErrorMessage(void) {
  return g_last_error.c_str();
}

}  // extern "C"
