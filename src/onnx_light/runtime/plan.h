// The immutable plan of a session (its graph, kernels, value lifetimes) and what one run
// owns (a Frame), shared by the planner (session.cc) and the executor (executor.cc).
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "graph.h"
#include "memory_pattern.h"
#include "onnx_light/core/buffer_pool.h"
#include "onnx_light/runtime/kernel.h"
#include "onnx_light/runtime/session.h"

namespace onnx_light {

// A node's kernel: created once, by the first run that reaches the node (the plugin host
// relies on this laziness), then shared read-only by every run. Only the creation takes
// a lock; later runs read one atomic pointer. A failed creation is not kept: the next
// run tries again and reports the same error.
class KernelSlot {
 public:
  Result<const KernelBase*> Get(const KernelDef& def, const KernelInfo& info);

 private:
  std::atomic<const KernelBase*> ready_{nullptr};
  std::mutex create_mu_;
  std::unique_ptr<KernelBase> owner_;
};

// The graph once the passes are done, with what runs need: one kernel slot per node, the
// values each node releases, and value lifetimes. Immutable after session creation.
struct RuntimeSession::Plan : Graph {
  std::vector<std::unique_ptr<KernelSlot>> kernels;  // by node, created at the first run
  std::vector<std::vector<int>> release;             // by node: values whose last reader it is
  // The node after which a value is released (its last reader, or its producer when
  // nothing reads it); nodes.size() for graph outputs, which outlive the run.
  std::vector<int> last_use;
};

// What a run owns besides its values: each node's kernel state and a buffer cache. A
// frame serves one run at a time and is reused by later runs, so scratch memory and
// shape-keyed caches survive between runs without being shared between threads.
struct RuntimeSession::Frame {
  std::vector<Value> values;                         // by value index
  std::vector<std::unique_ptr<KernelState>> states;  // by node index
  std::shared_ptr<BufferPool> buffers;
  std::vector<float> scratch;             // KernelContext::Scratch, shared by the frame's nodes
  std::unique_ptr<MemoryPattern> memory;  // null when SessionOptions::enable_mem_pattern is off
  std::vector<int64_t> signature;         // the running inputs' shapes (MemoryPattern)
  std::vector<const Value*> node_inputs;  // the running node's, reused node after node
  std::vector<Value> node_outputs;
  std::vector<uint64_t> node_charged;  // bytes the running node's outputs charged the budget
  std::vector<uint64_t> charged;       // by value index: bytes held against the budget
};

// Idle frames, lock-free: a run takes one (or makes one) and puts it back; at most
// kSlots are kept for later runs.
class RuntimeSession::FramePool {
 public:
  static constexpr size_t kSlots = 16;
  ~FramePool();
  std::unique_ptr<Frame> Take();
  void Give(std::unique_ptr<Frame> frame);

 private:
  std::array<std::atomic<Frame*>, kSlots> slots_{};
};

}  // namespace onnx_light
