/* A C program written for ONNX Runtime's C API (onnxruntime_c_api.h, linked with
   -lonnxruntime), run on onnx-light's libonnxruntime.so.1 (docs/ort_c_api.md). Runs the
   bundled default model (x [N, 4] -> y) on 2 x 4 values and prints y; exits 1 on any error
   status. The install test builds it against an installed prefix (include/onnx_light_ort/ort,
   lib/onnx_light_ort_c_api).
     run_default MODEL */
#include <stdio.h>
#include <stdlib.h>

#include "onnxruntime_c_api.h"

static const OrtApi* api;

static void check(OrtStatus* status, const char* what) {
  if (status != NULL) {
    fprintf(stderr, "%s: %s\n", what, api->GetErrorMessage(status));
    api->ReleaseStatus(status);
    exit(1);
  }
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  if (api == NULL) return 1;
  OrtEnv* env = NULL;
  check(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "c", &env), "CreateEnv");
  OrtSessionOptions* so = NULL;
  check(api->CreateSessionOptions(&so), "CreateSessionOptions");
  check(api->SetIntraOpNumThreads(so, 1), "SetIntraOpNumThreads");
  OrtSession* session = NULL;
  check(api->CreateSession(env, argv[1], so, &session), "CreateSession");
  OrtMemoryInfo* mem = NULL;
  check(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem), "memory info");
  float x[8] = {-4, -1, 0, 2, 1, 2, 3, 4};
  const int64_t shape[2] = {2, 4};
  OrtValue* input = NULL;
  check(api->CreateTensorWithDataAsOrtValue(mem, x, sizeof(x), shape, 2,
                                            ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &input),
        "CreateTensorWithDataAsOrtValue");
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  OrtValue* output = NULL;
  check(api->Run(session, NULL, in_names, (const OrtValue* const*)&input, 1, out_names, 1, &output),
        "Run");
  float* y = NULL;
  check(api->GetTensorMutableData(output, (void**)&y), "GetTensorMutableData");
  printf("%s y:", OrtGetApiBase()->GetVersionString());
  for (int i = 0; i < 8; ++i)
    printf(" %g", y[i]);
  printf("\n");
  api->ReleaseValue(output);
  api->ReleaseValue(input);
  api->ReleaseMemoryInfo(mem);
  api->ReleaseSession(session);
  api->ReleaseSessionOptions(so);
  api->ReleaseEnv(env);
  return 0;
}
