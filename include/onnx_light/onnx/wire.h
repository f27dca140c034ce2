// The protobuf wire format: a bounds-checked reader and an appending writer.
//
// Written by hand because it is the product (see docs/model_layer.md): onnx-light reads
// and writes ONNX files without a protobuf library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "onnx_light/core/status.h"

namespace onnx_light::onnx {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,  // deprecated groups: never used by ONNX, rejected
  kEndGroup = 4,
  kFixed32 = 5,
};

const char* WireTypeName(WireType type) noexcept;

// Reads from [data, data + size). `offset_base` is the absolute byte offset of `data`
// in the whole input, so every error names an offset in the file.
class WireReader {
 public:
  WireReader(const uint8_t* data, size_t size, uint64_t offset_base = 0)
      : begin_(data), p_(data), end_(data + size), base_(offset_base) {}

  bool AtEnd() const noexcept { return p_ >= end_; }
  uint64_t offset() const noexcept { return base_ + static_cast<uint64_t>(p_ - begin_); }
  size_t remaining() const noexcept { return static_cast<size_t>(end_ - p_); }
  const uint8_t* position() const noexcept { return p_; }

  Status ReadVarint(uint64_t* value);
  Status ReadFixed32(uint32_t* value);
  Status ReadFixed64(uint64_t* value);
  // Reads a tag; field number 0 and group wire types are errors.
  Status ReadTag(uint32_t* field_number, WireType* wire_type);
  // Reads a length prefix and returns a reader over the payload, advancing past it.
  Status ReadLengthDelimited(WireReader* payload);
  // Skips one value of `wire_type`.
  Status Skip(WireType wire_type);

 private:
  Status Truncated(const char* what, uint64_t at) const;

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  uint64_t base_;
};

// Encoded sizes.
inline size_t VarintSize(uint64_t v) noexcept {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
inline size_t TagSize(uint32_t field_number) noexcept {
  return VarintSize(static_cast<uint64_t>(field_number) << 3);
}

// Where serialized bytes go: a string, or a buffered file (for models over 2 GiB).
class WireSink {
 public:
  virtual ~WireSink() = default;
  virtual void Append(const void* data, size_t size) = 0;
};

class StringSink final : public WireSink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  void Append(const void* data, size_t size) override {
    out_->append(static_cast<const char*>(data), size);
  }

 private:
  std::string* out_;
};

class WireWriter {
 public:
  explicit WireWriter(WireSink* sink) : sink_(sink) {}

  void WriteVarint(uint64_t v) {
    uint8_t buf[10];
    size_t n = 0;
    while (v >= 0x80) {
      buf[n++] = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    buf[n++] = static_cast<uint8_t>(v);
    sink_->Append(buf, n);
  }
  void WriteTag(uint32_t field_number, WireType type) {
    WriteVarint((static_cast<uint64_t>(field_number) << 3) | static_cast<uint8_t>(type));
  }
  void WriteFixed32(uint32_t v) {
    uint8_t buf[4];
    for (int i = 0; i < 4; ++i)
      buf[i] = static_cast<uint8_t>(v >> (8 * i));
    sink_->Append(buf, 4);
  }
  void WriteFixed64(uint64_t v) {
    uint8_t buf[8];
    for (int i = 0; i < 8; ++i)
      buf[i] = static_cast<uint8_t>(v >> (8 * i));
    sink_->Append(buf, 8);
  }
  void WriteBytes(const void* data, size_t size) {
    if (size) sink_->Append(data, size);
  }

 private:
  WireSink* sink_;
};

}  // namespace onnx_light::onnx
