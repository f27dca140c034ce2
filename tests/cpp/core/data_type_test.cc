#include "onnx_light/core/data_type.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace onnx_light {
namespace {

TEST(DataType, NamesMatchOnnxEnum) {
  // Values and names of onnx.TensorProto.DataType in onnx 1.22 (tests/python checks the
  // whole table against the onnx package as well).
  EXPECT_STREQ(DataTypeName(DataType::kFloat), "FLOAT");
  EXPECT_STREQ(DataTypeName(DataType::kBFloat16), "BFLOAT16");
  EXPECT_STREQ(DataTypeName(DataType::kFloat8E8M0), "FLOAT8E8M0");
  EXPECT_STREQ(DataTypeName(DataType::kInt2), "INT2");
  EXPECT_EQ(static_cast<int>(DataType::kInt2), 26);
  EXPECT_STREQ(DataTypeName(static_cast<DataType>(27)), "INVALID");
  EXPECT_STREQ(DataTypeName(static_cast<DataType>(-1)), "INVALID");
}

TEST(DataType, FromIntRejectsUnknownAndUndefined) {
  for (int32_t v = 1; v < kDataTypeCount; ++v) {
    auto r = DataTypeFromInt(v);
    ASSERT_TRUE(r.ok()) << v;
    EXPECT_EQ(static_cast<int32_t>(*r), v);
  }
  EXPECT_EQ(DataTypeFromInt(0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(DataTypeFromIntAllowUndefined(0).ok());
  for (int32_t bad : {-1, 27, 1000, std::numeric_limits<int32_t>::min()}) {
    auto r = DataTypeFromIntAllowUndefined(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("unknown ONNX data type"), std::string::npos);
  }
}

TEST(DataType, NameRoundTrip) {
  for (int32_t v = 0; v < kDataTypeCount; ++v) {
    const auto t = static_cast<DataType>(v);
    auto r = DataTypeFromName(DataTypeName(t));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, t);
  }
  EXPECT_FALSE(DataTypeFromName("float").ok());  // exact, upper case
  EXPECT_FALSE(DataTypeFromName("").ok());
}

TEST(DataType, BitWidths) {
  EXPECT_EQ(DataTypeBitWidth(DataType::kBool), 8);
  EXPECT_EQ(DataTypeBitWidth(DataType::kFloat16), 16);
  EXPECT_EQ(DataTypeBitWidth(DataType::kComplex128), 128);
  EXPECT_EQ(DataTypeBitWidth(DataType::kInt4), 4);
  EXPECT_EQ(DataTypeBitWidth(DataType::kUint2), 2);
  EXPECT_EQ(DataTypeBitWidth(DataType::kString), 0);
  EXPECT_TRUE(IsSubByteType(DataType::kFloat4E2M1));
  EXPECT_FALSE(IsSubByteType(DataType::kUint8));
  EXPECT_TRUE(IsFloatingType(DataType::kBFloat16));
  EXPECT_FALSE(IsFloatingType(DataType::kInt64));
  EXPECT_FALSE(IsFloatingType(DataType::kComplex64));
}

TEST(DataType, StorageBytes) {
  EXPECT_EQ(*StorageBytes(DataType::kFloat, 0), 0u);
  EXPECT_EQ(*StorageBytes(DataType::kDouble, 3), 24u);
  EXPECT_EQ(*StorageBytes(DataType::kComplex64, 2), 16u);
  EXPECT_EQ(*StorageBytes(DataType::kInt4, 1), 1u);
  EXPECT_EQ(*StorageBytes(DataType::kInt4, 3), 2u);
  EXPECT_EQ(*StorageBytes(DataType::kUint2, 5), 2u);
  EXPECT_EQ(*StorageBytes(DataType::kString, 2), 2 * sizeof(std::string));
}

TEST(DataType, StorageBytesErrors) {
  EXPECT_EQ(StorageBytes(DataType::kFloat, -1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(StorageBytes(DataType::kUndefined, 1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(StorageBytes(static_cast<DataType>(77), 1).status().code(),
            StatusCode::kInvalidArgument);
  const int64_t huge = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(StorageBytes(DataType::kComplex128, huge).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(StorageBytes(DataType::kString, huge).status().code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(StorageBytes(DataType::kUint8, huge).ok());
}

TEST(DataType, CppTypeMapping) {
  static_assert(DataTypeOf<float>::value == DataType::kFloat);
  static_assert(DataTypeOf<float16>::value == DataType::kFloat16);
  static_assert(DataTypeOf<bfloat16>::value == DataType::kBFloat16);
  static_assert(DataTypeOf<bool>::value == DataType::kBool);
  static_assert(DataTypeOf<std::string>::value == DataType::kString);
  static_assert(DataTypeOf<std::complex<double>>::value == DataType::kComplex128);
  SUCCEED();
}

}  // namespace
}  // namespace onnx_light
