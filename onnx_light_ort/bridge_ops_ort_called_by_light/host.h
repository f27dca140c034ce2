/*
 * ORT custom ops called by onnx-light: run an ONNX Runtime custom-op plugin without ONNX
 * Runtime, through onnx-light's RuntimeSession.
 *
 * Link onnx_light_ort::bridge_ops_ort_called_by_light and include this header; nothing
 * else is needed. The C ABI below is the whole interface; the C++ part at the end is a
 * header-only RAII wrapper over it. See docs/custom_ops_ort_called_by_light.md.
 *
 * Profile (audited API 18): plugins are trusted code loaded from an explicit path; they get
 * OrtApi version 18 only, with the custom-op subset set and every other slot null. The
 * model holds exactly one custom node with one float16/bfloat16/float/double input and
 * output of the same type. Limits: model 16 MiB, each tensor 64 MiB, rank 16.
 *
 * Threads:
 * - Any thread may call LightOrtRunTyped/LightOrtRun on a session, several at once. Calls
 *   on one session are serialized: the plugin's kernel computes for one call at a time, so
 *   a plugin need not be reentrant. Different sessions run in parallel.
 * - LightOrtSessionRelease must not overlap any other call on the same session: the
 *   caller makes sure every run on it has returned first (as with free()).
 * - Outputs belong to the caller, not the session: release them from any thread, before
 *   or after the session.
 * - The last error message is per thread: a failed call sets it on the calling thread
 *   only, and it stays valid until that thread's next call into this API.
 *
 * Inputs: the plugin API hands kernels a mutable pointer to their input (as ORT does).
 * The C ABI passes the caller's buffer through without a copy, so a plugin that writes
 * into its input writes into the caller's buffer; onnx_light_ort.CustomOpSession copies.
 */
#ifndef ONNX_LIGHT_ORT_BRIDGE_OPS_ORT_CALLED_BY_LIGHT_HOST_H_
#define ONNX_LIGHT_ORT_BRIDGE_OPS_ORT_CALLED_BY_LIGHT_HOST_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define LIGHT_ORT_EXPORT __attribute__((visibility("default")))
#else
#define LIGHT_ORT_EXPORT
#endif

#define LIGHT_ORT_API_VERSION 18
#define LIGHT_ORT_MAX_MODEL_BYTES (16u * 1024u * 1024u)
#define LIGHT_ORT_MAX_TENSOR_BYTES (64u * 1024u * 1024u)
#define LIGHT_ORT_MAX_RANK 16

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes; the numeric values match onnx_light::StatusCode. */
typedef enum LightOrtCode {
  LIGHT_ORT_OK = 0,
  LIGHT_ORT_INVALID_ARGUMENT = 1,
  LIGHT_ORT_TYPE_MISMATCH = 2,
  LIGHT_ORT_OUT_OF_RANGE = 3,
  LIGHT_ORT_NOT_FOUND = 4,
  LIGHT_ORT_NOT_IMPLEMENTED = 5,
  LIGHT_ORT_INVALID_MODEL = 6,
  LIGHT_ORT_FAILED_PRECONDITION = 7,
  LIGHT_ORT_RESOURCE_EXHAUSTED = 8,
  LIGHT_ORT_IO_ERROR = 9,
  LIGHT_ORT_INTERNAL = 10
} LightOrtCode;

typedef struct LightOrtSession LightOrtSession;

/* An output: host-owned storage of `element_count` elements of `element_type` (ONNX
 * TensorProto.DataType values), valid until LightOrtTensorRelease. */
typedef struct LightOrtTensor {
  void* data;
  int32_t element_type;
  uint64_t element_count;
  size_t rank;
  int64_t shape[LIGHT_ORT_MAX_RANK];
  void* internal; /* the host's; do not touch */
} LightOrtTensor;

/* Loads the plugin at `plugin_path` (resolved before loading; no search path), runs its
 * RegisterCustomOps, checks the serialized model (at most LIGHT_ORT_MAX_MODEL_BYTES) and
 * creates the session. On error returns a code, sets *session to NULL and the thread's
 * last error message. */
LIGHT_ORT_EXPORT int32_t LightOrtSessionCreate(const char* plugin_path, const void* model_data,
                                               size_t model_size, LightOrtSession** session);

/* Releases the kernels, then unloads the plugin. NULL is ignored. */
LIGHT_ORT_EXPORT void LightOrtSessionRelease(LightOrtSession* session);

/* The element type of the model's input and output (ONNX value), or 0 for NULL. */
LIGHT_ORT_EXPORT int32_t LightOrtSessionElementType(const LightOrtSession* session);

