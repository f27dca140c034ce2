/*
 * The C ABI of the onnx-light runtime (libonnx_light.so): load a model, run it on raw
 * buffers. Nothing else is exported from the library, so a reduced-operator, size-optimised
 * build keeps only what these functions need (see docs/binary_size.md).
 */
#ifndef ONNX_LIGHT_C_API_H_
#define ONNX_LIGHT_C_API_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define ONNX_LIGHT_C_EXPORT __attribute__((visibility("default")))
#else
#define ONNX_LIGHT_C_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct OnnxLightSession OnnxLightSession;

/* A tensor: `element_count` elements of ONNX element type `element_type` at `data`, with
 * `rank` dimensions in `shape`. Outputs own their storage until OnnxLightTensorRelease.
 * An input is refused (INVALID_ARGUMENT) unless element_count is the product of its
 * dimensions, `shape` is non-null for rank > 0, `data` is non-null for a non-empty tensor
 * and aligned for its type. Strings do not pass: a model with a string input or output is
 * refused at creation (NOT_IMPLEMENTED). */
typedef struct OnnxLightTensor {
  const char* name;
  void* data;
  int32_t element_type;
  uint64_t element_count;
  size_t rank;
  const int64_t* shape;
  void* internal; /* the runtime's; zero it for inputs */
} OnnxLightTensor;

/* Return codes: 0 on success, else the onnx_light::StatusCode value; the message of the
 * last error on this thread is OnnxLightLastErrorMessage().
 *
 * Threads: any number of threads may call OnnxLightRun on one session at once (each run
 * works in its own frame). OnnxLightSessionRelease must not overlap another call on the
 * same session. Outputs belong to the caller and may be released from any thread. */
ONNX_LIGHT_C_EXPORT int32_t OnnxLightSessionCreate(const void* model, size_t size,
                                                   OnnxLightSession** session);
ONNX_LIGHT_C_EXPORT int32_t OnnxLightSessionCreateFromFile(const char* path,
                                                           OnnxLightSession** session);
/* Session options: the limits a service sets so that a hostile model fails with a code
 * instead of taking the machine (defaults: those of OnnxLightSessionCreate). A setter
 * answers 1 (INVALID_ARGUMENT) for a null options or a value out of its range and leaves
 * the option as it was. One options object may serve any number of creations. */
typedef struct OnnxLightSessionOptions OnnxLightSessionOptions;
ONNX_LIGHT_C_EXPORT int32_t OnnxLightSessionOptionsCreate(OnnxLightSessionOptions** options);
ONNX_LIGHT_C_EXPORT void OnnxLightSessionOptionsRelease(OnnxLightSessionOptions* options);
/* The most bytes the tensors a run's nodes make may hold at once, per run (intermediates
 * and outputs, not the feeds or weights): a run that would pass it fails with 8
 * (RESOURCE_EXHAUSTED) before allocating. Constant folding stays under it too. 0 (the
 * default): no budget. */
ONNX_LIGHT_C_EXPORT int32_t OnnxLightSessionOptionsSetMemoryBudget(OnnxLightSessionOptions* options,
                                                                   uint64_t bytes);
/* The most bytes of any one tensor: more fails with 3 (OUT_OF_RANGE) before allocating.
 * At least 1; default 16 GiB. */
ONNX_LIGHT_C_EXPORT int32_t
OnnxLightSessionOptionsSetMaxTensorBytes(OnnxLightSessionOptions* options, uint64_t bytes);
/* Threads for one kernel, the caller's included: 1 (the default) to 1024, or 0 for one
 * per physical core this process may use. */
ONNX_LIGHT_C_EXPORT int32_t
OnnxLightSessionOptionsSetIntraOpThreads(OnnxLightSessionOptions* options, int32_t threads);
/* Session-level registration of an ONNX Runtime custom-op library (ORT's
 * RegisterCustomOpsLibrary; docs/custom_ops_ort_called_by_light.md): loads the library at
 * `path` (resolved to an absolute path first) in the named audited profile and layers its
 * kernels over the built-in ones for every session made with these options; the library
 * stays loaded while any of them (or the options) lives. `profile` must be
 * ONNX_LIGHT_PLUGIN_PROFILE_EXTENSIONS (the initial profile is the LightOrt* C ABI's).
 * Errors: a missing file (NOT_FOUND), a library without RegisterCustomOps or a refused
 * registration (INVALID_ARGUMENT), another profile (INVALID_ARGUMENT). */
#define ONNX_LIGHT_PLUGIN_PROFILE_EXTENSIONS 1
ONNX_LIGHT_C_EXPORT int32_t OnnxLightSessionOptionsRegisterCustomOpsLibrary(
    OnnxLightSessionOptions* options, const char* path, int32_t profile);
/* OnnxLightSessionCreate and ...FromFile with options (null: the defaults). */
ONNX_LIGHT_C_EXPORT int32_t OnnxLightSessionCreateWithOptions(
    const void* model, size_t size, const OnnxLightSessionOptions* options,
    OnnxLightSession** session);
ONNX_LIGHT_C_EXPORT int32_t OnnxLightSessionCreateFromFileWithOptions(
    const char* path, const OnnxLightSessionOptions* options, OnnxLightSession** session);
