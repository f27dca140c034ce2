#include "onnx_light/core/data_type.h"

#include <limits>

namespace onnx_light {
namespace {

struct DataTypeInfo {
  DataType type;
  const char* name;
  int bits;  // see DataTypeBitWidth
  bool floating;
};

constexpr DataTypeInfo kTable[] = {
    {DataType::kUndefined, "UNDEFINED", 0, false},
    {DataType::kFloat, "FLOAT", 32, true},
    {DataType::kUint8, "UINT8", 8, false},
    {DataType::kInt8, "INT8", 8, false},
    {DataType::kUint16, "UINT16", 16, false},
    {DataType::kInt16, "INT16", 16, false},
    {DataType::kInt32, "INT32", 32, false},
    {DataType::kInt64, "INT64", 64, false},
    {DataType::kString, "STRING", 0, false},
    {DataType::kBool, "BOOL", 8, false},
    {DataType::kFloat16, "FLOAT16", 16, true},
    {DataType::kDouble, "DOUBLE", 64, true},
    {DataType::kUint32, "UINT32", 32, false},
    {DataType::kUint64, "UINT64", 64, false},
    {DataType::kComplex64, "COMPLEX64", 64, false},
    {DataType::kComplex128, "COMPLEX128", 128, false},
    {DataType::kBFloat16, "BFLOAT16", 16, true},
    {DataType::kFloat8E4M3FN, "FLOAT8E4M3FN", 8, true},
    {DataType::kFloat8E4M3FNUZ, "FLOAT8E4M3FNUZ", 8, true},
    {DataType::kFloat8E5M2, "FLOAT8E5M2", 8, true},
    {DataType::kFloat8E5M2FNUZ, "FLOAT8E5M2FNUZ", 8, true},
    {DataType::kUint4, "UINT4", 4, false},
    {DataType::kInt4, "INT4", 4, false},
    {DataType::kFloat4E2M1, "FLOAT4E2M1", 4, true},
    {DataType::kFloat8E8M0, "FLOAT8E8M0", 8, true},
    {DataType::kUint2, "UINT2", 2, false},
    {DataType::kInt2, "INT2", 2, false},
};

constexpr bool TableIsInOrder() {
  for (int32_t i = 0; i < kDataTypeCount; ++i) {
    if (static_cast<int32_t>(kTable[i].type) != i) return false;
  }
  return true;
}
static_assert(sizeof(kTable) / sizeof(kTable[0]) == kDataTypeCount, "one row per DataType");
static_assert(TableIsInOrder(), "row i describes DataType value i");

const DataTypeInfo* Find(DataType type) noexcept {
  const auto i = static_cast<int32_t>(type);
  return (i >= 0 && i < kDataTypeCount) ? &kTable[i] : nullptr;
}

}  // namespace

Result<DataType> DataTypeFromIntAllowUndefined(int32_t value) {
  if (value < 0 || value >= kDataTypeCount) {
    return Status(StatusCode::kInvalidArgument, "unknown ONNX data type " + std::to_string(value) +
                                                    " (known: 0.." +
                                                    std::to_string(kDataTypeCount - 1) + ")");
  }
  return static_cast<DataType>(value);
}

Result<DataType> DataTypeFromInt(int32_t value) {
  if (value == 0) return Status(StatusCode::kInvalidArgument, "data type UNDEFINED (0)");
  return DataTypeFromIntAllowUndefined(value);
}

const char* DataTypeName(DataType type) noexcept {
  const DataTypeInfo* info = Find(type);
  return info ? info->name : "INVALID";
}

Result<DataType> DataTypeFromName(const std::string& name) {
  for (const auto& row : kTable) {
    if (name == row.name) return row.type;
  }
  return Status(StatusCode::kInvalidArgument, "unknown ONNX data type name '" + name + "'");
}

int DataTypeBitWidth(DataType type) noexcept {
  const DataTypeInfo* info = Find(type);
  return info ? info->bits : 0;
}

bool IsSubByteType(DataType type) noexcept {
  const int bits = DataTypeBitWidth(type);
  return bits > 0 && bits < 8;
}

bool IsFloatingType(DataType type) noexcept {
  const DataTypeInfo* info = Find(type);
  return info && info->floating;
}

Result<size_t> StorageBytes(DataType type, int64_t count) {
  if (count < 0) {
    return Status(StatusCode::kInvalidArgument, "negative element count " + std::to_string(count));
  }
  if (Find(type) == nullptr || type == DataType::kUndefined) {
    return Status(StatusCode::kInvalidArgument,
                  std::string("no storage size for data type ") + DataTypeName(type));
  }
  constexpr uint64_t kMax = std::numeric_limits<size_t>::max();
  const auto n = static_cast<uint64_t>(count);
  if (type == DataType::kString) {
    if (n > kMax / sizeof(std::string)) {
      return Status(StatusCode::kOutOfRange, "string tensor of " + std::to_string(count) +
                                                 " elements overflows the address space");
    }
    return static_cast<size_t>(n * sizeof(std::string));
  }
  const auto bits = static_cast<uint64_t>(DataTypeBitWidth(type));
  if (bits < 8) {
    const uint64_t per_byte = 8 / bits;
    return static_cast<size_t>(n / per_byte + (n % per_byte != 0 ? 1 : 0));
  }
  const uint64_t bytes_per = bits / 8;
  if (n > kMax / bytes_per) {
    return Status(StatusCode::kOutOfRange, std::string(DataTypeName(type)) + " tensor of " +
                                               std::to_string(count) +
                                               " elements overflows the address space");
  }
  return static_cast<size_t>(n * bytes_per);
}

}  // namespace onnx_light
