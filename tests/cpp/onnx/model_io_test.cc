#include "onnx_light/onnx/model_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "onnx_light/platform/mapped_file.h"

namespace onnx_light::onnx {
namespace {

namespace fs = std::filesystem;

class ModelIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("onnx_light_io_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "model");
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string Write(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }

  // A model whose initializer "w" (and one inside a subgraph) point at external data.
  ModelProto ExternalModel(const std::string& location, const std::string& offset,
                           const std::string& length) {
    ModelProto model;
    model.ir_version = 8;
    GraphProto* g = model.graph.mutable_get();
    auto make = [&](TensorProto* t, const std::string& name) {
      t->name = name;
      t->data_type = 1;
      t->dims = {2};
      t->data_location = static_cast<int32_t>(DataLocation::kExternal);
      auto add = [&](const char* k, const std::string& v) {
        if (v.empty()) return;
        StringStringEntryProto* e = t->external_data.Add();
        e->key = std::string(k);
        e->value = v;
      };
      add("location", location);
      add("offset", offset);
      add("length", length);
    };
    make(g->initializer.Add(), "w");
    AttributeProto* a = g->node.Add()->attribute.Add();
    make(a->g.mutable_get()->initializer.Add(), "inner");
    return model;
  }

  Status LoadWith(const ModelProto& model) {
    const std::string path = (root_ / "model" / "m.onnx").string();
    EXPECT_TRUE(SaveModel(model, path).ok());
    return LoadModel(path).status();
  }

  fs::path root_;
};

TEST_F(ModelIoTest, SaveLoadRoundTripIsZeroCopy) {
  ModelProto model;
  model.ir_version = 8;
  TensorProto* t = model.graph.mutable_get()->initializer.Add();
  t->name = std::string("w");
  t->data_type = 1;
  t->dims = {4};
  const float values[4] = {1, 2, 3, 4};
  t->raw_data = Bytes(std::string(reinterpret_cast<const char*>(values), sizeof(values)));
  const std::string path = (root_ / "m.onnx").string();
  ASSERT_TRUE(SaveModel(model, path).ok());

  auto loaded = LoadModel(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(*loaded, model);
  const Bytes& raw = loaded->graph->initializer[0].raw_data.get();
  ASSERT_NE(raw.owner(), nullptr);
  // The payload views the mapping, which outlives the file's name.
  fs::remove(path);
  EXPECT_EQ(std::memcmp(raw.data(), values, sizeof(values)), 0);

  ASSERT_TRUE(SaveModel(model, path).ok());
  LoadOptions copy;
  copy.map_file = false;
  auto copied = LoadModel(path, copy);
  ASSERT_TRUE(copied.ok());
  EXPECT_EQ(*copied, model);
}

// Pages of a mapped file can be dropped after their bytes were copied: reading them again
// gives the file's bytes. Bytes that are not in a mapping (the heap) are left alone.
TEST_F(ModelIoTest, ReleasedMappedPagesReadBackFromTheFile) {
  std::string bytes(1 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(i * 7 + 3);
  const std::string path = Write(root_ / "blob.bin", bytes);
  auto file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok());
  const char* data = static_cast<const char*>((*file)->data());
  ASSERT_EQ(std::memcmp(data, bytes.data(), bytes.size()), 0);  // every page touched
  // The process's resident pages (statm's second field) drop by the pages wholly inside
  // the released range.
  auto resident = [] {
    std::ifstream statm("/proc/self/statm");
    long size = 0, pages = 0;
    statm >> size >> pages;
    return pages;
  };
  const long before = resident();
  ReleaseMappedPages(data + 4097, 900000);  // an unaligned range: 218 whole pages of 4 KiB
  ReleaseMappedPages(data, 0);
  const long after = resident();
  EXPECT_GE(before - after, 200);
  EXPECT_EQ(std::memcmp(data, bytes.data(), bytes.size()), 0);  // read again from the file
  std::string heap = bytes;
  ReleaseMappedPages(heap.data(), heap.size());  // not a mapping: untouched
  EXPECT_EQ(heap, bytes);
}

TEST_F(ModelIoTest, MissingAndInvalidFiles) {
  auto missing = LoadModel((root_ / "nope.onnx").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  auto dir = LoadModel(root_.string());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("not a regular file"), std::string::npos);
  const std::string garbage = Write(root_ / "bad.onnx", std::string("\x3a\xff\xff\x01", 4));
  auto bad = LoadModel(garbage);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(bad.status().message().find("bad.onnx: ModelProto.graph: length 32767 at byte 1"),
            std::string::npos)
      << bad.status().message();
  const std::string empty = Write(root_ / "empty.onnx", "");
  EXPECT_TRUE(LoadModel(empty).ok());  // an empty message is a valid ModelProto
  EXPECT_FALSE(SaveModel(ModelProto(), (root_ / "no" / "dir" / "m.onnx").string()).ok());
}

TEST_F(ModelIoTest, ExternalDataIsMappedAndChecked) {
  const float data[6] = {9, 9, 1.5f, -2.5f, 7, 7};
  Write(root_ / "model" / "w.bin", std::string(reinterpret_cast<const char*>(data), sizeof(data)));
  const std::string path = (root_ / "model" / "m.onnx").string();
  ASSERT_TRUE(SaveModel(ExternalModel("w.bin", "8", "8"), path).ok());
  auto loaded = LoadModel(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  int resolved = 0;
  ForEachTensor(&*loaded, [&](TensorProto& t) {
    ++resolved;
    EXPECT_EQ(t.data_location.get(), 0);
    EXPECT_TRUE(t.data_location.has());
    EXPECT_TRUE(t.external_data.empty());
    ASSERT_EQ(t.raw_data->size(), 8u);
    float got[2];
    std::memcpy(got, t.raw_data->data(), 8);
    EXPECT_EQ(got[0], 1.5f);
    EXPECT_EQ(got[1], -2.5f);
  });
  EXPECT_EQ(resolved, 2);  // the subgraph's tensor too

  LoadOptions lazy;
  lazy.load_external_data = false;
  auto unresolved = LoadModel(path, lazy);
  ASSERT_TRUE(unresolved.ok());
  EXPECT_EQ(unresolved->graph->initializer[0].external_data.size(), 3u);

  // Without offset/length: the whole file.
  ASSERT_TRUE(SaveModel(ExternalModel("w.bin", "", ""), path).ok());
  auto whole = LoadModel(path);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->graph->initializer[0].raw_data->size(), sizeof(data));
}

TEST_F(ModelIoTest, ExternalDataRefusals) {
  Write(root_ / "model" / "w.bin", std::string(16, 'x'));
  Write(root_ / "outside.bin", std::string(16, 'x'));
  fs::create_symlink(root_ / "outside.bin", root_ / "model" / "link.bin");
  fs::create_directories(root_ / "model" / "sub");
  Write(root_ / "model" / "sub" / "ok.bin", std::string(16, 'y'));

  struct Case {
    std::string location, offset, length, expect;
    StatusCode code;
  };
  const Case cases[] = {
      {"/etc/passwd", "", "", "is absolute", StatusCode::kInvalidModel},
      {"../outside.bin", "", "", "escapes the model's folder", StatusCode::kInvalidModel},
      {"sub/../../outside.bin", "", "", "escapes the model's folder", StatusCode::kInvalidModel},
      {"link.bin", "", "", "outside the model's folder", StatusCode::kInvalidModel},
      {"missing.bin", "", "", "cannot resolve", StatusCode::kNotFound},
      {"w.bin", "17", "", "offset 17 is past the end", StatusCode::kInvalidModel},
      {"w.bin", "8", "9", "is past the end", StatusCode::kInvalidModel},
      {"w.bin", "1x", "", "is not a nonnegative integer", StatusCode::kInvalidModel},
      {"w.bin", "-1", "", "is not a nonnegative integer", StatusCode::kInvalidModel},
      {"w.bin", "99999999999999999999", "", "overflows", StatusCode::kInvalidModel},
      {"w.bin", "0", "18446744073709551615", "is past the end", StatusCode::kInvalidModel},
      {"", "0", "4", "has no location", StatusCode::kInvalidModel},
      {std::string("w.bin\0x", 7), "", "", "NUL byte", StatusCode::kInvalidModel},
      {"sub", "", "", "not a regular file", StatusCode::kInvalidArgument},
  };
  for (const Case& c : cases) {
    Status s = LoadWith(ExternalModel(c.location, c.offset, c.length));
    ASSERT_FALSE(s.ok()) << c.location;
    EXPECT_EQ(s.code(), c.code) << c.location << ": " << s.ToString();
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << c.location << ": " << s.message();
    EXPECT_NE(s.message().find("tensor 'w'"), std::string::npos) << s.message();
  }
  // Legal: a file in a subfolder, and "./" prefixes.
  EXPECT_TRUE(LoadWith(ExternalModel("sub/ok.bin", "4", "8")).ok());
  EXPECT_TRUE(LoadWith(ExternalModel("./w.bin", "", "")).ok());
}

TEST_F(ModelIoTest, MessagesOtherThanModels) {
  TensorProto t;
  t.dims = {3};
  t.data_type = 7;
  t.int64_data = {1, -2, 3};
  const std::string path = (root_ / "t.pb").string();
  ASSERT_TRUE(SaveMessage(TensorProto::descriptor(), &t, path).ok());
  auto back = LoadMessage<TensorProto>(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, t);
}

}  // namespace
}  // namespace onnx_light::onnx
