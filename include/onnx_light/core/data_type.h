// DataType: every ONNX TensorProto.DataType value, with its name and element size.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

#include "onnx_light/core/float16.h"
#include "onnx_light/core/status.h"

namespace onnx_light {

// Values are those of onnx.TensorProto.DataType (onnx 1.22). Keep kDataTypeCount and the
// table in data_type.cc in step: a static_assert there checks every row's position.
enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUint2 = 25,
  kInt2 = 26,
};
inline constexpr int32_t kDataTypeCount = 27;

// Checked conversion from the wire value: UNDEFINED and unknown values are errors.
Result<DataType> DataTypeFromInt(int32_t value);
// As above but accepts UNDEFINED (0), for fields where "not set" is legal.
Result<DataType> DataTypeFromIntAllowUndefined(int32_t value);

// The ONNX name, e.g. "FLOAT", "BFLOAT16". Never null; "UNDEFINED" for 0.
const char* DataTypeName(DataType type) noexcept;
// Inverse of DataTypeName (exact, upper case).
Result<DataType> DataTypeFromName(const std::string& name);

// Bits per element in memory: 1-8 byte types give 8x their size; the packed sub-byte
// types give 2 or 4 (two or four elements share a byte, low bits first); STRING gives 0
// (variable length, stored as std::string objects) and so does UNDEFINED.
int DataTypeBitWidth(DataType type) noexcept;
bool IsSubByteType(DataType type) noexcept;
bool IsFloatingType(DataType type) noexcept;  // float16/bfloat16/float/double/float8/float4

// Bytes of in-memory storage for `count` elements: packed types round up to whole bytes,
// STRING counts sizeof(std::string) per element. Errors: negative count, UNDEFINED,
// overflow of size_t.
Result<size_t> StorageBytes(DataType type, int64_t count);

// Maps a C++ element type to its DataType (compile time).
template <typename T>
struct DataTypeOf;
#define ONNX_LIGHT_DATA_TYPE_OF_(T, V)             \
  template <>                                      \
  struct DataTypeOf<T> {                           \
    static constexpr DataType value = DataType::V; \
  }
ONNX_LIGHT_DATA_TYPE_OF_(float, kFloat);
ONNX_LIGHT_DATA_TYPE_OF_(uint8_t, kUint8);
ONNX_LIGHT_DATA_TYPE_OF_(int8_t, kInt8);
ONNX_LIGHT_DATA_TYPE_OF_(uint16_t, kUint16);
ONNX_LIGHT_DATA_TYPE_OF_(int16_t, kInt16);
ONNX_LIGHT_DATA_TYPE_OF_(int32_t, kInt32);
ONNX_LIGHT_DATA_TYPE_OF_(int64_t, kInt64);
ONNX_LIGHT_DATA_TYPE_OF_(std::string, kString);
ONNX_LIGHT_DATA_TYPE_OF_(bool, kBool);
ONNX_LIGHT_DATA_TYPE_OF_(float16, kFloat16);
ONNX_LIGHT_DATA_TYPE_OF_(double, kDouble);
ONNX_LIGHT_DATA_TYPE_OF_(uint32_t, kUint32);
ONNX_LIGHT_DATA_TYPE_OF_(uint64_t, kUint64);
ONNX_LIGHT_DATA_TYPE_OF_(std::complex<float>, kComplex64);
ONNX_LIGHT_DATA_TYPE_OF_(std::complex<double>, kComplex128);
ONNX_LIGHT_DATA_TYPE_OF_(bfloat16, kBFloat16);
#undef ONNX_LIGHT_DATA_TYPE_OF_

}  // namespace onnx_light
