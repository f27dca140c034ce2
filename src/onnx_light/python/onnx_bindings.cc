// Python bindings of the ONNX message classes (onnx_light._core.onnx), generated from the
// field lists of onnx.h. The Python surface follows the protobuf classes that the `onnx`
// package exposes: attribute access, repeated containers, SerializeToString, CopyFrom, ...
// The containers of repeated scalars and strings are in onnx_values.cc.
#include "onnx_bindings.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "onnx_light/onnx/model_io.h"
#include "onnx_light/onnx/onnx.h"
#include "onnx_message_type.h"
#include "onnx_values.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace onnx_light::python {
namespace {

using onnx::Bytes;
using onnx::MessageDescriptor;

std::string PyName(const char* descriptor_name) {
  std::string s = descriptor_name;
  const size_t dot = s.rfind('.');
  return dot == std::string::npos ? s : s.substr(dot + 1);
}

// Signatures for the stubs, alive as long as the module (nanobind keeps the pointers).
const char* KeepString(std::string s) {
  static auto* strings = new std::vector<std::unique_ptr<std::string>>();
  strings->push_back(std::make_unique<std::string>(std::move(s)));
  return strings->back()->c_str();
}

template <typename M>
nb::class_<M, onnx::MessageBase> BindMessage(nb::handle scope) {
  MsgType& t = TypeOf<M>();
  nb::class_<M, onnx::MessageBase> cls(scope, PyName(t.d->name).c_str());
  t.py = cls;
  t.py_name = t.d->name;
  AllTypes().push_back(&t);
  cls.def(
      "__init__",
      [](M* self, nb::kwargs kwargs) {
        new (self) M();
        try {
          SetFields(TypeOf<M>(), self, kwargs);
        } catch (...) {
          self->~M();
          throw;
        }
      },
      "Creates the message; keyword arguments set fields.");
  cls.def("__setstate__", [](M& m, nb::bytes state) {
    new (&m) M();
    const Status s = onnx::ParseFromBytes(&m, state.c_str(), state.size());
    if (!s.ok()) {
      m.~M();
      ThrowIfError(s);
    }
  });
  return cls;
}

// The methods and fields of every message class, bound once per class from its descriptor.
void BindMessageMethods(nb::class_<onnx::MessageBase>& base) {
  base.def(
      "SerializeToString",
      [](nb::handle self, nb::kwargs) {
        auto [t, m] = Self(self);
        std::string out;
        {
          nb::gil_scoped_release release;
          out = onnx::SerializeToString(*t->d, m);
        }
        return nb::bytes(out.data(), out.size());
      },
      "Serializes to bytes in the protobuf wire format (fields in field-number order).");
  base.def(
      "ParseFromString",
      [](nb::handle self, nb::handle data) {
        auto [t, m] = Self(self);
        const std::string bytes = BytesLike(data, "data");
        TempMessage parsed(*t);
        ThrowIfError(onnx::ParseFromBytes(*t->d, parsed.p, bytes.data(), bytes.size()));
        t->move_assign(m, parsed.p);
        BaseOf(*t, m).touched = true;
        return bytes.size();
      },
      "Replaces the content with the parsed bytes; ValueError on malformed input.");
  base.def(
      "MergeFromString",
      [](nb::handle self, nb::handle data) {
        auto [t, m] = Self(self);
        const std::string bytes = BytesLike(data, "data");
        TempMessage merged(*t);
        t->assign(merged.p, m);
        ThrowIfError(onnx::ParseFromBytes(*t->d, merged.p, bytes.data(), bytes.size()));
        t->move_assign(m, merged.p);
        BaseOf(*t, m).touched = true;
        return bytes.size();
      },
      "Merges the parsed bytes into the message (protobuf merge rules).");
  base.def("CopyFrom", [](nb::handle self, nb::handle other) {
    auto [t, m] = Self(self);
    const void* o = MessageOrThrow(other, *t, "CopyFrom");
    if (o != m) t->assign(m, o);
    BaseOf(*t, m).touched = true;
  });
  base.def("MergeFrom", [](nb::handle self, nb::handle other) {
    auto [t, m] = Self(self);
    const std::string bytes =
        onnx::SerializeToString(*t->d, MessageOrThrow(other, *t, "MergeFrom"));
    ThrowIfError(onnx::ParseFromBytes(*t->d, m, bytes.data(), bytes.size()));
    BaseOf(*t, m).touched = true;
  });
  base.def("Clear", [](nb::handle self) {
    auto [t, m] = Self(self);
    onnx::ClearMessage(*t->d, m);
  });
  base.def("ByteSize", [](nb::handle self) {
    auto [t, m] = Self(self);
    return onnx::MessageByteSize(*t->d, m);
  });
  base.def("HasField", [](nb::handle self, const std::string& name) {
    auto [t, m] = Self(self);
    const MessageDescriptor& md = *t->d;
    if (md.oneof_name != nullptr && name == md.oneof_name) {
      for (size_t i = 0; i < md.field_count; ++i) {
        const auto& fd = md.fields[i];
        if ((fd.flags & onnx::kOneof) && fd.codec->present(fd.field(m))) return true;
      }
      return false;
    }
    const onnx::FieldDescriptor& fd = FindField(md, name);
    if (fd.repeated) {
      throw nb::value_error(("Protocol message has no singular \"" + name + "\" field.").c_str());
    }
    return fd.codec->present(fd.field(m));
  });
  base.def("ClearField", [](nb::handle self, const std::string& name) {
    auto [t, m] = Self(self);
    const onnx::FieldDescriptor& fd = FindField(*t->d, name);
    fd.codec->clear(fd.field(m));
  });
  base.def("WhichOneof", [](nb::handle self, const std::string& group) -> nb::object {
    auto [t, m] = Self(self);
    const MessageDescriptor& md = *t->d;
    if (md.oneof_name == nullptr || group != md.oneof_name) {
      throw nb::value_error(("Protocol message has no oneof \"" + group + "\" field.").c_str());
    }
    for (size_t i = 0; i < md.field_count; ++i) {
      const auto& fd = md.fields[i];
      if ((fd.flags & onnx::kOneof) && fd.codec->present(fd.field(m))) return nb::str(fd.name);
    }
    return nb::none();
  });
  base.def(
      "ListFields",
      [](nb::handle self) {
        auto [t, m] = Self(self);
        nb::list out;
        for (size_t i = 0; i < t->d->field_count; ++i) {
          const auto& fd = t->d->fields[i];
          if (fd.codec->present(fd.field(m))) {
            out.append(nb::make_tuple(nb::str(fd.name), GetField(self, *t, m, fd)));
          }
        }
        return out;
      },
      "Present fields as (name, value) pairs in field-number order.");
  auto equal = [](nb::handle a, nb::handle b) {
    auto [t, m] = Self(a);
    const void* o = AsMessage(b, *t);
    return o != nullptr && onnx::MessagesEqual(*t->d, m, o);
  };
  base.def("__eq__", equal);
  base.def("__ne__", [equal](nb::handle a, nb::handle b) { return !equal(a, b); });
  base.attr("__hash__") = nb::none();
  auto text = [](nb::handle self) {
    auto [t, m] = Self(self);
    return onnx::MessageToText(*t->d, m);
  };
  base.def("__str__", text);
  base.def("__repr__", text);
  auto copy = [](nb::handle self) {
    auto [t, m] = Self(self);
    TempMessage c(*t);
    t->assign(c.p, m);
    return t->take(c.p);
  };
  base.def("__copy__", copy);
  base.def("__deepcopy__", [copy](nb::handle self, nb::handle) { return copy(self); });
  base.def("__getstate__", [](nb::handle self) {
    auto [t, m] = Self(self);
    const std::string out = onnx::SerializeToString(*t->d, m);
    return nb::bytes(out.data(), out.size());
  });
}

// FromString, FIELD_NAMES and the field properties of one class.
void BindClassMembers(const MsgType& t) {
  nb::handle cls = t.py;
  nb::object from_string = nb::cpp_function(
      [tp = &t](nb::handle data) {
        const std::string bytes = BytesLike(data, "data");
        TempMessage m(*tp);
        ThrowIfError(onnx::ParseFromBytes(*tp->d, m.p, bytes.data(), bytes.size()));
        return tp->take(m.p);
      },
      nb::scope(cls), nb::name("FromString"),
      nb::sig(KeepString("def FromString(arg: object, /) -> " + t.py_name)));
  cls.attr("FromString") = nb::steal(PyStaticMethod_New(from_string.ptr()));
  nb::list names;
  for (size_t i = 0; i < t.d->field_count; ++i)
    names.append(nb::str(t.d->fields[i].name));
  cls.attr("FIELD_NAMES") = names;
  for (size_t i = 0; i < t.d->field_count; ++i) {
    const onnx::FieldDescriptor* fd = &t.d->fields[i];
    const std::string type = FieldTypeName(*fd);
    nb::object getter = nb::cpp_function(
        [fd](nb::handle self) {
          auto [st, m] = Self(self);
          return GetField(self, *st, m, *fd);
        },
        nb::is_method(), nb::is_getter(),
        nb::sig(KeepString(std::string("def ") + fd->name + "(self) -> " + type)));
    const bool message = fd->kind == onnx::FieldKind::kMessage && !fd->repeated;
    nb::object setter = nb::cpp_function(
        [fd, message](nb::handle self, nb::handle v) {
          auto [st, m] = Self(self);
          if (!message) BaseOf(*st, m).touched = true;
          SetField(*st, m, *fd, v);
        },
        nb::is_method());
    cls.attr(fd->name) = nb::module_::import_("builtins").attr("property")(getter, setter);
  }
}

void BindMessageLists(nb::module_& m) {
  using L = MessageListBase;
  nb::class_<L>(m, "_RepeatedMessage", "A repeated message field (the base of RepeatedX).")
      .def("__len__", [](const L& l) { return l.t->r_size(l.r); })
      .def("__getitem__",
           [](const L& l, Py_ssize_t i) {
             return l.t->r_item(l.r, static_cast<size_t>(NormalizeIndex(i, l.t->r_size(l.r))));
           })
      .def("__getitem__",
           [](const L& l, nb::slice s) {
             nb::list out;
             for (size_t i : SliceIndices(s, l.t->r_size(l.r)))
               out.append(l.t->r_item(l.r, i));
             return out;
           })
      .def("__delitem__",
           [](L& l, Py_ssize_t i) {
             l.owner->touched = true;
             const auto k = static_cast<size_t>(NormalizeIndex(i, l.t->r_size(l.r)));
             l.t->r_erase(l.r, k, k + 1);
           })
      .def("__delitem__",
           [](L& l, nb::slice s) {
             l.owner->touched = true;
             std::vector<size_t> idx = SliceIndices(s, l.t->r_size(l.r));
             std::sort(idx.begin(), idx.end());
             for (auto it = idx.rbegin(); it != idx.rend(); ++it)
               l.t->r_erase(l.r, *it, *it + 1);
           })
      .def("__iter__",
           [](const L& l) {
             nb::list items;
             for (size_t i = 0; i < l.t->r_size(l.r); ++i)
               items.append(l.t->r_item(l.r, i));
             return nb::iter(items);
           })
      .def("add",
           [](L& l, nb::kwargs kwargs) {
             l.owner->touched = true;
             TempMessage value(*l.t);
             SetFields(*l.t, value.p, kwargs);
             l.t->r_push_move(l.r, value.p);
             return l.t->r_item(l.r, l.t->r_size(l.r) - 1);
           })
      .def("append",
           [](L& l, nb::handle x) {
             l.owner->touched = true;
             l.t->r_insert_copy(l.r, l.t->r_size(l.r), MessageOrThrow(x, *l.t, "append"));
           })
      .def("extend",
           [](L& l, nb::handle items) {
             l.owner->touched = true;
             for (TempMessage& c : CopyMessages(items, *l.t, "extend"))
               l.t->r_push_move(l.r, c.p);
           })
      .def("insert",
           [](L& l, Py_ssize_t i, nb::handle x) {
             l.owner->touched = true;
             const void* v = MessageOrThrow(x, *l.t, "insert");
             const auto n = static_cast<Py_ssize_t>(l.t->r_size(l.r));
             if (i < 0) i = std::max<Py_ssize_t>(0, i + n);
             i = std::min(i, n);
             l.t->r_insert_copy(l.r, static_cast<size_t>(i), v);
           })
      .def(
          "pop",
          [](L& l, Py_ssize_t i) {
            l.owner->touched = true;
            const auto k = static_cast<size_t>(NormalizeIndex(i, l.t->r_size(l.r)));
            nb::object item = l.t->r_item(l.r, k);
            l.t->r_erase(l.r, k, k + 1);
            return item;
          },
          nb::arg("index") = -1)
      .def("remove",
           [](L& l, nb::handle x) {
             const void* v = MessageOrThrow(x, *l.t, "remove");
             l.owner->touched = true;
             for (size_t i = 0; i < l.t->r_size(l.r); ++i) {
               if (onnx::MessagesEqual(*l.t->d, l.t->r_at(l.r, i), v)) {
                 l.t->r_erase(l.r, i, i + 1);
                 return;
               }
             }
             throw nb::value_error("value not in list");
           })
      .def("__eq__",
           [](const L& l, nb::handle other) {
             try {
               size_t i = 0;
               const size_t n = l.t->r_size(l.r);
               for (nb::handle item : nb::iter(other)) {
                 const void* v = AsMessage(item, *l.t);
                 if (i >= n || v == nullptr || !onnx::MessagesEqual(*l.t->d, l.t->r_at(l.r, i), v))
                   return false;
                 ++i;
               }
               return i == n;
             } catch (const std::exception&) {
               return false;
             }
           })
      .def("__repr__", [](const L& l) {
        std::string out = "[";
        for (size_t i = 0; i < l.t->r_size(l.r); ++i) {
          if (i) out += ", ";
          out += "<" + std::string(l.t->d->name) + ">";
        }
        return out + "]";
      });
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

  BindRepeatedValues(m);

  // Classes first (nested ones inside their parent), then containers, then fields, so every
  // property's type is registered before it is used.
  nb::class_<onnx::MessageBase> base(m, "_Message", "An ONNX message (the base of every class).");
  BindMessageMethods(base);
  BindMessage<StringStringEntryProto>(m);
  BindMessage<OperatorSetIdProto>(m);
  auto c_tensor = BindMessage<TensorProto>(m);
  BindMessage<o::TensorProto_Segment>(c_tensor);
  BindMessage<SparseTensorProto>(m);
  auto c_shape = BindMessage<TensorShapeProto>(m);
  BindMessage<TensorShapeProto_Dimension>(c_shape);
  auto c_type = BindMessage<TypeProto>(m);
  BindMessage<TypeProto_Tensor>(c_type);
  BindMessage<TypeProto_Sequence>(c_type);
  BindMessage<TypeProto_Map>(c_type);
  BindMessage<TypeProto_Optional>(c_type);
  BindMessage<TypeProto_SparseTensor>(c_type);
  BindMessage<TypeProto_Opaque>(c_type);
  BindMessage<ValueInfoProto>(m);
  BindMessage<AttributeProto>(m);
  BindMessage<IntIntListEntryProto>(m);
  BindMessage<SimpleShardedDimProto>(m);
  BindMessage<ShardedDimProto>(m);
  BindMessage<ShardingSpecProto>(m);
  BindMessage<NodeDeviceConfigurationProto>(m);
  BindMessage<NodeProto>(m);
  BindMessage<TensorAnnotation>(m);
  BindMessage<GraphProto>(m);
  BindMessage<FunctionProto>(m);
  BindMessage<TrainingInfoProto>(m);
  BindMessage<DeviceConfigurationProto>(m);
  BindMessage<ModelProto>(m);
  BindMessage<SequenceProto>(m);
  BindMessage<MapProto>(m);
  BindMessage<OptionalProto>(m);

  BindMessageLists(m);
#define ONNX_LIGHT_BIND_LIST_(Name)                  \
  nb::class_<MessageList<o::Name>, MessageListBase>( \
      m, ("Repeated" + PyName(o::Name::descriptor().name)).c_str());
  ONNX_LIGHT_MESSAGES(ONNX_LIGHT_BIND_LIST_)
#undef ONNX_LIGHT_BIND_LIST_

  for (const MsgType* t : AllTypes())
    BindClassMembers(*t);

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
