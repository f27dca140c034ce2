#include "onnx_light/onnx/wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace onnx_light::onnx {
namespace {

std::string Encode(uint64_t v) {
  std::string out;
  StringSink sink(&out);
  WireWriter(&sink).WriteVarint(v);
  return out;
}

// Owns the bytes a reader reads (a WireReader only points at them).
struct Input {
  explicit Input(std::string s) : bytes(std::move(s)) {}
  std::string bytes;
  WireReader reader{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
};

TEST(Wire, VarintRoundTripAndSize) {
  for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 300ull, 16383ull, 16384ull, (1ull << 35) + 7,
                     ~0ull >> 1, ~0ull}) {
    const std::string bytes = Encode(v);
    EXPECT_EQ(bytes.size(), VarintSize(v)) << v;
    Input r_in(bytes);
    WireReader& r = r_in.reader;
    uint64_t got = 0;
    ASSERT_TRUE(r.ReadVarint(&got).ok());
    EXPECT_EQ(got, v);
    EXPECT_TRUE(r.AtEnd());
  }
  EXPECT_EQ(Encode(300), std::string("\xac\x02", 2));  // the protobuf documentation's example
  EXPECT_EQ(Encode(~0ull).size(), 10u);
}

TEST(Wire, TruncatedVarint) {
  Input r_in(std::string("\x08\x96", 2));
  WireReader& r = r_in.reader;
  uint32_t field;
  WireType type;
  ASSERT_TRUE(r.ReadTag(&field, &type).ok());
  uint64_t v;
  Status s = r.ReadVarint(&v);
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel);
  EXPECT_EQ(s.message(), "truncated varint at byte 1");
}

TEST(Wire, OverlongAndOverflowingVarints) {
  uint64_t v;
  Input eleven_in(std::string(10, '\xff') + std::string(1, '\x01'));
  WireReader& eleven = eleven_in.reader;
  EXPECT_NE(eleven.ReadVarint(&v).message().find("overflows 64 bits"), std::string::npos);
  Input ten_ok_in(std::string(9, '\xff') + std::string(1, '\x01'));
  WireReader& ten_ok = ten_ok_in.reader;
  ASSERT_TRUE(ten_ok.ReadVarint(&v).ok());
  EXPECT_EQ(v, ~0ull);
  Input ten_bad_in(std::string(9, '\xff') + std::string(1, '\x02'));
  WireReader& ten_bad = ten_bad_in.reader;
  EXPECT_FALSE(ten_bad.ReadVarint(&v).ok());
  // Non-minimal encodings are accepted, as protobuf does.
  Input padded_in(std::string("\x81\x80\x00", 3));
  WireReader& padded = padded_in.reader;
  ASSERT_TRUE(padded.ReadVarint(&v).ok());
  EXPECT_EQ(v, 1u);
}

TEST(Wire, Tags) {
  uint32_t field;
  WireType type;
  Input zero_in(std::string("\x00", 1));
  WireReader& zero = zero_in.reader;
  EXPECT_NE(zero.ReadTag(&field, &type).message().find("invalid field number 0"),
            std::string::npos);
  Input group_in(std::string("\x0b", 1));
  WireReader& group = group_in.reader;  // field 1, start group
  EXPECT_NE(group.ReadTag(&field, &type).message().find("unsupported wire type 3"),
            std::string::npos);
  Input seven_in(std::string("\x0f", 1));
  WireReader& seven = seven_in.reader;
  EXPECT_FALSE(seven.ReadTag(&field, &type).ok());
  Input big_in(Encode((uint64_t{536870911} << 3) | 2));
  WireReader& big = big_in.reader;  // max field number
  ASSERT_TRUE(big.ReadTag(&field, &type).ok());
  EXPECT_EQ(field, 536870911u);
  Input too_big_in(Encode((uint64_t{536870912} << 3) | 2));
  WireReader& too_big = too_big_in.reader;
  EXPECT_FALSE(too_big.ReadTag(&field, &type).ok());
}

TEST(Wire, LengthPastTheEnd) {
  Input r_in(
      std::string("\x05"
                  "abc",
                  4));
  WireReader& r = r_in.reader;
  WireReader payload(nullptr, 0);
  Status s = r.ReadLengthDelimited(&payload);
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel);
  EXPECT_EQ(s.message(),
            "length 5 at byte 0 runs past the end of its enclosing message (3 bytes left)");
  Input huge_in(Encode(~0ull));
  WireReader& huge = huge_in.reader;
  EXPECT_FALSE(huge.ReadLengthDelimited(&payload).ok());
}

TEST(Wire, FixedWidthAndOffsets) {
  std::string bytes;
  StringSink sink(&bytes);
  WireWriter w(&sink);
  w.WriteFixed32(0x01020304u);
  w.WriteFixed64(0x0102030405060708ull);
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x04\x03\x02\x01", 4));
  WireReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 1000);
  uint32_t a;
  uint64_t b;
  ASSERT_TRUE(r.ReadFixed32(&a).ok());
  EXPECT_EQ(r.offset(), 1004u);
  ASSERT_TRUE(r.ReadFixed64(&b).ok());
  EXPECT_EQ(a, 0x01020304u);
  EXPECT_EQ(b, 0x0102030405060708ull);
  EXPECT_EQ(r.ReadFixed32(&a).message(), "truncated fixed32 at byte 1012");
}

}  // namespace
}  // namespace onnx_light::onnx
