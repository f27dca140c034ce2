// Runs a model with onnx-light's custom ops under real ONNX Runtime (C API, loaded with
// dlopen): ONNX Runtime executes its own ops and calls onnx-light's kernels through the
// plugin. Usage: run_plugin_with_ort LIBONNXRUNTIME.so PLUGIN.so models/default.onnx
// The default model computes log(1 + leaky_relu(x, 0.2)^2) for x of shape [N, 4].
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "onnxruntime_c_api.h"

namespace {

const OrtApi* g_ort = nullptr;

bool Check(OrtStatus* status, const char* what) {
  if (status == nullptr) return true;
  std::fprintf(stderr, "%s: %s\n", what, g_ort->GetErrorMessage(status));
  g_ort->ReleaseStatus(status);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s LIBONNXRUNTIME.so PLUGIN.so MODEL.onnx\n", argv[0]);
    return 2;
  }
  void* ort = ::dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (ort == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], ::dlerror());
    return 1;
  }
  using GetApiBaseFn = const OrtApiBase* (*)();
  auto get_api_base = reinterpret_cast<GetApiBaseFn>(::dlsym(ort, "OrtGetApiBase"));
  if (get_api_base == nullptr) return 1;
  g_ort = get_api_base()->GetApi(ORT_API_VERSION);
  std::printf("ONNX Runtime %s\n", get_api_base()->GetVersionString());

  std::ifstream file(argv[3], std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  const std::string model = bytes.str();

  OrtEnv* env = nullptr;
  OrtSessionOptions* options = nullptr;
  OrtSession* session = nullptr;
  OrtMemoryInfo* memory = nullptr;
  OrtValue* input = nullptr;
  OrtValue* output = nullptr;
  int rc = 1;
  const float x[8] = {-1, 0, 0.5f, 2, -3, 4, -0.25f, 1};
  const int64_t shape[2] = {2, 4};
  const char* input_names[1] = {"x"};
  const char* output_names[1] = {"y"};
  if (Check(g_ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "onnx-light", &env), "CreateEnv") &&
      Check(g_ort->CreateSessionOptions(&options), "CreateSessionOptions") &&
      Check(g_ort->SetIntraOpNumThreads(options, 1), "SetIntraOpNumThreads") &&
      Check(g_ort->RegisterCustomOpsLibrary_V2(options, argv[2]), "RegisterCustomOpsLibrary_V2") &&
      Check(g_ort->CreateSessionFromArray(env, model.data(), model.size(), options, &session),
            "CreateSessionFromArray") &&
      Check(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &memory),
            "CreateCpuMemoryInfo") &&
      Check(g_ort->CreateTensorWithDataAsOrtValue(memory, const_cast<float*>(x), sizeof(x), shape,
                                                  2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &input),
            "CreateTensorWithDataAsOrtValue") &&
      Check(g_ort->Run(session, nullptr, input_names, &input, 1, output_names, 1, &output),
            "Run")) {
    float* y = nullptr;
    if (Check(g_ort->GetTensorMutableData(output, reinterpret_cast<void**>(&y)), "data")) {
      rc = 0;
      std::printf("y =");
      for (int i = 0; i < 8; ++i) {
        const float h = x[i] < 0 ? 0.2f * x[i] : x[i];
        const float want = std::log(1.0f + h * h);
        std::printf(" %.6g", y[i]);
        if (std::fabs(y[i] - want) > 1e-6f * std::fmax(1.0f, want)) rc = 1;
      }
      std::printf("\n%s\n", rc == 0 ? "matches log(1 + leaky_relu(x, 0.2)^2)" : "MISMATCH");
    }
  }
  if (output) g_ort->ReleaseValue(output);
  if (input) g_ort->ReleaseValue(input);
  if (memory) g_ort->ReleaseMemoryInfo(memory);
  if (session) g_ort->ReleaseSession(session);
  if (options) g_ort->ReleaseSessionOptions(options);
  if (env) g_ort->ReleaseEnv(env);
  return rc;
}
