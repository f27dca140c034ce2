// Values of ONNX message fields as Python sees them: conversions of scalars and strings, and
// the containers that view a repeated scalar or string field (onnx_light._core.onnx's
// RepeatedInt64, RepeatedString, ...). Shared by the message bindings (onnx_bindings.cc).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "onnx_light/onnx/message.h"

namespace onnx_light::python {

namespace nb = nanobind;

// str, bytes or any buffer as bytes; TypeError naming `what` otherwise.
std::string BytesLike(nb::handle h, const char* what);
// A string field's value as str (UTF-8 checked: ValueError) or, for `bytes` fields, bytes.
nb::object StringToPython(const std::string& s, bool as_bytes);
// Python's index rules: negative from the end, IndexError outside.
Py_ssize_t NormalizeIndex(Py_ssize_t i, size_t size);
// Start/stop/step of a slice over `size` elements, as the indices it selects.
std::vector<size_t> SliceIndices(nb::slice slice, size_t size);

template <typename T>
T ScalarFromPython(nb::handle h) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!nb::isinstance<nb::float_>(h) && !nb::isinstance<nb::int_>(h) &&
        !PyNumber_Check(h.ptr())) {
      throw nb::type_error("expected a number");
    }
    return static_cast<T>(nb::cast<double>(nb::float_(h)));
  } else {
    if (nb::isinstance<nb::bool_>(h) || nb::isinstance<nb::float_>(h) || !PyIndex_Check(h.ptr())) {
      throw nb::type_error(
          ("expected an integer, got " + nb::cast<std::string>(nb::str(h.type().attr("__name__"))))
              .c_str());
    }
    nb::object index = nb::steal(PyNumber_Index(h.ptr()));
    if (!index.is_valid()) throw nb::python_error();
    int overflow = 0;
    if constexpr (std::is_same_v<T, uint64_t>) {
      const unsigned long long v = PyLong_AsUnsignedLongLong(index.ptr());
      if (PyErr_Occurred()) {
        PyErr_Clear();
        throw nb::value_error("value out of range for uint64");
      }
      return static_cast<T>(v);
    } else {
      const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
      if (overflow != 0 || v < static_cast<long long>(std::numeric_limits<T>::min()) ||
          v > static_cast<long long>(std::numeric_limits<T>::max())) {
        throw nb::value_error(std::is_same_v<T, int32_t> ? "value out of range for int32"
                                                         : "value out of range for int64");
      }
      return static_cast<T>(v);
    }
  }
}

// Containers view a field of `owner`, whose Python object they keep alive; mutations mark
// the owner touched (protobuf presence rules).
// Containers view a field of `owner`, whose Python object they keep alive; mutations mark
// the owner touched (protobuf presence rules).
template <typename T>
struct ScalarList {
  std::vector<T>* v;
  onnx::MessageBase* owner;
};

struct StringList {
  std::vector<std::string>* v;
  onnx::MessageBase* owner;
  bool bytes;
};

template <typename T>
void ExtendScalars(std::vector<T>& v, nb::handle items) {
  // Fast path: a 1-D numpy array (or any buffer) of exactly T.
  nb::ndarray<const T, nb::ndim<1>, nb::device::cpu> arr;
  if (nb::try_cast(items, arr, /*convert=*/false)) {
    const size_t n = arr.shape(0);
    const size_t old = v.size();
    v.resize(old + n);
    const int64_t stride = arr.stride(0);
    const T* p = arr.data();
    for (size_t i = 0; i < n; ++i)
      v[old + i] = p[static_cast<int64_t>(i) * stride];
    return;
  }
  std::vector<T> add;
  for (nb::handle item : nb::iter(items))
    add.push_back(ScalarFromPython<T>(item));
  v.insert(v.end(), add.begin(), add.end());
}

// Registers RepeatedInt32, RepeatedInt64, RepeatedUInt64, RepeatedFloat, RepeatedDouble and
// RepeatedString in `m`.
void BindRepeatedValues(nb::module_& m);

}  // namespace onnx_light::python
