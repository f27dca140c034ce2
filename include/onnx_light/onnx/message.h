// The message framework behind the ONNX model classes: field holders with proto2
// presence, zero-copy byte strings, and a descriptor per message that drives parsing,
// serialization, equality and the Python bindings from one declaration (onnx.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_light/core/status.h"
#include "onnx_light/onnx/wire.h"

namespace onnx_light::onnx {

struct ParseOptions {
  // Nesting depth of messages. A subgraph (Graph > Node > Attribute > Graph) costs three
  // levels, so 100 allows 30 levels of subgraphs (protobuf's own default is 100).
  int max_depth = 100;
  // Largest serialized input accepted, in bytes. Files over 2 GiB work (protobuf's limit);
  // the default bound is 32 GiB.
  uint64_t max_bytes = uint64_t{32} << 30;
};

// An immutable byte string that either owns its bytes or views a buffer kept alive by
// `owner` (a memory-mapped file, say). Tensor payloads (`raw_data`) are Bytes, so loading
// a model does not copy its weights.
class Bytes {
 public:
  Bytes() = default;
  explicit Bytes(std::string bytes);
  Bytes(const void* data, size_t size, std::shared_ptr<const void> owner)
      : data_(static_cast<const char*>(data)), size_(size), owner_(std::move(owner)) {}

  const char* data() const noexcept { return size_ ? data_ : ""; }
  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::string_view view() const noexcept { return {data(), size_}; }
  std::string str() const { return std::string(view()); }
  const std::shared_ptr<const void>& owner() const noexcept { return owner_; }

  friend bool operator==(const Bytes& a, const Bytes& b) { return a.view() == b.view(); }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  std::shared_ptr<const void> owner_;
};

// A proto2 `optional` scalar or string: a value plus presence. Reads of an absent field
// give the default (zero or empty), as in protobuf.
template <typename T>
class Opt {
 public:
  Opt() = default;
  Opt(T value) : value_(std::move(value)), has_(true) {}  // NOLINT: implicit by design

  bool has() const noexcept { return has_; }
  const T& get() const noexcept { return value_; }
  operator const T&() const noexcept { return value_; }  // NOLINT: implicit by design
  const T* operator->() const noexcept { return &value_; }
  void set(T value) {
    value_ = std::move(value);
    has_ = true;
  }
  T* mutable_value() {
    has_ = true;
    return &value_;
  }
  void clear() {
    value_ = T();
    has_ = false;
  }
  Opt& operator=(T value) {
    set(std::move(value));
    return *this;
  }
  friend bool operator==(const Opt& a, const Opt& b) {
    return a.has_ == b.has_ && a.value_ == b.value_;
  }

 private:
  T value_{};
  bool has_ = false;
};

struct MessageDescriptor;

// Common state of every message: fields this version does not know (kept as raw wire
// bytes and written back verbatim after the known fields, as protobuf does) and the size
// computed by the last serialization.
struct MessageBase {
  std::string unknown_fields;
  mutable uint64_t cached_size = 0;
  // Set by mutations through the Python API. A sub-message that was touched counts as
  // present even when empty, as in protobuf (`shape.dim.extend([])` makes `shape` present).
  bool touched = false;
};

bool MessageIsEmpty(const MessageDescriptor& descriptor, const void* message);

template <typename T>
const T& DefaultInstance() {
  static const T instance;
  return instance;
}

// An optional sub-message. Heap-allocated and shared so Python can hold a reference that
// stays valid after the parent drops the field; copying the holder copies deeply.
// Presence follows protobuf: a sub-message created only by reading it (lazy_get, used by
// the Python getters) counts as present once anything in it is set.
template <typename T>
class MsgField {
 public:
  MsgField() = default;
  MsgField(const MsgField& o)
      : p_(o.p_ ? std::make_shared<T>(*o.p_) : nullptr), explicit_(o.explicit_) {}
  MsgField& operator=(const MsgField& o) {
    if (this != &o) {
      p_ = o.p_ ? std::make_shared<T>(*o.p_) : nullptr;
      explicit_ = o.explicit_;
    }
    return *this;
  }
  MsgField(MsgField&&) noexcept = default;
  MsgField& operator=(MsgField&&) noexcept = default;

