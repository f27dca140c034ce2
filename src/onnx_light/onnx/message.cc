#include "onnx_light/onnx/message.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "codec.h"

namespace onnx_light::onnx {

Bytes::Bytes(std::string bytes) {
  if (bytes.empty()) return;
  auto holder = std::make_shared<const std::string>(std::move(bytes));
  data_ = holder->data();
  size_ = holder->size();
  owner_ = std::move(holder);
}

const FieldDescriptor* MessageDescriptor::FindByNumber(uint32_t number) const {
  const FieldDescriptor* end = fields + field_count;
  const FieldDescriptor* it = std::lower_bound(
      fields, end, number, [](const FieldDescriptor& f, uint32_t n) { return f.number < n; });
  return (it != end && it->number == number) ? it : nullptr;
}

const FieldDescriptor* MessageDescriptor::FindByName(std::string_view field_name) const {
  for (size_t i = 0; i < field_count; ++i) {
    if (field_name == fields[i].name) return &fields[i];
  }
  return nullptr;
}

namespace detail {

void PrependErrorPath(ParseState& state, const std::string& segment) {
  if (state.error_path.empty()) {
    state.error_path = segment;
  } else if (state.error_path[0] == '[') {
    state.error_path = segment + state.error_path;
  } else {
    state.error_path = segment + "." + state.error_path;
  }
}

Status WrongWireType(const FieldDescriptor& fd, WireType got, uint64_t offset) {
  return Status(StatusCode::kInvalidModel, std::string("wire type ") + WireTypeName(got) +
                                               " does not match field '" + fd.name + "' (" +
                                               std::to_string(fd.number) + ") at byte " +
                                               std::to_string(offset));
}

Status ParseSubMessage(const MessageDescriptor& d, void* message, const FieldDescriptor& fd,
                       WireType wt, WireReader& in, ParseState& state) {
  if (wt != WireType::kLengthDelimited) return WrongWireType(fd, wt, in.offset());
  if (state.depth >= state.options->max_depth) {
    return Status(StatusCode::kInvalidModel, "messages nested deeper than the limit of " +
                                                 std::to_string(state.options->max_depth) +
                                                 " at byte " + std::to_string(in.offset()));
  }
  WireReader payload(nullptr, 0);
  ONNX_LIGHT_RETURN_IF_ERROR(in.ReadLengthDelimited(&payload));
  ++state.depth;
  Status s = ParseMessage(d, message, payload, state);
  --state.depth;
  return s;
}

uint64_t SubMessageSize(const MessageDescriptor& d, const void* message, uint32_t number) {
  return LengthDelimitedSize(number, MessageByteSize(d, message));
}

void WriteSubMessage(const MessageDescriptor& d, const void* message, uint32_t number,
                     WireWriter& out) {
  out.WriteTag(number, WireType::kLengthDelimited);
  out.WriteVarint(d.Base(message).cached_size);
  WriteMessage(d, message, out);
}

}  // namespace detail

Status ParseMessage(const MessageDescriptor& d, void* message, WireReader& in, ParseState& state) {
  MessageBase* base = d.base(message);
  while (!in.AtEnd()) {
    const uint8_t* tag_start = in.position();
    uint32_t number = 0;
    WireType wt = WireType::kVarint;
    ONNX_LIGHT_RETURN_IF_ERROR(in.ReadTag(&number, &wt));
    const FieldDescriptor* fd = d.FindByNumber(number);
    if (fd == nullptr) {
      ONNX_LIGHT_RETURN_IF_ERROR(in.Skip(wt));
      base->unknown_fields.append(reinterpret_cast<const char*>(tag_start),
                                  static_cast<size_t>(in.position() - tag_start));
      continue;
    }
    Status s = fd->codec->parse(fd->field(message), *fd, wt, in, state);
    if (!s.ok()) {
      detail::PrependErrorPath(state, fd->name);
      return s;
    }
    if (fd->flags & kOneof) ClearOtherOneofMembers(d, message, *fd);
  }
  return Status::Ok();
}

uint64_t MessageByteSize(const MessageDescriptor& d, const void* message) {
  uint64_t n = 0;
  for (size_t i = 0; i < d.field_count; ++i) {
    const FieldDescriptor& fd = d.fields[i];
    const void* f = fd.field(message);
    if (fd.codec->present(f)) n += fd.codec->byte_size(f, fd);
  }
  const MessageBase& base = d.Base(message);
  n += base.unknown_fields.size();
  base.cached_size = n;
  return n;
}

void WriteMessage(const MessageDescriptor& d, const void* message, WireWriter& out) {
  for (size_t i = 0; i < d.field_count; ++i) {
    const FieldDescriptor& fd = d.fields[i];
    const void* f = fd.field(message);
    if (fd.codec->present(f)) fd.codec->write(f, fd, out);
  }
  const std::string& unknown = d.Base(message).unknown_fields;
  out.WriteBytes(unknown.data(), unknown.size());
}

Status ParseFromBytes(const MessageDescriptor& d, void* message, const void* data, size_t size,
                      const ParseOptions& options, std::shared_ptr<const void> owner) {
  if (size > options.max_bytes) {
    return Status(StatusCode::kOutOfRange, std::string(d.name) + " of " + std::to_string(size) +
                                               " bytes exceeds the limit of " +
                                               std::to_string(options.max_bytes));
  }
  WireReader in(static_cast<const uint8_t*>(data), size);
  ParseState state{&options, std::move(owner), 0, {}};
  Status s = ParseMessage(d, message, in, state);
  if (s.ok()) return s;
  std::string where = d.name;
  if (!state.error_path.empty())
    where += (state.error_path[0] == '[' ? "" : ".") + state.error_path;
  return Status(s.code(), where + ": " + s.message());
}

std::string SerializeToString(const MessageDescriptor& d, const void* message) {
  std::string out;
  out.reserve(static_cast<size_t>(MessageByteSize(d, message)));
  StringSink sink(&out);
  WireWriter writer(&sink);
  WriteMessage(d, message, writer);
  return out;
}

bool MessagesEqual(const MessageDescriptor& d, const void* a, const void* b) {
  for (size_t i = 0; i < d.field_count; ++i) {
    const FieldDescriptor& fd = d.fields[i];
    if (!fd.codec->equal(fd.field(a), fd.field(b))) return false;
  }
  return d.Base(a).unknown_fields == d.Base(b).unknown_fields;
}

bool MessageIsEmpty(const MessageDescriptor& d, const void* message) {
  for (size_t i = 0; i < d.field_count; ++i) {
    const FieldDescriptor& fd = d.fields[i];
    if (fd.codec->present(fd.field(message))) return false;
  }
  return d.Base(message).unknown_fields.empty();
}

void ClearMessage(const MessageDescriptor& d, void* message) {
  for (size_t i = 0; i < d.field_count; ++i)
    d.fields[i].codec->clear(d.fields[i].field(message));
  d.base(message)->unknown_fields.clear();
}

void ClearOtherOneofMembers(const MessageDescriptor& d, void* message,
                            const FieldDescriptor& field) {
  for (size_t i = 0; i < d.field_count; ++i) {
    const FieldDescriptor& fd = d.fields[i];
    if ((fd.flags & kOneof) && &fd != &field) fd.codec->clear(fd.field(message));
  }
}

}  // namespace onnx_light::onnx