/* Runs the model on `element_count` elements of `element_type` at `input` with the given
 * shape. Before reading the input it checks the type against the model, the shape (rank at
 * most LIGHT_ORT_MAX_RANK, no negative dimension, product == element_count without
 * overflow), the byte size (at most LIGHT_ORT_MAX_TENSOR_BYTES) and the pointer's
 * alignment for the type. On success fills *output (release it with LightOrtTensorRelease). */
LIGHT_ORT_EXPORT int32_t LightOrtRunTyped(LightOrtSession* session, const void* input,
                                          int32_t element_type, uint64_t element_count,
                                          const int64_t* shape, size_t rank,
                                          LightOrtTensor* output);

/* The float32 entry point: as LightOrtRunTyped with element_type FLOAT; a model of another
 * type is refused with LIGHT_ORT_TYPE_MISMATCH. */
LIGHT_ORT_EXPORT int32_t LightOrtRun(LightOrtSession* session, const float* input,
                                     uint64_t element_count, const int64_t* shape, size_t rank,
                                     LightOrtTensor* output);

/* Frees an output's storage; NULL and already-released tensors are ignored. */
LIGHT_ORT_EXPORT void LightOrtTensorRelease(LightOrtTensor* tensor);

/* The message of the last error on this thread ("" if none); valid until the next call. */
LIGHT_ORT_EXPORT const char* LightOrtLastErrorMessage(void);

#ifdef __cplusplus
} /* extern "C" */

#include <string>
#include <utility>
#include <vector>

namespace onnx_light_ort {

struct Error {
  int32_t code = LIGHT_ORT_OK;
  std::string message;
  bool ok() const { return code == LIGHT_ORT_OK; }
};

// An output tensor (RAII over LightOrtTensor).
class Output {
 public:
  Output() : t_() {}
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  Output(Output&& o) noexcept : t_(o.t_) { o.t_ = LightOrtTensor(); }
  Output& operator=(Output&& o) noexcept {
    if (this != &o) {
      LightOrtTensorRelease(&t_);
      t_ = o.t_;
      o.t_ = LightOrtTensor();
    }
    return *this;
  }
  ~Output() { LightOrtTensorRelease(&t_); }

  int32_t element_type() const { return t_.element_type; }
  uint64_t element_count() const { return t_.element_count; }
  std::vector<int64_t> shape() const { return std::vector<int64_t>(t_.shape, t_.shape + t_.rank); }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(t_.data);
  }
  LightOrtTensor* raw() { return &t_; }

 private:
  LightOrtTensor t_;
};

// A session over one plugin and one model (RAII over LightOrtSession).
class Session {
 public:
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Session& operator=(Session&& o) noexcept {
    if (this != &o) {
      LightOrtSessionRelease(s_);
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  ~Session() { LightOrtSessionRelease(s_); }

  static Session Create(const std::string& plugin_path, const std::string& model_bytes,
                        Error* error) {
    Session s;
    Set(error,
        LightOrtSessionCreate(plugin_path.c_str(), model_bytes.data(), model_bytes.size(), &s.s_));
    return s;
  }

  bool valid() const { return s_ != nullptr; }
  int32_t element_type() const { return LightOrtSessionElementType(s_); }

  // `input` holds product(shape) elements of `element_type`.
  bool RunTyped(const void* input, int32_t element_type, const std::vector<int64_t>& shape,
                Output* output, Error* error) {
    uint64_t count = 1;
    for (int64_t d : shape)
      count *= static_cast<uint64_t>(d < 0 ? 0 : d);
    return Set(error, LightOrtRunTyped(s_, input, element_type, count, shape.data(), shape.size(),
                                       output->raw()));
  }
  bool Run(const std::vector<float>& input, const std::vector<int64_t>& shape, Output* output,
           Error* error) {
    return Set(error, LightOrtRun(s_, input.data(), input.size(), shape.data(), shape.size(),
                                  output->raw()));
  }

 private:
  static bool Set(Error* error, int32_t code) {
    if (error) {
      error->code = code;
      error->message = code == LIGHT_ORT_OK ? std::string() : LightOrtLastErrorMessage();
    }
    return code == LIGHT_ORT_OK;
  }
  LightOrtSession* s_ = nullptr;
};

}  // namespace onnx_light_ort

#endif /* __cplusplus */
#endif /* ONNX_LIGHT_ORT_BRIDGE_OPS_ORT_CALLED_BY_LIGHT_HOST_H_ */
