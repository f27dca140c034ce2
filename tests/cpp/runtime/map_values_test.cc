// Map and sequence-of-map values through the C++ API (RunValues): a map fed to
// DictVectorizer, a sequence of maps out of ZipMap, and the feed checks a map gets.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "onnx_light/runtime/session.h"
#include "test_models.h"

namespace onnx_light {
namespace {

using testing::Model;
using testing::Node;
using testing::TensorInfo;

constexpr int32_t kFloat = 1, kString = 8, kInt64 = 7;

// map(key, tensor(value)), or seq(map(...)).
onnx::ValueInfoProto MapInfo(const std::string& name, int32_t key, int32_t value, bool seq) {
  onnx::ValueInfoProto vi;
  vi.name = name;
  onnx::TypeProto map;
  map.map_type.mutable_get()->key_type = key;
  map.map_type.mutable_get()->value_type.mutable_get()->tensor_type.mutable_get()->elem_type =
      value;
  if (seq) {
    *vi.type.mutable_get()->sequence_type.mutable_get()->elem_type.mutable_get() = map;
  } else {
    *vi.type.mutable_get() = map;
  }
  return vi;
}

// m: map(string, float) -> DictVectorizer(a, b, c) -> y [1, 3] -> ZipMap(10, 20, 30) -> z.
std::unique_ptr<RuntimeSession> VectorizeThenZip() {
  onnx::NodeProto dv = Node("DictVectorizer", {"m"}, {"y"}, "ai.onnx.ml");
  onnx::AttributeProto* vocab = dv.attribute.Add();
  vocab->name = std::string("string_vocabulary");
  vocab->strings = {"a", "b", "c"};
  vocab->type = static_cast<int32_t>(onnx::AttributeType::kStrings);
  onnx::NodeProto zm = Node("ZipMap", {"y"}, {"z"}, "ai.onnx.ml");
  onnx::AttributeProto* labels = zm.attribute.Add();
  labels->name = std::string("classlabels_int64s");
  labels->ints = {10, 20, 30};
  labels->type = static_cast<int32_t>(onnx::AttributeType::kInts);
  auto s = RuntimeSession::Create(
      Model({dv, zm}, {MapInfo("m", kString, kFloat, false)},
            {TensorInfo("y", kFloat, {}, false), MapInfo("z", kInt64, kFloat, true)},
            {{"", 17}, {"ai.onnx.ml", 3}}));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

template <typename T>
Tensor Vector1D(DataType type, std::vector<T> values) {
  Tensor t = *Tensor::Allocate(type, *Shape::Create({static_cast<int64_t>(values.size())}));
  std::copy(values.begin(), values.end(), t.mutable_data<T>());
  return t;
}

Value MapValue(Tensor keys, Tensor values) {
  Value v;
  v.map = std::make_shared<const TensorMap>(TensorMap{std::move(keys), std::move(values)});
  return v;
}

TEST(MapValues, MetaDescribesMapsAndMapSequences) {
  auto s = VectorizeThenZip();
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->inputs()[0].is_map());
  EXPECT_EQ(s->inputs()[0].key_type, DataType::kString);
  EXPECT_EQ(s->inputs()[0].type, DataType::kFloat);
  EXPECT_TRUE(s->outputs()[1].is_map_sequence());
  EXPECT_EQ(s->outputs()[1].key_type, DataType::kInt64);
}

TEST(MapValues, AMapInAndASequenceOfMapsOut) {
  auto s = VectorizeThenZip();
  ASSERT_NE(s, nullptr);
  Value m = MapValue(Vector1D<std::string>(DataType::kString, {"c", "a", "zz"}),
                     Vector1D<float>(DataType::kFloat, {3.5f, 1.5f, 9.0f}));
  auto r = s->RunValues({{"m", m}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Tensor& y = (*r)[0].tensor;
  EXPECT_EQ(y.shape().dims(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + 3),
            (std::vector<float>{1.5f, 0.0f, 3.5f}));
  ASSERT_TRUE((*r)[1].is_map_sequence());
  const MapSequence& z = *(*r)[1].maps;
  ASSERT_EQ(z.size(), 1u);
  EXPECT_EQ(std::vector<int64_t>(z[0].keys.data<int64_t>(), z[0].keys.data<int64_t>() + 3),
            (std::vector<int64_t>{10, 20, 30}));
  EXPECT_EQ(std::vector<float>(z[0].values.data<float>(), z[0].values.data<float>() + 3),
            (std::vector<float>{1.5f, 0.0f, 3.5f}));
}

TEST(MapValues, OutputsCanBeChosen) {
  // Only the tensor output asked for: a tensor back, the ZipMap node not needed.
  auto s = VectorizeThenZip();
  ASSERT_NE(s, nullptr);
  Value m = MapValue(Vector1D<std::string>(DataType::kString, {"a"}),
                     Vector1D<float>(DataType::kFloat, {1.0f}));
  auto only_y = s->RunValues({{"m", m}}, {"y"});
  ASSERT_TRUE(only_y.ok()) << only_y.status().ToString();
  EXPECT_FALSE((*only_y)[0].is_container());
  auto only_z = s->RunValues({{"m", m}}, {"z"});
  ASSERT_TRUE(only_z.ok()) << only_z.status().ToString();
  EXPECT_TRUE((*only_z)[0].is_map_sequence());
}

TEST(MapValues, TheTensorOnlyRunNamesRunValues) {
  onnx::NodeProto zm = Node("ZipMap", {"x"}, {"z"}, "ai.onnx.ml");
  onnx::AttributeProto* labels = zm.attribute.Add();
  labels->name = std::string("classlabels_strings");
  labels->strings = {"no", "yes"};
  labels->type = static_cast<int32_t>(onnx::AttributeType::kStrings);
  auto s = RuntimeSession::Create(Model({zm}, {TensorInfo("x", kFloat, {-1, 2})},
                                        {MapInfo("z", kString, kFloat, true)},
                                        {{"", 17}, {"ai.onnx.ml", 1}}));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Tensor x = *Tensor::Allocate(DataType::kFloat, *Shape::Create({3, 2}));
  std::fill(x.mutable_data<float>(), x.mutable_data<float>() + 6, 0.5f);
  auto r = (*s)->Run({{"x", x}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "an output is a sequence of maps: use RunValues for this model");
  auto v = (*s)->RunValues({{"x", Value{x, nullptr}}});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ((*v)[0].maps->size(), 3u);
  EXPECT_EQ((*v)[0].maps->at(2).keys.data<std::string>()[1], "yes");
  EXPECT_EQ((*v)[0].maps->at(2).values.data<float>()[1], 0.5f);
}

TEST(MapValues, FeedChecks) {
  auto s = VectorizeThenZip();
  ASSERT_NE(s, nullptr);
  auto expect = [&](Value v, StatusCode code, const std::string& text) {
    auto r = s->RunValues({{"m", std::move(v)}});
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_EQ(r.status().message(), text);
  };
  expect(Value{Vector1D<float>(DataType::kFloat, {1.0f}), nullptr}, StatusCode::kTypeMismatch,
         "input 'm': expected a map, got a tensor");
  expect(MapValue(Vector1D<int64_t>(DataType::kInt64, {1}), Vector1D<float>(DataType::kFloat, {1})),
         StatusCode::kTypeMismatch, "input 'm': expected STRING map keys, got INT64");
  expect(MapValue(Vector1D<std::string>(DataType::kString, {"a"}),
                  Vector1D<double>(DataType::kDouble, {1})),
         StatusCode::kTypeMismatch, "input 'm': expected FLOAT map values, got DOUBLE");
  expect(MapValue(Vector1D<std::string>(DataType::kString, {"a", "b"}),
                  Vector1D<float>(DataType::kFloat, {1})),
         StatusCode::kInvalidArgument,
         "input 'm': a map's keys and values must be 1-D and of one length, got [2] and [1]");
  expect(MapValue(Vector1D<std::string>(DataType::kString, {"a", "a"}),
                  Vector1D<float>(DataType::kFloat, {1, 2})),
         StatusCode::kInvalidArgument, "input 'm': a map key appears more than once");
  expect(MapValue(Vector1D<float>(DataType::kFloat, {1}), Vector1D<float>(DataType::kFloat, {1})),
         StatusCode::kTypeMismatch, "input 'm': map keys must be int64 or string, got FLOAT");
  // Still usable.
  auto r = s->RunValues({{"m", MapValue(Vector1D<std::string>(DataType::kString, {"b"}),
                                        Vector1D<float>(DataType::kFloat, {2}))}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor.data<float>()[1], 2.0f);
}

}  // namespace
}  // namespace onnx_light
