// libFuzzer target for the plugin host's C ABI (onnx_light_ort/.../host.h) with the test
// plugin (every op kind it has: Double for four float types, Counter, NeedsScale,
// FailCompute, WritesInput, BadOutput). The fuzzer's bytes build the model (one node or
// several, of a plugin op, an unknown op or a standard one; attributes of any type;
// declared types right or wrong; or the raw bytes themselves as the model) and the run
// (element type, count, shape of any rank with negative or huge dimensions, a null or
// misaligned pointer, through LightOrtRunTyped or LightOrtRun). The fuzzer never lies
// about memory (a buffer holds what its count says). Every call must return a code with a
// message, and nothing may crash, leak or hang.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "onnx_light/onnx/message.h"
#include "onnx_light/onnx/onnx.h"
#include "onnx_light_ort/bridge_ops_ort_called_by_light/host.h"

#ifndef FUZZ_TEST_PLUGIN
#error "define FUZZ_TEST_PLUGIN (the test plugin's path)"
#endif

namespace {

namespace onnx = onnx_light::onnx;

constexpr const char* kOps[] = {"Double",    "Counter", "NeedsScale", "FailCompute", "WritesInput",
                                "BadOutput", "Double",  "Double",     "Relu",        "NoSuchOp",
                                ""};
constexpr const char* kDomains[] = {"test.plugin", "test.plugin", "test.plugin", "", "other"};
constexpr int32_t kTypes[] = {1, 1, 1, 10, 16, 11, 7, 6, 9, 0, 8, 3};
constexpr uint64_t kMaxBufferBytes = 1 << 20;

void Check(int32_t code) {
  const char* message = LightOrtLastErrorMessage();
  if (message == nullptr || (code != 0 && message[0] == '\0')) __builtin_trap();
}

template <typename T, size_t N>
const T& Pick(FuzzedDataProvider& fdp, const T (&table)[N]) {
  return table[fdp.ConsumeIntegralInRange<size_t>(0, N - 1)];
}

onnx::ValueInfoProto Info(const std::string& name, int32_t type, FuzzedDataProvider& fdp) {
  onnx::ValueInfoProto vi;
  vi.name = name;
  if (fdp.ConsumeIntegralInRange(0, 7) != 0) {
    onnx::TypeProto_Tensor* t = vi.type.mutable_get()->tensor_type.mutable_get();
    t->elem_type = type;
    if (fdp.ConsumeBool()) {
      onnx::TensorShapeProto* shape = t->shape.mutable_get();
      const int rank = fdp.ConsumeIntegralInRange(0, 3);
      for (int d = 0; d < rank; ++d) {
        if (fdp.ConsumeBool()) {
          shape->dim.Add()->dim_param = std::string("n");
        } else {
          shape->dim.Add()->dim_value = fdp.ConsumeIntegralInRange<int64_t>(0, 5);
        }
      }
    }
  } else if (fdp.ConsumeBool()) {  // a sequence where a tensor belongs
    vi.type.mutable_get()
        ->sequence_type.mutable_get()
        ->elem_type.mutable_get()
        ->tensor_type.mutable_get()
        ->elem_type = type;
  }
  return vi;
}

std::string BuildModel(FuzzedDataProvider& fdp) {
  onnx::ModelProto m;
  m.ir_version = fdp.ConsumeIntegralInRange<int64_t>(3, 10);
  const char* domain = Pick(fdp, kDomains);
  for (const char* d : {"", "test.plugin"}) {
    if (fdp.ConsumeIntegralInRange(0, 7) == 0) continue;
    onnx::OperatorSetIdProto* o = m.opset_import.Add();
    o->domain = std::string(d);
    o->version = fdp.ConsumeIntegralInRange<int64_t>(0, 20);
  }
  onnx::GraphProto* g = m.graph.mutable_get();
  g->name = std::string("g");
  const int32_t type = Pick(fdp, kTypes);
  const int nodes = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(0, 2) : 1;
  std::string value = "x";
  for (int i = 0; i < nodes; ++i) {
    onnx::NodeProto n;
    n.op_type = std::string(Pick(fdp, kOps));
    n.domain = std::string(domain);
    const int inputs = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(0, 3) : 1;
    for (int k = 0; k < inputs; ++k)
      n.input.push_back(k == 0 ? value : "");
    value = "v" + std::to_string(i);
    const int outputs =
        fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(0, 3) : 1;
    for (int k = 0; k < outputs; ++k)
      n.output.push_back(k == 0 ? value : "w" + std::to_string(k));
    const int attributes = fdp.ConsumeIntegralInRange(0, 2);
    for (int k = 0; k < attributes; ++k) {
      onnx::AttributeProto* a = n.attribute.Add();
      a->name = std::string(fdp.ConsumeBool() ? "scale" : fdp.ConsumeBool() ? "case" : "other");
      a->type = fdp.ConsumeIntegralInRange<int32_t>(0, 8);
      a->i = fdp.ConsumeIntegralInRange<int64_t>(-2, 4);
      a->f = fdp.ConsumeFloatingPoint<float>();
      if (fdp.ConsumeBool()) a->s = std::string("s");
      if (fdp.ConsumeBool()) a->ints = {1, 2};
    }
    g->node.push_back(std::move(n));
  }
  g->input.push_back(
      Info("x", fdp.ConsumeIntegralInRange(0, 7) == 0 ? Pick(fdp, kTypes) : type, fdp));
  if (fdp.ConsumeIntegralInRange(0, 15) == 0) g->input.push_back(Info("x2", type, fdp));
  g->output.push_back(Info(fdp.ConsumeIntegralInRange(0, 15) == 0 ? "nowhere" : value,
                           fdp.ConsumeIntegralInRange(0, 7) == 0 ? Pick(fdp, kTypes) : type, fdp));
  if (fdp.ConsumeIntegralInRange(0, 15) == 0) {
    onnx::TensorProto t;
    t.name = std::string(fdp.ConsumeBool() ? "x" : "c");
    t.data_type = type;
    t.dims = {1};
    t.raw_data = onnx::Bytes(std::string(8, '\0'));
    g->initializer.push_back(std::move(t));
  }
  return onnx::SerializeToString(m);
}

}  // namespace