  bool has() const {
    return p_ && (explicit_ || p_->touched || !MessageIsEmpty(T::descriptor(), p_.get()));
  }
  const T& get() const { return p_ ? *p_ : DefaultInstance<T>(); }
  const T* operator->() const { return &get(); }
  // Creates the sub-message if needed and marks it present.
  T* mutable_get() {
    if (!p_) p_ = std::make_shared<T>();
    explicit_ = true;
    return p_.get();
  }
  // Creates the sub-message if needed without marking it present.
  const std::shared_ptr<T>& lazy_get() {
    if (!p_) p_ = std::make_shared<T>();
    return p_;
  }
  void set(T value) { *mutable_get() = std::move(value); }
  void clear() {
    p_.reset();
    explicit_ = false;
  }

 private:
  std::shared_ptr<T> p_;
  bool explicit_ = false;
};

// A repeated sub-message field. Elements are individually heap-allocated and shared, so
// references (and Python objects) to them stay valid while the field grows or shrinks.
template <typename T>
class Repeated {
  using Vec = std::vector<std::shared_ptr<T>>;

 public:
  template <typename It, typename V>
  class Iter {
   public:
    explicit Iter(It it) : it_(it) {}
    V& operator*() const { return **it_; }
    V* operator->() const { return it_->get(); }
    Iter& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const Iter& o) const { return it_ != o.it_; }
    bool operator==(const Iter& o) const { return it_ == o.it_; }

   private:
    It it_;
  };

  Repeated() = default;
  Repeated(const Repeated& o) { CopyFrom(o); }
  Repeated& operator=(const Repeated& o) {
    if (this != &o) CopyFrom(o);
    return *this;
  }
  Repeated(Repeated&&) noexcept = default;
  Repeated& operator=(Repeated&&) noexcept = default;

  size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  T& operator[](size_t i) { return *items_[i]; }
  const T& operator[](size_t i) const { return *items_[i]; }
  const std::shared_ptr<T>& shared(size_t i) const { return items_[i]; }

  T* Add() {
    items_.push_back(std::make_shared<T>());
    return items_.back().get();
  }
  void push_back(T value) { items_.push_back(std::make_shared<T>(std::move(value))); }
  void Insert(size_t index, std::shared_ptr<T> item) {
    items_.insert(items_.begin() + static_cast<std::ptrdiff_t>(index), std::move(item));
  }
  void Erase(size_t first, size_t last) {
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(first),
                 items_.begin() + static_cast<std::ptrdiff_t>(last));
  }
  void clear() { items_.clear(); }
  void reserve(size_t n) { items_.reserve(n); }

  Iter<typename Vec::iterator, T> begin() {
    return Iter<typename Vec::iterator, T>(items_.begin());
  }
  Iter<typename Vec::iterator, T> end() { return Iter<typename Vec::iterator, T>(items_.end()); }
  Iter<typename Vec::const_iterator, const T> begin() const {
    return Iter<typename Vec::const_iterator, const T>(items_.begin());
  }
  Iter<typename Vec::const_iterator, const T> end() const {
    return Iter<typename Vec::const_iterator, const T>(items_.end());
  }

 private:
  void CopyFrom(const Repeated& o) {
    Vec copy;
    copy.reserve(o.items_.size());
    for (const auto& p : o.items_)
      copy.push_back(std::make_shared<T>(*p));
    items_ = std::move(copy);
  }
  Vec items_;
};

// --- Descriptors -----------------------------------------------------------------------

struct FieldDescriptor;

struct ParseState {
  const ParseOptions* options;
  // Set when the input buffer outlives parsing: `Bytes` fields then view it.
  std::shared_ptr<const void> owner;
  int depth = 0;
  // Where the first error happened, e.g. "graph.node[3].attribute[0].t", filled in as the
  // error unwinds.
  std::string error_path;
};

