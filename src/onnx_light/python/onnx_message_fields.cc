// Field access of the ONNX message bindings (onnx_message_type.h): get and set any field of
// any message from its descriptor.
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "onnx_message_type.h"
#include "onnx_values.h"

namespace onnx_light::python {

using onnx::Bytes;
using onnx::MessageDescriptor;
using onnx::Opt;

// Message types by descriptor and by Python class (filled by BindOnnx, read-only after).
std::vector<MsgType*>& AllTypes() {
  static std::vector<MsgType*> all;
  return all;
}

const MsgType& TypeOfDescriptor(const MessageDescriptor* d) {
  for (const MsgType* t : AllTypes()) {
    if (t->d == d) return *t;
  }
  throw std::logic_error("onnx_light._core.onnx: unbound message type");
}

std::string TypeName(nb::handle h) {
  return nb::cast<std::string>(nb::str(h.type().attr("__name__")));
}

// The C++ message behind `h` if it is a ready instance of `t`'s class, else null.
void* AsMessage(nb::handle h, const MsgType& t) {
  if (!nb::inst_check(h) ||
      !PyObject_TypeCheck(h.ptr(), reinterpret_cast<PyTypeObject*>(t.py.ptr())) ||
      !nb::inst_ready(h)) {
    return nullptr;
  }
  return nb::inst_ptr<void>(h);
}

void* MessageOrThrow(nb::handle h, const MsgType& t, const char* what) {
  void* p = AsMessage(h, t);
  if (p == nullptr) {
    throw nb::type_error(
        (std::string(what) + ": expected " + t.py_name + ", got " + TypeName(h)).c_str());
  }
  return p;
}

// `self` of a method bound on _Message: its message type and C++ object.
std::pair<const MsgType*, void*> Self(nb::handle self) {
  if (nb::inst_check(self) && nb::inst_ready(self)) {
    for (auto* tp = Py_TYPE(self.ptr()); tp != nullptr; tp = tp->tp_base) {
      for (const MsgType* t : AllTypes()) {
        if (t->py.ptr() == reinterpret_cast<PyObject*>(tp)) return {t, nb::inst_ptr<void>(self)};
      }
    }
  }
  throw nb::type_error(("expected an ONNX message, got " + TypeName(self)).c_str());
}

const onnx::FieldDescriptor& FindField(const MessageDescriptor& d, const std::string& name) {
  const onnx::FieldDescriptor* fd = d.FindByName(name);
  if (fd == nullptr) {
    throw nb::value_error(
        (std::string("Protocol message ") + d.name + " has no \"" + name + "\" field.").c_str());
  }
  return *fd;
}

template <typename T>
void SetScalar(void* f, nb::handle v) {
  static_cast<Opt<T>*>(f)->set(ScalarFromPython<T>(v));
}

template <typename T>
void SetScalars(void* f, nb::handle v) {
  std::vector<T> values;
  ExtendScalars(values, v);
  *static_cast<std::vector<T>*>(f) = std::move(values);
}

std::deque<TempMessage> CopyMessages(nb::handle items, const MsgType& t, const char* what) {
  std::deque<TempMessage> copies;
  for (nb::handle x : nb::iter(items)) {
    const void* p = MessageOrThrow(x, t, what);
    copies.emplace_back(t);
    t.assign(copies.back().p, p);
  }
  return copies;
}

// Sets field `fd` of message `m` (of type `t`) from a Python value, as protobuf's
// generated classes do; a oneof member clears the others.
void SetField(const MsgType& t, void* m, const onnx::FieldDescriptor& fd, nb::handle v) {
  void* f = fd.field(m);
  using onnx::FieldKind;
  if (fd.repeated) {
    switch (fd.kind) {
      case FieldKind::kInt32:
        return SetScalars<int32_t>(f, v);
      case FieldKind::kInt64:
        return SetScalars<int64_t>(f, v);
      case FieldKind::kUint64:
        return SetScalars<uint64_t>(f, v);
      case FieldKind::kFloat:
        return SetScalars<float>(f, v);
      case FieldKind::kDouble:
        return SetScalars<double>(f, v);
      case FieldKind::kString:
      case FieldKind::kRawBytes: {
        std::vector<std::string> values;
        for (nb::handle x : nb::iter(v))
          values.push_back(BytesLike(x, fd.name));
        *static_cast<std::vector<std::string>*>(f) = std::move(values);
        return;
      }
      case FieldKind::kMessage: {
        const MsgType& sub = TypeOfDescriptor(fd.message_type());
        std::deque<TempMessage> copies = CopyMessages(v, sub, fd.name);  // `a.f = a.f` works
        sub.r_clear(f);
        for (TempMessage& c : copies)
          sub.r_push_move(f, c.p);
        return;
      }
    }
    return;
  }
  switch (fd.kind) {
    case FieldKind::kInt32:
      SetScalar<int32_t>(f, v);
      break;
    case FieldKind::kInt64:
      SetScalar<int64_t>(f, v);
      break;
    case FieldKind::kUint64:
      SetScalar<uint64_t>(f, v);
      break;
    case FieldKind::kFloat:
      SetScalar<float>(f, v);
      break;
    case FieldKind::kDouble:
      SetScalar<double>(f, v);
      break;
    case FieldKind::kString:
      static_cast<Opt<std::string>*>(f)->set(BytesLike(v, fd.name));
      break;
    case FieldKind::kRawBytes:
      static_cast<Opt<Bytes>*>(f)->set(Bytes(BytesLike(v, fd.name)));
      break;
    case FieldKind::kMessage: {
      const MsgType& sub = TypeOfDescriptor(fd.message_type());
      if (const void* p = AsMessage(v, sub)) {
        sub.field_set(f, p);
      } else if (nb::isinstance<nb::dict>(v)) {
        TempMessage value(sub);
        SetFields(sub, value.p, nb::borrow<nb::kwargs>(v));
        sub.field_set(f, value.p);
      } else {
        throw nb::type_error((std::string(fd.name) + ": expected " + sub.py_name).c_str());
      }
      break;
    }
  }
  if (fd.flags & onnx::kOneof) onnx::ClearOtherOneofMembers(*t.d, m, fd);
}

void SetFields(const MsgType& t, void* m, const nb::kwargs& kwargs) {
  for (auto [key, value] : kwargs) {
    const std::string name = nb::cast<std::string>(key);
    BaseOf(t, m).touched = true;
    SetField(t, m, FindField(*t.d, name), value);
  }
}

// The Python value of field `fd` of `self`: a number, str or bytes, the sub-message (shared,
// created on first read) or a container that views the field and keeps `self` alive.
nb::object GetField(nb::handle self, const MsgType& t, void* m, const onnx::FieldDescriptor& fd) {
  void* f = fd.field(m);
  onnx::MessageBase* owner = &BaseOf(t, m);
  using onnx::FieldKind;
  nb::object out;
  if (!fd.repeated) {
    switch (fd.kind) {
      case FieldKind::kInt32:
        return nb::int_(static_cast<Opt<int32_t>*>(f)->get());
      case FieldKind::kInt64:
        return nb::int_(static_cast<Opt<int64_t>*>(f)->get());
      case FieldKind::kUint64:
        return nb::steal(PyLong_FromUnsignedLongLong(static_cast<Opt<uint64_t>*>(f)->get()));
      case FieldKind::kFloat:
        return nb::float_(static_cast<Opt<float>*>(f)->get());
      case FieldKind::kDouble:
        return nb::float_(static_cast<Opt<double>*>(f)->get());
      case FieldKind::kString:
        return StringToPython(static_cast<Opt<std::string>*>(f)->get(), fd.flags & onnx::kBytes);
      case FieldKind::kRawBytes: {
        const Bytes& b = static_cast<Opt<Bytes>*>(f)->get();
        return nb::bytes(b.data(), b.size());
      }
      case FieldKind::kMessage:
        return TypeOfDescriptor(fd.message_type()).field_get(f);
    }
    return nb::none();
  }
  switch (fd.kind) {
    case FieldKind::kInt32:
      out = nb::cast(ScalarList<int32_t>{static_cast<std::vector<int32_t>*>(f), owner});
      break;
    case FieldKind::kInt64:
      out = nb::cast(ScalarList<int64_t>{static_cast<std::vector<int64_t>*>(f), owner});
      break;
    case FieldKind::kUint64:
      out = nb::cast(ScalarList<uint64_t>{static_cast<std::vector<uint64_t>*>(f), owner});
      break;
    case FieldKind::kFloat:
      out = nb::cast(ScalarList<float>{static_cast<std::vector<float>*>(f), owner});
      break;
    case FieldKind::kDouble:
      out = nb::cast(ScalarList<double>{static_cast<std::vector<double>*>(f), owner});
      break;
    case FieldKind::kString:
    case FieldKind::kRawBytes:
      out = nb::cast(StringList{static_cast<std::vector<std::string>*>(f), owner,
                                (fd.flags & onnx::kBytes) != 0});
      break;
    case FieldKind::kMessage:
      out = TypeOfDescriptor(fd.message_type()).list_of(f, owner);
      break;
  }
  nb::keep_alive_obj(out, self);
  return out;
}

// The Python type a field's getter returns, for the type stubs.
std::string FieldTypeName(const onnx::FieldDescriptor& fd) {
  using onnx::FieldKind;
  const bool bytes = fd.flags & onnx::kBytes;
  switch (fd.kind) {
    case FieldKind::kInt32:
      return fd.repeated ? "RepeatedInt32" : "int";
    case FieldKind::kInt64:
      return fd.repeated ? "RepeatedInt64" : "int";
    case FieldKind::kUint64:
      return fd.repeated ? "RepeatedUInt64" : "int";
    case FieldKind::kFloat:
      return fd.repeated ? "RepeatedFloat" : "float";
    case FieldKind::kDouble:
      return fd.repeated ? "RepeatedDouble" : "float";
    case FieldKind::kString:
      return fd.repeated ? "RepeatedString" : (bytes ? "bytes" : "str");
    case FieldKind::kRawBytes:
      return fd.repeated ? "RepeatedString" : "bytes";
    case FieldKind::kMessage: {
      const MsgType& sub = TypeOfDescriptor(fd.message_type());
      return fd.repeated ? "Repeated" + sub.py_name.substr(sub.py_name.rfind('.') + 1)
                         : sub.py_name;
    }
  }
  return "object";
}

}  // namespace onnx_light::python
