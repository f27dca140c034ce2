// Per-call overhead of a run through ORT's C API (on whichever libonnxruntime.so.1 the loader
// finds: onnx-light's or real ORT's) or through onnx-light's own C ABI, for
// bench/ort_c_api_vs_ort.py.
//
//   ort_c_api_run ort|light MODEL ELEMENTS SECONDS
//
// MODEL has one float input x and one output y, both [1, ELEMENTS]. Each call runs it on a
// tensor over the program's buffer and releases the output, as a program does. Prints the
// median microseconds per call over 5 batches.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "onnx_light/c_api.h"
#include "onnxruntime_c_api.h"

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double MedianMicros(F call, double seconds) {
  call();
  auto t0 = Clock::now();
  call();
  const double one = std::max(std::chrono::duration<double>(Clock::now() - t0).count(), 1e-7);
  const auto reps = std::max<long>(1, static_cast<long>(seconds / 5 / one));
  std::vector<double> per;
  for (int b = 0; b < 5; ++b) {
    t0 = Clock::now();
    for (long i = 0; i < reps; ++i)
      call();
    per.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / reps * 1e6);
  }
  std::sort(per.begin(), per.end());
  return per[2];
}

void Check(const OrtApi* api, OrtStatus* st) {
  if (st != nullptr) {
    std::fprintf(stderr, "error: %s\n", api->GetErrorMessage(st));
    std::exit(1);
  }
}

double ViaOrtCApi(const char* model, std::vector<float>& x, double seconds) {
  const OrtApi* api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtEnv* env = nullptr;
  Check(api, api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "bench", &env));
  OrtSessionOptions* so = nullptr;
  Check(api, api->CreateSessionOptions(&so));
  Check(api, api->SetIntraOpNumThreads(so, 1));
  Check(api, api->SetInterOpNumThreads(so, 1));
  OrtSession* session = nullptr;
  Check(api, api->CreateSession(env, model, so, &session));
  OrtMemoryInfo* mem = nullptr;
  Check(api, api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem));
  const int64_t shape[2] = {1, static_cast<int64_t>(x.size())};
  OrtValue* input = nullptr;
  Check(api, api->CreateTensorWithDataAsOrtValue(mem, x.data(), x.size() * sizeof(float), shape, 2,
                                                 ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &input));
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  const double us = MedianMicros(
      [&] {
        OrtValue* out = nullptr;
        Check(api, api->Run(session, nullptr, in_names, &input, 1, out_names, 1, &out));
        api->ReleaseValue(out);
      },
      seconds);
  api->ReleaseValue(input);
  api->ReleaseMemoryInfo(mem);
  api->ReleaseSession(session);
  api->ReleaseSessionOptions(so);
  api->ReleaseEnv(env);
  return us;
}

double ViaOwnCAbi(const char* model, std::vector<float>& x, double seconds) {
  OnnxLightSession* session = nullptr;
  if (OnnxLightSessionCreateFromFile(model, &session) != 0) {
    std::fprintf(stderr, "error: %s\n", OnnxLightLastErrorMessage());
    std::exit(1);
  }
  const int64_t shape[2] = {1, static_cast<int64_t>(x.size())};
  OnnxLightTensor input{"x", x.data(), 1, x.size(), 2, shape, nullptr};
  const double us = MedianMicros(
      [&] {
        OnnxLightTensor out{};
        if (OnnxLightRun(session, &input, 1, &out) != 0) std::exit(1);
        OnnxLightTensorRelease(&out);
      },
      seconds);
  OnnxLightSessionRelease(session);
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: ort_c_api_run ort|light MODEL ELEMENTS SECONDS\n");
    return 2;
  }
  std::vector<float> x(static_cast<size_t>(std::atol(argv[3])), 0.5f);
  const double seconds = std::atof(argv[4]);
  const double us = std::string(argv[1]) == "ort" ? ViaOrtCApi(argv[2], x, seconds)
                                                  : ViaOwnCAbi(argv[2], x, seconds);
  std::printf("%.3f\n", us);
  return 0;
}
