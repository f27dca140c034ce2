// Session-level registration (the extensions profile): hosting::RegisterCustomOpsLibrary
// layers a plugin's kernels over the built-in ones in a RuntimeSession's options, so one
// graph mixes standard ops and the plugin's; the plugin stays loaded while the session
// lives; refusals are clean errors.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "host_test_util.h"
#include "onnx_light/runtime/session.h"
#include "onnx_light_ort/hosting/plugin_host.h"

namespace {

using bridge_test::Info;
using bridge_test::TestPlugin;
namespace hosting = onnx_light_ort::hosting;
namespace onnx = onnx_light::onnx;

// x -> Add(x, x) (ai.onnx) -> test.plugin::Double -> Neg (ai.onnx) -> y: y = -4x.
onnx::ModelProto MixedModel() {
  onnx::ModelProto m;
  m.ir_version = 8;
  onnx::OperatorSetIdProto* std_ops = m.opset_import.Add();
  std_ops->domain = std::string("");
  std_ops->version = 17;
  onnx::OperatorSetIdProto* plugin = m.opset_import.Add();
  plugin->domain = std::string("test.plugin");
  plugin->version = 1;
  onnx::GraphProto* g = m.graph.mutable_get();
  g->name = std::string("mixed");
  auto add_node = [g](const char* op, const char* domain, std::vector<std::string> in,
                      std::string out) {
    onnx::NodeProto* n = g->node.Add();
    n->op_type = std::string(op);
    n->domain = std::string(domain);
    n->input = std::move(in);
    n->output = {std::move(out)};
  };
  add_node("Add", "", {"x", "x"}, "sum");
  add_node("Double", "test.plugin", {"sum"}, "doubled");
  add_node("Neg", "", {"doubled"}, "y");
  g->input.push_back(Info("x", 1));
  g->output.push_back(Info("y", 1));
  return m;
}

TEST(SessionRegistration, OneGraphMixesStandardAndPluginOps) {
  onnx_light::SessionOptions options;
  ASSERT_TRUE(
      hosting::RegisterCustomOpsLibrary(&options, TestPlugin("good"), hosting::Profile::kExtensions)
          .ok());
  auto session = onnx_light::RuntimeSession::Create(MixedModel(), options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  options = onnx_light::SessionOptions();  // the session alone keeps the plugin loaded
  std::vector<float> x = {1.5f, -2.0f, 0.0f};
  auto in =
      onnx_light::Tensor::Borrow(onnx_light::DataType::kFloat, *onnx_light::Shape::Create({3}),
                                 x.data(), x.size() * sizeof(float));
  ASSERT_TRUE(in.ok());
  for (int run = 0; run < 3; ++run) {
    auto out = (*session)->Run({{"x", *in}});
    ASSERT_TRUE(out.ok()) << out.status().message();
    const float* y = (*out)[0].data<float>();
    EXPECT_FLOAT_EQ(y[0], -6.0f);
    EXPECT_FLOAT_EQ(y[1], 8.0f);
    EXPECT_FLOAT_EQ(y[2], 0.0f);
  }
}

TEST(SessionRegistration, RefusalsAreCleanErrors) {
  onnx_light::SessionOptions options;
  // The initial profile is CustomOpSession's, never the session's.
  onnx_light::Status s =
      hosting::RegisterCustomOpsLibrary(&options, TestPlugin("good"), hosting::Profile::kInitial);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("session-level registration uses the extensions profile"),
            std::string::npos)
      << s.message();
  s = hosting::RegisterCustomOpsLibrary(&options, "/nonexistent/plugin.so",
                                        hosting::Profile::kExtensions);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent/plugin.so"), std::string::npos) << s.message();
  EXPECT_FALSE(
      hosting::RegisterCustomOpsLibrary(nullptr, TestPlugin("good"), hosting::Profile::kExtensions)
          .ok());
  EXPECT_EQ(options.registry, nullptr);  // nothing was layered by the failures
}

TEST(SessionRegistration, ADescriptorTheProfileCannotRunFailsOnlyTheModelUsingIt) {
  // The "cuda" test plugin's Double(float) names another execution provider: the library
  // registers, the other ops run, and a model using that overload fails naming why.
  onnx_light::SessionOptions options;
  ASSERT_TRUE(
      hosting::RegisterCustomOpsLibrary(&options, TestPlugin("cuda"), hosting::Profile::kExtensions)
          .ok());
  auto session = onnx_light::RuntimeSession::Create(MixedModel(), options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  // Kernels are made at a node's first run: that run fails, naming the op and why.
  std::vector<float> x = {1.0f};
  auto in = onnx_light::Tensor::Borrow(onnx_light::DataType::kFloat,
                                       *onnx_light::Shape::Create({1}), x.data(), sizeof(float));
  ASSERT_TRUE(in.ok());
  auto out = (*session)->Run({{"x", *in}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("CUDAExecutionProvider"), std::string::npos)
      << out.status().message();
  EXPECT_NE(out.status().message().find("cannot run in the extensions profile"), std::string::npos)
      << out.status().message();
}

}  // namespace
