// libFuzzer target for the C ABI (include/onnx_light/c_api.h), as a C caller meets it:
// the input is 16 bytes that steer the calls, then a model. The model goes through
// OnnxLightSessionCreateWithOptions (a tensor cap and a budget, as a service sets them);
// the feeds are made for its declared inputs and then bent by the steering bytes the way
// a careless caller bends them: a wrong element type or element count, a shape of another
// rank or with negative or huge dimensions, a null or misaligned data pointer, a null,
// unknown or repeated name, inputs missing or extra, null arguments, run options already
// terminated or with a 1 ms deadline. The fuzzer never lies about memory (every buffer
// holds what its element count says), so the C ABI must answer each call with a code and
// a message, and never crash, leak or hang.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "onnx_light/c_api.h"
#include "onnx_light/core/data_type.h"
#include "onnx_light/onnx/model_io.h"

namespace {

constexpr size_t kSteering = 16;
constexpr uint64_t kMaxBufferBytes = 1 << 20;

struct Feed {
  std::string name;
  int32_t type = 1;
  std::vector<int64_t> dims;
  uint64_t count = 0;
  std::vector<uint64_t> storage;  // 8-byte aligned
  size_t offset = 0;              // bytes into storage (1: a misaligned pointer)
  bool null_name = false, null_data = false, null_shape = false;
};

void Check(int32_t code) {
  // Every failure carries a message; success clears it.
  const char* message = OnnxLightLastErrorMessage();
  if (message == nullptr || (code != 0 && message[0] == '\0')) __builtin_trap();
  // The C ABI's own handlers (an exception outside the kernels) answer with these exactly.
  if (code != 0 && (std::strcmp(message, "unexpected exception") == 0 ||
                    std::strcmp(message, "out of memory") == 0)) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kSteering) return 0;
  FuzzedDataProvider steer(data, kSteering);
  const uint8_t* model = data + kSteering;
  const size_t model_size = size - kSteering;

  const KernelExceptionWatch watch;
  // Limits, as a service sets them (without, a few hundred bytes of model ask for 4 GB and
  // get it): 64 MiB per tensor and a budget of 256 MiB or of 4 KiB; one thread or two.
  OnnxLightSessionOptions* session_options = nullptr;
  Check(OnnxLightSessionOptionsCreate(&session_options));
  Check(OnnxLightSessionOptionsSetMaxTensorBytes(session_options, uint64_t{64} << 20));
  Check(OnnxLightSessionOptionsSetMemoryBudget(
      session_options, steer.ConsumeIntegralInRange(0, 7) == 0 ? 4096 : uint64_t{256} << 20));
  Check(OnnxLightSessionOptionsSetIntraOpThreads(session_options,
                                                 steer.ConsumeIntegralInRange(0, 7) == 0 ? 2 : 1));
  OnnxLightSession* session = nullptr;
  int32_t code = OnnxLightSessionCreateWithOptions(model, model_size, session_options, &session);
  OnnxLightSessionOptionsRelease(session_options);
  Check(code);
  watch.Check();
  if (code != 0) {
    if (session != nullptr) __builtin_trap();
    return 0;
  }
  // The declared inputs, as a C caller would know them from the model.
  auto proto = onnx_light::onnx::LoadModelFromBytes(model, model_size);
  if (!proto.ok()) __builtin_trap();  // the session parsed these bytes
  std::vector<std::string> initializers;
  for (const auto& t : proto->graph->initializer)
    initializers.push_back(t.name.get());

