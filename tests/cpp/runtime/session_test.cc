#include "onnx_light/runtime/session.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "test_models.h"

namespace onnx_light {
namespace {

using testing::AddFloatAttr;
using testing::AddIntAttr;
using testing::Model;
using testing::Node;
using testing::TensorInfo;

Tensor FloatTensor(std::vector<int64_t> dims, std::vector<float> values) {
  Tensor t = *Tensor::Allocate(DataType::kFloat, *Shape::Create(dims));
  std::copy(values.begin(), values.end(), t.mutable_data<float>());
  return t;
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}

std::unique_ptr<RuntimeSession> MustCreate(onnx::ModelProto m, SessionOptions o = {}) {
  auto s = RuntimeSession::Create(std::move(m), std::move(o));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

onnx::ModelProto CustomLeakyRelu(float alpha) {
  onnx::NodeProto n = Node("LeakyRelu", {"x"}, {"y"}, "onnx_light", "leaky");
  AddFloatAttr(n, "alpha", alpha);
  return Model({n}, {TensorInfo("x", 1, {-1}, true, {"N"})}, {TensorInfo("y", 1, {-1})},
               {{"onnx_light", 1}});
}

TEST(Session, CustomLeakyReluRunsWithChangingShapes) {
  auto s = MustCreate(CustomLeakyRelu(0.5f));
  ASSERT_TRUE(s);
  for (int64_t n : {3, 0, 1, 17}) {
    std::vector<float> in(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      in[static_cast<size_t>(i)] = static_cast<float>(i) - 2.0f;
    auto out = s->Run({{"x", FloatTensor({n}, in)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ((*out)[0].shape().dims(), std::vector<int64_t>{n});
    for (int64_t i = 0; i < n; ++i) {
      const float x = in[static_cast<size_t>(i)];
      EXPECT_EQ((*out)[0].data<float>()[i], x < 0 ? 0.5f * x : x);
    }
  }
  EXPECT_EQ(s->inputs()[0].dim_params[0], "N");
  EXPECT_EQ(s->outputs()[0].type, DataType::kFloat);
}

TEST(Session, MultiNodeGraphWithBroadcastAndCast) {
  // y = Cast<int32>(Relu(a + b) * c), b broadcasts over rows, c is an initializer.
  onnx::NodeProto cast = Node("Cast", {"m"}, {"y"});
  AddIntAttr(cast, "to", 6);
  onnx::ModelProto m =
      Model({Node("Add", {"a", "b"}, {"s"}), Node("Relu", {"s"}, {"r"}),
             Node("Mul", {"r", "c"}, {"m"}), cast},
            {TensorInfo("a", 1, {2, 3}), TensorInfo("b", 1, {3})}, {TensorInfo("y", 6, {2, 3})});
  onnx::TensorProto* c = m.graph.mutable_get()->initializer.Add();
  c->name = std::string("c");
  c->data_type = 1;
  c->float_data = {10.0f};
  auto s = MustCreate(m);
  ASSERT_TRUE(s);
  auto out = s->Run({{"a", FloatTensor({2, 3}, {1, -2, 3, -4, 5, -6})},
                     {"b", FloatTensor({3}, {0.5f, 0.25f, -10})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const int32_t* y = (*out)[0].data<int32_t>();
  ASSERT_NE(y, nullptr);
  const int32_t want[6] = {15, 0, 0, 0, 52, 0};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(y[i], want[i]) << i;
}

TEST(Session, GeneralBroadcasting) {
  auto s = MustCreate(Model({Node("Sub", {"a", "b"}, {"y"})},
                            {TensorInfo("a", 1, {2, 1, 3}), TensorInfo("b", 1, {4, 1})},
                            {TensorInfo("y", 1, {2, 4, 3})}));
  std::vector<float> a(6), b(4);
  for (int i = 0; i < 6; ++i)
    a[static_cast<size_t>(i)] = static_cast<float>(i);
  for (int i = 0; i < 4; ++i)
    b[static_cast<size_t>(i)] = static_cast<float>(10 * i);
  auto out = s->Run({{"a", FloatTensor({2, 1, 3}, a)}, {"b", FloatTensor({4, 1}, b)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const float* y = (*out)[0].data<float>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(y[(i * 4 + j) * 3 + k], (i * 3 + k) - 10.0f * j);
  auto bad = s->Run({{"a", FloatTensor({2, 1, 3}, a)}, {"b", FloatTensor({4, 1}, b)}});
  ASSERT_TRUE(bad.ok());
}

TEST(Session, IncompatibleBroadcastIsAnError) {
  auto s = MustCreate(Model({Node("Add", {"a", "b"}, {"y"}, "", "add0")},
                            {TensorInfo("a", 1, {}, false), TensorInfo("b", 1, {}, false)},
                            {TensorInfo("y", 1, {}, false)}));
  auto r =
      s->Run({{"a", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", FloatTensor({2}, {1, 2})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "node 'add0' (Add): shapes [2, 3] and [2] cannot be broadcast");
  EXPECT_TRUE(s->Run({{"a", FloatTensor({1}, {1})}, {"b", FloatTensor({2}, {1, 2})}}).ok());
}

TEST(Session, IntegerDivisionByZeroIsAnError) {
  auto s = MustCreate(Model({Node("Div", {"a", "b"}, {"y"})},
                            {TensorInfo("a", 7, {2}), TensorInfo("b", 7, {2})},
                            {TensorInfo("y", 7, {2})}));
  auto make = [](int64_t x, int64_t y) {
    Tensor t = *Tensor::Allocate(DataType::kInt64, *Shape::Create({2}));
    t.mutable_data<int64_t>()[0] = x;
    t.mutable_data<int64_t>()[1] = y;
    return t;
  };
  auto bad = s->Run({{"a", make(1, 2)}, {"b", make(1, 0)}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("integer division by zero"), std::string::npos);
  auto ok = s->Run({{"a", make(INT64_MIN, -7)}, {"b", make(-1, 2)}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[0].data<int64_t>()[0], INT64_MIN);  // wraps, no trap
  EXPECT_EQ((*ok)[0].data<int64_t>()[1], -3);         // truncates toward zero
}

TEST(Session, FeedValidation) {
  auto s =
      MustCreate(Model({Node("Relu", {"x"}, {"y"})}, {TensorInfo("x", 1, {2, -1}, true, {"", "B"})},
                       {TensorInfo("y", 1, {2, -1}, true, {"", "B"})}));
  auto expect = [&](std::vector<NamedTensor> feeds, std::vector<std::string> outs, StatusCode code,
                    const std::string& text) {
    auto r = s->Run(feeds, outs);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_EQ(r.status().message(), text);
  };
  expect({}, {}, StatusCode::kInvalidArgument, "missing input 'x'");
  expect({{"z", FloatTensor({2, 1}, {1, 2})}}, {}, StatusCode::kInvalidArgument,
         "unknown input 'z' (the model's inputs: x)");
  Tensor d = *Tensor::Allocate(DataType::kDouble, *Shape::Create({2, 1}));
  expect({{"x", d}}, {}, StatusCode::kTypeMismatch, "input 'x': expected FLOAT, got DOUBLE");
  expect({{"x", FloatTensor({2}, {1, 2})}}, {}, StatusCode::kInvalidArgument,
         "input 'x': expected rank 2, got shape [2]");
  expect({{"x", FloatTensor({3, 1}, {1, 2, 3})}}, {}, StatusCode::kInvalidArgument,
         "input 'x': dimension 0 must be 2, got shape [3, 1]");
  expect({{"x", FloatTensor({2, 1}, {1, 2})}, {"x", FloatTensor({2, 1}, {1, 2})}}, {},
         StatusCode::kInvalidArgument, "input 'x' is fed twice");
  expect({{"x", FloatTensor({2, 1}, {1, 2})}}, {"nope"}, StatusCode::kInvalidArgument,
         "unknown output 'nope' (the model's outputs: y)");
  auto ok = s->Run({{"x", FloatTensor({2, 3}, {1, -2, 3, -4, 5, -6})}}, {"y"});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(Values((*ok)[0]), (std::vector<float>{1, 0, 3, 0, 5, 0}));
}

TEST(Session, GraphValidation) {
  auto err = [](onnx::ModelProto m) {
    auto s = RuntimeSession::Create(std::move(m));
    EXPECT_FALSE(s.ok());
    return s.ok() ? std::string() : s.status().message();
  };
  const auto x = TensorInfo("x", 1, {2});
  const auto y = TensorInfo("y", 1, {2});
  EXPECT_EQ(err(Model({Node("Relu", {"nope"}, {"y"}, "", "r")}, {x}, {y})),
            "node 'r' (Relu) reads 'nope', which no node, initializer or graph input produces");
  EXPECT_EQ(err(Model({Node("Relu", {"x"}, {"y"}, "", "a"), Node("Relu", {"x"}, {"y"}, "", "b")},
                      {x}, {y})),
            "value 'y' is produced more than once (again by node 'b')");
  EXPECT_EQ(err(Model({Node("Relu", {"t"}, {"y"}, "", "a"), Node("Relu", {"y"}, {"t"}, "", "b")},
                      {x}, {y})),
            "the graph has a cycle through node 'a' (Relu)");
  EXPECT_EQ(err(Model({Node("LeakyRelu", {"x"}, {"y"}, "onnx_light", "l")}, {x}, {y})),
            "node 'l' (LeakyRelu) uses domain 'onnx_light', which the model does not import");
  EXPECT_EQ(err(Model({Node("Relu", {"x"}, {"t"})}, {x}, {y})),
            "graph output 'y' is not produced by any node, initializer or graph input");
  onnx::ModelProto no_graph;
  EXPECT_EQ(err(no_graph), "the model has no graph");
  // Nodes out of order in the file are fine.
  EXPECT_TRUE(RuntimeSession::Create(
                  Model({Node("Relu", {"t"}, {"y"}), Node("Relu", {"x"}, {"t"})}, {x}, {y}))
                  .ok());
}

TEST(Session, NoKernelErrorNamesEverything) {
  onnx::ModelProto m = Model({Node("Log", {"x"}, {"y"}, "", "log0")}, {TensorInfo("x", 7, {2})},
                             {TensorInfo("y", 7, {2})});
  auto s = RuntimeSession::Create(m);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotImplemented);
  EXPECT_EQ(s.status().message(),
            "no kernel for node 'log0': op Log, domain ai.onnx, opset 17, input types (INT64). "
            "Supported:\n  opset 6+; T: FLOAT16, BFLOAT16, FLOAT, DOUBLE");
  auto unknown =
      RuntimeSession::Create(Model({Node("Frobnicate", {"x"}, {"y"}, "", "f")},
                                   {TensorInfo("x", 1, {2})}, {TensorInfo("y", 1, {2})}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("No kernel is registered for this op"),
            std::string::npos);
}

TEST(Session, AttributeErrorsNameNodeAndAttribute) {
  onnx::NodeProto n = Node("LeakyRelu", {"x"}, {"y"}, "onnx_light", "leaky");
  AddIntAttr(n, "alpha", 2);
  auto s = MustCreate(
      Model({n}, {TensorInfo("x", 1, {1})}, {TensorInfo("y", 1, {1})}, {{"onnx_light", 1}}));
  auto r = s->Run({{"x", FloatTensor({1}, {1})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "node 'leaky' (LeakyRelu, domain onnx_light): attribute 'alpha' has type INT, "
            "expected FLOAT");
  onnx::NodeProto c = Node("Cast", {"x"}, {"y"}, "", "cast0");
  auto missing =
      RuntimeSession::Create(Model({c}, {TensorInfo("x", 1, {1})}, {TensorInfo("y", 7, {1})}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "node 'cast0' (Cast, opset 17): required attribute 'to' is missing");
  // An ai.onnx attribute of the wrong type is refused at creation (the op schema's type).
  onnx::NodeProto e = Node("Elu", {"x"}, {"y"}, "", "elu0");
  AddIntAttr(e, "alpha", 1);
  auto wrong =
      RuntimeSession::Create(Model({e}, {TensorInfo("x", 1, {1})}, {TensorInfo("y", 1, {1})}));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "node 'elu0' (Elu, opset 17): attribute 'alpha' has type INT, the op declares FLOAT");
}

TEST(Session, ArityIsCheckedAtCreation) {
  auto create = [](onnx::NodeProto n, int outputs = 1) {
    std::vector<onnx::ValueInfoProto> outs;
    for (int i = 0; i < outputs; ++i)
      outs.push_back(TensorInfo(n.output[static_cast<size_t>(i)], 1, {1}));
    return RuntimeSession::Create(Model({n}, {TensorInfo("a", 1, {1}), TensorInfo("b", 1, {1})},
                                        outs, {{"", 17}, {"onnx_light", 1}}));
  };
  auto few = create(Node("Add", {"a"}, {"y"}, "", "add0"));
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.status().code(), StatusCode::kInvalidModel);
  EXPECT_EQ(few.status().message(), "node 'add0' (Add, opset 17): has 1 input, the op takes 2");
  auto empty = create(Node("Add", {"a", ""}, {"y"}, "", "add1"));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(),
            "node 'add1' (Add, opset 17): input 1 is required but its name is empty");
  auto many = create(Node("Relu", {"a", "b"}, {"y"}, "", "relu0"));
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.status().message(), "node 'relu0' (Relu, opset 17): has 2 inputs, the op takes 1");
  auto outs = create(Node("Relu", {"a"}, {"y", "z"}, "", "relu1"), 2);
  ASSERT_FALSE(outs.ok());
  EXPECT_EQ(outs.status().message(),
            "node 'relu1' (Relu, opset 17): has 2 outputs, the op produces 1");
  // Optional inputs may be empty or left out: Clip with only max.
  auto clip = create(Node("Clip", {"a", "", "b"}, {"y"}, "", "clip0"));
  EXPECT_TRUE(clip.ok()) << clip.status().message();
  // Kernels of other domains: the positions their constraints name, all required.
  auto custom = create(Node("LeakyRelu", {"a", "b"}, {"y"}, "onnx_light", "leaky0"));
  ASSERT_FALSE(custom.ok());
  EXPECT_NE(custom.status().message().find("has 2 inputs, the op takes 1"), std::string::npos);
}

// A kernel that counts how often it is created and run, to observe laziness and reuse.
struct Counters {
  std::atomic<int> created{0};
  std::atomic<int> runs{0};
};

class CountingKernel : public KernelBase {
 public:
  explicit CountingKernel(Counters* c, float add) : c_(c), add_(add) {}
  Status Compute(KernelContext& ctx) const override {
    ++c_->runs;
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      y->mutable_data<float>()[i] = x.data<float>()[i] + add_;
    }
    return Status::Ok();
  }

 private:
  Counters* c_;
  float add_;
};

KernelDef CountingDef(Counters* c, const std::string& op, int since, int end, float add,
                      std::vector<DataType> types = {DataType::kFloat}) {
  KernelDef def;
  def.domain = "test.domain";
  def.op_type = op;
  def.since_version = since;
  def.end_version = end;
  def.constraints = {{"T", {0}, {0}, std::move(types)}};
  def.create = [c, add](const KernelInfo&) -> Result<std::unique_ptr<KernelBase>> {
    ++c->created;
    return std::unique_ptr<KernelBase>(new CountingKernel(c, add));
  };
  return def;
}

onnx::ModelProto CustomOpModel(const std::string& op, int64_t opset, int32_t type = 1) {
  return Model({Node(op, {"x"}, {"y"}, "test.domain", "custom")},
               {TensorInfo("x", type, {-1}, true, {"N"})}, {TensorInfo("y", type, {-1})},
               {{"test.domain", opset}});
}

TEST(Registry, KernelsAreCreatedLazilyOnceAndKeptAcrossShapes) {
  Counters c;
  auto reg = std::make_shared<KernelRegistry>(KernelRegistry::BuiltinCpu());
  ASSERT_TRUE(reg->Register(CountingDef(&c, "Plus", 1, kMaxOpset, 1.0f)).ok());
  SessionOptions o;
  o.registry = reg;
  auto s = MustCreate(CustomOpModel("Plus", 1), o);
  EXPECT_EQ(c.created, 0);  // lazily: not at session creation
  for (int64_t n : {1, 5, 0, 3}) {
    auto out = s->Run({{"x", FloatTensor({n}, std::vector<float>(static_cast<size_t>(n), 2.0f))}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    if (n) {
      EXPECT_EQ((*out)[0].data<float>()[0], 3.0f);
    }
  }
  EXPECT_EQ(c.created, 1);
  EXPECT_EQ(c.runs, 4);
}

TEST(Registry, LayeredRegistriesAreContextLocal) {
  Counters c1, c2;
  auto r1 = std::make_shared<KernelRegistry>(KernelRegistry::BuiltinCpu());
  ASSERT_TRUE(r1->Register(CountingDef(&c1, "Plus", 1, kMaxOpset, 1.0f)).ok());
  auto r2 = std::make_shared<KernelRegistry>(KernelRegistry::BuiltinCpu());
  ASSERT_TRUE(r2->Register(CountingDef(&c2, "Plus", 1, kMaxOpset, 100.0f)).ok());
  SessionOptions o1, o2;
  o1.registry = r1;
  o2.registry = r2;
  auto s1 = MustCreate(CustomOpModel("Plus", 1), o1);
  auto s2 = MustCreate(CustomOpModel("Plus", 1), o2);
  EXPECT_EQ(Values((*s1->Run({{"x", FloatTensor({1}, {1})}}))[0]), std::vector<float>{2});
  EXPECT_EQ(Values((*s2->Run({{"x", FloatTensor({1}, {1})}}))[0]), std::vector<float>{101});
  // The built-in registry (the default) was not touched.
  EXPECT_FALSE(RuntimeSession::Create(CustomOpModel("Plus", 1)).ok());
  // Built-in kernels stay reachable through a layered registry.
  SessionOptions o3;
  o3.registry = r1;
  EXPECT_TRUE(RuntimeSession::Create(Model({Node("Relu", {"x"}, {"y"})}, {TensorInfo("x", 1, {1})},
                                           {TensorInfo("y", 1, {1})}),
                                     o3)
                  .ok());
}

TEST(Registry, SubgraphsUseTheSessionsRegistryAndImports) {
  // An If whose then-branch runs a custom kernel from a layered registry, reading x from
  // the enclosing graph: the branch session gets the same registry and opset imports.
  Counters c;
  auto reg = std::make_shared<KernelRegistry>(KernelRegistry::BuiltinCpu());
  ASSERT_TRUE(reg->Register(CountingDef(&c, "Plus", 1, kMaxOpset, 10.0f)).ok());
  auto branch = [](onnx::NodeProto node, const std::string& out) {
    onnx::GraphProto g;
    g.name = std::string("branch");
    g.node.push_back(std::move(node));
    g.output.push_back(TensorInfo(out, 1, {-1}));
    return g;
  };
  onnx::NodeProto iff = Node("If", {"cond"}, {"y"});
  for (auto [name, g] :
       {std::pair{"then_branch", branch(Node("Plus", {"x"}, {"t"}, "test.domain"), "t")},
        std::pair{"else_branch", branch(Node("Neg", {"x"}, {"e"}), "e")}}) {
    onnx::AttributeProto* a = iff.attribute.Add();
    a->name = std::string(name);
    a->type = static_cast<int32_t>(onnx::AttributeType::kGraph);
    *a->g.mutable_get() = g;
  }
  onnx::ModelProto m = Model({iff}, {TensorInfo("cond", 9, {}), TensorInfo("x", 1, {-1})},
                             {TensorInfo("y", 1, {-1})}, {{"", 17}, {"test.domain", 1}});
  // Without the layered registry the branch's op is not found.
  EXPECT_FALSE(RuntimeSession::Create(m).ok());
  SessionOptions o;
  o.registry = reg;
  auto s = MustCreate(m, o);
  ASSERT_NE(s, nullptr);
  Tensor cond = *Tensor::Allocate(DataType::kBool, Shape());
  cond.mutable_data<bool>()[0] = true;
  auto out = s->Run({{"cond", cond}, {"x", FloatTensor({2}, {1, 2})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{11, 12}));
  EXPECT_EQ(c.runs, 1);
}

TEST(Session, NoneFeedsOnlyOptionalInputs) {
  auto s = MustCreate(
      Model({Node("Relu", {"x"}, {"y"})}, {TensorInfo("x", 1, {-1})}, {TensorInfo("y", 1, {-1})}));
  ASSERT_NE(s, nullptr);
  Value none;
  none.none = true;
  auto out = s->RunValues({{"x", none}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kTypeMismatch);
  EXPECT_NE(out.status().message().find("only an optional input can be fed none"),
            std::string::npos);
  // The session still runs.
  EXPECT_TRUE(s->Run({{"x", FloatTensor({1}, {-1})}}).ok());
}

TEST(Registry, OpsetRangesAndTypeOverloads) {
  Counters a, b, d;
  auto reg = std::make_shared<KernelRegistry>();
  ASSERT_TRUE(reg->Register(CountingDef(&a, "Op", 1, 5, 1.0f)).ok());
  ASSERT_TRUE(reg->Register(CountingDef(&b, "Op", 6, kMaxOpset, 2.0f)).ok());
  ASSERT_TRUE(reg->Register(CountingDef(&d, "Op", 1, kMaxOpset, 3.0f, {DataType::kDouble})).ok());
  SessionOptions o;
  o.registry = reg;
  auto v5 = MustCreate(CustomOpModel("Op", 5), o);
  auto v9 = MustCreate(CustomOpModel("Op", 9), o);
  EXPECT_EQ(Values((*v5->Run({{"x", FloatTensor({1}, {0})}}))[0]), std::vector<float>{1});
  EXPECT_EQ(Values((*v9->Run({{"x", FloatTensor({1}, {0})}}))[0]), std::vector<float>{2});
  auto f64 = RuntimeSession::Create(CustomOpModel("Op", 9, 11), o);
  ASSERT_TRUE(f64.ok());
  EXPECT_EQ(a.created + b.created, 2);
  auto int_model = RuntimeSession::Create(CustomOpModel("Op", 3, 7), o);
  ASSERT_FALSE(int_model.ok());
  EXPECT_EQ(int_model.status().message(),
            "no kernel for node 'custom': op Op, domain test.domain, opset 3, input types "
            "(INT64). Supported:\n  opset 1-5; T: FLOAT\n  opset 6+; T: FLOAT\n  opset 1+; T: "
            "DOUBLE");
}

TEST(Registry, RegistrationRefusals) {
  Counters c;
  KernelRegistry reg;
  ASSERT_TRUE(reg.Register(CountingDef(&c, "Op", 1, 10, 0)).ok());
  Status overlap = reg.Register(CountingDef(&c, "Op", 5, kMaxOpset, 0));
  EXPECT_EQ(overlap.message(),
            "kernel test.domain::Op opset 5+ overlaps one already registered (opset 1-10)");
  EXPECT_FALSE(reg.Register(CountingDef(&c, "Op", 3, 2, 0)).ok());
  EXPECT_FALSE(reg.Register(CountingDef(&c, "Op2", 1, 2, 0, {})).ok());
  KernelDef no_factory = CountingDef(&c, "Op3", 1, 2, 0);
  no_factory.create = nullptr;
  EXPECT_FALSE(reg.Register(no_factory).ok());
  KernelDef twice = CountingDef(&c, "Op4", 1, 2, 0);
  twice.constraints[0].inputs = {0, 0};
  EXPECT_FALSE(reg.Register(twice).ok());
  EXPECT_TRUE(reg.Register(CountingDef(&c, "Op", 11, kMaxOpset, 0)).ok());
}

TEST(Registry, BuiltinListing) {
  std::vector<std::string> names;
  for (const KernelDef* d : KernelRegistry::BuiltinCpu()->All()) {
    names.push_back((d->domain.empty() ? "ai.onnx" : d->domain) + "::" + d->op_type);
  }
  for (const char* want : {"onnx_light::LeakyRelu", "onnx_light_cpu::Log", "ai.onnx::Add",
                           "ai.onnx::Cast", "ai.onnx::Identity", "ai.onnx::Relu"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
}

TEST(Session, ConcurrentRunsAreSerializedAndCorrect) {
  auto s = MustCreate(CustomLeakyRelu(0.25f));
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const float v = -static_cast<float>(t * 1000 + i);
        auto out = s->Run({{"x", FloatTensor({2}, {v, -v})}});
        if (!out.ok() || (*out)[0].data<float>()[0] != 0.25f * v ||
            (*out)[0].data<float>()[1] != -v) {
          ++bad;
        }
      }
    });
  }
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(bad, 0);
}

TEST(Session, IntraOpThreadsGiveTheSameResult) {
  onnx::ModelProto m =
      Model({Node("Log", {"x"}, {"y"}, "onnx_light_cpu")}, {TensorInfo("x", 1, {-1})},
            {TensorInfo("y", 1, {-1})}, {{"onnx_light_cpu", 1}});
  SessionOptions two;
  two.intra_op_threads = 2;
  auto s1 = MustCreate(m);
  auto s2 = MustCreate(m, two);
  std::vector<float> x(1 << 20);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.001f * static_cast<float>(i + 1);
  auto a = s1->Run({{"x", FloatTensor({static_cast<int64_t>(x.size())}, x)}});
  auto b = s2->Run({{"x", FloatTensor({static_cast<int64_t>(x.size())}, x)}});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(Values((*a)[0]), Values((*b)[0]));
  // 0 is one thread per physical core; negative counts are refused.
  SessionOptions zero;
  zero.intra_op_threads = 0;
  auto s0 = MustCreate(m, zero);
  auto c = s0->Run({{"x", FloatTensor({static_cast<int64_t>(x.size())}, x)}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Values((*a)[0]), Values((*c)[0]));
  SessionOptions negative;
  negative.intra_op_threads = -1;
  Result<std::unique_ptr<RuntimeSession>> bad = RuntimeSession::Create(m, negative);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("intra_op_threads must be 0"), std::string::npos);
}

TEST(Session, InitializersAndConstantsAreZeroCopyAndOutputsAreCopies) {
  // y = Identity(w): w is an initializer in raw_data; the output must not alias the model.
  onnx::ModelProto m = Model({Node("Identity", {"w"}, {"y"}), Node("Constant", {}, {"k"})}, {},
                             {TensorInfo("y", 1, {2}), TensorInfo("k", 7, {})});
  onnx::TensorProto* w = m.graph.mutable_get()->initializer.Add();
  w->name = std::string("w");
  w->data_type = 1;
  w->dims = {2};
  const float raw[2] = {4, 5};
  w->raw_data = onnx::Bytes(std::string(reinterpret_cast<const char*>(raw), 8));
  AddIntAttr(m.graph.mutable_get()->node[1], "value_int", 42);
  auto s = MustCreate(m);
  const char* model_bytes = s->model().graph->initializer[0].raw_data->data();
  auto out = s->Run({});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{4, 5}));
  EXPECT_NE((*out)[0].raw_data(), static_cast<const void*>(model_bytes));
  EXPECT_TRUE((*out)[0].is_owning());
  EXPECT_EQ((*out)[1].data<int64_t>()[0], 42);
  (*out)[0].mutable_data<float>()[0] = -1;  // does not leak into the next run
  EXPECT_EQ(Values((*s->Run({}))[0]), (std::vector<float>{4, 5}));
}

TEST(Session, RuntimeShapeLimits) {
  SessionOptions o;
  o.shape_limits.max_rank = 2;
  auto s = MustCreate(Model({Node("Relu", {"x"}, {"y"})}, {TensorInfo("x", 1, {}, false)},
                            {TensorInfo("y", 1, {}, false)}),
                      o);
  auto r = s->Run({{"x", FloatTensor({1, 1, 1}, {1})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  SessionOptions small;
  small.max_tensor_bytes = 16;
  auto t = MustCreate(Model({Node("Relu", {"x"}, {"y"})}, {TensorInfo("x", 1, {}, false)},
                            {TensorInfo("y", 1, {}, false)}),
                      small);
  auto big = t->Run({{"x", FloatTensor({5}, {1, 2, 3, 4, 5})}});
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("over the limit of 16"), std::string::npos);
}

}  // namespace
}  // namespace onnx_light

namespace onnx_light::testing {
namespace {

TEST(Registry, LazyBuiltinRegistrationMatchesTheFullList) {
  // Each lazily loaded op registers kernels of that op only, and all of them together are
  // exactly what registering the whole list at once gives.
  const KernelRegistry::LazyOp* ops = nullptr;
  size_t count = 0;
  BuiltinLazyOps(&ops, &count);
  ASSERT_GT(count, 150u);
  size_t defs = 0;
  for (size_t i = 0; i < count; ++i) {
    KernelRegistry one;
    ASSERT_TRUE(ops[i].register_op(one).ok()) << ops[i].op_type;
    for (const KernelDef* def : one.All()) {
      EXPECT_EQ(def->op_type, ops[i].op_type);
      EXPECT_EQ(def->domain, ops[i].domain);
      ++defs;
    }
  }
  KernelRegistry full;
  ASSERT_TRUE(RegisterBuiltinKernels(full).ok());
  EXPECT_EQ(full.All().size(), defs);
  EXPECT_EQ(KernelRegistry::BuiltinCpu()->All().size(), defs);
}

}  // namespace
}  // namespace onnx_light::testing
