#include "npy.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "onnx_light/platform/mapped_file.h"

namespace onnx_light::cli {
namespace {

struct Descr {
  const char* code;
  DataType type;
};

constexpr Descr kDescrs[] = {
    {"<f4", DataType::kFloat},     {"<f8", DataType::kDouble},      {"<f2", DataType::kFloat16},
    {"|i1", DataType::kInt8},      {"<i2", DataType::kInt16},       {"<i4", DataType::kInt32},
    {"<i8", DataType::kInt64},     {"|u1", DataType::kUint8},       {"<u2", DataType::kUint16},
    {"<u4", DataType::kUint32},    {"<u8", DataType::kUint64},      {"|b1", DataType::kBool},
    {"<c8", DataType::kComplex64}, {"<c16", DataType::kComplex128},
};

Status Bad(const std::string& path, const std::string& why) {
  return Status(StatusCode::kInvalidArgument,
                "'" + path + "' is not a supported .npy file: " + why);
}

// Value of `key` in the header dict, e.g. 'descr': '<f4'.
std::string Field(const std::string& header, const std::string& key) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t p = header.find(':', k);
  if (p == std::string::npos) return "";
  ++p;
  while (p < header.size() && header[p] == ' ')
    ++p;
  if (p < header.size() && header[p] == '\'') {
    const size_t e = header.find('\'', p + 1);
    return e == std::string::npos ? "" : header.substr(p + 1, e - p - 1);
  }
  if (p < header.size() && header[p] == '(') {
    const size_t e = header.find(')', p);
    return e == std::string::npos ? "" : header.substr(p, e - p + 1);
  }
  const size_t e = header.find_first_of(",}", p);
  return header.substr(p, e - p);
}

}  // namespace

Result<Tensor> ReadNpy(const std::string& path, DataType expected) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::Open(path));
  const auto* data = static_cast<const unsigned char*>(file->data());
  const size_t size = file->size();
  if (size < 10 || std::memcmp(data, "\x93NUMPY", 6) != 0) return Bad(path, "no NUMPY magic");
  const int major = data[6];
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = data[8] | (data[9] << 8);
    offset = 10;
  } else if ((major == 2 || major == 3) && size >= 12) {
    header_len = data[8] | (data[9] << 8) | (static_cast<size_t>(data[10]) << 16) |
                 (static_cast<size_t>(data[11]) << 24);
    offset = 12;
  } else {
    return Bad(path, "unknown format version " + std::to_string(major));
  }
  if (offset + header_len > size) return Bad(path, "truncated header");
  const std::string header(reinterpret_cast<const char*>(data + offset), header_len);
  const std::string descr = Field(header, "descr");
  if (Field(header, "fortran_order").find("True") != std::string::npos) {
    return Bad(path, "Fortran order");
  }
  DataType type = DataType::kUndefined;
  for (const Descr& d : kDescrs) {
    if (descr == d.code) type = d.type;
  }
  if (expected == DataType::kBFloat16 && (descr == "<u2" || descr == "<V2" || descr == "|V2")) {
    type = DataType::kBFloat16;
  }
  if (type == DataType::kUndefined) return Bad(path, "dtype '" + descr + "'");
  std::vector<int64_t> dims;
  const std::string shape = Field(header, "shape");
  for (size_t p = 0; p < shape.size();) {
    if (std::isdigit(static_cast<unsigned char>(shape[p]))) {
      size_t e = p;
      while (e < shape.size() && std::isdigit(static_cast<unsigned char>(shape[e])))
        ++e;
      dims.push_back(std::stoll(shape.substr(p, e - p)));
      p = e;
    } else {
      ++p;
    }
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape s, Shape::Create(dims));
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(type, std::move(s)));
  const size_t body = offset + header_len;
  if (size - body < t.byte_size()) {
    return Bad(path, "data has " + std::to_string(size - body) + " bytes, shape needs " +
                         std::to_string(t.byte_size()));
  }
  if (t.byte_size()) std::memcpy(t.mutable_raw_data(), data + body, t.byte_size());
  return t;
}

Status WriteNpy(const Tensor& t, const std::string& path) {
  const char* descr = nullptr;
  for (const Descr& d : kDescrs) {
    if (d.type == t.dtype()) descr = d.code;
  }
  if (t.dtype() == DataType::kBFloat16) descr = "<u2";  // raw bits; view as bfloat16
  if (descr == nullptr) {
    return Status(StatusCode::kNotImplemented,
                  std::string("cannot write ") + DataTypeName(t.dtype()) + " as .npy");
  }
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().rank(); ++i) {
    shape += std::to_string(t.shape()[i]) +
             (t.shape().rank() == 1 ? "," : (i + 1 < t.shape().rank() ? ", " : ""));
  }
  shape += ")";
  std::string header =
      "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) return Status(StatusCode::kIoError, "cannot create '" + path + "'");
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  const char le[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(le, 2);
  out << header;
  out.write(static_cast<const char*>(t.raw_data()), static_cast<std::streamsize>(t.byte_size()));
  return out ? Status::Ok() : Status(StatusCode::kIoError, "cannot write '" + path + "'");
}

}  // namespace onnx_light::cli