namespace onnx_light::onnx {
namespace {

void AppendEscaped(std::string& out, std::string_view s) {
  static const char kHex[] = "01234567";
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          out += '\\';
          out += kHex[(c >> 6) & 7];
          out += kHex[(c >> 3) & 7];
          out += kHex[c & 7];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

template <typename T>
void AppendFloat(std::string& out, T v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, static_cast<double>(v));
  out += buf;
}

void AppendText(std::string& out, const MessageDescriptor& d, const void* message, int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  for (size_t i = 0; i < d.field_count; ++i) {
    const FieldDescriptor& fd = d.fields[i];
    const void* f = fd.field(message);
    if (!fd.codec->present(f)) continue;
    const size_t n = fd.codec->count(f);
    for (size_t k = 0; k < n; ++k) {
      const void* e = fd.codec->element(f, k);
      out += pad;
      out += fd.name;
      switch (fd.kind) {
        case FieldKind::kMessage:
          out += " {\n";
          AppendText(out, *fd.message_type(), e, indent + 2);
          out += pad + "}\n";
          continue;
        case FieldKind::kInt32:
          out += ": " + std::to_string(*static_cast<const int32_t*>(e));
          break;
        case FieldKind::kInt64:
          out += ": " + std::to_string(*static_cast<const int64_t*>(e));
          break;
        case FieldKind::kUint64:
          out += ": " + std::to_string(*static_cast<const uint64_t*>(e));
          break;
        case FieldKind::kFloat:
          out += ": ";
          AppendFloat(out, *static_cast<const float*>(e), 9);
          break;
        case FieldKind::kDouble:
          out += ": ";
          AppendFloat(out, *static_cast<const double*>(e), 17);
          break;
        case FieldKind::kString:
          out += ": ";
          AppendEscaped(out, *static_cast<const std::string*>(e));
          break;
        case FieldKind::kRawBytes:
          out += ": ";
          AppendEscaped(out, static_cast<const Bytes*>(e)->view());
          break;
      }
      out += '\n';
    }
  }
}

}  // namespace

std::string MessageToText(const MessageDescriptor& descriptor, const void* message) {
  std::string out;
  AppendText(out, descriptor, message, 0);
  return out;
}

}  // namespace onnx_light::onnx
