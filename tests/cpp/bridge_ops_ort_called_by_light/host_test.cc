// Native tests of the bridge "ORT custom ops called by onnx-light": the independent example
// under the standalone host (scalars, empty tensors, API negotiation failure), one test
// plugin per registration rule, the model contract, the run-time checks, errors from the
// plugin, kernel lifetime and unload order. Models are built with onnx-light's model layer
// (a test helper; the consumer test checks the public contract without it).
#include "onnx_light_ort/bridge_ops_ort_called_by_light/host.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "host_test_util.h"
#include "onnx_light/onnx/onnx.h"

namespace {

using namespace bridge_test;  // NOLINT: test file, not a header

TEST(ExampleUnderHost, LeakyReluValuesShapesScalarsAndEmpty) {
  Session s;
  Create(&s, kExample, Bytes(BuildModel({})));
  ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
  EXPECT_EQ(LightOrtSessionElementType(s.s), 1);
  EXPECT_EQ(RunFloat(s.s, {-4, -0.5f, 0, 2}, {2, 2}), (std::vector<float>{-2, -0.25f, 0, 2}));
  EXPECT_EQ(RunFloat(s.s, {-8}, {}), std::vector<float>{-4});  // scalar
  EXPECT_EQ(RunFloat(s.s, {}, {0}), std::vector<float>{});     // empty
  EXPECT_EQ(RunFloat(s.s, {}, {3, 0, 2}), std::vector<float>{});
  std::vector<float> big(1000);
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<float>(i) - 500.0f;
  const std::vector<float> y = RunFloat(s.s, big, {10, 100});
  ASSERT_EQ(y.size(), big.size());
  for (size_t i = 0; i < big.size(); ++i)
    EXPECT_EQ(y[i], big[i] < 0 ? big[i] * 0.5f : big[i]);
}

TEST(ExampleUnderHost, MissingAlphaUsesTheOnnxDefault) {
  ModelSpec spec;
  spec.alpha = false;
  Session s;
  Create(&s, kExample, Bytes(BuildModel(spec)));
  ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
  EXPECT_EQ(RunFloat(s.s, {-100}, {1}), std::vector<float>{-1.0f});
}

TEST(ExampleUnderHost, ApiNegotiationFailure) {
  Session s;
  Create(&s, kLib + "/test_plugins/libort_custom_ops_api29.so", Bytes(BuildModel({})));
  EXPECT_EQ(s.code, LIGHT_ORT_NOT_IMPLEMENTED);
  EXPECT_EQ(s.error,
            "API negotiation failed: the plugin asked for OrtApi version 29; this host offers "
            "version 18 only");
  EXPECT_EQ(s.s, nullptr);
}

TEST(ExampleUnderHost, PluginPathErrors) {
  Session missing, dir, no_symbol, empty;
  const std::string model = Bytes(BuildModel({}));
  Create(&missing, kLib + "/nope.so", model);
  EXPECT_EQ(missing.code, LIGHT_ORT_NOT_FOUND) << missing.error;
  Create(&dir, kLib, model);
  EXPECT_NE(dir.error.find("not a regular file"), std::string::npos) << dir.error;
  Create(&no_symbol, kLib + "/libonnx_light_ort_bridge_ops_ort_called_by_light.so", model);
  EXPECT_EQ(no_symbol.code, LIGHT_ORT_NOT_FOUND);
  EXPECT_NE(no_symbol.error.find("does not export RegisterCustomOps"), std::string::npos);
  Create(&empty, "", model);
  EXPECT_EQ(empty.code, LIGHT_ORT_INVALID_ARGUMENT);
  EXPECT_EQ(LightOrtSessionCreate(nullptr, model.data(), model.size(), &empty.s),
            LIGHT_ORT_INVALID_ARGUMENT);
  EXPECT_EQ(LightOrtSessionCreate(kExample.c_str(), model.data(), model.size(), nullptr),
            LIGHT_ORT_INVALID_ARGUMENT);
}

struct Rule {
  const char* variant;
  int32_t code;
  const char* message;
};

class RegistrationRule : public ::testing::TestWithParam<Rule> {};

TEST_P(RegistrationRule, IsRefusedWithAClearMessage) {
  const Rule& r = GetParam();
  ModelSpec spec;
  spec.domain = "test.plugin";
  spec.op = "Double";
  Session s;
  Create(&s, TestPlugin(r.variant), Bytes(BuildModel(spec)));
  EXPECT_EQ(s.code, r.code) << s.error;
  EXPECT_NE(s.error.find(r.message), std::string::npos) << s.error;
  EXPECT_EQ(s.s, nullptr);
}

INSTANTIATE_TEST_SUITE_P(
    Host, RegistrationRule,
    ::testing::Values(
        Rule{"null_descriptor", LIGHT_ORT_INVALID_ARGUMENT, "missing custom-op descriptor"},
        Rule{"cuda", LIGHT_ORT_INVALID_ARGUMENT,
             "execution provider 'CUDAExecutionProvider' is not supported (CPU only)"},
        Rule{"int64", LIGHT_ORT_INVALID_ARGUMENT, "input type INT64 is not supported"},
        Rule{"mismatched_types", LIGHT_ORT_INVALID_ARGUMENT,
             "output type DOUBLE differs from input type FLOAT"},
        Rule{"undefined_type", LIGHT_ORT_INVALID_ARGUMENT,
             "generic UNDEFINED type descriptors are not supported"},
        Rule{"duplicate", LIGHT_ORT_INVALID_ARGUMENT,
             "duplicate registration of test.plugin::Double for type FLOAT"},
        Rule{"optional_input", LIGHT_ORT_INVALID_ARGUMENT,
             "optional or variadic arguments are not supported"},
        Rule{"variadic_input", LIGHT_ORT_INVALID_ARGUMENT,
             "optional or variadic arguments are not supported"},
        Rule{"alias_map", LIGHT_ORT_INVALID_ARGUMENT, "in-place and alias callbacks"},
        Rule{"may_inplace", LIGHT_ORT_INVALID_ARGUMENT, "in-place and alias callbacks"},
        Rule{"shape_inference", LIGHT_ORT_INVALID_ARGUMENT,
             "shape-inference callbacks are not supported"},
        Rule{"version_17", LIGHT_ORT_INVALID_ARGUMENT,
             "descriptor version 17 is not supported; this host accepts API-18 descriptors"},
        Rule{"no_create_v2", LIGHT_ORT_INVALID_ARGUMENT,
             "CreateKernelV2, KernelComputeV2 and KernelDestroy are required"},
        Rule{"two_inputs", LIGHT_ORT_INVALID_ARGUMENT,
             "has 2 inputs and 1 outputs; exactly one of each is supported"},
        Rule{"non_cpu_memory", LIGHT_ORT_INVALID_ARGUMENT,
             "input memory type other than the default"},
        Rule{"foreign_status", LIGHT_ORT_INTERNAL, "returned a status this host did not create"},
        Rule{"no_ops", LIGHT_ORT_INVALID_ARGUMENT, "registered no custom ops"},
        Rule{"bad_opset_range", LIGHT_ORT_INVALID_ARGUMENT, "invalid opset range 3..1"},
        Rule{"domain_twice", LIGHT_ORT_INVALID_ARGUMENT, "domain 'test.plugin' added twice"}),
    [](const ::testing::TestParamInfo<Rule>& p) { return std::string(p.param.variant); });

TEST(GoodPlugin, EveryTypeOverloadIsSelectedByTheModelType) {
  for (int32_t type : {10, 16, 1, 11}) {
    ModelSpec spec;
    spec.domain = "test.plugin";
    spec.op = "Double";
    spec.type = type;
    Session s;
    Create(&s, TestPlugin("good"), Bytes(BuildModel(spec)));
    ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
    LightOrtTensor out;
    const int64_t shape[1] = {3};
    int32_t rc;
    if (type == 1) {
      const float x[3] = {1, -2, 3};
      rc = LightOrtRunTyped(s.s, x, type, 3, shape, 1, &out);
      ASSERT_EQ(rc, LIGHT_ORT_OK) << LightOrtLastErrorMessage();
      EXPECT_EQ(static_cast<float*>(out.data)[1], -4.0f);
    } else if (type == 11) {
      const double x[3] = {1, -2, 3};
      rc = LightOrtRunTyped(s.s, x, type, 3, shape, 1, &out);
      ASSERT_EQ(rc, LIGHT_ORT_OK) << LightOrtLastErrorMessage();
      EXPECT_EQ(static_cast<double*>(out.data)[2], 6.0);
    } else {
      // 1, -2, 3 as float16 and as bfloat16 bits
      const uint16_t f16[3] = {0x3c00, 0xc000, 0x4200};
      const uint16_t bf16[3] = {0x3f80, 0xc000, 0x4040};
      rc = LightOrtRunTyped(s.s, type == 10 ? f16 : bf16, type, 3, shape, 1, &out);
      ASSERT_EQ(rc, LIGHT_ORT_OK) << LightOrtLastErrorMessage();
      const uint16_t want = type == 10 ? 0xc400 : 0xc080;  // -4
      EXPECT_EQ(static_cast<uint16_t*>(out.data)[1], want);
      // the float32 entry point refuses a model of another type
      LightOrtTensor unused;
      const float xf[3] = {1, 2, 3};
      EXPECT_EQ(LightOrtRun(s.s, xf, 3, shape, 1, &unused), LIGHT_ORT_TYPE_MISMATCH);
      EXPECT_NE(std::string(LightOrtLastErrorMessage()).find("LightOrtRun is float32 only"),
                std::string::npos);
    }
    EXPECT_EQ(out.element_type, type);
    LightOrtTensorRelease(&out);
  }
}

TEST(GoodPlugin, IncompatibleOpsetAndMissingOverload) {
  ModelSpec spec;
  spec.domain = "test.plugin";
  spec.op = "Double";
  spec.opset = 2;  // the plugin's ops cover opset 1 only
  Session s;
  Create(&s, TestPlugin("good"), Bytes(BuildModel(spec)));
  EXPECT_EQ(s.code, LIGHT_ORT_NOT_IMPLEMENTED);
  EXPECT_NE(s.error.find("opset 2"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("Supported:\n  opset 1; T: FLOAT16"), std::string::npos) << s.error;
  ModelSpec counter;
  counter.domain = "test.plugin";
  counter.op = "Counter";
  counter.type = 11;  // Counter is float32-only
  Session t;
  Create(&t, TestPlugin("good"), Bytes(BuildModel(counter)));
  EXPECT_EQ(t.code, LIGHT_ORT_NOT_IMPLEMENTED);
  EXPECT_NE(t.error.find("input types (DOUBLE)"), std::string::npos) << t.error;
}

TEST(GoodPlugin, ModelContract) {
  auto check = [](onnx::ModelProto m, int32_t code, const std::string& text) {
    Session s;
    Create(&s, TestPlugin("good"), Bytes(m));
    EXPECT_EQ(s.code, code) << s.error;
    EXPECT_NE(s.error.find(text), std::string::npos) << s.error;
  };
  ModelSpec spec;
  spec.domain = "test.plugin";
  spec.op = "Double";
  onnx::ModelProto two = BuildModel(spec);
  two.graph.mutable_get()->node.push_back(two.graph->node[0]);
  check(two, LIGHT_ORT_INVALID_MODEL, "exactly one custom node, it has 2 nodes");
  onnx::ModelProto std_op = BuildModel(spec);
  std_op.graph.mutable_get()->node[0].domain = std::string("");
  check(std_op, LIGHT_ORT_INVALID_MODEL, "is not a custom op");
  onnx::ModelProto init = BuildModel(spec);
  onnx::TensorProto* t = init.graph.mutable_get()->initializer.Add();
  t->name = std::string("w");
  t->data_type = 1;
  check(init, LIGHT_ORT_INVALID_MODEL, "must not have initializers");
  onnx::ModelProto func = BuildModel(spec);
  func.functions.Add()->name = std::string("f");
  check(func, LIGHT_ORT_INVALID_MODEL, "must not have local functions");
  onnx::ModelProto same = BuildModel(spec);
  same.graph.mutable_get()->output[0].name = std::string("x");
  same.graph.mutable_get()->node[0].output = {"x"};
  check(same, LIGHT_ORT_INVALID_MODEL, "input and output must be distinct");
  onnx::ModelProto no_import = BuildModel(spec);
  no_import.opset_import[0].domain = std::string("other");
  check(no_import, LIGHT_ORT_INVALID_MODEL, "does not import the custom domain 'test.plugin'");
  ModelSpec ints = spec;
  ints.type = 7;
  check(BuildModel(ints), LIGHT_ORT_INVALID_MODEL, "graph input type INT64 is not supported");
  std::string huge(LIGHT_ORT_MAX_MODEL_BYTES + 1, '\0');
  Session s;
  Create(&s, TestPlugin("good"), huge);
  EXPECT_EQ(s.code, LIGHT_ORT_OUT_OF_RANGE);
  EXPECT_NE(s.error.find("exceeds the limit of 16777216"), std::string::npos);
  Create(&s, TestPlugin("good"), std::string("\x3a\xff", 2));
  EXPECT_EQ(s.code, LIGHT_ORT_INVALID_MODEL);
  EXPECT_EQ(s.error, "ModelProto.graph: truncated varint at byte 1");
}

TEST(GoodPlugin, RunTimeChecksHappenBeforeReadingTheInput) {
  ModelSpec spec;
  spec.domain = "test.plugin";
  spec.op = "Double";
  Session s;
  Create(&s, TestPlugin("good"), Bytes(BuildModel(spec)));
  ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
  LightOrtTensor out;
  const float* bogus = reinterpret_cast<const float*>(16);  // never dereferenced
  const int64_t shape1[1] = {4};
  auto expect = [&](int32_t rc, int32_t code, const std::string& text) {
    EXPECT_EQ(rc, code);
    EXPECT_NE(std::string(LightOrtLastErrorMessage()).find(text), std::string::npos)
        << LightOrtLastErrorMessage();
  };
  expect(LightOrtRunTyped(s.s, bogus, 11, 4, shape1, 1, &out), LIGHT_ORT_TYPE_MISMATCH,
         "input element type DOUBLE does not match the model's FLOAT");
  expect(LightOrtRunTyped(s.s, bogus, 99, 4, shape1, 1, &out), LIGHT_ORT_TYPE_MISMATCH,
         "an unknown type");
  std::vector<int64_t> rank17(17, 1);
  expect(LightOrtRunTyped(s.s, bogus, 1, 1, rank17.data(), 17, &out), LIGHT_ORT_OUT_OF_RANGE,
         "rank 17 exceeds the limit of 16");
  const int64_t negative[2] = {2, -2};
  expect(LightOrtRunTyped(s.s, bogus, 1, 4, negative, 2, &out), LIGHT_ORT_INVALID_ARGUMENT,
         "negative dimension -2 at axis 1");
  const int64_t overflow[2] = {int64_t{1} << 40, int64_t{1} << 40};
  expect(LightOrtRunTyped(s.s, bogus, 1, 4, overflow, 2, &out), LIGHT_ORT_OUT_OF_RANGE,
         "overflows int64");
  expect(LightOrtRunTyped(s.s, bogus, 1, 5, shape1, 1, &out), LIGHT_ORT_INVALID_ARGUMENT,
         "element count 5 does not match shape [4]");
  const int64_t big[1] = {(int64_t{64} << 20) / 4 + 1};
  expect(LightOrtRunTyped(s.s, bogus, 1, static_cast<uint64_t>(big[0]), big, 1, &out),
         LIGHT_ORT_OUT_OF_RANGE, "exceeds the limit of 67108864 bytes");
  alignas(8) char buffer[64] = {};
  expect(LightOrtRunTyped(s.s, buffer + 1, 1, 4, shape1, 1, &out), LIGHT_ORT_INVALID_ARGUMENT,
         "not aligned to 4 bytes");
  expect(LightOrtRunTyped(s.s, nullptr, 1, 4, shape1, 1, &out), LIGHT_ORT_INVALID_ARGUMENT,
         "null input");
  expect(LightOrtRunTyped(s.s, buffer, 1, 4, nullptr, 1, &out), LIGHT_ORT_INVALID_ARGUMENT,
         "null shape");
  expect(LightOrtRunTyped(nullptr, buffer, 1, 4, shape1, 1, &out), LIGHT_ORT_INVALID_ARGUMENT,
         "null session");
  EXPECT_EQ(LightOrtRunTyped(s.s, buffer, 1, 4, shape1, 1, nullptr), LIGHT_ORT_INVALID_ARGUMENT);
  // Exactly at the limit is fine, and the session still works after every refusal.
  std::vector<float> limit((size_t{64} << 20) / 4, 1.0f);
  const int64_t at_limit[1] = {static_cast<int64_t>(limit.size())};
  ASSERT_EQ(LightOrtRunTyped(s.s, limit.data(), 1, limit.size(), at_limit, 1, &out), LIGHT_ORT_OK)
      << LightOrtLastErrorMessage();
  EXPECT_EQ(static_cast<float*>(out.data)[limit.size() - 1], 2.0f);
  LightOrtTensorRelease(&out);
  LightOrtTensorRelease(&out);  // twice is harmless
  LightOrtTensorRelease(nullptr);
}

TEST(GoodPlugin, PluginErrorsPropagateAndTheSessionRecovers) {
  ModelSpec fail;
  fail.domain = "test.plugin";
  fail.op = "FailCompute";
  Session s;
  Create(&s, TestPlugin("good"), Bytes(BuildModel(fail)));
  ASSERT_EQ(s.code, LIGHT_ORT_OK) << s.error;
  int32_t rc = 0;
  RunFloat(s.s, {1}, {1}, &rc);
  EXPECT_EQ(rc, LIGHT_ORT_INTERNAL);
  EXPECT_EQ(std::string(LightOrtLastErrorMessage()),
            "node 'custom' (FailCompute, domain test.plugin): KernelComputeV2: deliberate "
            "failure in FailCompute");
  RunFloat(s.s, {1}, {1}, &rc);  // again: same clean error, no crash
  EXPECT_EQ(rc, LIGHT_ORT_INTERNAL);

  ModelSpec scale;
  scale.domain = "test.plugin";
  scale.op = "NeedsScale";  // requires an int attribute "scale"; the model has none
  Session t;
  Create(&t, TestPlugin("good"), Bytes(BuildModel(scale)));
  ASSERT_EQ(t.code, LIGHT_ORT_OK) << t.error;
  RunFloat(t.s, {1}, {1}, &rc);
  EXPECT_EQ(rc, LIGHT_ORT_INTERNAL);
  EXPECT_NE(std::string(LightOrtLastErrorMessage())
                .find("CreateKernelV2: node 'custom' (NeedsScale, domain test.plugin): no "
                      "attribute named 'scale'"),
            std::string::npos)
      << LightOrtLastErrorMessage();
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(GoodPlugin, KernelsAreLazyRetainedAndReleasedBeforeUnload) {
  const std::string log = ::testing::TempDir() + "plugin_log_" + std::to_string(::getpid());
  std::remove(log.c_str());
  ::setenv("ONNX_LIGHT_TEST_PLUGIN_LOG", log.c_str(), 1);
  ModelSpec spec;
  spec.domain = "test.plugin";
  spec.op = "Counter";  // y = x + number of earlier calls on this kernel
  {
    Session a, b;
    Create(&a, TestPlugin("good"), Bytes(BuildModel(spec)));
    Create(&b, TestPlugin("good"), Bytes(BuildModel(spec)));
    ASSERT_EQ(a.code, LIGHT_ORT_OK) << a.error;
    EXPECT_EQ(ReadFile(log), "");  // not created before the first run
    EXPECT_EQ(RunFloat(a.s, {10}, {1}), std::vector<float>{10});
    EXPECT_EQ(RunFloat(a.s, {10, 20}, {2}), (std::vector<float>{11, 21}));  // new shape
    EXPECT_EQ(RunFloat(a.s, {}, {0}), std::vector<float>{});
    EXPECT_EQ(RunFloat(a.s, {10}, {}), std::vector<float>{13});
    EXPECT_EQ(RunFloat(b.s, {10}, {1}), std::vector<float>{10});  // independent session
    EXPECT_EQ(ReadFile(log), "create Counter\ncreate Counter\n");
  }
  // Each session released its kernel, then unloaded its handle of the plugin.
  EXPECT_EQ(ReadFile(log),
            "create Counter\ncreate Counter\ndestroy Counter\ndestroy Counter\nunload\n");
  ::unsetenv("ONNX_LIGHT_TEST_PLUGIN_LOG");
  std::remove(log.c_str());
}

}  // namespace
