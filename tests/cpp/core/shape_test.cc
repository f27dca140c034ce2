#include "onnx_light/core/shape.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace onnx_light {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(Shape, ScalarHasOneElement) {
  Shape s;
  EXPECT_TRUE(s.is_scalar());
  EXPECT_EQ(s.rank(), 0u);
  EXPECT_EQ(s.num_elements(), 1);
  EXPECT_FALSE(s.is_empty());
  EXPECT_EQ(s.ToString(), "[]");
  auto created = Shape::Create(std::vector<int64_t>{});
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(*created, s);
}

TEST(Shape, DimsAndCount) {
  auto s = Shape::Create({2, 3, 4});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->rank(), 3u);
  EXPECT_EQ((*s)[1], 3);
  EXPECT_EQ(s->num_elements(), 24);
  EXPECT_EQ(s->ToString(), "[2, 3, 4]");
  EXPECT_NE(*s, *Shape::Create({2, 3}));
}

TEST(Shape, EmptyTensors) {
  auto s = Shape::Create({3, 0, 5});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->is_empty());
  EXPECT_EQ(s->num_elements(), 0);
  EXPECT_TRUE(Shape::Create({0})->is_empty());
}

TEST(Shape, NegativeDimensionIsRejected) {
  auto s = Shape::Create({2, -1, 3});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("negative dimension -1 at axis 1"), std::string::npos)
      << s.status().message();
  EXPECT_FALSE(Shape::Create({std::numeric_limits<int64_t>::min()}).ok());
}

TEST(Shape, ElementCountOverflow) {
  EXPECT_TRUE(Shape::Create({kMax}).ok());
  EXPECT_TRUE(Shape::Create({int64_t{1} << 31, int64_t{1} << 31}).ok());
  auto s = Shape::Create({int64_t{1} << 32, int64_t{1} << 31});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kOutOfRange);
  EXPECT_NE(s.status().message().find("overflows int64"), std::string::npos);
  EXPECT_FALSE(Shape::Create({kMax, 2}).ok());
  EXPECT_FALSE(Shape::Create({3037000500, 3037000500}).ok());  // just past sqrt(2^63)
  EXPECT_TRUE(Shape::Create({3037000499, 3037000499}).ok());
  // A zero dimension does not excuse an overflowing product of the others.
  EXPECT_FALSE(Shape::Create({0, kMax, 2}).ok());
  EXPECT_TRUE(Shape::Create({0, kMax}).ok());
}

TEST(Shape, RankLimit) {
  ShapeLimits limits;
  limits.max_rank = 16;
  std::vector<int64_t> dims(16, 1);
  EXPECT_TRUE(Shape::Create(dims, limits).ok());
  dims.push_back(1);
  auto s = Shape::Create(dims, limits);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.status().message(), "rank 17 exceeds the limit of 16");
  EXPECT_TRUE(Shape::Create(dims).ok());  // default limit is 64
  EXPECT_FALSE(Shape::Create(std::vector<int64_t>(65, 1)).ok());
}

TEST(Shape, ElementLimit) {
  ShapeLimits limits;
  limits.max_elements = 100;
  EXPECT_TRUE(Shape::Create({10, 10}, limits).ok());
  auto s = Shape::Create({10, 11}, limits);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kOutOfRange);
}

TEST(Shape, NullDimsWithRank) {
  EXPECT_EQ(Shape::Create(nullptr, 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Shape::Create(nullptr, 0).ok());
}

}  // namespace
}  // namespace onnx_light
