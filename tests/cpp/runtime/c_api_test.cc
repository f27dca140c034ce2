// The runtime's C ABI (libonnx_light.so) on the bundled model, and its errors.
#include "onnx_light/c_api.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace {

const std::string kModel = std::string(ONNX_LIGHT_SOURCE_DIR) + "/models/default.onnx";

TEST(CApi, RunsTheBundledModel) {
  OnnxLightSession* s = nullptr;
  ASSERT_EQ(OnnxLightSessionCreateFromFile(kModel.c_str(), &s), 0) << OnnxLightLastErrorMessage();
  ASSERT_EQ(OnnxLightSessionOutputCount(s), 1u);
  float x[8] = {-1, 0, 0.5f, 2, -3, 4, -0.25f, 1};
  const int64_t shape[2] = {2, 4};
  OnnxLightTensor in{"x", x, 1, 8, 2, shape, nullptr};
  OnnxLightTensor out{};
  ASSERT_EQ(OnnxLightRun(s, &in, 1, &out), 0) << OnnxLightLastErrorMessage();
  EXPECT_STREQ(out.name, "y");
  EXPECT_EQ(out.element_type, 1);
  ASSERT_EQ(out.element_count, 8u);
  ASSERT_EQ(out.rank, 2u);
  EXPECT_EQ(out.shape[0], 2);
  for (int i = 0; i < 8; ++i) {
    const float h = x[i] < 0 ? 0.2f * x[i] : x[i];
    EXPECT_NEAR(static_cast<float*>(out.data)[i], std::log(1 + h * h), 1e-6f);
  }
  OnnxLightTensorRelease(&out);
  OnnxLightTensorRelease(&out);  // harmless twice
  OnnxLightSessionRelease(s);
}

TEST(CApi, Errors) {
  OnnxLightSession* s = nullptr;
  EXPECT_EQ(OnnxLightSessionCreateFromFile("/nonexistent.onnx", &s), 4);  // NOT_FOUND
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(std::string(OnnxLightLastErrorMessage()).find("nonexistent"), std::string::npos);
  EXPECT_EQ(OnnxLightSessionCreate("\x3a\xff", 2, &s), 6);  // INVALID_MODEL
  EXPECT_EQ(OnnxLightSessionCreate(nullptr, 4, &s), 1);
  EXPECT_EQ(OnnxLightSessionCreateFromFile(kModel.c_str(), nullptr), 1);
  ASSERT_EQ(OnnxLightSessionCreateFromFile(kModel.c_str(), &s), 0);
  float x[4] = {1, 2, 3, 4};
  const int64_t shape[2] = {1, 4};
  OnnxLightTensor out{};
  OnnxLightTensor wrong_name{"z", x, 1, 4, 2, shape, nullptr};
  EXPECT_EQ(OnnxLightRun(s, &wrong_name, 1, &out), 1);
  EXPECT_NE(std::string(OnnxLightLastErrorMessage()).find("unknown input 'z'"), std::string::npos);
  const int64_t half[2] = {1, 2};  // 2 doubles: the 16 bytes of x
  OnnxLightTensor wrong_type{"x", x, 11, 2, 2, half, nullptr};
  EXPECT_EQ(OnnxLightRun(s, &wrong_type, 1, &out), 2);  // TYPE_MISMATCH
  OnnxLightTensor unnamed{nullptr, x, 1, 4, 2, shape, nullptr};
  EXPECT_EQ(OnnxLightRun(s, &unnamed, 1, &out), 1);
  OnnxLightTensor bad_type{"x", x, 99, 4, 2, shape, nullptr};
  EXPECT_EQ(OnnxLightRun(s, &bad_type, 1, &out), 1);
  EXPECT_EQ(OnnxLightRun(s, nullptr, 1, &out), 1);
  EXPECT_EQ(OnnxLightRun(nullptr, &unnamed, 1, &out), 1);
  OnnxLightTensor good{"x", x, 1, 4, 2, shape, nullptr};
  ASSERT_EQ(OnnxLightRun(s, &good, 1, &out), 0);  // still usable after the errors
  OnnxLightTensorRelease(&out);
  OnnxLightSessionRelease(s);
  OnnxLightSessionRelease(nullptr);
}