// Type-erased operations on one field holder type (Opt<int64_t>, Repeated<NodeProto>, ...).
struct FieldCodec {
  Status (*parse)(void* field, const FieldDescriptor& fd, WireType wire_type, WireReader& in,
                  ParseState& state);
  uint64_t (*byte_size)(const void* field, const FieldDescriptor& fd);  // tags included
  void (*write)(const void* field, const FieldDescriptor& fd, WireWriter& out);
  bool (*present)(const void* field);
  void (*clear)(void* field);
  bool (*equal)(const void* a, const void* b);
  // Generic read access: the number of values (0 or 1 for singular fields) and a pointer
  // to value i (T, std::string, Bytes or the sub-message).
  size_t (*count)(const void* field);
  const void* (*element)(const void* field, size_t i);
};

enum FieldFlags : uint32_t {
  kNoFlags = 0,
  kPacked = 1,  // repeated scalar written packed ([packed = true] in onnx.proto)
  kBytes = 2,   // `bytes` rather than `string`: Python sees bytes, not str
  kOneof = 4,   // member of the message's oneof (MessageDescriptor::oneof_name)
};

enum class FieldKind : uint8_t {
  kInt32,
  kInt64,
  kUint64,
  kFloat,
  kDouble,
  kString,    // string and bytes, held as std::string
  kRawBytes,  // bytes held as Bytes (zero-copy)
  kMessage,
};

struct FieldDescriptor {
  uint32_t number;
  const char* name;
  uint32_t flags;
  FieldKind kind;
  bool repeated;
  const FieldCodec* codec;
  void* (*access)(void* message);
  const MessageDescriptor* (*message_type)();  // for kMessage, else null

  void* field(void* message) const { return access(message); }
  const void* field(const void* message) const { return access(const_cast<void*>(message)); }
};

struct MessageDescriptor {
  const char* name;               // "NodeProto", "TypeProto.Tensor"
  const FieldDescriptor* fields;  // ascending field numbers
  size_t field_count;
  const char* oneof_name;  // name of the oneof group, or null
  MessageBase* (*base)(void* message);

  const FieldDescriptor* FindByNumber(uint32_t number) const;
  const FieldDescriptor* FindByName(std::string_view field_name) const;
  const MessageBase& Base(const void* message) const { return *base(const_cast<void*>(message)); }
};

// --- Generic operations ------------------------------------------------------------------

// Parses fields from `in` into `message`, merging into what is there (protobuf semantics:
// scalars are replaced, repeated fields appended, sub-messages merged).
Status ParseMessage(const MessageDescriptor& descriptor, void* message, WireReader& in,
                    ParseState& state);
// Serialized size; caches the size of every sub-message for WriteMessage.
uint64_t MessageByteSize(const MessageDescriptor& descriptor, const void* message);
// Writes the message; MessageByteSize must have been called on it first.
void WriteMessage(const MessageDescriptor& descriptor, const void* message, WireWriter& out);
bool MessagesEqual(const MessageDescriptor& descriptor, const void* a, const void* b);
void ClearMessage(const MessageDescriptor& descriptor, void* message);
// Clears the other members of a oneof after `field` was set.
void ClearOtherOneofMembers(const MessageDescriptor& descriptor, void* message,
                            const FieldDescriptor& field);
// protobuf text format (for debugging and __str__ in Python).
std::string MessageToText(const MessageDescriptor& descriptor, const void* message);

// Parses a whole serialized message into `message` (of `descriptor`'s type), merging into
// what is there; errors name the path to the offending field.
Status ParseFromBytes(const MessageDescriptor& descriptor, void* message, const void* data,
                      size_t size, const ParseOptions& options = {},
                      std::shared_ptr<const void> owner = nullptr);
// The message in the protobuf wire format.
std::string SerializeToString(const MessageDescriptor& descriptor, const void* message);

// Typed entry points for any message class M of onnx.h.
template <typename M>
Status ParseFromBytes(M* message, const void* data, size_t size, const ParseOptions& options = {},
                      std::shared_ptr<const void> owner = nullptr) {
  return ParseFromBytes(M::descriptor(), message, data, size, options, std::move(owner));
}

template <typename M>
void SerializeTo(const M& message, WireSink* sink) {
  MessageByteSize(M::descriptor(), &message);
  WireWriter out(sink);
  WriteMessage(M::descriptor(), &message, out);
}

template <typename M>
std::string SerializeToString(const M& message) {
  return SerializeToString(M::descriptor(), &message);
}

}  // namespace onnx_light::onnx
