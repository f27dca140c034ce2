// Maps between Python and the runtime (map_values.h).
#include "map_values.h"

#include <nanobind/stl/string.h>

#include "status_to_python.h"

namespace onnx_light::python {

namespace {

// The dict straight into tensors, without numpy, when every key is an int (or a str) and
// every value a float or an int, as Python's own dicts mostly are; false, leaving `map` as
// it was, for anything else (numpy scalars, other types: numpy converts those, and says
// what does not convert). Through numpy a 1000-entry dict took 1.8x ORT's time.
bool FastDictToMap(const nb::dict& d, DataType key_type, DataType value_type, TensorMap* map) {
  const bool ok_types = (key_type == DataType::kInt64 || key_type == DataType::kString) &&
                        (value_type == DataType::kFloat || value_type == DataType::kDouble ||
                         value_type == DataType::kInt64);
  if (!ok_types) return false;
  const auto n = static_cast<int64_t>(d.size());
  Result<Shape> shape = Shape::Create({n});
  if (!shape.ok()) return false;
  Result<Tensor> keys = Tensor::Allocate(key_type, *shape);
  Result<Tensor> values = Tensor::Allocate(value_type, *shape);
  if (!keys.ok() || !values.ok()) return false;
  int64_t i = 0;
  for (auto [k, v] : d) {
    PyObject* kp = k.ptr();
    PyObject* vp = v.ptr();
    if (key_type == DataType::kInt64) {
      if (!PyLong_CheckExact(kp)) return false;
      const long long x = PyLong_AsLongLong(kp);
      if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      keys->mutable_data<int64_t>()[i] = x;
    } else {
      if (!PyUnicode_CheckExact(kp)) return false;
      Py_ssize_t len = 0;
      const char* text = PyUnicode_AsUTF8AndSize(kp, &len);
      if (text == nullptr) {
        PyErr_Clear();
        return false;
      }
      keys->mutable_data<std::string>()[i].assign(text, static_cast<size_t>(len));
    }
    if (value_type == DataType::kInt64) {
      if (!PyLong_CheckExact(vp)) return false;
      const long long x = PyLong_AsLongLong(vp);
      if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      values->mutable_data<int64_t>()[i] = x;
    } else {
      double x;
      if (PyFloat_CheckExact(vp)) {
        x = PyFloat_AS_DOUBLE(vp);
      } else if (PyLong_CheckExact(vp)) {
        x = PyLong_AsDouble(vp);
        if (x == -1.0 && PyErr_Occurred()) {
          PyErr_Clear();
          return false;
        }
      } else {
        return false;
      }
      if (value_type == DataType::kFloat) {
        values->mutable_data<float>()[i] = static_cast<float>(x);
      } else {
        values->mutable_data<double>()[i] = x;
      }
    }
    ++i;
  }
  map->keys = std::move(*keys);
  map->values = std::move(*values);
  return true;
}

}  // namespace

TensorMap DictToMap(const std::string& name, const ValueMeta& meta, nb::handle value,
                    const nb::object& value_dtype,
                    const std::function<Tensor(DataType, nb::handle)>& to_tensor) {
  if (!nb::isinstance<nb::dict>(value)) {
    throw nb::type_error(("input '" + name + "': expected a dict, got " +
                          nb::cast<std::string>(nb::str(value.type().attr("__name__"))))
                             .c_str());
  }
  nb::dict d = nb::borrow<nb::dict>(value);
  nb::module_ np = nb::module_::import_("numpy");
  auto as_array = [&](nb::handle items, DataType type, const char* what) {
    const char* dtype = type == DataType::kString  ? "object"
                        : type == DataType::kInt64 ? "int64"
                                                   : nullptr;
    try {
      nb::object list = nb::module_::import_("builtins").attr("list")(items);
      if (type == DataType::kString) {
        for (nb::handle x : list) {
          if (!nb::isinstance<nb::str>(x)) {
            throw nb::type_error(("input '" + name + "': map " + what + " must be str, got " +
                                  nb::cast<std::string>(nb::str(x.type().attr("__name__"))))
                                     .c_str());
          }
        }
      }
      return dtype != nullptr ? np.attr("asarray")(list, dtype)
                              : np.attr("asarray")(list, value_dtype);
    } catch (nb::python_error& e) {
      throw nb::type_error(("input '" + name + "': map " + what + " do not convert to " +
                            DataTypeName(type) + ": " + e.what())
                               .c_str());
    }
  };
  DataType key_type = meta.key_type;
  if (key_type == DataType::kUndefined) {  // undeclared: as the first key is
    key_type = DataType::kInt64;
    for (auto item : d) {
      if (nb::isinstance<nb::str>(item.first)) key_type = DataType::kString;
      break;
    }
  }
  TensorMap fast;
  if (FastDictToMap(d, key_type, meta.type, &fast)) return fast;
  nb::object keys = as_array(d.keys(), key_type, "keys");
  nb::object vals = as_array(d.values(), meta.type, "values");
  TensorMap map;
  map.keys = to_tensor(key_type, keys);
  map.values = to_tensor(meta.type, vals);
  return map;
}

nb::dict MapToDict(const TensorMap& m, std::vector<nb::object>& keys,
                   const std::function<nb::object(Tensor)>& to_numpy) {
  const int64_t n = m.keys.num_elements();
  if (keys.empty()) {
    keys.reserve(static_cast<size_t>(n));
    if (const int64_t* k = m.keys.data<int64_t>()) {
      for (int64_t i = 0; i < n; ++i)
        keys.push_back(nb::int_(k[i]));
    } else if (const std::string* sk = m.keys.data<std::string>()) {
      for (int64_t i = 0; i < n; ++i)
        keys.push_back(nb::str(sk[i].data(), sk[i].size()));
    }
  }
  nb::dict d;
  auto put = [&](int64_t i, PyObject* value) {  // steals `value`
    if (value == nullptr || PyDict_SetItem(d.ptr(), keys[static_cast<size_t>(i)].ptr(), value)) {
      Py_XDECREF(value);
      throw nb::python_error();
    }
    Py_DECREF(value);
  };
  if (const float* f = m.values.data<float>()) {
    for (int64_t i = 0; i < n; ++i)
      put(i, PyFloat_FromDouble(static_cast<double>(f[i])));
  } else if (const double* dv = m.values.data<double>()) {
    for (int64_t i = 0; i < n; ++i)
      put(i, PyFloat_FromDouble(dv[i]));
  } else if (const int64_t* iv = m.values.data<int64_t>()) {
    for (int64_t i = 0; i < n; ++i)
      put(i, PyLong_FromLongLong(iv[i]));
  } else {
    Result<Tensor> copy = m.values.Clone();
    if (!copy.ok()) ThrowStatus(copy.status());
    nb::list values = nb::borrow<nb::list>(to_numpy(std::move(*copy)).attr("tolist")());
    for (int64_t i = 0; i < n; ++i)
      put(i, values[static_cast<size_t>(i)].inc_ref().ptr());
  }
  return d;
}

}  // namespace onnx_light::python
