// Python bindings of the ONNX message classes (onnx_light._core.onnx), generated from the
// field lists of onnx.h. The Python surface follows the protobuf classes that the `onnx`
// package exposes: attribute access, repeated containers, SerializeToString, CopyFrom, ...
#include "onnx_bindings.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "onnx_light/onnx/model_io.h"
#include "onnx_light/onnx/onnx.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace onnx_light::python {
namespace {

using onnx::Bytes;
using onnx::MessageDescriptor;
using onnx::MsgField;
using onnx::Opt;
using onnx::Repeated;

// --- conversions -----------------------------------------------------------------------

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

Py_ssize_t NormalizeIndex(Py_ssize_t i, size_t size) {
  const auto n = static_cast<Py_ssize_t>(size);
  if (i < 0) i += n;
  if (i < 0 || i >= n) throw nb::index_error("list index out of range");
  return i;
}

// Start/stop/step of a slice over `size` elements, as the indices it selects.
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

template <typename Vec>
void EraseIndices(Vec& v, std::vector<size_t> idx) {
  std::sort(idx.begin(), idx.end());
  for (auto it = idx.rbegin(); it != idx.rend(); ++it)
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(*it));
}

// --- repeated scalar / string containers -------------------------------------------------

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
const char* ScalarName() {
  if constexpr (std::is_same_v<T, int32_t>) return "RepeatedInt32";
  if constexpr (std::is_same_v<T, int64_t>) return "RepeatedInt64";
  if constexpr (std::is_same_v<T, uint64_t>) return "RepeatedUInt64";
  if constexpr (std::is_same_v<T, float>) return "RepeatedFloat";
  return "RepeatedDouble";
}

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

// --- messages --------------------------------------------------------------------------

template <typename M>
using Setter = std::function<void(M&, nb::handle)>;

// Setting a member of the message's oneof clears the others, as protobuf does (a
// Dimension's dim_value replaces its dim_param, in the message and in its bytes).
template <typename M>
void ClearOtherOneofs(M& m, const char* name, uint32_t flags) {
  if (!(flags & onnx::kOneof)) return;
  const onnx::FieldDescriptor* fd = M::descriptor().FindByName(name);
  if (fd != nullptr) onnx::ClearOtherOneofMembers(M::descriptor(), &m, *fd);
}

template <typename M>
std::map<std::string, Setter<M>>& Setters() {
  static std::map<std::string, Setter<M>> setters;
  return setters;
}

template <typename M>
void SetFields(M& m, const nb::kwargs& kwargs) {
  for (auto [key, value] : kwargs) {
    const std::string name = nb::cast<std::string>(key);
    auto it = Setters<M>().find(name);
    m.touched = true;
    if (it == Setters<M>().end()) {
      throw nb::value_error((std::string("Protocol message ") + M::descriptor().name +
                             " has no \"" + name + "\" field.")
                                .c_str());
    }
    it->second(m, value);
  }
}

template <typename S>
struct MessageList {
  Repeated<S>* r;
  onnx::MessageBase* owner;
};

template <typename S>
void BindMessageList(nb::module_& m, const std::string& name);

template <typename M, typename T>
void BindField(nb::class_<M>& cls, const char* name, Opt<T> M::*mp, uint32_t flags) {
  Setter<M> set = [mp, name, flags](M& m, nb::handle v) {
    (m.*mp).set(ScalarFromPython<T>(v));
    ClearOtherOneofs(m, name, flags);
  };
  Setters<M>()[name] = set;
  cls.def_prop_rw(
      name, [mp](const M& m) { return (m.*mp).get(); },
      [set](M& m, nb::handle v) {
        m.touched = true;
        set(m, v);
      });
}