// An input whose description disagrees with its buffer is refused before anything reads
// the buffer (the C ABI fuzzer's first finding: element_count was not checked, so a shape
// larger than the buffer was read past its end).
TEST(CApi, RefusesInputsThatDisagreeWithTheirBuffer) {
  OnnxLightSession* s = nullptr;
  ASSERT_EQ(OnnxLightSessionCreateFromFile(kModel.c_str(), &s), 0);
  alignas(8) float x[5] = {1, 2, 3, 4, 5};
  const int64_t shape[2] = {1, 4};
  OnnxLightTensor out{};
  auto run = [&](OnnxLightTensor in) {
    const int32_t rc = OnnxLightRun(s, &in, 1, &out);
    return std::make_pair(rc, std::string(OnnxLightLastErrorMessage()));
  };
  auto [rc, msg] = run({"x", x, 1, 3, 2, shape, nullptr});  // 3 elements, shape says 4
  EXPECT_EQ(rc, 1);
  EXPECT_NE(msg.find("input 'x': element_count 3 does not match shape [1, 4] (4 elements)"),
            std::string::npos)
      << msg;
  std::tie(rc, msg) = run({"x", x, 1, 5, 2, shape, nullptr});  // more than the shape
  EXPECT_EQ(rc, 1);
  std::tie(rc, msg) = run({"x", x, 1, 4, 2, nullptr, nullptr});  // rank 2, no dims
  EXPECT_EQ(rc, 1);
  EXPECT_NE(msg.find("null dimensions"), std::string::npos) << msg;
  std::tie(rc, msg) = run({"x", nullptr, 1, 4, 2, shape, nullptr});
  EXPECT_EQ(rc, 1);
  EXPECT_NE(msg.find("null data pointer"), std::string::npos) << msg;
  std::tie(rc, msg) = run({"x", reinterpret_cast<char*>(x) + 1, 1, 4, 2, shape, nullptr});
  EXPECT_EQ(rc, 1);
  EXPECT_NE(msg.find("not aligned"), std::string::npos) << msg;
  const int64_t huge[2] = {INT64_MAX, 2};
  std::tie(rc, msg) = run({"x", x, 1, 4, 2, huge, nullptr});
  EXPECT_NE(rc, 0);
  std::tie(rc, msg) = run({"x", x, 8, 4, 2, shape, nullptr});  // STRING: never raw memory
  EXPECT_EQ(rc, 5);
  EXPECT_NE(msg.find("string tensors do not pass through the C ABI"), std::string::npos) << msg;
  std::tie(rc, msg) = run({"x", x, 1, 4, 2, shape, nullptr});
  ASSERT_EQ(rc, 0) << msg;  // still usable
  OnnxLightTensorRelease(&out);
  OnnxLightSessionRelease(s);
}

TEST(CApi, SeveralThreadsRunOneSession) {
  OnnxLightSession* s = nullptr;
  ASSERT_EQ(OnnxLightSessionCreateFromFile(kModel.c_str(), &s), 0) << OnnxLightLastErrorMessage();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 200; ++r) {
        const int64_t rows = 1 + (t + r) % 5;  // a different shape per run
        std::vector<float> x(static_cast<size_t>(rows * 4));
        for (size_t i = 0; i < x.size(); ++i)
          x[i] = static_cast<float>(t) - static_cast<float>(i) * 0.5f;
        const int64_t shape[2] = {rows, 4};
        OnnxLightTensor in{"x", x.data(), 1, x.size(), 2, shape, nullptr};
        OnnxLightTensor out{};
        if (OnnxLightRun(s, &in, 1, &out) != 0 || out.element_count != x.size()) {
          ++wrong;
          continue;
        }
        for (size_t i = 0; i < x.size(); ++i) {
          const float h = x[i] < 0 ? 0.2f * x[i] : x[i];
          if (std::fabs(static_cast<float*>(out.data)[i] - std::log(1 + h * h)) > 1e-6f) ++wrong;
        }
        OnnxLightTensorRelease(&out);
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
  OnnxLightSessionRelease(s);
}

}  // namespace

TEST(CApi, RunOptions) {
  OnnxLightSession* s = nullptr;
  ASSERT_EQ(OnnxLightSessionCreateFromFile(kModel.c_str(), &s), 0) << OnnxLightLastErrorMessage();
  OnnxLightRunOptions* options = nullptr;
  EXPECT_EQ(OnnxLightRunOptionsCreate(nullptr), 1);
  ASSERT_EQ(OnnxLightRunOptionsCreate(&options), 0);
  float x[4] = {1, 2, 3, 4};
  const int64_t shape[2] = {1, 4};
  OnnxLightTensor in{"x", x, 1, 4, 2, shape, nullptr};
  OnnxLightTensor out{};
  // A generous timeout and no termination: the run goes through.
  OnnxLightRunOptionsSetTimeoutMs(options, UINT64_MAX);
  ASSERT_EQ(OnnxLightRunWithOptions(s, &in, 1, &out, options), 0) << OnnxLightLastErrorMessage();
  OnnxLightTensorRelease(&out);
  ASSERT_EQ(OnnxLightRunWithOptions(s, &in, 1, &out, nullptr), 0);  // null: no options
  OnnxLightTensorRelease(&out);
  // Terminated before the run: it stops at its first node, CANCELLED.
  OnnxLightRunOptionsTerminate(options);
  EXPECT_EQ(OnnxLightRunWithOptions(s, &in, 1, &out, options), 11);
  EXPECT_NE(std::string(OnnxLightLastErrorMessage()).find("cancelled"), std::string::npos);
  ASSERT_EQ(OnnxLightRun(s, &in, 1, &out), 0);  // the session is still usable
  OnnxLightTensorRelease(&out);
  OnnxLightRunOptionsTerminate(nullptr);  // null is ignored
  OnnxLightRunOptionsSetTimeoutMs(nullptr, 5);
  OnnxLightRunOptionsRelease(options);
  OnnxLightRunOptionsRelease(nullptr);
  OnnxLightSessionRelease(s);
}
