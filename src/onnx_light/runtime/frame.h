// What one run owns (a Frame), the pool of idle frames a plan keeps, and the lease a run
// holds on its frame. A frame serves one run at a time and is reused by later runs, so
// scratch memory and shape-keyed caches survive between runs without being shared between
// threads.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "memory_pattern.h"
#include "onnx_light/core/buffer_pool.h"
#include "onnx_light/runtime/kernel.h"
#include "onnx_light/runtime/run_control.h"
#include "onnx_light/runtime/value.h"

namespace onnx_light {

struct Plan;

// The run's memory budget, value by value: what each value's tensors charged, given back
// when the value is released and, for what is left, when the run ends however it ends.
// Without a budget every call is a no-op.
class BudgetLedger {
 public:
  // Starts a run of `values` values under `budget` (null: none).
  void Begin(RunBudget* budget, size_t values);
  RunBudget* budget() const noexcept { return budget_; }
  // Bytes the running node's outputs charged (NodeFrame::charged), one entry per output.
  std::vector<uint64_t>* NodeCharges(size_t outputs);
  // Moves the running node's charges to its output values (`outputs`: value index per
  // output, -1 for an unused output, whose charge is given back at once).
  void Settle(const std::vector<int>& outputs);
  // Value v is gone: its charge goes back.
  void Release(int v);
  // The run ended: everything still charged goes back.
  void End();

 private:
  RunBudget* budget_ = nullptr;
  std::vector<uint64_t> charged_;  // by value index
  std::vector<uint64_t> node_;     // the running node's, by output
};

struct Frame {
  std::vector<Value> values;                         // by value index
  std::vector<std::unique_ptr<KernelState>> states;  // by node index
  std::shared_ptr<BufferPool> buffers;
  std::vector<float> scratch;             // KernelContext::Scratch, shared by the frame's nodes
  std::unique_ptr<MemoryPattern> memory;  // null when SessionOptions::enable_mem_pattern is off
  std::vector<int64_t> signature;         // the running inputs' shapes (MemoryPattern)
  std::vector<const Value*> node_inputs;  // the running node's, reused node after node
  std::vector<Value> node_outputs;
  BudgetLedger ledger;
};

// Idle frames, lock-free: a run takes one (or makes one) and puts it back; at most
// kSlots are kept for later runs.
class FramePool {
 public:
  static constexpr size_t kSlots = 16;
  FramePool() = default;
  FramePool(const FramePool&) = delete;
  FramePool& operator=(const FramePool&) = delete;
  ~FramePool();
  std::unique_ptr<Frame> Take();
  void Give(std::unique_ptr<Frame> frame);

 private:
  std::array<std::atomic<Frame*>, kSlots> slots_{};
};

// A frame for the length of one run: taken from the plan's pool (or made for the plan),
// cleared of the run's values, its budget given back, and returned at the end.
class FrameLease {
 public:
  explicit FrameLease(const Plan& plan);
  ~FrameLease();
  FrameLease(const FrameLease&) = delete;
  FrameLease& operator=(const FrameLease&) = delete;
  // The run got through its nodes, all of them when `all`: its record may become a
  // memory plan.
  void set_complete_if(bool all) { complete_ = all; }
  Frame& frame() { return *frame_; }

 private:
  const Plan& plan_;
  std::unique_ptr<Frame> frame_;
  bool complete_ = false;
};

}  // namespace onnx_light
