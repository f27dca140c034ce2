// I/O binding and asynchronous runs of ORT's C API. A binding holds its inputs (sharing the
// caller's values) and its outputs: a preallocated value is written in place, an output
// bound to a memory (the CPU's) gets a new value each run. RunAsync runs on a thread of its
// own and calls the program back with the outputs, as ORT does from its thread pool.
#include <thread>

#include "onnx_light_ort/ort_c_api/objects.h"

struct OrtIoBinding {
  OrtSession* session = nullptr;
  std::vector<onnx_light::NamedValue> inputs;
  std::vector<std::string> output_names;
  std::vector<OrtValue*> preallocated;     // null: allocated by the run (bound to memory)
  std::vector<onnx_light::Value> results;  // the last run's outputs, in bound order
};

namespace onnx_light_ort::c_api {
namespace {

template <typename T>
void Bind(std::vector<T>& list, std::vector<std::string>* names, const std::string& name, T value) {
  for (size_t i = 0; i < names->size(); ++i) {
    if ((*names)[i] == name) {  // binding a name again replaces it, as ORT
      list[i] = std::move(value);
      return;
    }
  }
  names->push_back(name);
  list.push_back(std::move(value));
}

OrtStatus* ORT_API_CALL CreateIoBinding(OrtSession* session, OrtIoBinding** out) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("CreateIoBinding", session);
  ONNX_LIGHT_ORT_ARG("CreateIoBinding", out);
  *out = new OrtIoBinding;
  (*out)->session = session;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("CreateIoBinding")
}
void ORT_API_CALL ReleaseIoBinding(OrtIoBinding* binding) noexcept {
  delete binding;
}
OrtStatus* ORT_API_CALL BindInput(OrtIoBinding* binding, const char* name,
                                  const OrtValue* value) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("BindInput", binding);
  ONNX_LIGHT_ORT_ARG("BindInput", name);
  ONNX_LIGHT_ORT_ARG("BindInput", value);
  for (auto& [bound, v] : binding->inputs) {
    if (bound == name) {
      v = value->value;
      return nullptr;
    }
  }
  binding->inputs.emplace_back(name, value->value);
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("BindInput")
}
OrtStatus* BindOutputValue(OrtIoBinding* binding, const char* name, OrtValue* value) {
  Bind(binding->preallocated, &binding->output_names, name, value);
  return nullptr;
}
// The bound value is the caller's: it must outlive the runs (as in ORT, which shares it).
OrtStatus* ORT_API_CALL BindOutput(OrtIoBinding* binding, const char* name,
                                   const OrtValue* value) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("BindOutput", binding);
  ONNX_LIGHT_ORT_ARG("BindOutput", name);
  ONNX_LIGHT_ORT_ARG("BindOutput", value);
  return BindOutputValue(binding, name, const_cast<OrtValue*>(value));
  ONNX_LIGHT_ORT_CATCH("BindOutput")
}
OrtStatus* ORT_API_CALL BindOutputToDevice(OrtIoBinding* binding, const char* name,
                                           const OrtMemoryInfo* info) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("BindOutputToDevice", binding);
  ONNX_LIGHT_ORT_ARG("BindOutputToDevice", name);
  ONNX_LIGHT_ORT_ARG("BindOutputToDevice", info);
  if (!info->on_cpu()) {
    return Fail(ORT_INVALID_ARGUMENT, "BindOutputToDevice: memory '" + info->name +
                                          "' is not CPU memory (onnx-light runs on the CPU only)");
  }
  return BindOutputValue(binding, name, nullptr);
  ONNX_LIGHT_ORT_CATCH("BindOutputToDevice")
}
void ORT_API_CALL ClearBoundInputs(OrtIoBinding* binding) noexcept {
  if (binding != nullptr) binding->inputs.clear();
}
void ORT_API_CALL ClearBoundOutputs(OrtIoBinding* binding) noexcept {
  if (binding == nullptr) return;
  binding->output_names.clear();
  binding->preallocated.clear();
  binding->results.clear();
}
OrtStatus* ORT_API_CALL SynchronizeBoundInputs(OrtIoBinding* binding) noexcept {
  ONNX_LIGHT_ORT_ARG("SynchronizeBoundInputs", binding);
  return nullptr;  // CPU memory: nothing to wait for
}
OrtStatus* ORT_API_CALL SynchronizeBoundOutputs(OrtIoBinding* binding) noexcept {
  ONNX_LIGHT_ORT_ARG("SynchronizeBoundOutputs", binding);
  return nullptr;
}

OrtStatus* ORT_API_CALL RunWithBinding(OrtSession* session, const OrtRunOptions* run_options,
                                       const OrtIoBinding* binding) noexcept {
  ONNX_LIGHT_ORT_TRY
  ONNX_LIGHT_ORT_ARG("RunWithBinding", session);
  ONNX_LIGHT_ORT_ARG("RunWithBinding", binding);
  auto* b = const_cast<OrtIoBinding*>(binding);  // the run's outputs are kept in it
  if (b->output_names.empty()) {
    return Fail(ORT_INVALID_ARGUMENT, "RunWithBinding: no output is bound");
  }
  std::vector<onnx_light::Value> got;
  if (OrtStatus* st =
          RunSession(session, run_options, b->inputs, b->output_names, &got, "RunWithBinding")) {
    return st;
  }
  std::vector<OrtValue*> outputs = b->preallocated;  // written in place where set
  if (OrtStatus* st = DeliverOutputs(got, b->output_names, outputs.data())) return st;
  b->results.clear();
  for (size_t i = 0; i < outputs.size(); ++i) {
    b->results.push_back(outputs[i]->value);
    if (b->preallocated[i] == nullptr) delete outputs[i];  // kept as the binding's result
  }
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("RunWithBinding")
}

