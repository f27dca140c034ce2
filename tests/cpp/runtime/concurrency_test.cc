// Many threads run one session at once, each with its own input shapes, and every result
// must equal what a lone run computes for the same input (bit for bit: the same kernels
// on the same data). The model has convolutions (im2col state kept per frame), matrix
// products (OpenBLAS), pooling, reshapes and a softmax. Built and run under
// ThreadSanitizer too (docs/development.md), where a data race fails the test.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "onnx_light/runtime/session.h"
#include "test_models.h"

namespace onnx_light::testing {
namespace {

onnx::TensorProto Weights(const std::string& name, const std::vector<int64_t>& dims,
                          uint32_t seed) {
  onnx::TensorProto t;
  t.name = name;
  t.data_type = static_cast<int32_t>(DataType::kFloat);
  t.dims = dims;
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  for (int64_t i = 0; i < n; ++i)
    t.float_data.push_back(dist(rng));
  return t;
}

// x [N, 3, H, W] -> Conv 3x3 (8) -> Relu -> Conv 1x1 (16) -> GlobalAveragePool ->
// Flatten -> MatMul [16, 5] -> Add -> Softmax -> y [N, 5]
onnx::ModelProto SmallCnn() {
  onnx::NodeProto c1 = Node("Conv", {"x", "w1", "b1"}, {"c1"}, "", "conv1");
  onnx::AttributeProto* pads = c1.attribute.Add();
  pads->name = std::string("pads");
  pads->ints = {1, 1, 1, 1};
  pads->type = static_cast<int32_t>(onnx::AttributeType::kInts);
  onnx::ModelProto m =
      Model({c1, Node("Relu", {"c1"}, {"r1"}), Node("Conv", {"r1", "w2"}, {"c2"}, "", "conv2"),
             Node("GlobalAveragePool", {"c2"}, {"p"}), Node("Flatten", {"p"}, {"f"}),
             Node("MatMul", {"f", "w3"}, {"mm"}), Node("Add", {"mm", "b3"}, {"logits"}),
             Node("Softmax", {"logits"}, {"y"})},
            {TensorInfo("x", 1, {-1, 3, -1, -1}, true, {"N", "", "H", "W"})},
            {TensorInfo("y", 1, {-1, 5}, true, {"N", ""})});
  onnx::GraphProto* g = m.graph.mutable_get();
  g->initializer.push_back(Weights("w1", {8, 3, 3, 3}, 1));
  g->initializer.push_back(Weights("b1", {8}, 2));
  g->initializer.push_back(Weights("w2", {16, 8, 1, 1}, 3));
  g->initializer.push_back(Weights("w3", {16, 5}, 4));
  g->initializer.push_back(Weights("b3", {5}, 5));
  return m;
}

Tensor Input(int64_t n, int64_t h, int64_t w, uint32_t seed) {
  Tensor x = *Tensor::Allocate(DataType::kFloat, *Shape::Create({n, 3, h, w}));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < x.num_elements(); ++i)
    x.mutable_data<float>()[i] = dist(rng);
  return x;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

// Each thread changes shapes every `repeat` runs: with repeat > 1 the frames' memory plans
// (SessionOptions::enable_mem_pattern) are made and used.
void RunMany(int intra_op_threads, int repeat = 1) {
  SessionOptions options;
  options.intra_op_threads = intra_op_threads;
  auto created = RuntimeSession::Create(SmallCnn(), options);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const RuntimeSession& session = **created;

  // Shapes that differ per thread (batch, height, width), with lone-run references.
  struct Case {
    Tensor x;
    Tensor want;
  };
  std::vector<Case> cases;
  const int64_t dims[][3] = {{1, 8, 8}, {2, 5, 7},   {3, 16, 12}, {1, 1, 1},
                             {4, 9, 3}, {2, 32, 32}, {1, 13, 6},  {3, 4, 20}};
  uint32_t seed = 10;
  for (const auto& d : dims) {
    Case c{Input(d[0], d[1], d[2], seed++), Tensor()};
    auto out = session.Run({{"x", c.x}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    c.want = std::move((*out)[0]);
    cases.push_back(std::move(c));
  }

  constexpr int kThreads = 8, kRuns = 40;
  std::atomic<int> mismatches{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        const Case& c =
            cases[static_cast<size_t>((t + r / repeat) % static_cast<int>(cases.size()))];
        auto out = session.Run({{"x", c.x}});
        if (!out.ok()) {
          ++errors;
        } else if (!SameBits((*out)[0], c.want)) {
          ++mismatches;
          float worst = 0;
          for (int64_t i = 0; i < c.want.num_elements(); ++i)
            worst = std::max(worst, std::abs((*out)[0].data<float>()[i] - c.want.data<float>()[i]));
          std::printf("DIFF shape %s worst %g\n", c.x.shape().ToString().c_str(), worst);
        }
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  if (repeat > 1) {
    EXPECT_GT(session.memory_pattern_stats().planned_frames, 0u);
  }
}

TEST(Concurrency, ManyThreadsDifferentShapesOneSession) {
  RunMany(1);
}

TEST(Concurrency, ManyThreadsOneSessionWithAnIntraOpPool) {
  RunMany(2);
}

TEST(Concurrency, ManyThreadsRepeatingShapesUseMemoryPlans) {
  RunMany(1, 5);
}

// One RunOptions shared by runs on several threads: Terminate() from the main thread
// stops every one of them (each keeps running until it sees CANCELLED), and the session
// runs normally afterwards. Under ThreadSanitizer this is also the check that the flag is
// read and written without a race.
TEST(Concurrency, TerminateStopsRunsOnOtherThreads) {
  auto created = RuntimeSession::Create(SmallCnn(), SessionOptions{});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const RuntimeSession& session = **created;
  const Tensor x = Input(2, 16, 16, 7);
  RunOptions options;
  std::atomic<int> cancelled{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < 1000000; ++r) {
        auto out = session.Run({{"x", x}}, {}, &options);
        if (out.ok()) continue;
        (out.status().code() == StatusCode::kCancelled ? cancelled : other)++;
        return;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  options.Terminate();
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(cancelled.load(), 3);
  EXPECT_EQ(other.load(), 0);
  EXPECT_TRUE(session.Run({{"x", x}}).ok());
  options.Reset();
  EXPECT_TRUE(session.Run({{"x", x}}, {}, &options).ok());
}

// A memory budget is per run: concurrent runs that each fit it all succeed, and one that
// does not fit fails alone with RESOURCE_EXHAUSTED.
TEST(Concurrency, EachRunHasItsOwnMemoryBudget) {
  SessionOptions so;
  so.memory_budget_bytes = 1 << 20;  // a 2 x 3 x 16 x 16 input's run holds ~40 KiB
  auto created = RuntimeSession::Create(SmallCnn(), so);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const RuntimeSession& session = **created;
  const Tensor small = Input(2, 16, 16, 3), big = Input(4, 64, 64, 4);  // conv1: 512 KiB
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < 50; ++r) {
        if (!session.Run({{"x", small}}).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  auto out = session.Run({{"x", big}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(out.status().message().find("memory budget is 1048576 bytes"), std::string::npos);
}

}  // namespace
}  // namespace onnx_light::testing
