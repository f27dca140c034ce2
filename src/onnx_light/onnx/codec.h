// Field codecs: how each field holder type of message.h is parsed, sized, written,
// compared and cleared. Private to the model layer; onnx.cc instantiates them.
#pragma once

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "onnx_light/onnx/message.h"

namespace onnx_light::onnx::detail {

// Records where an error happened ("node[3]", "graph") as it unwinds.
void PrependErrorPath(ParseState& state, const std::string& segment);

Status WrongWireType(const FieldDescriptor& fd, WireType got, uint64_t offset);

template <typename T>
struct Scalar;

template <>
struct Scalar<int64_t> {
  static constexpr WireType kWire = WireType::kVarint;
  static constexpr FieldKind kKind = FieldKind::kInt64;
  static Status Read(WireReader& in, int64_t* v) {
    uint64_t raw;
    ONNX_LIGHT_RETURN_IF_ERROR(in.ReadVarint(&raw));
    *v = static_cast<int64_t>(raw);
    return Status::Ok();
  }
  static uint64_t Size(int64_t v) { return VarintSize(static_cast<uint64_t>(v)); }
  static void Write(WireWriter& out, int64_t v) { out.WriteVarint(static_cast<uint64_t>(v)); }
};

template <>
struct Scalar<int32_t> {
  static constexpr WireType kWire = WireType::kVarint;
  static constexpr FieldKind kKind = FieldKind::kInt32;
  // protobuf keeps the low 32 bits of the varint and sign-extends negatives on the wire.
  static Status Read(WireReader& in, int32_t* v) {
    uint64_t raw;
    ONNX_LIGHT_RETURN_IF_ERROR(in.ReadVarint(&raw));
    *v = static_cast<int32_t>(static_cast<uint32_t>(raw));
    return Status::Ok();
  }
  static uint64_t Size(int32_t v) { return VarintSize(static_cast<uint64_t>(int64_t{v})); }
  static void Write(WireWriter& out, int32_t v) {
    out.WriteVarint(static_cast<uint64_t>(int64_t{v}));
  }
};

template <>
struct Scalar<uint64_t> {
  static constexpr WireType kWire = WireType::kVarint;
  static constexpr FieldKind kKind = FieldKind::kUint64;
  static Status Read(WireReader& in, uint64_t* v) { return in.ReadVarint(v); }
  static uint64_t Size(uint64_t v) { return VarintSize(v); }
  static void Write(WireWriter& out, uint64_t v) { out.WriteVarint(v); }
};

template <>
struct Scalar<float> {
  static constexpr WireType kWire = WireType::kFixed32;
  static constexpr FieldKind kKind = FieldKind::kFloat;
  static Status Read(WireReader& in, float* v) {
    uint32_t raw;
    ONNX_LIGHT_RETURN_IF_ERROR(in.ReadFixed32(&raw));
    std::memcpy(v, &raw, 4);
    return Status::Ok();
  }
  static uint64_t Size(float) { return 4; }
  static void Write(WireWriter& out, float v) {
    uint32_t raw;
    std::memcpy(&raw, &v, 4);
    out.WriteFixed32(raw);
  }
};

template <>
struct Scalar<double> {
  static constexpr WireType kWire = WireType::kFixed64;
  static constexpr FieldKind kKind = FieldKind::kDouble;
  static Status Read(WireReader& in, double* v) {
    uint64_t raw;
    ONNX_LIGHT_RETURN_IF_ERROR(in.ReadFixed64(&raw));
    std::memcpy(v, &raw, 8);
    return Status::Ok();
  }
  static uint64_t Size(double) { return 8; }
  static void Write(WireWriter& out, double v) {
    uint64_t raw;
    std::memcpy(&raw, &v, 8);
    out.WriteFixed64(raw);
  }
};

// Scalar equality that treats two NaNs with the same bits as equal, so a parsed message
// equals itself.
template <typename T>
bool SameScalar(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

inline uint64_t LengthDelimitedSize(uint32_t number, uint64_t payload) {
  return TagSize(number) + VarintSize(payload) + payload;
}

template <typename H>
struct Codec;

// optional scalar
template <typename T>
struct Codec<Opt<T>> {
  static constexpr FieldKind kKind = Scalar<T>::kKind;
  static constexpr bool kRepeated = false;
  static Status Parse(void* f, const FieldDescriptor& fd, WireType wt, WireReader& in,
                      ParseState&) {
    if (wt != Scalar<T>::kWire) return WrongWireType(fd, wt, in.offset());
    T v{};
    ONNX_LIGHT_RETURN_IF_ERROR(Scalar<T>::Read(in, &v));
    static_cast<Opt<T>*>(f)->set(v);
    return Status::Ok();
  }
  static uint64_t ByteSize(const void* f, const FieldDescriptor& fd) {
    return TagSize(fd.number) + Scalar<T>::Size(static_cast<const Opt<T>*>(f)->get());
  }
  static void Write(const void* f, const FieldDescriptor& fd, WireWriter& out) {
    out.WriteTag(fd.number, Scalar<T>::kWire);
    Scalar<T>::Write(out, static_cast<const Opt<T>*>(f)->get());
  }
  static bool Present(const void* f) { return static_cast<const Opt<T>*>(f)->has(); }
  static size_t Count(const void* f) { return Present(f) ? 1 : 0; }
  static const void* Element(const void* f, size_t) {
    return &static_cast<const Opt<T>*>(f)->get();
  }
  static void Clear(void* f) { static_cast<Opt<T>*>(f)->clear(); }
  static bool Equal(const void* a, const void* b) {
    const auto& x = *static_cast<const Opt<T>*>(a);
    const auto& y = *static_cast<const Opt<T>*>(b);
    return x.has() == y.has() && SameScalar(x.get(), y.get());
  }
};

// optional string / bytes
template <>
struct Codec<Opt<std::string>> {
  static constexpr FieldKind kKind = FieldKind::kString;
  static constexpr bool kRepeated = false;
  static Status Parse(void* f, const FieldDescriptor& fd, WireType wt, WireReader& in,
                      ParseState&) {
    if (wt != WireType::kLengthDelimited) return WrongWireType(fd, wt, in.offset());
    WireReader payload(nullptr, 0);
    ONNX_LIGHT_RETURN_IF_ERROR(in.ReadLengthDelimited(&payload));
    static_cast<Opt<std::string>*>(f)->set(
        std::string(reinterpret_cast<const char*>(payload.position()), payload.remaining()));
    return Status::Ok();
  }
  static uint64_t ByteSize(const void* f, const FieldDescriptor& fd) {
    return LengthDelimitedSize(fd.number, static_cast<const Opt<std::string>*>(f)->get().size());
  }
  static void Write(const void* f, const FieldDescriptor& fd, WireWriter& out) {
    const std::string& s = static_cast<const Opt<std::string>*>(f)->get();
    out.WriteTag(fd.number, WireType::kLengthDelimited);
    out.WriteVarint(s.size());
    out.WriteBytes(s.data(), s.size());
  }
  static bool Present(const void* f) { return static_cast<const Opt<std::string>*>(f)->has(); }
  static size_t Count(const void* f) { return Present(f) ? 1 : 0; }
  static const void* Element(const void* f, size_t) {
    return &static_cast<const Opt<std::string>*>(f)->get();
  }
  static void Clear(void* f) { static_cast<Opt<std::string>*>(f)->clear(); }
  static bool Equal(const void* a, const void* b) {
    return *static_cast<const Opt<std::string>*>(a) == *static_cast<const Opt<std::string>*>(b);
  }
};

// optional bytes viewed without copy (raw_data)
template <>
struct Codec<Opt<Bytes>> {
  static constexpr FieldKind kKind = FieldKind::kRawBytes;
  static constexpr bool kRepeated = false;
  static Status Parse(void* f, const FieldDescriptor& fd, WireType wt, WireReader& in,
                      ParseState& state) {
    if (wt != WireType::kLengthDelimited) return WrongWireType(fd, wt, in.offset());
    WireReader payload(nullptr, 0);
    ONNX_LIGHT_RETURN_IF_ERROR(in.ReadLengthDelimited(&payload));
    auto* field = static_cast<Opt<Bytes>*>(f);
    if (state.owner) {
      field->set(Bytes(payload.position(), payload.remaining(), state.owner));
    } else {
      field->set(Bytes(
          std::string(reinterpret_cast<const char*>(payload.position()), payload.remaining())));
    }
    return Status::Ok();
  }
  static uint64_t ByteSize(const void* f, const FieldDescriptor& fd) {
    return LengthDelimitedSize(fd.number, static_cast<const Opt<Bytes>*>(f)->get().size());
  }
  static void Write(const void* f, const FieldDescriptor& fd, WireWriter& out) {
    const Bytes& b = static_cast<const Opt<Bytes>*>(f)->get();
    out.WriteTag(fd.number, WireType::kLengthDelimited);
    out.WriteVarint(b.size());
    out.WriteBytes(b.data(), b.size());
  }
  static bool Present(const void* f) { return static_cast<const Opt<Bytes>*>(f)->has(); }
  static size_t Count(const void* f) { return Present(f) ? 1 : 0; }
  static const void* Element(const void* f, size_t) {
    return &static_cast<const Opt<Bytes>*>(f)->get();
  }
  static void Clear(void* f) { static_cast<Opt<Bytes>*>(f)->clear(); }
  static bool Equal(const void* a, const void* b) {
    return *static_cast<const Opt<Bytes>*>(a) == *static_cast<const Opt<Bytes>*>(b);
  }
};

// repeated scalar: accepts packed and unpacked input; writes as the field declares
template <typename T>
struct Codec<std::vector<T>> {
  static constexpr FieldKind kKind = Scalar<T>::kKind;
  static constexpr bool kRepeated = true;
  static Status Parse(void* f, const FieldDescriptor& fd, WireType wt, WireReader& in,
                      ParseState&) {
    auto* v = static_cast<std::vector<T>*>(f);
    if (wt == Scalar<T>::kWire) {
      T x{};
      ONNX_LIGHT_RETURN_IF_ERROR(Scalar<T>::Read(in, &x));
      v->push_back(x);
      return Status::Ok();
    }
    if (wt != WireType::kLengthDelimited) return WrongWireType(fd, wt, in.offset());
    WireReader payload(nullptr, 0);
    ONNX_LIGHT_RETURN_IF_ERROR(in.ReadLengthDelimited(&payload));
    if constexpr (Scalar<T>::kWire == WireType::kFixed32 ||
                  Scalar<T>::kWire == WireType::kFixed64) {
      constexpr size_t kSize = Scalar<T>::kWire == WireType::kFixed32 ? 4 : 8;
      if (payload.remaining() % kSize != 0) {
        return Status(StatusCode::kInvalidModel,
                      "packed " + std::string(fd.name) + " of " +
                          std::to_string(payload.remaining()) + " bytes is not a multiple of " +
                          std::to_string(kSize) + " at byte " + std::to_string(payload.offset()));
      }
      const size_t n = payload.remaining() / kSize;
      if (n == 0) return Status::Ok();
      const size_t old = v->size();
      v->resize(old + n);
      std::memcpy(v->data() + old, payload.position(), n * kSize);  // little-endian host
    } else {
      while (!payload.AtEnd()) {
        T x{};
        ONNX_LIGHT_RETURN_IF_ERROR(Scalar<T>::Read(payload, &x));
        v->push_back(x);
      }
    }
    return Status::Ok();
  }
  static uint64_t PayloadSize(const std::vector<T>& v) {
    if constexpr (Scalar<T>::kWire == WireType::kFixed32) return 4 * v.size();
    if constexpr (Scalar<T>::kWire == WireType::kFixed64) return 8 * v.size();
    uint64_t n = 0;
    for (const T& x : v)
      n += Scalar<T>::Size(x);
    return n;
  }
  static uint64_t ByteSize(const void* f, const FieldDescriptor& fd) {
    const auto& v = *static_cast<const std::vector<T>*>(f);
    if (fd.flags & kPacked) return LengthDelimitedSize(fd.number, PayloadSize(v));
    return TagSize(fd.number) * v.size() + PayloadSize(v);
  }
  static void Write(const void* f, const FieldDescriptor& fd, WireWriter& out) {
    const auto& v = *static_cast<const std::vector<T>*>(f);
    if (fd.flags & kPacked) {
      out.WriteTag(fd.number, WireType::kLengthDelimited);
      out.WriteVarint(PayloadSize(v));
      for (const T& x : v)
        Scalar<T>::Write(out, x);
      return;
    }
    for (const T& x : v) {
      out.WriteTag(fd.number, Scalar<T>::kWire);
      Scalar<T>::Write(out, x);
    }
  }
  static bool Present(const void* f) { return !static_cast<const std::vector<T>*>(f)->empty(); }
  static size_t Count(const void* f) { return static_cast<const std::vector<T>*>(f)->size(); }
  static const void* Element(const void* f, size_t i) {
    return &(*static_cast<const std::vector<T>*>(f))[i];
  }
  static void Clear(void* f) { static_cast<std::vector<T>*>(f)->clear(); }
  static bool Equal(const void* a, const void* b) {
    const auto& x = *static_cast<const std::vector<T>*>(a);
    const auto& y = *static_cast<const std::vector<T>*>(b);
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!SameScalar(x[i], y[i])) return false;
    }
    return true;
  }
};