template <typename M>
void BindField(nb::class_<M>& cls, const char* name, Opt<std::string> M::*mp, uint32_t flags) {
  const bool as_bytes = flags & onnx::kBytes;
  Setter<M> set = [mp, name, flags](M& m, nb::handle v) {
    (m.*mp).set(BytesLike(v, name));
    ClearOtherOneofs(m, name, flags);
  };
  Setters<M>()[name] = set;
  cls.def_prop_rw(
      name, [mp, as_bytes](const M& m) { return StringToPython((m.*mp).get(), as_bytes); },
      [set](M& m, nb::handle v) {
        m.touched = true;
        set(m, v);
      });
}

template <typename M>
void BindField(nb::class_<M>& cls, const char* name, Opt<Bytes> M::*mp, uint32_t flags) {
  Setter<M> set = [mp, name, flags](M& m, nb::handle v) {
    (m.*mp).set(Bytes(BytesLike(v, name)));
    ClearOtherOneofs(m, name, flags);
  };
  Setters<M>()[name] = set;
  cls.def_prop_rw(
      name,
      [mp](const M& m) {
        const Bytes& b = (m.*mp).get();
        return nb::bytes(b.data(), b.size());
      },
      [set](M& m, nb::handle v) {
        m.touched = true;
        set(m, v);
      });
}

template <typename M, typename S>
void BindField(nb::class_<M>& cls, const char* name, MsgField<S> M::*mp, uint32_t flags) {
  Setter<M> set = [mp, name, flags](M& m, nb::handle v) {
    S value;
    if (nb::isinstance<S>(v)) {
      value = nb::cast<const S&>(v);
    } else if (nb::isinstance<nb::dict>(v)) {
      SetFields(value, nb::borrow<nb::kwargs>(v));
    } else {
      throw nb::type_error((std::string(name) + ": expected " + S::descriptor().name).c_str());
    }
    (m.*mp).set(std::move(value));
    ClearOtherOneofs(m, name, flags);
  };
  Setters<M>()[name] = set;
  cls.def_prop_rw(
      name, [mp](M& m) { return (m.*mp).lazy_get(); }, [set](M& m, nb::handle v) { set(m, v); });
}

template <typename M, typename T>
void BindField(nb::class_<M>& cls, const char* name, std::vector<T> M::*mp, uint32_t) {
  Setter<M> set = [mp](M& m, nb::handle v) {
    std::vector<T> values;
    ExtendScalars(values, v);
    (m.*mp) = std::move(values);
  };
  Setters<M>()[name] = set;
  cls.def_prop_rw(
      name,
      [mp](M& m) {
        return ScalarList<T>{&(m.*mp), &m};
      },
      [set](M& m, nb::handle v) {
        m.touched = true;
        set(m, v);
      },
      nb::for_getter(nb::keep_alive<0, 1>()));
}

template <typename M>
void BindField(nb::class_<M>& cls, const char* name, std::vector<std::string> M::*mp,
               uint32_t flags) {
  const bool as_bytes = flags & onnx::kBytes;
  Setter<M> set = [mp, name](M& m, nb::handle v) {
    std::vector<std::string> values;
    for (nb::handle x : nb::iter(v))
      values.push_back(BytesLike(x, name));
    (m.*mp) = std::move(values);
  };
  Setters<M>()[name] = set;
  cls.def_prop_rw(
      name,
      [mp, as_bytes](M& m) {
        return StringList{&(m.*mp), &m, as_bytes};
      },
      [set](M& m, nb::handle v) {
        m.touched = true;
        set(m, v);
      },
      nb::for_getter(nb::keep_alive<0, 1>()));
}

template <typename S>
S MessageFromPython(nb::handle v) {
  if (nb::isinstance<S>(v)) return nb::cast<const S&>(v);
  throw nb::type_error((std::string("expected ") + S::descriptor().name + ", got " +
                        nb::cast<std::string>(nb::str(v.type().attr("__name__"))))
                           .c_str());
}

template <typename M, typename S>
void BindField(nb::class_<M>& cls, const char* name, Repeated<S> M::*mp, uint32_t) {
  Setter<M> set = [mp](M& m, nb::handle v) {
    Repeated<S> values;
    for (nb::handle x : nb::iter(v))
      values.push_back(MessageFromPython<S>(x));
    (m.*mp) = std::move(values);
  };
  Setters<M>()[name] = set;
  cls.def_prop_rw(
      name,
      [mp](M& m) {
        return MessageList<S>{&(m.*mp), &m};
      },
      [set](M& m, nb::handle v) {
        m.touched = true;
        set(m, v);
      },
      nb::for_getter(nb::keep_alive<0, 1>()));
}

