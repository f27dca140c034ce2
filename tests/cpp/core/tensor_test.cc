#include "onnx_light/core/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace onnx_light {
namespace {

Shape S(std::initializer_list<int64_t> dims) {
  return *Shape::Create(dims);
}

TEST(Tensor, DefaultIsUndefined) {
  Tensor t;
  EXPECT_FALSE(t.is_defined());
  EXPECT_EQ(t.dtype(), DataType::kUndefined);
  EXPECT_EQ(t.raw_data(), nullptr);
}

TEST(Tensor, AllocateIsAlignedAndTyped) {
  for (DataType type : {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                        DataType::kBFloat16, DataType::kInt64, DataType::kBool}) {
    auto t = Tensor::Allocate(type, S({3, 5}));
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t->raw_data()) % Tensor::kAlignment, 0u);
    EXPECT_EQ(t->num_elements(), 15);
    EXPECT_EQ(t->byte_size(), static_cast<size_t>(15 * DataTypeBitWidth(type) / 8));
    EXPECT_TRUE(t->is_owning());
    EXPECT_FALSE(t->is_read_only());
  }
  auto f = *Tensor::Allocate(DataType::kFloat, S({4}));
  ASSERT_NE(f.mutable_data<float>(), nullptr);
  EXPECT_EQ(f.data<double>(), nullptr);  // wrong element type
  EXPECT_EQ(f.data<int32_t>(), nullptr);
  f.mutable_data<float>()[3] = 2.5f;
  EXPECT_EQ(f.data<float>()[3], 2.5f);
}

TEST(Tensor, ScalarAndEmpty) {
  auto scalar = *Tensor::Allocate(DataType::kDouble, Shape());
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_EQ(scalar.byte_size(), 8u);
  scalar.mutable_data<double>()[0] = -1.0;
  EXPECT_EQ(scalar.data<double>()[0], -1.0);

  auto empty = *Tensor::Allocate(DataType::kFloat, S({2, 0}));
  EXPECT_EQ(empty.num_elements(), 0);
  EXPECT_EQ(empty.byte_size(), 0u);
  EXPECT_NE(empty.raw_data(), nullptr);  // valid pointer even when empty
  auto clone = empty.Clone();
  ASSERT_TRUE(clone.ok());
  EXPECT_EQ(clone->shape(), empty.shape());
}

TEST(Tensor, CopiesShareStorageCloneDoesNot) {
  auto a = *Tensor::Allocate(DataType::kInt32, S({2}));
  a.mutable_data<int32_t>()[0] = 1;
  Tensor b = a;
  b.mutable_data<int32_t>()[0] = 7;
  EXPECT_EQ(a.data<int32_t>()[0], 7);
  Tensor c = *a.Clone();
  c.mutable_data<int32_t>()[0] = 9;
  EXPECT_EQ(a.data<int32_t>()[0], 7);
  EXPECT_EQ(c.data<int32_t>()[0], 9);
}

TEST(Tensor, StringTensors) {
  auto t = *Tensor::Allocate(DataType::kString, S({3}));
  std::string* s = t.mutable_data<std::string>();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s[2], "");
  s[0] = std::string(1000, 'x');  // heap-allocated: the destructor must free it
  s[1] = "b";
  Tensor c = *t.Clone();
  EXPECT_EQ(c.data<std::string>()[0].size(), 1000u);
  EXPECT_EQ(c.data<std::string>()[1], "b");
}

TEST(Tensor, PackedSubByteStorage) {
  auto t = *Tensor::Allocate(DataType::kInt4, S({3}));
  EXPECT_EQ(t.byte_size(), 2u);
  auto u = *Tensor::Allocate(DataType::kUint2, S({9}));
  EXPECT_EQ(u.byte_size(), 3u);
}

TEST(Tensor, AllocateErrors) {
  EXPECT_EQ(Tensor::Allocate(DataType::kUndefined, S({1})).status().code(),
            StatusCode::kInvalidArgument);
  auto huge = Shape::Create({std::numeric_limits<int64_t>::max()});
  auto t = Tensor::Allocate(DataType::kDouble, *huge);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kOutOfRange);
  // Representable but far beyond any machine: a clean error, not a crash.
  auto big = Tensor::Allocate(DataType::kUint8, *Shape::Create({int64_t{1} << 62}));
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted);
  // The process goes on.
  EXPECT_TRUE(Tensor::Allocate(DataType::kUint8, S({16})).ok());
}

TEST(Tensor, BorrowIsReadOnlyAndKeepsOwnerAlive) {
  auto owner = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4});
  std::weak_ptr<std::vector<float>> weak = owner;
  Tensor view;
  {
    auto r = Tensor::Borrow(DataType::kFloat, S({2, 2}), owner->data(), 16, owner);
    ASSERT_TRUE(r.ok());
    view = *r;
    owner.reset();
  }
  EXPECT_FALSE(weak.expired());  // the view keeps it alive
  EXPECT_TRUE(view.is_read_only());
  EXPECT_FALSE(view.is_owning());
  EXPECT_EQ(view.mutable_raw_data(), nullptr);
  EXPECT_EQ(view.mutable_data<float>(), nullptr);
  EXPECT_EQ(view.data<float>()[3], 4.0f);
  view = Tensor();
  EXPECT_TRUE(weak.expired());
}

TEST(Tensor, BorrowChecks) {
  alignas(8) unsigned char buf[64] = {};
  EXPECT_TRUE(Tensor::BorrowMutable(DataType::kDouble, S({8}), buf, 64).ok());
  auto small = Tensor::Borrow(DataType::kDouble, S({9}), buf, 64);
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.status().message().find("needs 72 bytes, buffer has 64"), std::string::npos);
  auto misaligned = Tensor::Borrow(DataType::kDouble, S({2}), buf + 4, 60);
  ASSERT_FALSE(misaligned.ok());
  EXPECT_NE(misaligned.status().message().find("not aligned to 8"), std::string::npos);
  EXPECT_TRUE(Tensor::Borrow(DataType::kUint8, S({2}), buf + 3, 2).ok());
  EXPECT_FALSE(Tensor::Borrow(DataType::kFloat, S({1}), nullptr, 4).ok());
  EXPECT_TRUE(Tensor::Borrow(DataType::kFloat, S({0}), nullptr, 0).ok());
  // An empty tensor never reads through its pointer, so any pointer is accepted.
  EXPECT_TRUE(Tensor::Borrow(DataType::kDouble, S({0, 3}), buf + 1, 0).ok());
  EXPECT_FALSE(Tensor::Borrow(DataType::kUndefined, S({1}), buf, 8).ok());
  auto w = Tensor::BorrowMutable(DataType::kUint8, S({4}), buf, 4);
  ASSERT_TRUE(w.ok());
  w->mutable_data<uint8_t>()[1] = 42;
  EXPECT_EQ(buf[1], 42);
}

}  // namespace
}  // namespace onnx_light
