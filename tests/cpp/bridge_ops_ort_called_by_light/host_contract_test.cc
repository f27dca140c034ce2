// What host.h states beyond registration: threads (concurrent runs on one session are
// serialized, the last error is per thread, outputs outlive their session), a plugin that
// writes into its input, outputs the plugin asks for beyond the limits, and the OrtApi
// table (every slot outside the audited subset is null).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "host_test_util.h"
#include "onnx_light_ort/bridge_ops_ort_called_by_light/host.h"
#include "onnxruntime_c_api.h"

namespace {

using bridge_test::BuildModel;
using bridge_test::Bytes;
using bridge_test::Create;
using bridge_test::kExample;
using bridge_test::ModelSpec;
using bridge_test::RunFloat;
using bridge_test::Session;
using bridge_test::TestPlugin;

ModelSpec PluginOp(const std::string& op) {
  ModelSpec spec;
  spec.domain = "test.plugin";
  spec.op = op;
  spec.alpha = false;
  return spec;
}

TEST(HostThreads, ConcurrentRunsOnOneSessionAreSerialized) {
  // Counter: y = x + the number of earlier calls on its (one) kernel. The kernel's counter
  // is a plain int64: if two computes overlapped, call numbers would repeat or go missing.
  Session s;
  Create(&s, TestPlugin("good"), Bytes(BuildModel(PluginOp("Counter"))));
  ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
  constexpr int kThreads = 8, kRuns = 200;
  std::vector<std::vector<float>> seen(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        // Different shapes per thread: [t + 1] elements, all zero.
        const std::vector<float> x(static_cast<size_t>(t) + 1, 0.0f);
        int32_t rc = 0;
        const std::vector<float> y = RunFloat(s.s, x, {static_cast<int64_t>(x.size())}, &rc);
        if (rc != LIGHT_ORT_OK || y.size() != x.size()) {
          ++failures;
          continue;
        }
        for (float v : y) {
          if (v != y[0]) ++failures;  // one call number per run
        }
        seen[static_cast<size_t>(t)].push_back(y[0]);
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  std::set<float> calls;
  for (const auto& v : seen)
    calls.insert(v.begin(), v.end());
  EXPECT_EQ(calls.size(), static_cast<size_t>(kThreads * kRuns));
  EXPECT_EQ(*calls.begin(), 0.0f);
  EXPECT_EQ(*calls.rbegin(), static_cast<float>(kThreads * kRuns - 1));
}

TEST(HostThreads, DifferentSessionsRunInParallelThreads) {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Session s;
      Create(&s, kExample, Bytes(BuildModel({})));
      if (s.code != LIGHT_ORT_OK) {
        ++failures;
        return;
      }
      for (int r = 0; r < 100; ++r) {
        const float v = -static_cast<float>(t * 100 + r);
        if (RunFloat(s.s, {v, 1}, {2}) != std::vector<float>{v * 0.5f, 1}) ++failures;
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(HostThreads, LastErrorIsPerThread) {
  Session s;
  Create(&s, kExample, Bytes(BuildModel({})));
  ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
  int32_t rc = 0;
  RunFloat(s.s, {1, 2, 3}, {2}, &rc);  // 3 elements for a shape of 2: fails here
  ASSERT_EQ(rc, LIGHT_ORT_INVALID_ARGUMENT);
  const std::string mine = LightOrtLastErrorMessage();
  EXPECT_NE(mine.find("element count 3 does not match shape [2]"), std::string::npos) << mine;
  std::string other_before, other_after_fail, other_after_ok;
  std::thread([&] {
    other_before = LightOrtLastErrorMessage();
    LightOrtTensor out;
    const float x = 1;
    LightOrtRun(s.s, &x, 1, nullptr, 17, &out);  // rank 17: fails on that thread
    other_after_fail = LightOrtLastErrorMessage();
    RunFloat(s.s, {1}, {1});
    other_after_ok = LightOrtLastErrorMessage();
  }).join();
  EXPECT_EQ(other_before, "");
  EXPECT_NE(other_after_fail.find("rank 17 exceeds the limit of 16"), std::string::npos);
  EXPECT_EQ(other_after_ok, "");  // a success clears the calling thread's message
  EXPECT_EQ(std::string(LightOrtLastErrorMessage()), mine);  // untouched by the other thread
}

TEST(HostThreads, OutputsOutliveTheirSessionAndAnyThreadReleasesThem) {
  LightOrtTensor out;
  {
    Session s;
    Create(&s, kExample, Bytes(BuildModel({})));
    ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
    std::vector<float> x(1 << 16, -2.0f);  // large enough to come from the buffer pool
    const int64_t shape = static_cast<int64_t>(x.size());
    ASSERT_EQ(LightOrtRun(s.s, x.data(), x.size(), &shape, 1, &out), LIGHT_ORT_OK);
  }  // the session (and the plugin) are gone; the output is the caller's
  std::thread([&] {
    const auto* y = static_cast<const float*>(out.data);
    EXPECT_EQ(out.element_count, 1u << 16);
    EXPECT_EQ(y[0], -1.0f);
    EXPECT_EQ(y[out.element_count - 1], -1.0f);
    LightOrtTensorRelease(&out);
  }).join();
  EXPECT_EQ(out.data, nullptr);
}

TEST(HostInputs, APluginThatWritesItsInputWritesTheCallersBuffer) {
  // Documented in host.h: the C ABI passes the buffer through; CustomOpSession copies.
  Session s;
  Create(&s, TestPlugin("good"), Bytes(BuildModel(PluginOp("WritesInput"))));
  ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
  std::vector<float> x = {1, -2, 3};
  LightOrtTensor out;
  const int64_t shape = 3;
  ASSERT_EQ(LightOrtRun(s.s, x.data(), x.size(), &shape, 1, &out), LIGHT_ORT_OK);
  const auto* y = static_cast<const float*>(out.data);
  EXPECT_EQ(std::vector<float>(y, y + 3), (std::vector<float>{1, -2, 3}));
  EXPECT_EQ(x, (std::vector<float>{-1, 2, -3}));
  LightOrtTensorRelease(&out);
}

struct BadOutput {
  int64_t which;
  const char* message;
};
void PrintTo(const BadOutput& b, std::ostream* os) {
  *os << "case " << b.which;
}

class HostOutputLimits : public ::testing::TestWithParam<BadOutput> {};

TEST_P(HostOutputLimits, AreRefusedAndTheSessionStaysUsable) {
  ModelSpec spec = PluginOp("BadOutput");
  spec.int_attr = "case";
  spec.int_value = GetParam().which;
  Session s;
  Create(&s, TestPlugin("good"), Bytes(BuildModel(spec)));
  ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
  for (int again = 0; again < 2; ++again) {
    int32_t rc = 0;
    RunFloat(s.s, {1}, {1}, &rc);
    EXPECT_EQ(rc, LIGHT_ORT_INVALID_ARGUMENT);
    const std::string error = LightOrtLastErrorMessage();
    EXPECT_NE(error.find("node 'custom' (BadOutput, domain test.plugin): KernelComputeV2"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find(GetParam().message), std::string::npos) << error;
  }
  Session ok;  // the process is still fine: another session runs
  Create(&ok, kExample, Bytes(BuildModel({})));
  EXPECT_EQ(RunFloat(ok.s, {-2}, {1}), std::vector<float>{-1});
}

INSTANTIATE_TEST_SUITE_P(
    Host, HostOutputLimits,
    ::testing::Values(BadOutput{0, "negative dimension -3"},
                      BadOutput{1, "needs 67108868 bytes, over the limit of 67108864"},
                      BadOutput{2, "rank 17 exceeds the limit of 16"},
                      BadOutput{3, "output 0 was already made with shape [2]"}),
    [](const ::testing::TestParamInfo<BadOutput>& p) {
      return std::string(p.param.which == 0   ? "NegativeDimension"
                         : p.param.which == 1 ? "Over64MiB"
                         : p.param.which == 2 ? "Rank17"
                                              : "OutputTwiceWithAnotherShape");
    });

// The audited subset of API 18 (docs/custom_ops_ort_called_by_light.md): every other slot
// of the table the host hands to plugins must be null.
TEST(HostApiTable, EverySlotOutsideTheAuditedSubsetIsNull) {
  Session s;
  const std::string plugin = TestPlugin("good");
  Create(&s, plugin, Bytes(BuildModel(PluginOp("Double"))));
  ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
  // The host loaded the plugin; this handle is the same library, still loaded.
  void* lib = ::dlopen(plugin.c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr) << ::dlerror();
  using ApiFn = const OrtApi* (*)();
  auto get = reinterpret_cast<ApiFn>(::dlsym(lib, "TestPluginApi"));
  ASSERT_NE(get, nullptr);
  const OrtApi* api = get();
  ASSERT_NE(api, nullptr);
#define SLOT(name) offsetof(OrtApi, name) / sizeof(void*)
  const std::set<size_t> audited = {
      SLOT(CreateStatus),
      SLOT(GetErrorCode),
      SLOT(GetErrorMessage),
      SLOT(CreateCustomOpDomain),
      SLOT(CustomOpDomain_Add),
      SLOT(AddCustomOpDomain),
      SLOT(GetTensorMutableData),
      SLOT(GetTensorElementType),
      SLOT(GetDimensionsCount),
      SLOT(GetDimensions),
      SLOT(GetTensorShapeElementCount),
      SLOT(GetTensorTypeAndShape),
      SLOT(KernelInfoGetAttribute_float),
      SLOT(KernelInfoGetAttribute_int64),
      SLOT(KernelInfoGetAttribute_string),
      SLOT(KernelContext_GetInputCount),
      SLOT(KernelContext_GetOutputCount),
      SLOT(KernelContext_GetInput),
      SLOT(KernelContext_GetOutput),
      SLOT(ReleaseStatus),
      SLOT(ReleaseTensorTypeAndShapeInfo),
      SLOT(ReleaseCustomOpDomain),
  };
#undef SLOT
  ASSERT_EQ(audited.size(), 22u);
  void* const* slots = reinterpret_cast<void* const*>(api);
  const size_t count = sizeof(OrtApi) / sizeof(void*);
  size_t set = 0;
  for (size_t i = 0; i < count; ++i) {
    if (audited.count(i)) {
      EXPECT_NE(slots[i], nullptr) << "audited slot " << i;
    } else {
      EXPECT_EQ(slots[i], nullptr) << "slot " << i << " is outside the audited subset";
    }
    set += slots[i] != nullptr;
  }
  EXPECT_EQ(set, audited.size());
  EXPECT_GT(count, 250u);  // the whole API-18+ table was checked, not a prefix
  ::dlclose(lib);
}

}  // namespace