template <typename S>
void BindMessageList(nb::module_& m, const std::string& name) {
  using L = MessageList<S>;
  nb::class_<L>(m, name.c_str())
      .def("__len__", [](const L& l) { return l.r->size(); })
      .def("__getitem__",
           [](const L& l, Py_ssize_t i) {
             return l.r->shared(static_cast<size_t>(NormalizeIndex(i, l.r->size())));
           })
      .def("__getitem__",
           [](const L& l, nb::slice s) {
             std::vector<std::shared_ptr<S>> out;
             for (size_t i : SliceIndices(s, l.r->size()))
               out.push_back(l.r->shared(i));
             return out;
           })
      .def("__delitem__",
           [](L& l, Py_ssize_t i) {
             l.owner->touched = true;
             const auto k = static_cast<size_t>(NormalizeIndex(i, l.r->size()));
             l.r->Erase(k, k + 1);
           })
      .def("__delitem__",
           [](L& l, nb::slice s) {
             l.owner->touched = true;
             std::vector<size_t> idx = SliceIndices(s, l.r->size());
             std::sort(idx.begin(), idx.end());
             for (auto it = idx.rbegin(); it != idx.rend(); ++it)
               l.r->Erase(*it, *it + 1);
           })
      .def("__iter__",
           [](const L& l) {
             std::vector<std::shared_ptr<S>> items;
             for (size_t i = 0; i < l.r->size(); ++i)
               items.push_back(l.r->shared(i));
             return nb::iter(nb::cast(items));
           })
      .def("add",
           [](L& l, nb::kwargs kwargs) {
             l.owner->touched = true;
             S value;
             SetFields(value, kwargs);
             l.r->push_back(std::move(value));
             return l.r->shared(l.r->size() - 1);
           })
      .def("append",
           [](L& l, nb::handle x) {
             l.owner->touched = true;
             l.r->push_back(MessageFromPython<S>(x));
           })
      .def("extend",
           [](L& l, nb::handle items) {
             l.owner->touched = true;
             std::vector<S> add;
             for (nb::handle x : nb::iter(items))
               add.push_back(MessageFromPython<S>(x));
             for (S& s : add)
               l.r->push_back(std::move(s));
           })
      .def("insert",
           [](L& l, Py_ssize_t i, nb::handle x) {
             l.owner->touched = true;
             const auto n = static_cast<Py_ssize_t>(l.r->size());
             if (i < 0) i = std::max<Py_ssize_t>(0, i + n);
             i = std::min(i, n);
             l.r->Insert(static_cast<size_t>(i), std::make_shared<S>(MessageFromPython<S>(x)));
           })
      .def(
          "pop",
          [](L& l, Py_ssize_t i) {
            l.owner->touched = true;
            const auto k = static_cast<size_t>(NormalizeIndex(i, l.r->size()));
            std::shared_ptr<S> item = l.r->shared(k);
            l.r->Erase(k, k + 1);
            return item;
          },
          nb::arg("index") = -1)
      .def("remove",
           [](L& l, const S& x) {
             l.owner->touched = true;
             for (size_t i = 0; i < l.r->size(); ++i) {
               if ((*l.r)[i] == x) {
                 l.r->Erase(i, i + 1);
                 return;
               }
             }
             throw nb::value_error("value not in list");
           })
      .def("__eq__",
           [](const L& l, nb::handle other) {
             return SequenceEquals(*l.r, other, &MessageFromPython<S>);
           })
      .def("__repr__", [](const L& l) {
        std::string out = "[";
        for (size_t i = 0; i < l.r->size(); ++i) {
          if (i) out += ", ";
          out += "<" + std::string(S::descriptor().name) + ">";
        }
        return out + "]";
      });
}