// The bound names back to back in one buffer from `allocator`, with their lengths.
OrtStatus* ORT_API_CALL GetBoundOutputNames(const OrtIoBinding* binding, OrtAllocator* allocator,
                                            char** buffer, size_t** lengths,
                                            size_t* count) noexcept {
  constexpr const char* fn = "GetBoundOutputNames";
  ONNX_LIGHT_ORT_ARG(fn, binding);
  ONNX_LIGHT_ORT_ARG(fn, allocator);
  ONNX_LIGHT_ORT_ARG(fn, buffer);
  ONNX_LIGHT_ORT_ARG(fn, lengths);
  ONNX_LIGHT_ORT_ARG(fn, count);
  *buffer = nullptr;
  *lengths = nullptr;
  *count = binding->output_names.size();
  if (*count == 0) return nullptr;
  size_t total = 0;
  for (const std::string& n : binding->output_names)
    total += n.size();
  auto* chars = static_cast<char*>(allocator->Alloc(allocator, total));
  auto* sizes = static_cast<size_t*>(allocator->Alloc(allocator, *count * sizeof(size_t)));
  if (chars == nullptr || sizes == nullptr) {
    if (chars != nullptr) allocator->Free(allocator, chars);
    if (sizes != nullptr) allocator->Free(allocator, sizes);
    return Fail(ORT_FAIL, "GetBoundOutputNames: out of memory");
  }
  size_t at = 0;
  for (size_t i = 0; i < *count; ++i) {
    const std::string& n = binding->output_names[i];
    if (!n.empty()) std::memcpy(chars + at, n.data(), n.size());
    sizes[i] = n.size();
    at += n.size();
  }
  *buffer = chars;
  *lengths = sizes;
  return nullptr;
}

// The last run's outputs as new values (sharing their data) in an array from `allocator`.
OrtStatus* ORT_API_CALL GetBoundOutputValues(const OrtIoBinding* binding, OrtAllocator* allocator,
                                             OrtValue*** output, size_t* count) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "GetBoundOutputValues";
  ONNX_LIGHT_ORT_ARG(fn, binding);
  ONNX_LIGHT_ORT_ARG(fn, allocator);
  ONNX_LIGHT_ORT_ARG(fn, output);
  ONNX_LIGHT_ORT_ARG(fn, count);
  *output = nullptr;
  *count = binding->results.size();
  if (*count == 0) return nullptr;
  auto** list = static_cast<OrtValue**>(allocator->Alloc(allocator, *count * sizeof(OrtValue*)));
  if (list == nullptr) return Fail(ORT_FAIL, "GetBoundOutputValues: out of memory");
  for (size_t i = 0; i < *count; ++i)
    list[i] = new OrtValue{binding->results[i]};
  *output = list;
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("GetBoundOutputValues")
}

// RunAsync: the run on a thread of its own; the callback gets the outputs (preallocated
// ones written in place) and a status it must release, as ORT hands them.
OrtStatus* ORT_API_CALL RunAsync(OrtSession* session, const OrtRunOptions* run_options,
                                 const char* const* input_names, const OrtValue* const* inputs,
                                 size_t input_len, const char* const* output_names,
                                 size_t output_len, OrtValue** outputs, RunAsyncCallbackFn callback,
                                 void* user_data) noexcept {
  ONNX_LIGHT_ORT_TRY
  constexpr const char* fn = "RunAsync";
  ONNX_LIGHT_ORT_ARG(fn, session);
  ONNX_LIGHT_ORT_ARG(fn, callback);
  std::vector<onnx_light::NamedValue> feeds;
  std::vector<std::string> names;
  if (OrtStatus* st = ParseRun(input_names, inputs, input_len, output_names, output_len, outputs,
                               &feeds, &names, fn)) {
    return st;
  }
  const OrtRunOptions* options = run_options;
  std::thread([=, feeds = std::move(feeds), names = std::move(names)]() noexcept {
    OrtStatus* st = nullptr;
    try {
      std::vector<onnx_light::Value> got;
      st = RunSession(session, options, feeds, names, &got, "RunAsync");
      if (st == nullptr) st = DeliverOutputs(got, names, outputs);
    } catch (...) {
      st = FromCurrentException("RunAsync");
    }
    callback(user_data, outputs, names.size(), st);
  }).detach();
  return nullptr;
  ONNX_LIGHT_ORT_CATCH("RunAsync")
}

}  // namespace

void FillBindingSlots(OrtApi& api) {
  api.CreateIoBinding = &CreateIoBinding;
  api.ReleaseIoBinding = &ReleaseIoBinding;
  api.BindInput = &BindInput;
  api.BindOutput = &BindOutput;
  api.BindOutputToDevice = &BindOutputToDevice;
  api.ClearBoundInputs = &ClearBoundInputs;
  api.ClearBoundOutputs = &ClearBoundOutputs;
  api.SynchronizeBoundInputs = &SynchronizeBoundInputs;
  api.SynchronizeBoundOutputs = &SynchronizeBoundOutputs;
  api.RunWithBinding = &RunWithBinding;
  api.GetBoundOutputNames = &GetBoundOutputNames;
  api.GetBoundOutputValues = &GetBoundOutputValues;
  api.RunAsync = &RunAsync;
}

}  // namespace onnx_light_ort::c_api
