// Maps onnx_light::Status to Python exceptions (used by every binding source).
#pragma once

#include <nanobind/nanobind.h>

#include <stdexcept>

#include "onnx_light/core/status.h"

namespace onnx_light::python {

// TYPE_MISMATCH -> TypeError; malformed or out-of-range input -> ValueError; a missing
// file -> FileNotFoundError; other I/O failures -> OSError; everything else -> RuntimeError,
// whose text starts with the code name.
[[noreturn]] inline void ThrowStatus(const Status& status) {
  const std::string& msg = status.message();
  switch (status.code()) {
    case StatusCode::kTypeMismatch:
      throw nanobind::type_error(msg.c_str());
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
    case StatusCode::kInvalidModel:
      throw nanobind::value_error(msg.c_str());
    case StatusCode::kNotFound:
      PyErr_SetString(PyExc_FileNotFoundError, msg.c_str());
      throw nanobind::python_error();
    case StatusCode::kIoError:
      PyErr_SetString(PyExc_OSError, msg.c_str());
      throw nanobind::python_error();
    default:
      throw std::runtime_error(status.ToString());
  }
}

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

template <typename T>
T ValueOrThrow(Result<T> result) {
  if (!result.ok()) ThrowStatus(result.status());
  return std::move(result).value();
}

}  // namespace onnx_light::python
