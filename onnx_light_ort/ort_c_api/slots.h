// What libonnxruntime.so.1 on onnx-light says about its OrtApi table (for tests and docs):
// the number of slots, each slot's name, and whether onnx-light implements it.
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// The table's size (ORT_API_VERSION 29: 425).
size_t OnnxLightOrtApiSlotCount(void);
// The name of slot `index` (its OrtApi member), or NULL past the end.
const char* OnnxLightOrtApiSlotName(size_t index);
// 0: implemented; 1: a stub (ORT_NOT_IMPLEMENTED naming the function, a no-op, or NULL);
// -1 past the end.
int OnnxLightOrtApiSlotIsStub(size_t index);

#ifdef __cplusplus
}
#endif
