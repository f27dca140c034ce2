/* Runs an ONNX Runtime custom-op plugin on a one-node model through onnx-light's host,
 * from C: build/examples/host_example PLUGIN.so MODEL.onnx
 * The model's input is fed 1, -2, 3, -4 (float32, shape [2, 2]). */
#include <stdio.h>
#include <stdlib.h>

#include "onnx_light_ort/bridge_ops_ort_called_by_light/host.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s PLUGIN.so MODEL.onnx\n", argv[0]);
    return 2;
  }
  FILE* f = fopen(argv[2], "rb");
  if (f == NULL) {
    perror(argv[2]);
    return 1;
  }
  /* Read one byte past the host's limit, so a larger file is reported, not cut short. */
  static char model[LIGHT_ORT_MAX_MODEL_BYTES + 1];
  const size_t size = fread(model, 1, sizeof(model), f);
  const int read_error = ferror(f);
  fclose(f);
  if (read_error) {
    fprintf(stderr, "%s: read error\n", argv[2]);
    return 1;
  }
  if (size > LIGHT_ORT_MAX_MODEL_BYTES) {
    fprintf(stderr, "%s: model file is over the host's limit of %u bytes (16 MiB)\n", argv[2],
            (unsigned)LIGHT_ORT_MAX_MODEL_BYTES);
    return 1;
  }

  LightOrtSession* session = NULL;
  if (LightOrtSessionCreate(argv[1], model, size, &session) != LIGHT_ORT_OK) {
    fprintf(stderr, "create: %s\n", LightOrtLastErrorMessage());
    return 1;
  }
  const float x[4] = {1, -2, 3, -4};
  const int64_t shape[2] = {2, 2};
  LightOrtTensor y;
  if (LightOrtRun(session, x, 4, shape, 2, &y) != LIGHT_ORT_OK) {
    fprintf(stderr, "run: %s\n", LightOrtLastErrorMessage());
    LightOrtSessionRelease(session);
    return 1;
  }
  const float* out = (const float*)y.data;
  printf("y shape [%lld, %lld]: %g %g %g %g\n", (long long)y.shape[0], (long long)y.shape[1],
         out[0], out[1], out[2], out[3]);
  LightOrtTensorRelease(&y);
  LightOrtSessionRelease(session); /* releases the kernels, then unloads the plugin */
  return 0;
}
