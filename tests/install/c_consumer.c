/* Runs models/default.onnx, y = log(LeakyRelu(x, 0.2)^2 + 1), through the installed C ABI
 * and checks y against the formula in double (tolerance 1e-5). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "onnx_light/c_api.h"

int main(int argc, char** argv) {
  OnnxLightSession* session = NULL;
  OnnxLightSessionOptions* options = NULL;
  float x[8] = {-3.0f, -1.0f, -0.25f, 0.0f, 0.5f, 2.0f, 7.0f, 100.0f};
  int64_t shape[2] = {2, 4};
  OnnxLightTensor input;
  OnnxLightTensor output;
  int i;
  int bad = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: c_consumer models/default.onnx\n");
    return 2;
  }
  /* As a service would: a memory budget (1 MiB, plenty for this model) and two threads. */
  if (OnnxLightSessionOptionsCreate(&options) != 0 ||
      OnnxLightSessionOptionsSetMemoryBudget(options, 1u << 20) != 0 ||
      OnnxLightSessionOptionsSetIntraOpThreads(options, 2) != 0 ||
      OnnxLightSessionCreateFromFileWithOptions(argv[1], options, &session) != 0) {
    fprintf(stderr, "create: %s\n", OnnxLightLastErrorMessage());
    OnnxLightSessionOptionsRelease(options);
    return 1;
  }
  OnnxLightSessionOptionsRelease(options);
  memset(&input, 0, sizeof input);
  input.name = "x";
  input.data = x;
  input.element_type = 1; /* FLOAT */
  input.element_count = 8;
  input.rank = 2;
  input.shape = shape;
  if (OnnxLightRun(session, &input, 1, &output) != 0) {
    fprintf(stderr, "run: %s\n", OnnxLightLastErrorMessage());
    OnnxLightSessionRelease(session);
    return 1;
  }
  for (i = 0; i < 8; ++i) {
    double h = x[i] < 0 ? 0.2 * x[i] : x[i];
    double want = log(h * h + 1.0);
    double got = ((const float*)output.data)[i];
    if (fabs(got - want) > 1e-5) {
      fprintf(stderr, "y[%d] = %.8g, want %.8g\n", i, got, want);
      bad = 1;
    }
  }
  if (output.element_count != 8) bad = 1;
  OnnxLightTensorRelease(&output);
  OnnxLightSessionRelease(session);
  if (!bad) printf("c_consumer: 8 values of y match through the C ABI\n");
  return bad;
}
