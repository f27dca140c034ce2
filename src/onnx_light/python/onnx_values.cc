// The containers of repeated scalar and string fields, and the conversions of field values
// (onnx_values.h).
#include "onnx_values.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <string>
#include <vector>

namespace onnx_light::python {

std::string BytesLike(nb::handle h, const char* what) {
  if (nb::isinstance<nb::str>(h)) return nb::cast<std::string>(h);
  if (nb::isinstance<nb::bytes>(h)) {
    nb::bytes b = nb::borrow<nb::bytes>(h);
    return std::string(b.c_str(), b.size());
  }
  Py_buffer view;
  if (PyObject_GetBuffer(h.ptr(), &view, PyBUF_SIMPLE) == 0) {
    std::string s(static_cast<const char*>(view.buf), static_cast<size_t>(view.len));
    PyBuffer_Release(&view);
    return s;
  }
  PyErr_Clear();
  throw nb::type_error((std::string(what) + ": expected str or bytes, got " +
                        nb::cast<std::string>(nb::str(h.type().attr("__name__"))))
                           .c_str());
}

nb::object StringToPython(const std::string& s, bool as_bytes) {
  if (as_bytes) return nb::bytes(s.data(), s.size());
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "strict");
  if (o == nullptr) {
    PyErr_Clear();
    throw nb::value_error("string field holds invalid UTF-8");
  }
  return nb::steal(o);
}

Py_ssize_t NormalizeIndex(Py_ssize_t i, size_t size) {
  const auto n = static_cast<Py_ssize_t>(size);
  if (i < 0) i += n;
  if (i < 0 || i >= n) throw nb::index_error("list index out of range");
  return i;
}

std::vector<size_t> SliceIndices(nb::slice slice, size_t size) {
  auto [start, stop, step, count] = slice.compute(size);
  std::vector<size_t> out;
  out.reserve(count);
  for (size_t k = 0; k < count; ++k) {
    out.push_back(
        static_cast<size_t>(static_cast<Py_ssize_t>(start) + static_cast<Py_ssize_t>(k) * step));
  }
  (void)stop;
  return out;
}

namespace {

// Element-wise equality of a repeated field with any Python iterable, converting each
// item with `convert`; anything that does not convert compares unequal.
template <typename Container, typename Convert>
bool SequenceEquals(const Container& c, nb::handle other, Convert convert) {
  try {
    size_t i = 0;
    for (nb::handle item : nb::iter(other)) {
      if (i >= c.size() || !(c[i] == convert(item))) return false;
      ++i;
    }
    return i == c.size();
  } catch (const std::exception&) {
    return false;
  }
}

template <typename Vec>
void EraseIndices(Vec& v, std::vector<size_t> idx) {
  std::sort(idx.begin(), idx.end());
  for (auto it = idx.rbegin(); it != idx.rend(); ++it)
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(*it));
}

template <typename T>
const char* ScalarName() {
  if constexpr (std::is_same_v<T, int32_t>) return "RepeatedInt32";
  if constexpr (std::is_same_v<T, int64_t>) return "RepeatedInt64";
  if constexpr (std::is_same_v<T, uint64_t>) return "RepeatedUInt64";
  if constexpr (std::is_same_v<T, float>) return "RepeatedFloat";
  return "RepeatedDouble";
}

