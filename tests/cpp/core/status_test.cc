#include "onnx_light/core/status.h"

#include <gtest/gtest.h>

#include <string>

namespace onnx_light {
namespace {

TEST(Status, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(Status, OkCodeWithMessageStaysOk) {
  Status s(StatusCode::kOk, "ignored");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
}

TEST(Status, ErrorCarriesCodeAndMessage) {
  Status s(StatusCode::kOutOfRange, "rank 17 exceeds the limit of 16");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "rank 17 exceeds the limit of 16");
  EXPECT_EQ(s.ToString(), "OUT_OF_RANGE: rank 17 exceeds the limit of 16");
}

TEST(Status, CopyAndMove) {
  Status a(StatusCode::kNotFound, "input 'x'");
  Status b = a;
  EXPECT_EQ(b.ToString(), a.ToString());
  Status c = std::move(a);
  EXPECT_EQ(c.code(), StatusCode::kNotFound);
  b = Status();
  EXPECT_TRUE(b.ok());
  b = c;
  EXPECT_EQ(b.message(), "input 'x'");
}

TEST(Status, WithContext) {
  EXPECT_TRUE(Status().WithContext("node n0").ok());
  Status s = Status(StatusCode::kInvalidModel, "bad varint").WithContext("graph.node[3]");
  EXPECT_EQ(s.ToString(), "INVALID_MODEL: graph.node[3]: bad varint");
}

TEST(Status, CodeNamesAreStable) {
  // The numeric values are part of the C ABI; their names appear in error texts.
  EXPECT_EQ(static_cast<int>(StatusCode::kInvalidArgument), 1);
  EXPECT_EQ(static_cast<int>(StatusCode::kInternal), 10);
  EXPECT_STREQ(StatusCodeName(StatusCode::kTypeMismatch), "TYPE_MISMATCH");
  EXPECT_STREQ(StatusCodeName(StatusCode::kIoError), "IO_ERROR");
  EXPECT_STREQ(StatusCodeName(static_cast<StatusCode>(99)), "UNKNOWN");
}

Result<int> Half(int x) {
  if (x % 2) return Status(StatusCode::kInvalidArgument, std::to_string(x) + " is odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(int h, Half(x));
  ONNX_LIGHT_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int x) {
  ONNX_LIGHT_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST(Result, ValueAndErrorPropagation) {
  Result<int> r = Quarter(12);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 3);
  Result<int> e = Quarter(6);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().ToString(), "INVALID_ARGUMENT: 3 is odd");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_EQ(CheckEven(5).code(), StatusCode::kInvalidArgument);
}

TEST(Result, OkStatusWithoutValueIsInternalError) {
  Result<std::string> r{Status::Ok()};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(Result, MoveOnlyValue) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

}  // namespace
}  // namespace onnx_light
