// Maps (ai.onnx.ml's ZipMap, DictVectorizer, CastMap) between Python and the runtime: a dict
// fed for a map input, and a map returned as a dict, as ONNX Runtime's Python API does both.
#pragma once

#include <nanobind/nanobind.h>

#include <functional>
#include <string>
#include <vector>

#include "onnx_light/runtime/value.h"

namespace onnx_light::python {

namespace nb = nanobind;

// A dict as a map of input `meta`: its keys and its values converted by numpy to arrays of
// the map's key type (declared, or as the first key is) and value type (`value_dtype`);
// what does not convert is a TypeError naming the input. `to_tensor` reads an array as a
// tensor of the type given (the session's reader of input arrays).
TensorMap DictToMap(const std::string& name, const ValueMeta& meta, nb::handle value,
                    const nb::object& value_dtype,
                    const std::function<Tensor(DataType, nb::handle)>& to_tensor);

// A map as a dict of Python scalars: int or str keys; float, int or str values (other value
// types through `to_numpy` and tolist()). `keys`: the keys as Python objects, made here when
// empty and kept for the next map of a sequence that shares the keys tensor.
nb::dict MapToDict(const TensorMap& m, std::vector<nb::object>& keys,
                   const std::function<nb::object(Tensor)>& to_numpy);

}  // namespace onnx_light::python