// repeated string / bytes
template <>
struct Codec<std::vector<std::string>> {
  static constexpr FieldKind kKind = FieldKind::kString;
  static constexpr bool kRepeated = true;
  static Status Parse(void* f, const FieldDescriptor& fd, WireType wt, WireReader& in,
                      ParseState&) {
    if (wt != WireType::kLengthDelimited) return WrongWireType(fd, wt, in.offset());
    WireReader payload(nullptr, 0);
    ONNX_LIGHT_RETURN_IF_ERROR(in.ReadLengthDelimited(&payload));
    static_cast<std::vector<std::string>*>(f)->emplace_back(
        reinterpret_cast<const char*>(payload.position()), payload.remaining());
    return Status::Ok();
  }
  static uint64_t ByteSize(const void* f, const FieldDescriptor& fd) {
    uint64_t n = 0;
    for (const auto& s : *static_cast<const std::vector<std::string>*>(f)) {
      n += LengthDelimitedSize(fd.number, s.size());
    }
    return n;
  }
  static void Write(const void* f, const FieldDescriptor& fd, WireWriter& out) {
    for (const auto& s : *static_cast<const std::vector<std::string>*>(f)) {
      out.WriteTag(fd.number, WireType::kLengthDelimited);
      out.WriteVarint(s.size());
      out.WriteBytes(s.data(), s.size());
    }
  }
  static bool Present(const void* f) {
    return !static_cast<const std::vector<std::string>*>(f)->empty();
  }
  static size_t Count(const void* f) {
    return static_cast<const std::vector<std::string>*>(f)->size();
  }
  static const void* Element(const void* f, size_t i) {
    return &(*static_cast<const std::vector<std::string>*>(f))[i];
  }
  static void Clear(void* f) { static_cast<std::vector<std::string>*>(f)->clear(); }
  static bool Equal(const void* a, const void* b) {
    return *static_cast<const std::vector<std::string>*>(a) ==
           *static_cast<const std::vector<std::string>*>(b);
  }
};

