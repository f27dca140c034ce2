#include "memory_pattern.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace onnx_light {
namespace {

// Four values of a chain of four nodes: v0 = n0(input), v1 = n1(v0), v2 = n2(v1),
// v3 = n3(v2); v3 is the graph output (outlives the run).
struct Chain {
  std::vector<int> first{0, 1, 2, 3};
  std::vector<int> last{1, 2, 3, 4};
  MemoryPattern pattern{&first, &last, 4};
  std::vector<int64_t> sig{1, 8};

  void RecordRun(size_t bytes) {
    pattern.BeginRun(sig);
    ASSERT_TRUE(pattern.recording());
    for (int v = 0; v < 4; ++v)
      pattern.Record(v, bytes);
    pattern.EndRun(true);
  }
  Tensor Place(int v) {
    Result<Tensor> t = pattern.Allocate(v, DataType::kFloat, Shape(*Shape::Create({8})), 32);
    EXPECT_TRUE(t.ok());
    return t.ok() ? *t : Tensor();
  }
};

TEST(MemoryPattern, PlansOnTheSecondRunWithTheSameShapes) {
  Chain c;
  c.RecordRun(4096);
  c.pattern.BeginRun(c.sig);
  ASSERT_TRUE(c.pattern.planned());
  // v0 and v2 never live together, nor v1 and v3 (the output is not placed): two slots.
  EXPECT_EQ(c.pattern.placed_values(), 3u);
  EXPECT_EQ(c.pattern.arena_bytes(), 2u * 4096);
  Tensor t0 = c.Place(0);
  Tensor t1 = c.Place(1);
  ASSERT_TRUE(t0.is_defined() && t1.is_defined());
  EXPECT_NE(t0.raw_data(), t1.raw_data());  // n1 reads v0 while writing v1
  t0 = Tensor();                            // released after n1
  Tensor t2 = c.Place(2);
  ASSERT_TRUE(t2.is_defined());
  EXPECT_NE(t2.raw_data(), t1.raw_data());
  EXPECT_FALSE(c.Place(3).is_defined());  // the graph output comes from the pool
  c.pattern.EndRun(true);
  t1 = Tensor();
  t2 = Tensor();
  c.pattern.BeginRun(c.sig);
  EXPECT_TRUE(c.pattern.planned());  // kept while the shapes repeat
  c.pattern.EndRun(true);
}

TEST(MemoryPattern, ATenantThatLivesOnKeepsItsBytes) {
  Chain c;
  c.RecordRun(4096);
  c.pattern.BeginRun(c.sig);
  ASSERT_TRUE(c.pattern.planned());
  Tensor t0 = c.Place(0);
  Tensor t1 = c.Place(1);
  Tensor kept = t0;  // a view the plan did not know of keeps v0's bytes in use
  t0 = Tensor();
  EXPECT_FALSE(c.Place(2).is_defined());  // v2 would overwrite them: the pool serves it
  kept = Tensor();
  t1 = Tensor();
  c.pattern.EndRun(true);
  c.pattern.BeginRun(c.sig);  // the plan failed: this run records a new one
  EXPECT_TRUE(c.pattern.recording());
  c.pattern.EndRun(true);
}

TEST(MemoryPattern, ViewsExtendTheirSourcesLifetime) {
  Chain c;
  c.pattern.BeginRun(c.sig);
  for (int v : {0, 2, 3})
    c.pattern.Record(v, 4096);
  c.pattern.RecordAlias(1, 0);  // v1 is a view of v0: v0's bytes live until n2
  c.pattern.EndRun(true);
  c.pattern.BeginRun(c.sig);
  ASSERT_TRUE(c.pattern.planned());
  Tensor t0 = c.Place(0);
  Tensor t2 = c.Place(2);
  ASSERT_TRUE(t0.is_defined() && t2.is_defined());
  EXPECT_NE(t0.raw_data(), t2.raw_data());
  c.pattern.EndRun(true);
}

TEST(MemoryPattern, NewShapesRecordAgainAndAlternatingShapesNeverPlan) {
  Chain c;
  c.RecordRun(4096);
  c.sig = {1, 16};
  c.pattern.BeginRun(c.sig);
  EXPECT_TRUE(c.pattern.recording());
  EXPECT_EQ(c.pattern.arena_bytes(), 0u);
  c.pattern.EndRun(true);
  for (int i = 0; i < 4; ++i) {
    c.sig = {1, i % 2 ? 8 : 16};
    c.pattern.BeginRun(c.sig);
    EXPECT_FALSE(c.pattern.planned());
    c.pattern.EndRun(true);
  }
}

TEST(MemoryPattern, AnUnfinishedRecordIsNotPlanned) {
  Chain c;
  c.pattern.BeginRun(c.sig);
  c.pattern.Record(0, 64);
  c.pattern.EndRun(false);  // failed, or ran only some nodes
  c.pattern.BeginRun(c.sig);
  EXPECT_TRUE(c.pattern.recording());
  c.pattern.EndRun(true);
}

TEST(MemoryPattern, LargerRequestsThanRecordedUseThePool) {
  Chain c;
  c.RecordRun(64);
  c.pattern.BeginRun(c.sig);
  ASSERT_TRUE(c.pattern.planned());
  Result<Tensor> big = c.pattern.Allocate(0, DataType::kFloat, Shape(*Shape::Create({64})), 256);
  ASSERT_TRUE(big.ok());
  EXPECT_FALSE(big->is_defined());
  Result<Tensor> str = c.pattern.Allocate(1, DataType::kString, Shape(*Shape::Create({1})), 32);
  ASSERT_TRUE(str.ok());
  EXPECT_FALSE(str->is_defined());
  c.pattern.EndRun(true);
}

}  // namespace
}  // namespace onnx_light