  std::vector<Feed> feeds;
  size_t value_byte = 0;
  for (const auto& vi : proto->graph->input) {
    bool is_initializer = false;
    for (const std::string& n : initializers)
      is_initializer |= n == vi.name.get();
    if (is_initializer) continue;
    Feed f;
    f.name = vi.name.get();
    if (vi.type.has() && vi.type->tensor_type.has()) {
      f.type = vi.type->tensor_type->elem_type.get();
      if (vi.type->tensor_type->shape.has()) {
        for (const auto& d : vi.type->tensor_type->shape->dim) {
          f.dims.push_back(d.dim_value.has() ? d.dim_value.get() : 2);
        }
      }
    }
    // Bend it (0-7 of 16: left as the model declares).
    switch (steer.ConsumeIntegralInRange(0, 15)) {
      case 8:
        f.type = steer.ConsumeIntegralInRange<int32_t>(-1, 30);
        break;
      case 9:
        f.dims.push_back(steer.ConsumeIntegralInRange<int64_t>(0, 3));
        break;
      case 10:
        if (!f.dims.empty()) f.dims.pop_back();
        break;
      case 11:
        f.dims.assign(steer.ConsumeIntegralInRange<size_t>(0, 40), 1);
        break;
      case 12:
        f.dims.push_back(steer.ConsumeBool() ? -1 : INT64_MAX);
        break;
      case 13:
        f.null_name = true;
        break;
      case 14:
        f.null_shape = !f.dims.empty();
        break;
      case 15:
        f.offset = 1;
        break;
      default:
        break;
    }
    uint64_t count = 1;
    bool huge = false;
    for (int64_t d : f.dims) {
      if (d < 0 || d > (int64_t{1} << 20) || (d > 0 && count > (uint64_t{1} << 40) / d)) {
        huge = true;
        break;
      }
      count *= static_cast<uint64_t>(d);
    }
    f.count = huge ? 1 : count;
    if (steer.ConsumeIntegralInRange(0, 7) == 0) f.count += steer.ConsumeIntegralInRange(-1, 1);
    auto bits = onnx_light::DataTypeFromInt(f.type);
    const int width = bits.ok() ? onnx_light::DataTypeBitWidth(*bits) : 8;
    const uint64_t bytes = (f.count * static_cast<uint64_t>(width > 0 ? width : 8) + 7) / 8;
    if (bytes > kMaxBufferBytes) {
      f.null_data = true;  // too much to bother: a null pointer with the count it claims
    } else {
      f.storage.resize(bytes / 8 + 2);
      // The values: the model's bytes, from where the last feed stopped, round and round
      // (copied a run at a time: a byte loop here, instrumented, was half of all time).
      auto* p = reinterpret_cast<uint8_t*>(f.storage.data());
      const size_t n = f.storage.size() * 8;
      for (size_t i = 0; i < n && model_size > 0;) {
        const size_t at = value_byte % model_size;
        const size_t run = std::min(n - i, model_size - at);
        std::memcpy(p + i, model + at, run);
        i += run;
        value_byte += run;
      }
      f.null_data = f.count > 0 && steer.ConsumeIntegralInRange(0, 31) == 0;
    }
    feeds.push_back(std::move(f));
  }
  // Missing, extra and repeated inputs.
  switch (steer.ConsumeIntegralInRange(0, 7)) {
    case 0:
      if (!feeds.empty()) feeds.pop_back();
      break;
    case 1: {
      Feed extra;
      extra.name = steer.ConsumeBool() || feeds.empty() ? "no such input" : feeds[0].name;
      extra.storage.resize(1);
      extra.dims = {1};
      extra.count = 1;
      feeds.push_back(std::move(extra));
      break;
    }
    default:
      break;
  }

  std::vector<OnnxLightTensor> in(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) {
    const Feed& f = feeds[i];
    in[i].name = f.null_name ? nullptr : f.name.c_str();
    in[i].data = f.null_data ? nullptr
                             : reinterpret_cast<uint8_t*>(const_cast<uint64_t*>(f.storage.data())) +
                                   f.offset;
    in[i].element_type = f.type;
    in[i].element_count = f.count;
    in[i].rank = f.dims.size();
    in[i].shape = f.null_shape ? nullptr : f.dims.data();
    in[i].internal = nullptr;
  }
  const size_t n_out = OnnxLightSessionOutputCount(session);
  std::vector<OnnxLightTensor> out(n_out + 1);
  OnnxLightRunOptions* options = nullptr;
  switch (steer.ConsumeIntegralInRange(0, 7)) {
    case 0:
      Check(OnnxLightRunOptionsCreate(&options));
      OnnxLightRunOptionsTerminate(options);
      break;
    case 1:
      Check(OnnxLightRunOptionsCreate(&options));
      OnnxLightRunOptionsSetTimeoutMs(options, steer.ConsumeBool() ? 1 : UINT64_MAX);
      break;
    default:
      Check(OnnxLightRunOptionsCreate(&options));
      OnnxLightRunOptionsSetTimeoutMs(options, 1000);  // a fuzzed Loop may never end
      break;
  }
  switch (steer.ConsumeIntegralInRange(0, 15)) {
    case 0:
      code = OnnxLightRunWithOptions(nullptr, in.data(), in.size(), out.data(), options);
      break;
    case 1:
      code = OnnxLightRunWithOptions(session, nullptr, in.size() + 1, out.data(), options);
      break;
    case 2:
      code = OnnxLightRunWithOptions(session, in.data(), in.size(), nullptr, options);
      break;
    default:
      code = OnnxLightRunWithOptions(session, in.data(), in.size(), out.data(), options);
      break;
  }
  Check(code);
  watch.Check();
  if (code == 0) {
    for (size_t i = 0; i < n_out; ++i) {
      if (out[i].name == nullptr || (out[i].element_count > 0 && out[i].data == nullptr))
        __builtin_trap();
      OnnxLightTensorRelease(&out[i]);
      OnnxLightTensorRelease(&out[i]);  // a second release is a no-op
    }
  }
  OnnxLightRunOptionsRelease(options);
  OnnxLightSessionRelease(session);
  return 0;
}
