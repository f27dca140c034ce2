#include "onnx_light/onnx/wire.h"

#include <string>

namespace onnx_light::onnx {

const char* WireTypeName(WireType type) noexcept {
  switch (type) {
    case WireType::kVarint:
      return "varint";
    case WireType::kFixed64:
      return "fixed64";
    case WireType::kLengthDelimited:
      return "length-delimited";
    case WireType::kStartGroup:
      return "start-group";
    case WireType::kEndGroup:
      return "end-group";
    case WireType::kFixed32:
      return "fixed32";
  }
  return "invalid";
}

Status WireReader::Truncated(const char* what, uint64_t at) const {
  return Status(StatusCode::kInvalidModel,
                std::string("truncated ") + what + " at byte " + std::to_string(at));
}

Status WireReader::ReadVarint(uint64_t* value) {
  const uint64_t start = offset();
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p_ >= end_) return Truncated("varint", start);
    const uint8_t byte = *p_++;
    if (shift == 63 && byte > 1) {
      return Status(StatusCode::kInvalidModel,
                    "varint overflows 64 bits at byte " + std::to_string(start));
    }
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *value = result;
      return Status::Ok();
    }
  }
  return Status(StatusCode::kInvalidModel,
                "varint longer than 10 bytes at byte " + std::to_string(start));
}

Status WireReader::ReadFixed32(uint32_t* value) {
  if (remaining() < 4) return Truncated("fixed32", offset());
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(p_[i]) << (8 * i);
  p_ += 4;
  *value = v;
  return Status::Ok();
}

Status WireReader::ReadFixed64(uint64_t* value) {
  if (remaining() < 8) return Truncated("fixed64", offset());
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(p_[i]) << (8 * i);
  p_ += 8;
  *value = v;
  return Status::Ok();
}

Status WireReader::ReadTag(uint32_t* field_number, WireType* wire_type) {
  const uint64_t start = offset();
  uint64_t tag = 0;
  ONNX_LIGHT_RETURN_IF_ERROR(ReadVarint(&tag));
  const uint64_t number = tag >> 3;
  const auto type = static_cast<uint8_t>(tag & 7);
  if (number == 0 || number > 0x1fffffff) {
    return Status(StatusCode::kInvalidModel, "invalid field number " + std::to_string(number) +
                                                 " at byte " + std::to_string(start));
  }
  if (type > 5 || type == 3 || type == 4) {
    return Status(StatusCode::kInvalidModel, "unsupported wire type " + std::to_string(type) +
                                                 " for field " + std::to_string(number) +
                                                 " at byte " + std::to_string(start));
  }
  *field_number = static_cast<uint32_t>(number);
  *wire_type = static_cast<WireType>(type);
  return Status::Ok();
}

Status WireReader::ReadLengthDelimited(WireReader* payload) {
  const uint64_t start = offset();
  uint64_t len = 0;
  ONNX_LIGHT_RETURN_IF_ERROR(ReadVarint(&len));
  if (len > remaining()) {
    return Status(StatusCode::kInvalidModel, "length " + std::to_string(len) + " at byte " +
                                                 std::to_string(start) +
                                                 " runs past the end of its enclosing message (" +
                                                 std::to_string(remaining()) + " bytes left)");
  }
  *payload = WireReader(p_, static_cast<size_t>(len), offset());
  p_ += len;
  return Status::Ok();
}

Status WireReader::Skip(WireType wire_type) {
  switch (wire_type) {
    case WireType::kVarint: {
      uint64_t v;
      return ReadVarint(&v);
    }
    case WireType::kFixed64: {
      uint64_t v;
      return ReadFixed64(&v);
    }
    case WireType::kFixed32: {
      uint32_t v;
      return ReadFixed32(&v);
    }
    case WireType::kLengthDelimited: {
      WireReader payload(nullptr, 0);
      return ReadLengthDelimited(&payload);
    }
    default:
      return Status(StatusCode::kInvalidModel, std::string("cannot skip wire type ") +
                                                   WireTypeName(wire_type) + " at byte " +
                                                   std::to_string(offset()));
  }
}

}  // namespace onnx_light::onnx