const onnx::FieldDescriptor& FindField(const MessageDescriptor& d, const std::string& name) {
  const onnx::FieldDescriptor* fd = d.FindByName(name);
  if (fd == nullptr) {
    throw nb::value_error(
        (std::string("Protocol message ") + d.name + " has no \"" + name + "\" field.").c_str());
  }
  return *fd;
}

std::string PyName(const char* descriptor_name) {
  std::string s = descriptor_name;
  const size_t dot = s.rfind('.');
  return dot == std::string::npos ? s : s.substr(dot + 1);
}

template <typename M>
nb::class_<M> BindMessage(nb::handle scope) {
  const MessageDescriptor& d = M::descriptor();
  nb::class_<M> cls(scope, PyName(d.name).c_str());
  cls.def(
      "__init__",
      [](M* self, nb::kwargs kwargs) {
        new (self) M();
        SetFields(*self, kwargs);
      },
      "Creates the message; keyword arguments set fields.");
  cls.def(
      "SerializeToString",
      [](const M& m, nb::kwargs) {
        std::string out;
        {
          nb::gil_scoped_release release;
          out = onnx::SerializeToString(m);
        }
        return nb::bytes(out.data(), out.size());
      },
      "Serializes to bytes in the protobuf wire format (fields in field-number order).");
  cls.def(
      "ParseFromString",
      [](M& m, nb::handle data) {
        const std::string bytes = BytesLike(data, "data");
        M parsed;
        ThrowIfError(onnx::ParseFromBytes(&parsed, bytes.data(), bytes.size()));
        m = std::move(parsed);
        m.touched = true;
        return bytes.size();
      },
      "Replaces the content with the parsed bytes; ValueError on malformed input.");
  cls.def(
      "MergeFromString",
      [](M& m, nb::handle data) {
        const std::string bytes = BytesLike(data, "data");
        M merged = m;
        ThrowIfError(onnx::ParseFromBytes(&merged, bytes.data(), bytes.size()));
        m = std::move(merged);
        m.touched = true;
        return bytes.size();
      },
      "Merges the parsed bytes into the message (protobuf merge rules).");
  cls.def("CopyFrom", [](M& m, const M& other) {
    if (&m != &other) m = other;
    m.touched = true;
  });
  cls.def("MergeFrom", [](M& m, const M& other) {
    const std::string bytes = onnx::SerializeToString(other);
    ThrowIfError(onnx::ParseFromBytes(&m, bytes.data(), bytes.size()));
    m.touched = true;
  });
  cls.def("Clear", [](M& m) { m.Clear(); });
  cls.def("ByteSize", [](const M& m) { return onnx::MessageByteSize(M::descriptor(), &m); });
  cls.def("HasField", [](const M& m, const std::string& name) {
    const MessageDescriptor& md = M::descriptor();
    if (md.oneof_name != nullptr && name == md.oneof_name) {
      for (size_t i = 0; i < md.field_count; ++i) {
        const auto& fd = md.fields[i];
        if ((fd.flags & onnx::kOneof) && fd.codec->present(fd.field(&m))) return true;
      }
      return false;
    }
    const onnx::FieldDescriptor& fd = FindField(md, name);
    if (fd.repeated) {
      throw nb::value_error(("Protocol message has no singular \"" + name + "\" field.").c_str());
    }
    return fd.codec->present(fd.field(&m));
  });
  cls.def("ClearField", [](M& m, const std::string& name) {
    const onnx::FieldDescriptor& fd = FindField(M::descriptor(), name);
    fd.codec->clear(fd.field(&m));
  });
  cls.def("WhichOneof", [](const M& m, const std::string& group) -> nb::object {
    const MessageDescriptor& md = M::descriptor();
    if (md.oneof_name == nullptr || group != md.oneof_name) {
      throw nb::value_error(("Protocol message has no oneof \"" + group + "\" field.").c_str());
    }
    for (size_t i = 0; i < md.field_count; ++i) {
      const auto& fd = md.fields[i];
      if ((fd.flags & onnx::kOneof) && fd.codec->present(fd.field(&m))) return nb::str(fd.name);
    }
    return nb::none();
  });
  cls.def(
      "ListFields",
      [](nb::handle self) {
        const M& m = nb::cast<const M&>(self);
        const MessageDescriptor& md = M::descriptor();
        nb::list out;
        for (size_t i = 0; i < md.field_count; ++i) {
          const auto& fd = md.fields[i];
          if (fd.codec->present(fd.field(&m))) {
            out.append(nb::make_tuple(nb::str(fd.name), self.attr(fd.name)));
          }
        }
        return out;
      },
      "Present fields as (name, value) pairs in field-number order.");
  cls.def("__eq__", [](const M& a, nb::handle b) {
    return nb::isinstance<M>(b) && a == nb::cast<const M&>(b);
  });
  cls.def("__ne__", [](const M& a, nb::handle b) {
    return !(nb::isinstance<M>(b) && a == nb::cast<const M&>(b));
  });
  cls.attr("__hash__") = nb::none();
  cls.def("__str__", [](const M& m) { return onnx::MessageToText(M::descriptor(), &m); });
  cls.def("__repr__", [](const M& m) { return onnx::MessageToText(M::descriptor(), &m); });
  cls.def("__copy__", [](const M& m) { return M(m); });
  cls.def("__deepcopy__", [](const M& m, nb::handle) { return M(m); });
  cls.def("__getstate__", [](const M& m) {
    const std::string out = onnx::SerializeToString(m);
    return nb::bytes(out.data(), out.size());
  });
  cls.def("__setstate__", [](M& m, nb::bytes state) {
    new (&m) M();
    ThrowIfError(onnx::ParseFromBytes(&m, state.c_str(), state.size()));
  });
  cls.def_static("FromString", [](nb::handle data) {
    const std::string bytes = BytesLike(data, "data");
    M m;
    ThrowIfError(onnx::ParseFromBytes(&m, bytes.data(), bytes.size()));
    return m;
  });
  cls.def_prop_ro_static("FIELD_NAMES", [](nb::handle) {
    std::vector<std::string> names;
    for (size_t i = 0; i < M::descriptor().field_count; ++i) {
      names.emplace_back(M::descriptor().fields[i].name);
    }
    return names;
  });
  return cls;
}

