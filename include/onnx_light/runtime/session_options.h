// How a session is made (SessionOptions) and how one run of it is controlled (RunOptions).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "onnx_light/core/shape.h"
#include "onnx_light/onnx/model_io.h"
#include "onnx_light/runtime/kernel_registry.h"
#include "onnx_light/runtime/profiler.h"
#include "onnx_light/runtime/run_control.h"

namespace onnx_light {

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

}  // namespace onnx_light