template <typename T>
void BindScalarList(nb::module_& m) {
  using L = ScalarList<T>;
  nb::class_<L>(m, ScalarName<T>())
      .def("__len__", [](const L& l) { return l.v->size(); })
      .def("__getitem__",
           [](const L& l, Py_ssize_t i) { return (*l.v)[NormalizeIndex(i, l.v->size())]; })
      .def("__getitem__",
           [](const L& l, nb::slice s) {
             std::vector<T> out;
             for (size_t i : SliceIndices(s, l.v->size()))
               out.push_back((*l.v)[i]);
             return out;
           })
      .def("__setitem__",
           [](L& l, Py_ssize_t i, nb::handle value) {
             l.owner->touched = true;
             (*l.v)[NormalizeIndex(i, l.v->size())] = ScalarFromPython<T>(value);
           })
      .def("__delitem__",
           [](L& l, Py_ssize_t i) {
             l.owner->touched = true;
             l.v->erase(l.v->begin() + NormalizeIndex(i, l.v->size()));
           })
      .def("__delitem__",
           [](L& l, nb::slice s) {
             l.owner->touched = true;
             EraseIndices(*l.v, SliceIndices(s, l.v->size()));
           })
      .def("__iter__", [](const L& l) { return nb::iter(nb::cast(std::vector<T>(*l.v))); })
      .def("__contains__",
           [](const L& l, nb::handle x) {
             try {
               const T t = ScalarFromPython<T>(x);
               return std::find(l.v->begin(), l.v->end(), t) != l.v->end();
             } catch (const nb::builtin_exception&) {
               return false;
             }
           })
      .def("append",
           [](L& l, nb::handle x) {
             l.owner->touched = true;
             l.v->push_back(ScalarFromPython<T>(x));
           })
      .def("extend",
           [](L& l, nb::handle items) {
             l.owner->touched = true;
             ExtendScalars(*l.v, items);
           })
      .def("insert",
           [](L& l, Py_ssize_t i, nb::handle x) {
             l.owner->touched = true;
             const auto n = static_cast<Py_ssize_t>(l.v->size());
             if (i < 0) i = std::max<Py_ssize_t>(0, i + n);
             i = std::min(i, n);
             l.v->insert(l.v->begin() + i, ScalarFromPython<T>(x));
           })
      .def(
          "pop",
          [](L& l, Py_ssize_t i) {
            l.owner->touched = true;
            const Py_ssize_t k = NormalizeIndex(i, l.v->size());
            const T x = (*l.v)[static_cast<size_t>(k)];
            l.v->erase(l.v->begin() + k);
            return x;
          },
          nb::arg("index") = -1)
      .def("remove",
           [](L& l, nb::handle x) {
             l.owner->touched = true;
             auto it = std::find(l.v->begin(), l.v->end(), ScalarFromPython<T>(x));
             if (it == l.v->end()) throw nb::value_error("value not in list");
             l.v->erase(it);
           })
      .def(
          "numpy",
          [](const L& l) {
            auto* data = new std::vector<T>(*l.v);
            nb::capsule owner(data,
                              [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
            return nb::ndarray<nb::numpy, T, nb::ndim<1>>(data->data(), {data->size()}, owner);
          },
          "A numpy copy of the values.")
      .def("__eq__",
           [](const L& l, nb::handle other) {
             return SequenceEquals(*l.v, other, &ScalarFromPython<T>);
           })
      .def("__repr__", [](const L& l) {
        return nb::cast<std::string>(nb::repr(nb::cast(std::vector<T>(*l.v))));
      });
}

nb::list StringsToList(const StringList& l) {
  nb::list out;
  for (const std::string& s : *l.v)
    out.append(StringToPython(s, l.bytes));
  return out;
}

void BindStringList(nb::module_& m) {
  using L = StringList;
  nb::class_<L>(m, "RepeatedString")
      .def("__len__", [](const L& l) { return l.v->size(); })
      .def("__getitem__",
           [](const L& l, Py_ssize_t i) {
             return StringToPython((*l.v)[NormalizeIndex(i, l.v->size())], l.bytes);
           })
      .def("__getitem__",
           [](const L& l, nb::slice s) {
             nb::list out;
             for (size_t i : SliceIndices(s, l.v->size())) {
               out.append(StringToPython((*l.v)[i], l.bytes));
             }
             return out;
           })
      .def("__setitem__",
           [](L& l, Py_ssize_t i, nb::handle value) {
             l.owner->touched = true;
             (*l.v)[NormalizeIndex(i, l.v->size())] = BytesLike(value, "repeated string");
           })
      .def("__delitem__",
           [](L& l, Py_ssize_t i) {
             l.owner->touched = true;
             l.v->erase(l.v->begin() + NormalizeIndex(i, l.v->size()));
           })
      .def("__delitem__",
           [](L& l, nb::slice s) {
             l.owner->touched = true;
             EraseIndices(*l.v, SliceIndices(s, l.v->size()));
           })
      .def("__iter__", [](const L& l) { return nb::iter(StringsToList(l)); })
      .def("__contains__",
           [](const L& l, nb::handle x) {
             if (!nb::isinstance<nb::str>(x) && !nb::isinstance<nb::bytes>(x)) return false;
             const std::string s = BytesLike(x, "value");
             return std::find(l.v->begin(), l.v->end(), s) != l.v->end();
           })
      .def("append",
           [](L& l, nb::handle x) {
             l.owner->touched = true;
             l.v->push_back(BytesLike(x, "repeated string"));
           })
      .def("extend",
           [](L& l, nb::handle items) {
             l.owner->touched = true;
             std::vector<std::string> add;
             for (nb::handle x : nb::iter(items))
               add.push_back(BytesLike(x, "repeated string"));
             l.v->insert(l.v->end(), add.begin(), add.end());
           })
      .def("insert",
           [](L& l, Py_ssize_t i, nb::handle x) {
             l.owner->touched = true;
             const auto n = static_cast<Py_ssize_t>(l.v->size());
             if (i < 0) i = std::max<Py_ssize_t>(0, i + n);
             i = std::min(i, n);
             l.v->insert(l.v->begin() + i, BytesLike(x, "repeated string"));
           })
      .def(
          "pop",
          [](L& l, Py_ssize_t i) {
            l.owner->touched = true;
            const Py_ssize_t k = NormalizeIndex(i, l.v->size());
            nb::object x = StringToPython((*l.v)[static_cast<size_t>(k)], l.bytes);
            l.v->erase(l.v->begin() + k);
            return x;
          },
          nb::arg("index") = -1)
      .def("remove",
           [](L& l, nb::handle x) {
             l.owner->touched = true;
             auto it = std::find(l.v->begin(), l.v->end(), BytesLike(x, "value"));
             if (it == l.v->end()) throw nb::value_error("value not in list");
             l.v->erase(it);
           })
      .def("__eq__",
           [](const L& l, nb::handle other) {
             try {
               return StringsToList(l).equal(nb::list(other));
             } catch (const std::exception&) {
               return false;
             }
           })
      .def("__repr__",
           [](const L& l) { return nb::cast<std::string>(nb::repr(StringsToList(l))); });
}

}  // namespace

void BindRepeatedValues(nb::module_& m) {
  BindScalarList<int32_t>(m);
  BindScalarList<int64_t>(m);
  BindScalarList<uint64_t>(m);
  BindScalarList<float>(m);
  BindScalarList<double>(m);
  BindStringList(m);
}

}  // namespace onnx_light::python