// The host loads the plugin for each session and unloads it with the session, as in use.
// Under ASan and libFuzzer each unload walks glibc's exit-handler list, which grows with
// every load: one process slows from ~4,000 to ~400 executions a second within the hour
// (perf: 83% in __cxa_finalize; a plain build stays flat at 65 us per create and release).
// Long campaigns restart the process instead (scripts/fuzz.sh FUZZ_CHUNK). Holding the
// plugin open here would hide unloading and let the plugin's domains pile up (it keeps
// every domain it registers until unload), which sends LSan scanning after every input.

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  std::string model;
  if (fdp.ConsumeIntegralInRange(0, 15) == 0) {
    model = fdp.ConsumeRandomLengthString(4096);  // bytes as they come
  } else {
    model = BuildModel(fdp);
  }
  const char* path =
      fdp.ConsumeIntegralInRange(0, 31) == 0 ? "/nonexistent/plugin.so" : FUZZ_TEST_PLUGIN;
  LightOrtSession* session = nullptr;
  int32_t code = LightOrtSessionCreate(path, model.data(), model.size(), &session);
  Check(code);
  if (code != 0) {
    if (session != nullptr) __builtin_trap();
    return 0;
  }
  const int runs = fdp.ConsumeIntegralInRange(1, 3);
  for (int r = 0; r < runs; ++r) {
    int32_t type = LightOrtSessionElementType(session);
    if (fdp.ConsumeIntegralInRange(0, 7) == 0) type = Pick(fdp, kTypes);
    std::vector<int64_t> shape;
    const size_t rank = fdp.ConsumeIntegralInRange(0, 15) == 0
                            ? fdp.ConsumeIntegralInRange<size_t>(0, 20)
                            : fdp.ConsumeIntegralInRange<size_t>(0, 4);
    uint64_t count = 1;
    for (size_t d = 0; d < rank; ++d) {
      int64_t v = fdp.ConsumeIntegralInRange<int64_t>(0, 9);
      switch (fdp.ConsumeIntegralInRange(0, 31)) {
        case 0:
          v = -1;
          break;
        case 1:
          v = INT64_MAX;
          break;
        case 2:
          v = int64_t{1} << 31;
          break;
        default:
          break;
      }
      shape.push_back(v);
      count = v < 0 || (v > 0 && count > UINT64_MAX / static_cast<uint64_t>(v)) ? 0 : count * v;
    }
    if (fdp.ConsumeIntegralInRange(0, 7) == 0) count += fdp.ConsumeIntegralInRange(-1, 1);
    const bool float_entry = fdp.ConsumeIntegralInRange(0, 3) == 0;  // LightOrtRun
    if (float_entry) type = 1;
    const uint64_t elem = type == 11 || type == 7 ? 8 : type == 1 || type == 6 ? 4 : 2;
    std::vector<uint64_t> storage;
    const void* input = nullptr;
    if (count <= kMaxBufferBytes / elem && fdp.ConsumeIntegralInRange(0, 31) != 0) {
      storage.resize(count * elem / 8 + 2);
      for (size_t i = 0; i < storage.size(); ++i)
        storage[i] = 0x3f8000003f800000ull * (i & 3);
      input = reinterpret_cast<const uint8_t*>(storage.data()) +
              (fdp.ConsumeIntegralInRange(0, 31) == 0 ? 1 : 0);
    }
    LightOrtTensor out{};
    if (float_entry) {
      code = LightOrtRun(session, static_cast<const float*>(input), count, shape.data(), rank,
                         fdp.ConsumeIntegralInRange(0, 31) == 0 ? nullptr : &out);
    } else {
      code = LightOrtRunTyped(session, input, type, count,
                              fdp.ConsumeIntegralInRange(0, 31) == 0 ? nullptr : shape.data(), rank,
                              &out);
    }
    Check(code);
    if (code == 0 && out.element_count > 0 && out.data == nullptr) __builtin_trap();
    LightOrtTensorRelease(&out);
    LightOrtTensorRelease(&out);
  }
  LightOrtSessionRelease(session);
  return 0;
}
