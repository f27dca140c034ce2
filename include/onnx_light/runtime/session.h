// RuntimeSession: runs an ONNX model on the CPU.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onnx_light/core/shape.h"
#include "onnx_light/core/tensor.h"
#include "onnx_light/onnx/model_io.h"
#include "onnx_light/onnx/onnx.h"
#include "onnx_light/runtime/kernel.h"
#include "onnx_light/runtime/kernel_registry.h"
#include "onnx_light/runtime/profiler.h"
#include "onnx_light/runtime/subgraph.h"
#include "onnx_light/runtime/value.h"

namespace onnx_light {

class ThreadPool;

// How much the session rewrites the graph before planning it (ONNX Runtime's levels and
// numbers). basic: constant folding, Identity/Dropout removal, dead nodes removed.
// extended and all: the same today (fusions are to come).
enum class GraphOptimizationLevel { kNone = 0, kBasic = 1, kExtended = 2, kAll = 99 };

struct SessionOptions {
  // The kernels to use. Null means the built-in CPU kernels; layer a registry over
  // KernelRegistry::BuiltinCpu() to add kernels for this session only.
  std::shared_ptr<const KernelRegistry> registry;
  // Threads for one kernel (the calling thread included). 1: everything on the caller;
  // 0: one per physical core this process may use (PhysicalCores(), as ONNX Runtime's 0).
  int intra_op_threads = 1;
  // Limits on every runtime tensor (inputs and outputs of every node).
  ShapeLimits shape_limits;
  uint64_t max_tensor_bytes = uint64_t{16} << 30;
  // The most bytes the tensors made by a run's nodes may hold at once (intermediates and
  // outputs, subgraph runs included; not the feeds, the weights or kernels' scratch): a
  // node whose outputs would go past it fails the run with RESOURCE_EXHAUSTED before
  // allocating. Per run: concurrent runs have a budget each. 0: no budget.
  uint64_t memory_budget_bytes = 0;
  // Freed buffers are kept for the next run, up to this many bytes per frame (one frame
  // per concurrent run; 0 disables the cache).
  size_t buffer_cache_bytes = size_t{512} << 20;
  // Plan the memory of each input-shape signature (ONNX Runtime's memory pattern): the
  // first run with new input shapes records what every node allocates; when the next run
  // repeats them, the intermediate values get offsets in one arena, packed by lifetime,
  // and the runs that follow use it as long as the shapes repeat. Off: every tensor comes
  // from the buffer cache.
  bool enable_mem_pattern = true;
  // Nodes whose inputs are all constants (initializers not backing a graph input,
  // Constant nodes, earlier folded nodes) run once at creation and become constants.
  // Control-flow nodes are never folded; a node whose kernel fails is left to fail at
  // run time, as it would unfolded.
  bool constant_folding = true;
  GraphOptimizationLevel graph_optimization_level = GraphOptimizationLevel::kAll;
  // Passes not to run, by name (docs/runtime.md lists them), as ONNX Runtime's
  // disabled_optimizers: to see what one fusion does, or to step around one. A name that
  // is no pass fails session creation.
  std::vector<std::string> disabled_passes;
  // If set, the optimized graph (after the passes and constant folding) is written here as
  // an .onnx file at session creation: what will run, in standard ONNX, loadable again.
  std::string optimized_model_path;
  // Record every node's time in every run (RuntimeSession::profiler()). Costs two clock
  // reads per node and one lock per run.
  bool enable_profiling = false;
  // Where the timings go. Left null, enable_profiling makes one for the session; a session
  // passes its own to the sessions of its subgraphs (If, Loop, Scan), so their nodes show
  // up in the enclosing session's profile.
  std::shared_ptr<Profiler> profiler;
  onnx::LoadOptions load;
};

// Controls for one run (ONNX Runtime's RunOptions): Terminate() from any thread stops a
// run in progress with CANCELLED, and a timeout stops it with DEADLINE_EXCEEDED. Both are
// checked before every node and every Loop or Scan iteration (subgraph runs included), so
// a run stops within one kernel's time. A terminated RunOptions stops every run it is
// given until Reset().
class RunOptions {
 public:
  void Terminate() noexcept { terminate_.store(true, std::memory_order_relaxed); }
  void Reset() noexcept { terminate_.store(false, std::memory_order_relaxed); }
  bool terminated() const noexcept { return terminate_.load(std::memory_order_relaxed); }
  // The longest a run may take, from its start; zero or less: no limit.
  std::chrono::nanoseconds timeout{0};
  // The controls a run started now checks.
  RunControl Control() const;

 private:
  std::atomic<bool> terminate_{false};
};

// Name, element type and shape of a graph input or output. A dimension is a number
// (dims[i] >= 0), a symbol (dim_params[i] non-empty, dims[i] = -1) or unknown (-1, "").
struct ValueMeta {
  std::string name;
  DataType type = DataType::kUndefined;  // for a sequence or an optional: its element type
  ValueKind kind = ValueKind::kTensor;
  bool is_sequence() const noexcept { return kind == ValueKind::kSequence; }
  bool is_optional() const noexcept { return kind == ValueKind::kOptional; }
  bool has_shape = false;
  std::vector<int64_t> dims;
  std::vector<std::string> dim_params;
};

using NamedTensor = std::pair<std::string, Tensor>;

using NamedValue = std::pair<std::string, Value>;

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

  const std::vector<ValueMeta>& inputs() const noexcept { return inputs_; }
  const std::vector<ValueMeta>& outputs() const noexcept { return outputs_; }
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
  // The forms subgraph kernels use: the enclosing run's controls (may be null).
  Result<std::vector<Tensor>> RunUnder(const std::vector<NamedTensor>& feeds,
                                       const RunControl* control) const;
  Result<std::vector<Value>> RunValuesUnder(const std::vector<NamedValue>& feeds,
                                            const std::vector<std::string>& output_names,
                                            const RunControl* control) const;

  struct Plan;
  struct Frame;
  class FramePool;
  class FrameLease;

 private:
  RuntimeSession() = default;
  Status Build();

  std::shared_ptr<onnx::ModelProto> model_;
  SessionOptions options_;
  std::vector<ValueMeta> inputs_;
  std::vector<ValueMeta> outputs_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<FramePool> frames_;
  SubgraphScope scope_;  // this session, for the subgraph kernels of its nodes
  size_t folded_nodes_ = 0;
  size_t removed_nodes_ = 0;
};

}  // namespace onnx_light
