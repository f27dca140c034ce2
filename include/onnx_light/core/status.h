// Status and Result<T>: the error model of onnx-light.
//
// Every fallible operation returns a Status (or a Result<T> holding either a value or a
// non-OK Status). Exceptions never cross a public boundary: the Python bindings map
// StatusCode to Python exception classes and the C ABI maps it to integer error codes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace onnx_light {

// Stable numeric values: they are part of the C ABI of the bridges.
enum class StatusCode : int32_t {
  kOk = 0,
  kInvalidArgument = 1,     // a caller-supplied value is malformed or out of its domain
  kTypeMismatch = 2,        // a value has the wrong element type (Python: TypeError)
  kOutOfRange = 3,          // a size, rank, index or count exceeds a limit
  kNotFound = 4,            // a named thing (input, file, kernel) does not exist
  kNotImplemented = 5,      // valid input that this build does not support
  kInvalidModel = 6,        // a model or its serialized form is malformed
  kFailedPrecondition = 7,  // the object is not in a state that allows the call
  kResourceExhausted = 8,   // an allocation or mapping failed
  kIoError = 9,             // the operating system refused a file operation
  kInternal = 10,           // a bug in onnx-light or in a trusted plugin
  kCancelled = 11,          // a run stopped because RunOptions::Terminate() was called
  kDeadlineExceeded = 12,   // a run stopped because its RunOptions timeout passed
};

// Upper-case name of a code, e.g. "INVALID_ARGUMENT". Unknown values give "UNKNOWN".
const char* StatusCodeName(StatusCode code) noexcept;

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;  // OK
  Status(StatusCode code, std::string message);

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status Ok() noexcept { return Status(); }

  bool ok() const noexcept { return state_ == nullptr; }
  StatusCode code() const noexcept { return state_ ? state_->code : StatusCode::kOk; }
  // Empty for OK.
  const std::string& message() const noexcept;
  // "OK" or "CODE_NAME: message".
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>"; OK stays OK.
  Status WithContext(const std::string& prefix) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::unique_ptr<State> state_;  // null means OK, so passing OK around costs nothing
};

// Either a value or a non-OK Status. Accessing the value of an error is a programming
// error and aborts in debug builds; check ok() first or use ONNX_LIGHT_ASSIGN_OR_RETURN.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(v_).ok()) {
      v_ = Status(StatusCode::kInternal, "Result constructed from an OK status without a value");
    }
  }

  bool ok() const noexcept { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<Status, T> v_;
};

}  // namespace onnx_light

#define ONNX_LIGHT_CONCAT_INNER_(a, b) a##b
#define ONNX_LIGHT_CONCAT_(a, b) ONNX_LIGHT_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define ONNX_LIGHT_RETURN_IF_ERROR(expr)                     \
  do {                                                       \
    ::onnx_light::Status onnx_light_status_ = (expr);        \
    if (!onnx_light_status_.ok()) return onnx_light_status_; \
  } while (0)

// The common check: returns Status(StatusCode::code, message) from the enclosing function
// when `cond` holds. `code` is the enumerator (kInvalidArgument); `message` is evaluated
// only then. A kernel's message is the bare reason: the executor names the node.
//   ONNX_LIGHT_RETURN_IF(x.rank() < 2, kInvalidArgument, "X must have rank 2 or more");
#define ONNX_LIGHT_RETURN_IF(cond, code, message)                                     \
  do {                                                                                \
    if (cond) return ::onnx_light::Status(::onnx_light::StatusCode::code, (message)); \
  } while (0)

// `lhs = value of rexpr`, or returns its status from the enclosing function.
#define ONNX_LIGHT_ASSIGN_OR_RETURN(lhs, rexpr) \
  ONNX_LIGHT_ASSIGN_OR_RETURN_IMPL_(ONNX_LIGHT_CONCAT_(onnx_light_result_, __LINE__), lhs, rexpr)
#define ONNX_LIGHT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                      \
  if (!tmp.ok()) return tmp.status();                      \
  lhs = std::move(tmp).value()