Status ParseSubMessage(const MessageDescriptor& d, void* message, const FieldDescriptor& fd,
                       WireType wt, WireReader& in, ParseState& state);
uint64_t SubMessageSize(const MessageDescriptor& d, const void* message, uint32_t number);
void WriteSubMessage(const MessageDescriptor& d, const void* message, uint32_t number,
                     WireWriter& out);

template <typename M>
struct Codec<MsgField<M>> {
  static constexpr FieldKind kKind = FieldKind::kMessage;
  static constexpr bool kRepeated = false;
  static Status Parse(void* f, const FieldDescriptor& fd, WireType wt, WireReader& in,
                      ParseState& state) {
    return ParseSubMessage(M::descriptor(), static_cast<MsgField<M>*>(f)->mutable_get(), fd, wt, in,
                           state);
  }
  static uint64_t ByteSize(const void* f, const FieldDescriptor& fd) {
    return SubMessageSize(M::descriptor(), &static_cast<const MsgField<M>*>(f)->get(), fd.number);
  }
  static void Write(const void* f, const FieldDescriptor& fd, WireWriter& out) {
    WriteSubMessage(M::descriptor(), &static_cast<const MsgField<M>*>(f)->get(), fd.number, out);
  }
  static bool Present(const void* f) { return static_cast<const MsgField<M>*>(f)->has(); }
  static size_t Count(const void* f) { return Present(f) ? 1 : 0; }
  static const void* Element(const void* f, size_t) {
    return &static_cast<const MsgField<M>*>(f)->get();
  }
  static void Clear(void* f) { static_cast<MsgField<M>*>(f)->clear(); }
  static bool Equal(const void* a, const void* b) {
    const auto& x = *static_cast<const MsgField<M>*>(a);
    const auto& y = *static_cast<const MsgField<M>*>(b);
    if (x.has() != y.has()) return false;
    return !x.has() || MessagesEqual(M::descriptor(), &x.get(), &y.get());
  }
};

