// RuntimeSession: runs an ONNX model on the CPU. The facade over the runtime: it builds the
// graph (graph.cc), compiles it into a plan (plan.cc: passes, kernels, lifetimes,
// subgraphs) and runs the plan (executor.cc) on a thread pool of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "onnx_light/core/tensor.h"
#include "onnx_light/onnx/onnx.h"
#include "onnx_light/runtime/kernel.h"
#include "onnx_light/runtime/session_options.h"
#include "onnx_light/runtime/value.h"

namespace onnx_light {

class ThreadPool;
struct Plan;

// Thread safety: Create is thread-safe. Any number of threads may call Run and RunValues
// on one session at once: the plan is immutable, kernels are created once and are const,
// and each run works in a frame of its own (values, kernel state, buffer cache) taken
// from a lock-free pool. Metadata accessors are immutable and safe at any time.
class RuntimeSession {
 public:
  static Result<std::unique_ptr<RuntimeSession>> Create(onnx::ModelProto model,
                                                        SessionOptions options = {});
  static Result<std::unique_ptr<RuntimeSession>> CreateFromBytes(const void* data, size_t size,
                                                                 SessionOptions options = {});
  static Result<std::unique_ptr<RuntimeSession>> CreateFromFile(const std::string& path,
                                                                SessionOptions options = {});
  ~RuntimeSession();

  const std::vector<ValueMeta>& inputs() const noexcept;
  const std::vector<ValueMeta>& outputs() const noexcept;
  const onnx::ModelProto& model() const noexcept { return *model_; }
  // Nodes that constant folding computed at creation (they do not run per Run).
  size_t folded_nodes() const noexcept { return folded_nodes_; }
  // Nodes the graph passes removed (Identity/Dropout, dead nodes), and what runs per Run.
  size_t removed_nodes() const noexcept { return removed_nodes_; }
  size_t planned_nodes() const noexcept;
  // The runs' node timings when SessionOptions::enable_profiling is set, else null.
  Profiler* profiler() const noexcept { return options_.profiler.get(); }
  // The graph as planned (after passes and folding) as a standard ONNX model.
  Result<onnx::ModelProto> OptimizedModel() const;

  // The memory plans (SessionOptions::enable_mem_pattern) of the frames idle now: how many
  // frames have one, the largest arena and the values placed in it. A frame being read is
  // out of the pool for that moment (a run starting then makes a frame of its own).
  struct MemoryPatternStats {
    size_t planned_frames = 0;
    size_t arena_bytes = 0;
    size_t placed_values = 0;
  };
  MemoryPatternStats memory_pattern_stats() const;

  // Runs the model. `feeds` names graph inputs (each at most once; all inputs without an
  // initializer are required); `output_names` selects outputs (empty: all, in graph order).
  // Outputs own their memory. Errors name the input or output concerned.
  // `run_options` (may be null): cancellation and a timeout.
  Result<std::vector<Tensor>> Run(const std::vector<NamedTensor>& feeds,
                                  const std::vector<std::string>& output_names = {},
                                  const RunOptions* run_options = nullptr) const;
  // Run for models with sequence inputs or outputs (tensors work too). Sequence outputs
  // share their tensors with nothing else.
  Result<std::vector<Value>> RunValues(const std::vector<NamedValue>& feeds,
                                       const std::vector<std::string>& output_names = {},
                                       const RunOptions* run_options = nullptr) const;

 private:
  RuntimeSession() = default;
  Status Build();

  std::shared_ptr<onnx::ModelProto> model_;
  SessionOptions options_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<ThreadPool> pool_;
  size_t folded_nodes_ = 0;
  size_t removed_nodes_ = 0;
};

}  // namespace onnx_light