#define ONNX_LIGHT_BIND_FIELD_(number, name, holder, flags) \
  BindField<Msg>(cls, #name, &Msg::name, flags);

template <typename M>
void BindAllFields(nb::class_<M>& cls);

#define ONNX_LIGHT_BIND_FIELDS_(Name)                            \
  template <>                                                    \
  void BindAllFields<onnx::Name>(nb::class_<onnx::Name> & cls) { \
    using Msg = onnx::Name;                                      \
    ONNX_LIGHT_FIELDS_##Name(ONNX_LIGHT_BIND_FIELD_)             \
  }

namespace o = onnx;
using o::AttributeProto, o::DeviceConfigurationProto, o::FunctionProto, o::GraphProto,
    o::IntIntListEntryProto, o::MapProto, o::ModelProto, o::NodeDeviceConfigurationProto,
    o::NodeProto, o::OperatorSetIdProto, o::OptionalProto, o::SequenceProto, o::ShardedDimProto,
    o::ShardingSpecProto, o::SimpleShardedDimProto, o::SparseTensorProto, o::StringStringEntryProto,
    o::TensorAnnotation, o::TensorProto, o::TensorProto_Segment, o::TensorShapeProto,
    o::TensorShapeProto_Dimension, o::TrainingInfoProto, o::TypeProto, o::TypeProto_Map,
    o::TypeProto_Opaque, o::TypeProto_Optional, o::TypeProto_Sequence, o::TypeProto_SparseTensor,
    o::TypeProto_Tensor, o::ValueInfoProto;
using o::kBytes, o::kNoFlags, o::kOneof, o::kPacked;

ONNX_LIGHT_MESSAGES(ONNX_LIGHT_BIND_FIELDS_)

// zero-copy view of raw_data as a read-only uint8 numpy array
nb::object RawDataArray(nb::handle self) {
  const TensorProto& t = nb::cast<const TensorProto&>(self);
  const Bytes& b = t.raw_data.get();
  auto* keep = new std::shared_ptr<const void>(b.owner());
  nb::capsule owner(keep,
                    [](void* p) noexcept { delete static_cast<std::shared_ptr<const void>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, const uint8_t, nb::ndim<1>>(
      reinterpret_cast<const uint8_t*>(b.data()), {b.size()}, owner));
}

}  // namespace

void BindOnnx(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("onnx", "ONNX message classes (onnx_light.onnx).");

  BindScalarList<int32_t>(m);
  BindScalarList<int64_t>(m);
  BindScalarList<uint64_t>(m);
  BindScalarList<float>(m);
  BindScalarList<double>(m);
  BindStringList(m);

  // Classes first (nested ones inside their parent), then containers, then fields, so every
  // property's type is registered before it is used.
  nb::class_<StringStringEntryProto> c_sse = BindMessage<StringStringEntryProto>(m);
  nb::class_<OperatorSetIdProto> c_opset = BindMessage<OperatorSetIdProto>(m);
  nb::class_<TensorProto> c_tensor = BindMessage<TensorProto>(m);
  nb::class_<TensorProto_Segment> c_segment = BindMessage<TensorProto_Segment>(c_tensor);
  nb::class_<SparseTensorProto> c_sparse = BindMessage<SparseTensorProto>(m);
  nb::class_<TensorShapeProto> c_shape = BindMessage<TensorShapeProto>(m);
  nb::class_<TensorShapeProto_Dimension> c_dim = BindMessage<TensorShapeProto_Dimension>(c_shape);
  nb::class_<TypeProto> c_type = BindMessage<TypeProto>(m);
  nb::class_<TypeProto_Tensor> c_tt = BindMessage<TypeProto_Tensor>(c_type);
  nb::class_<TypeProto_Sequence> c_ts = BindMessage<TypeProto_Sequence>(c_type);
  nb::class_<TypeProto_Map> c_tm = BindMessage<TypeProto_Map>(c_type);
  nb::class_<TypeProto_Optional> c_to = BindMessage<TypeProto_Optional>(c_type);
  nb::class_<TypeProto_SparseTensor> c_tst = BindMessage<TypeProto_SparseTensor>(c_type);
  nb::class_<TypeProto_Opaque> c_top = BindMessage<TypeProto_Opaque>(c_type);
  nb::class_<ValueInfoProto> c_vi = BindMessage<ValueInfoProto>(m);
  nb::class_<AttributeProto> c_attr = BindMessage<AttributeProto>(m);
  nb::class_<IntIntListEntryProto> c_iil = BindMessage<IntIntListEntryProto>(m);
  nb::class_<SimpleShardedDimProto> c_ssd = BindMessage<SimpleShardedDimProto>(m);
  nb::class_<ShardedDimProto> c_sd = BindMessage<ShardedDimProto>(m);
  nb::class_<ShardingSpecProto> c_ss = BindMessage<ShardingSpecProto>(m);
  nb::class_<NodeDeviceConfigurationProto> c_ndc = BindMessage<NodeDeviceConfigurationProto>(m);
  nb::class_<NodeProto> c_node = BindMessage<NodeProto>(m);
  nb::class_<TensorAnnotation> c_ta = BindMessage<TensorAnnotation>(m);
  nb::class_<GraphProto> c_graph = BindMessage<GraphProto>(m);
  nb::class_<FunctionProto> c_func = BindMessage<FunctionProto>(m);
  nb::class_<TrainingInfoProto> c_ti = BindMessage<TrainingInfoProto>(m);
  nb::class_<DeviceConfigurationProto> c_dc = BindMessage<DeviceConfigurationProto>(m);
  nb::class_<ModelProto> c_model = BindMessage<ModelProto>(m);
  nb::class_<SequenceProto> c_seq = BindMessage<SequenceProto>(m);
  nb::class_<MapProto> c_map = BindMessage<MapProto>(m);
  nb::class_<OptionalProto> c_opt = BindMessage<OptionalProto>(m);

#define ONNX_LIGHT_BIND_LIST_(Name) \
  BindMessageList<Name>(m, std::string("Repeated") + PyName(Name::descriptor().name));
  ONNX_LIGHT_MESSAGES(ONNX_LIGHT_BIND_LIST_)
#undef ONNX_LIGHT_BIND_LIST_

  BindAllFields(c_sse);
  BindAllFields(c_opset);
  BindAllFields(c_tensor);
  BindAllFields(c_segment);
  BindAllFields(c_sparse);
  BindAllFields(c_shape);
  BindAllFields(c_dim);
  BindAllFields(c_type);
  BindAllFields(c_tt);
  BindAllFields(c_ts);
  BindAllFields(c_tm);
  BindAllFields(c_to);
  BindAllFields(c_tst);
  BindAllFields(c_top);
  BindAllFields(c_vi);
  BindAllFields(c_attr);
  BindAllFields(c_iil);
  BindAllFields(c_ssd);
  BindAllFields(c_sd);
  BindAllFields(c_ss);
  BindAllFields(c_ndc);
  BindAllFields(c_node);
  BindAllFields(c_ta);
  BindAllFields(c_graph);
  BindAllFields(c_func);
  BindAllFields(c_ti);
  BindAllFields(c_dc);
  BindAllFields(c_model);
  BindAllFields(c_seq);
  BindAllFields(c_map);
  BindAllFields(c_opt);

  c_tensor.def("_raw_data_array", &RawDataArray,
               "raw_data as a read-only uint8 numpy array that views the loaded file.");

  m.def(
      "load_model",
      [](const std::string& path, bool load_external_data) {
        onnx::LoadOptions options;
        options.load_external_data = load_external_data;
        Result<ModelProto> r = [&] {
          nb::gil_scoped_release release;
          return onnx::LoadModel(path, options);
        }();
        return ValueOrThrow(std::move(r));
      },
      nb::arg("path"), nb::arg("load_external_data") = true,
      "Loads a model file (memory-mapped; tensor payloads view the file).");
  m.def(
      "load_external_data",
      [](ModelProto& model, const std::string& base_dir) {
        ThrowIfError(onnx::LoadExternalData(&model, base_dir));
      },
      nb::arg("model"), nb::arg("base_dir"));
  m.def(
      "save_model",
      [](const ModelProto& model, const std::string& path) {
        Status s;
        {
          nb::gil_scoped_release release;
          s = onnx::SaveModel(model, path);
        }
        ThrowIfError(s);
      },
      nb::arg("model"), nb::arg("path"));
#define ONNX_LIGHT_BIND_LOAD_(Name)                                      \
  m.def(                                                                 \
      "load_" #Name,                                                     \
      [](const std::string& path) {                                      \
        Result<Name> r = [&] {                                           \
          nb::gil_scoped_release release;                                \
          return onnx::LoadMessage<Name>(path);                          \
        }();                                                             \
        return ValueOrThrow(std::move(r));                               \
      },                                                                 \
      nb::arg("path"));                                                  \
  m.def(                                                                 \
      "save_" #Name,                                                     \
      [](const Name& msg, const std::string& path) {                     \
        ThrowIfError(onnx::SaveMessage(Name::descriptor(), &msg, path)); \
      },                                                                 \
      nb::arg("message"), nb::arg("path"));
  ONNX_LIGHT_BIND_LOAD_(TensorProto)
  ONNX_LIGHT_BIND_LOAD_(SequenceProto)
  ONNX_LIGHT_BIND_LOAD_(MapProto)
  ONNX_LIGHT_BIND_LOAD_(OptionalProto)
#undef ONNX_LIGHT_BIND_LOAD_
}

}  // namespace onnx_light::python