template <typename M>
struct Codec<Repeated<M>> {
  static constexpr FieldKind kKind = FieldKind::kMessage;
  static constexpr bool kRepeated = true;
  static Status Parse(void* f, const FieldDescriptor& fd, WireType wt, WireReader& in,
                      ParseState& state) {
    auto* r = static_cast<Repeated<M>*>(f);
    const size_t index = r->size();
    Status s = ParseSubMessage(M::descriptor(), r->Add(), fd, wt, in, state);
    if (!s.ok()) PrependErrorPath(state, "[" + std::to_string(index) + "]");
    return s;
  }
  static uint64_t ByteSize(const void* f, const FieldDescriptor& fd) {
    uint64_t n = 0;
    for (const M& m : *static_cast<const Repeated<M>*>(f)) {
      n += SubMessageSize(M::descriptor(), &m, fd.number);
    }
    return n;
  }
  static void Write(const void* f, const FieldDescriptor& fd, WireWriter& out) {
    for (const M& m : *static_cast<const Repeated<M>*>(f)) {
      WriteSubMessage(M::descriptor(), &m, fd.number, out);
    }
  }
  static bool Present(const void* f) { return !static_cast<const Repeated<M>*>(f)->empty(); }
  static size_t Count(const void* f) { return static_cast<const Repeated<M>*>(f)->size(); }
  static const void* Element(const void* f, size_t i) {
    return &(*static_cast<const Repeated<M>*>(f))[i];
  }
  static void Clear(void* f) { static_cast<Repeated<M>*>(f)->clear(); }
  static bool Equal(const void* a, const void* b) {
    const auto& x = *static_cast<const Repeated<M>*>(a);
    const auto& y = *static_cast<const Repeated<M>*>(b);
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!MessagesEqual(M::descriptor(), &x[i], &y[i])) return false;
    }
    return true;
  }
};

template <typename H>
const FieldCodec* CodecFor() {
  static const FieldCodec codec = {&Codec<H>::Parse,   &Codec<H>::ByteSize, &Codec<H>::Write,
                                   &Codec<H>::Present, &Codec<H>::Clear,    &Codec<H>::Equal,
                                   &Codec<H>::Count,   &Codec<H>::Element};
  return &codec;
}

template <typename H>
struct MessageTypeOf {
  static constexpr const MessageDescriptor* (*kGet)() = nullptr;
};
template <typename M>
struct MessageTypeOf<MsgField<M>> {
  static const MessageDescriptor* Get() { return &M::descriptor(); }
  static constexpr const MessageDescriptor* (*kGet)() = &Get;
};
template <typename M>
struct MessageTypeOf<Repeated<M>> {
  static const MessageDescriptor* Get() { return &M::descriptor(); }
  static constexpr const MessageDescriptor* (*kGet)() = &Get;
};

}  // namespace onnx_light::onnx::detail
