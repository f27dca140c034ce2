// Google Benchmark: one LightOrtRunTyped call (C ABI, no Python) on N float32 elements
// through the example plugin. Usage: bridge_host_bench PLUGIN.so MODEL.onnx [gbench flags]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "onnx_light_ort/bridge_ops_ort_called_by_light/host.h"

namespace {

std::string g_plugin;
std::string g_model;

void BM_LightOrtRunTyped(benchmark::State& state) {
  LightOrtSession* session = nullptr;
  if (LightOrtSessionCreate(g_plugin.c_str(), g_model.data(), g_model.size(), &session) != 0) {
    state.SkipWithError(LightOrtLastErrorMessage());
    return;
  }
  const int64_t n = state.range(0);
  std::vector<float> x(static_cast<size_t>(n), -1.5f);
  const int64_t shape[1] = {n};
  for (auto _ : state) {
    LightOrtTensor y;
    if (LightOrtRunTyped(session, x.data(), 1, static_cast<uint64_t>(n), shape, 1, &y) != 0) {
      state.SkipWithError(LightOrtLastErrorMessage());
      break;
    }
    benchmark::DoNotOptimize(y.data);
    LightOrtTensorRelease(&y);
  }
  state.SetBytesProcessed(state.iterations() * n * 8);
  LightOrtSessionRelease(session);
}
BENCHMARK(BM_LightOrtRunTyped)->Arg(1)->Arg(1 << 20)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s PLUGIN.so MODEL.onnx [benchmark flags]\n", argv[0]);
    return 2;
  }
  g_plugin = argv[1];
  std::ifstream f(argv[2], std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  g_model = ss.str();
  int rest = argc - 2;
  argv[2] = argv[0];
  benchmark::Initialize(&rest, argv + 2);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
