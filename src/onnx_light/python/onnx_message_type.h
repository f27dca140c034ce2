// The type-erased machinery of the ONNX message bindings: a table of functions per message
// type (MsgType), and field access driven by the field descriptors of onnx.h.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>

#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onnx_light/onnx/onnx.h"

namespace onnx_light::python {

namespace nb = nanobind;

// --- messages --------------------------------------------------------------------------
//
// Type-erased: every message class shares one implementation of its methods (bound once on
// the base class _Message) and of its field properties (one getter and one setter driven by
// the field's descriptor), and every repeated-message container one implementation (bound
// once on _RepeatedMessage). What depends on the C++ type is a table of small functions per
// message type (MsgType). Per-class and per-field lambdas made 0.9 MB of the module.

struct MsgType {
  const onnx::MessageDescriptor* d = nullptr;
  nb::handle py;  // the Python class, set when it is bound
  std::string py_name;
  void* (*create)() = nullptr;  // new M()
  void (*destroy)(void*) = nullptr;
  void (*assign)(void* dst, const void* src) = nullptr;
  void (*move_assign)(void* dst, void* src) = nullptr;
  nb::object (*take)(void* m) = nullptr;  // moves *m into a new Python object
  // A singular field of this type (MsgField<M>).
  nb::object (*field_get)(void* field) = nullptr;  // lazy_get(), shared with Python
  void (*field_set)(void* field, const void* value) = nullptr;
  // A repeated field of this type (onnx::Repeated<M>).
  nb::object (*list_of)(void* r, onnx::MessageBase* owner) = nullptr;  // RepeatedM view
  size_t (*r_size)(const void* r) = nullptr;
  void* (*r_at)(void* r, size_t i) = nullptr;
  nb::object (*r_item)(const void* r, size_t i) = nullptr;  // shared with Python
  void (*r_erase)(void* r, size_t first, size_t last) = nullptr;
  void (*r_insert_copy)(void* r, size_t i, const void* value) = nullptr;
  void (*r_push_move)(void* r, void* value) = nullptr;
  void (*r_clear)(void* r) = nullptr;
};

struct MessageListBase {
  void* r;  // onnx::Repeated<M>
  onnx::MessageBase* owner;
  const MsgType* t;
};
template <typename M>
struct MessageList : MessageListBase {};

template <typename M>
MsgType& TypeOf() {
  static MsgType t = [] {
    MsgType x;
    x.d = &M::descriptor();
    x.create = [] { return static_cast<void*>(new M()); };
    x.destroy = [](void* p) { delete static_cast<M*>(p); };
    x.assign = [](void* dst, const void* src) {
      *static_cast<M*>(dst) = *static_cast<const M*>(src);
    };
    x.move_assign = [](void* dst, void* src) {
      *static_cast<M*>(dst) = std::move(*static_cast<M*>(src));
    };
    x.take = [](void* m) { return nb::cast(std::move(*static_cast<M*>(m))); };
    x.field_get = [](void* f) { return nb::cast(static_cast<onnx::MsgField<M>*>(f)->lazy_get()); };
    x.field_set = [](void* f, const void* v) {
      static_cast<onnx::MsgField<M>*>(f)->set(*static_cast<const M*>(v));
    };
    x.list_of = [](void* r, onnx::MessageBase* owner) {
      return nb::cast(MessageList<M>{{r, owner, &TypeOf<M>()}});
    };
    x.r_size = [](const void* r) { return static_cast<const onnx::Repeated<M>*>(r)->size(); };
    x.r_at = [](void* r, size_t i) {
      return static_cast<void*>(&(*static_cast<onnx::Repeated<M>*>(r))[i]);
    };
    x.r_item = [](const void* r, size_t i) {
      return nb::cast(static_cast<const onnx::Repeated<M>*>(r)->shared(i));
    };
    x.r_erase = [](void* r, size_t first, size_t last) {
      static_cast<onnx::Repeated<M>*>(r)->Erase(first, last);
    };
    x.r_insert_copy = [](void* r, size_t i, const void* v) {
      static_cast<onnx::Repeated<M>*>(r)->Insert(i, std::make_shared<M>(*static_cast<const M*>(v)));
    };
    x.r_push_move = [](void* r, void* v) {
      static_cast<onnx::Repeated<M>*>(r)->push_back(std::move(*static_cast<M*>(v)));
    };
    x.r_clear = [](void* r) { static_cast<onnx::Repeated<M>*>(r)->clear(); };
    return x;
  }();
  return t;
}

// Message types by descriptor and by Python class (filled by BindOnnx, read-only after).
std::vector<MsgType*>& AllTypes();
const MsgType& TypeOfDescriptor(const onnx::MessageDescriptor* d);

// A message owned by a temporary C++ object (parsing into a copy before replacing).
struct TempMessage {
  const MsgType& t;
  void* p;
  explicit TempMessage(const MsgType& type) : t(type), p(type.create()) {}
  ~TempMessage() { t.destroy(p); }
  TempMessage(const TempMessage&) = delete;
  TempMessage& operator=(const TempMessage&) = delete;
};

// The name of `h`'s Python type.
std::string TypeName(nb::handle h);
// The C++ message behind `h` if it is a ready instance of `t`'s class, else null.
void* AsMessage(nb::handle h, const MsgType& t);
// The same, or TypeError naming `what`.
void* MessageOrThrow(nb::handle h, const MsgType& t, const char* what);
// `self` of a method bound on _Message: its message type and C++ object; TypeError if it is
// not a message.
std::pair<const MsgType*, void*> Self(nb::handle self);
inline onnx::MessageBase& BaseOf(const MsgType& t, void* m) {
  return *t.d->base(m);
}
// The field named `name`; ValueError if `d` has none.
const onnx::FieldDescriptor& FindField(const onnx::MessageDescriptor& d, const std::string& name);

// Copies of the messages `items` yields, each a `t` message (TypeError naming `what` on the
// first that is not), all taken before the caller changes anything.
std::deque<TempMessage> CopyMessages(nb::handle items, const MsgType& t, const char* what);

// Sets field `fd` of message `m` (of type `t`) from a Python value, as protobuf's generated
// classes do; a oneof member clears the others.
void SetField(const MsgType& t, void* m, const onnx::FieldDescriptor& fd, nb::handle v);
// Sets the fields named by the keyword arguments; ValueError for a name the type lacks.
void SetFields(const MsgType& t, void* m, const nb::kwargs& kwargs);
// The Python value of field `fd` of `self`: a number, str or bytes, the sub-message (shared,
// created on first read) or a container that views the field and keeps `self` alive.
nb::object GetField(nb::handle self, const MsgType& t, void* m, const onnx::FieldDescriptor& fd);
// The Python type a field's getter returns, for the type stubs.
std::string FieldTypeName(const onnx::FieldDescriptor& fd);

}  // namespace onnx_light::python
