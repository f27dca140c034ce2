#include "onnx_light/runtime/tensor_proto.h"

#include <algorithm>
#include <complex>
#include <cstring>

#include "onnx_light/platform/mapped_file.h"

namespace onnx_light {
namespace {

Status CountMismatch(const onnx::TensorProto& p, const char* field, size_t got, int64_t want) {
  return Status(StatusCode::kInvalidModel, "tensor '" + p.name.get() + "': " + field + " has " +
                                               std::to_string(got) + " values, its dims need " +
                                               std::to_string(want));
}

template <typename Dst, typename Src>
Status CopyConverted(const onnx::TensorProto& p, const char* field, const std::vector<Src>& src,
                     Tensor& t) {
  if (src.size() != static_cast<size_t>(t.num_elements())) {
    return CountMismatch(p, field, src.size(), t.num_elements());
  }
  Dst* out = t.mutable_data<Dst>();
  for (size_t i = 0; i < src.size(); ++i)
    out[i] = static_cast<Dst>(src[i]);
  return Status::Ok();
}

template <typename Dst>
Status CopyBits(const onnx::TensorProto& p, const std::vector<int32_t>& src, Tensor& t) {
  if (src.size() != static_cast<size_t>(t.num_elements())) {
    return CountMismatch(p, "int32_data", src.size(), t.num_elements());
  }
  auto* out = static_cast<Dst*>(t.mutable_raw_data());
  for (size_t i = 0; i < src.size(); ++i)
    out[i] = static_cast<Dst>(static_cast<uint32_t>(src[i]));
  return Status::Ok();
}

}  // namespace

Result<Tensor> TensorFromProto(const onnx::TensorProto& p, const ShapeLimits& limits) {
  const std::string& name = p.name.get();
  if (p.segment.has()) {
    return Status(StatusCode::kNotImplemented, "tensor '" + name + "': segments are not supported");
  }
  if (p.data_location.get() == static_cast<int32_t>(onnx::DataLocation::kExternal)) {
    return Status(StatusCode::kInvalidModel,
                  "tensor '" + name +
                      "': external data was not loaded (load the model from "
                      "its file so its folder is known)");
  }
  Result<DataType> type = DataTypeFromInt(p.data_type.get());
  if (!type.ok()) return type.status().WithContext("tensor '" + name + "'");
  Result<Shape> shape = Shape::Create(p.dims, limits);
  if (!shape.ok()) return shape.status().WithContext("tensor '" + name + "'");
  const int64_t n = shape->num_elements();
  ONNX_LIGHT_ASSIGN_OR_RETURN(size_t bytes, StorageBytes(*type, n));

  if (p.raw_data.has()) {
    if (*type == DataType::kString) {
      return Status(StatusCode::kInvalidModel,
                    "tensor '" + name + "': STRING tensors cannot use raw_data");
    }
    const onnx::Bytes& raw = p.raw_data.get();
    if (raw.size() != bytes) {
      return Status(StatusCode::kInvalidModel,
                    "tensor '" + name + "': raw_data has " + std::to_string(raw.size()) +
                        " bytes, a " + DataTypeName(*type) + " tensor of shape " +
                        shape->ToString() + " needs " + std::to_string(bytes));
    }
    // Bools are the bytes 0 and 1 (any other byte read as a bool is undefined behaviour);
    // stored data is read as numpy reads it: a nonzero byte is true, copied as 1.
    const bool bool_bytes_ok =
        *type != DataType::kBool ||
        std::none_of(raw.data(), raw.data() + raw.size(), [](char b) { return b != 0 && b != 1; });
    if (!bool_bytes_ok) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor copy, Tensor::Allocate(*type, std::move(*shape)));
      auto* out = static_cast<uint8_t*>(copy.mutable_raw_data());
      for (size_t i = 0; i < bytes; ++i)
        out[i] = raw.data()[i] != 0 ? 1 : 0;
      return copy;
    }
    Result<Tensor> view = Tensor::Borrow(*type, *shape, raw.data(), raw.size(), raw.owner());
    if (view.ok()) return view;  // aligned: zero copy
    // Misaligned (raw_data sits wherever protobuf put it): copied to aligned memory. If
    // the bytes are a mapped model file, their pages are dropped after the copy, so the
    // weights are not resident twice (a later read maps them in again from the file).
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor copy, Tensor::Allocate(*type, std::move(*shape)));
    if (bytes) {
      std::memcpy(copy.mutable_raw_data(), raw.data(), bytes);
      ReleaseMappedPages(raw.data(), bytes);
    }
    return copy;
  }

  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(*type, std::move(*shape)));
  switch (*type) {
    case DataType::kFloat:
      ONNX_LIGHT_RETURN_IF_ERROR(CopyConverted<float>(p, "float_data", p.float_data, t));
      break;
    case DataType::kDouble:
      ONNX_LIGHT_RETURN_IF_ERROR(CopyConverted<double>(p, "double_data", p.double_data, t));
      break;
    case DataType::kInt64:
      ONNX_LIGHT_RETURN_IF_ERROR(CopyConverted<int64_t>(p, "int64_data", p.int64_data, t));
      break;
    case DataType::kInt32:
      ONNX_LIGHT_RETURN_IF_ERROR(CopyConverted<int32_t>(p, "int32_data", p.int32_data, t));
      break;
    case DataType::kUint64:
      ONNX_LIGHT_RETURN_IF_ERROR(CopyConverted<uint64_t>(p, "uint64_data", p.uint64_data, t));
      break;
    case DataType::kUint32:
      ONNX_LIGHT_RETURN_IF_ERROR(CopyConverted<uint32_t>(p, "uint64_data", p.uint64_data, t));
      break;
    case DataType::kInt8:
    case DataType::kUint8:
      ONNX_LIGHT_RETURN_IF_ERROR(CopyBits<uint8_t>(p, p.int32_data, t));
      break;
    case DataType::kBool: {  // any nonzero int32 is true, stored as 1
      if (p.int32_data.size() != static_cast<size_t>(n)) {
        return CountMismatch(p, "int32_data", p.int32_data.size(), n);
      }
      bool* out = t.mutable_data<bool>();
      for (int64_t i = 0; i < n; ++i)
        out[i] = p.int32_data[static_cast<size_t>(i)] != 0;
      break;
    }
    case DataType::kInt16:
    case DataType::kUint16:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      ONNX_LIGHT_RETURN_IF_ERROR(CopyBits<uint16_t>(p, p.int32_data, t));
      break;
    case DataType::kComplex64: {
      if (p.float_data.size() != 2 * static_cast<size_t>(n)) {
        return CountMismatch(p, "float_data", p.float_data.size(), 2 * n);
      }
      if (n) std::memcpy(t.mutable_raw_data(), p.float_data.data(), bytes);
      break;
    }
    case DataType::kComplex128: {
      if (p.double_data.size() != 2 * static_cast<size_t>(n)) {
        return CountMismatch(p, "double_data", p.double_data.size(), 2 * n);
      }
      if (n) std::memcpy(t.mutable_raw_data(), p.double_data.data(), bytes);
      break;
    }
    case DataType::kString: {
      if (p.string_data.size() != static_cast<size_t>(n)) {
        return CountMismatch(p, "string_data", p.string_data.size(), n);
      }
      std::string* out = t.mutable_data<std::string>();
      for (int64_t i = 0; i < n; ++i)
        out[i] = p.string_data[static_cast<size_t>(i)];
      break;
    }
    default: {
      // float8 and the packed sub-byte types: one value (or packed byte) per int32.
      const size_t need = bytes;
      if (p.int32_data.size() != need) {
        return CountMismatch(p, "int32_data", p.int32_data.size(), static_cast<int64_t>(need));
      }
      auto* out = static_cast<uint8_t*>(t.mutable_raw_data());
      for (size_t i = 0; i < need; ++i)
        out[i] = static_cast<uint8_t>(p.int32_data[i]);
    }
  }
  return t;
}

Result<onnx::TensorProto> TensorToProto(const Tensor& tensor, const std::string& name) {
  onnx::TensorProto p;
  if (!name.empty()) p.name = name;
  p.dims = tensor.shape().dims();
  p.data_type = static_cast<int32_t>(tensor.dtype());
  if (tensor.dtype() == DataType::kString) {
    const std::string* s = tensor.data<std::string>();
    p.string_data.assign(s, s + tensor.num_elements());
  } else {
    p.raw_data =
        onnx::Bytes(std::string(static_cast<const char*>(tensor.raw_data()), tensor.byte_size()));
  }
  return p;
}

}  // namespace onnx_light