ONNX_LIGHT_C_EXPORT void OnnxLightSessionRelease(OnnxLightSession* session);
ONNX_LIGHT_C_EXPORT size_t OnnxLightSessionOutputCount(const OnnxLightSession* session);

/* Runs all outputs: `outputs` has OnnxLightSessionOutputCount entries, filled on success
 * (names included); release each with OnnxLightTensorRelease. */
ONNX_LIGHT_C_EXPORT int32_t OnnxLightRun(OnnxLightSession* session, const OnnxLightTensor* inputs,
                                         size_t input_count, OnnxLightTensor* outputs);

/* Run options: a run given them stops at its next node with code 11 (CANCELLED) once
 * OnnxLightRunOptionsTerminate was called on them (from any thread, before or during the
 * run), or with code 12 (DEADLINE_EXCEEDED) when it has taken longer than the timeout
 * (0, the default: none). One options object may serve any number of runs at once. */
typedef struct OnnxLightRunOptions OnnxLightRunOptions;
ONNX_LIGHT_C_EXPORT int32_t OnnxLightRunOptionsCreate(OnnxLightRunOptions** options);
ONNX_LIGHT_C_EXPORT void OnnxLightRunOptionsRelease(OnnxLightRunOptions* options);
ONNX_LIGHT_C_EXPORT void OnnxLightRunOptionsTerminate(OnnxLightRunOptions* options);
ONNX_LIGHT_C_EXPORT void OnnxLightRunOptionsSetTimeoutMs(OnnxLightRunOptions* options,
                                                         uint64_t milliseconds);
/* OnnxLightRun with options (null: none). */
ONNX_LIGHT_C_EXPORT int32_t OnnxLightRunWithOptions(OnnxLightSession* session,
                                                    const OnnxLightTensor* inputs,
                                                    size_t input_count, OnnxLightTensor* outputs,
                                                    const OnnxLightRunOptions* options);
ONNX_LIGHT_C_EXPORT void OnnxLightTensorRelease(OnnxLightTensor* tensor);

/* Maps (ai.onnx.ml: a ZipMap's probabilities, DictVectorizer's and CastMap's input) pass
 * as pairs of tensors, keys and values, both rank 1 and of one length; keys are INT64
 * (string keys and values do not pass, like every string: a model that declares them is
 * refused at creation). A model with a map or a sequence of maps among its inputs or
 * outputs runs through OnnxLightRunValues; OnnxLightRun refuses it (NOT_IMPLEMENTED). */
typedef struct OnnxLightMap {
  const char* name;       /* the graph input it feeds */
  OnnxLightTensor keys;   /* INT64, rank 1 (its name is not read) */
  OnnxLightTensor values; /* the map's value type, rank 1, as many as keys */
} OnnxLightMap;

/* An output of any kind the C ABI passes: a tensor, a map or a sequence of maps. The
 * caller owns it until OnnxLightValueRelease (from any thread). */
typedef struct OnnxLightValue OnnxLightValue;
#define ONNX_LIGHT_VALUE_TENSOR 0
#define ONNX_LIGHT_VALUE_MAP 3
#define ONNX_LIGHT_VALUE_MAP_SEQUENCE 4

/* Runs all outputs: tensor inputs in `inputs`, map inputs in `maps` (either may be null
 * with a count of 0); `outputs` has OnnxLightSessionOutputCount entries, each set to a new
 * value on success (left null on failure). `options` may be null. */
ONNX_LIGHT_C_EXPORT int32_t OnnxLightRunValues(OnnxLightSession* session,
                                               const OnnxLightTensor* inputs, size_t input_count,
                                               const OnnxLightMap* maps, size_t map_count,
                                               OnnxLightValue** outputs,
                                               const OnnxLightRunOptions* options);
/* ONNX_LIGHT_VALUE_*, or -1 for a null value. */
ONNX_LIGHT_C_EXPORT int32_t OnnxLightValueKind(const OnnxLightValue* value);
/* How many maps: 1 for a map, the length of a sequence of maps, 0 for a tensor. */
ONNX_LIGHT_C_EXPORT size_t OnnxLightValueMapCount(const OnnxLightValue* value);
/* Read-only views into `value` (valid while it lives; `internal` is null and they are not
 * released): its tensor, or map `index`'s keys and values. INVALID_ARGUMENT for another
 * kind or an index past the count; NOT_IMPLEMENTED for string keys or values. */
ONNX_LIGHT_C_EXPORT int32_t OnnxLightValueGetTensor(const OnnxLightValue* value,
                                                    OnnxLightTensor* tensor);
ONNX_LIGHT_C_EXPORT int32_t OnnxLightValueGetMap(const OnnxLightValue* value, size_t index,
                                                 OnnxLightTensor* keys, OnnxLightTensor* values);
ONNX_LIGHT_C_EXPORT void OnnxLightValueRelease(OnnxLightValue* value);
ONNX_LIGHT_C_EXPORT const char* OnnxLightLastErrorMessage(void);

#ifdef __cplusplus
}
#endif
#endif /* ONNX_LIGHT_C_API_H_ */
