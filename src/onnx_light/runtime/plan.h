// The plan: a graph once the passes are done, with what runs need — one kernel slot per
// node, the values each node releases, value lifetimes, the compiled subgraphs of its
// nodes, and its idle frames. Immutable after compilation (the frame pool and the kernel
// slots are thread-safe), shared by every run. A session owns one; a Subgraph owns one.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "frame.h"
#include "graph.h"
#include "onnx_light/runtime/kernel.h"
#include "onnx_light/runtime/session_options.h"
#include "onnx_light/runtime/subgraph.h"

namespace onnx_light {

// A node's kernel: created once, with the session for built-in kernels (plan.cc), by the
// first run that reaches the node for the plugin host's (which relies on this laziness),
// then shared read-only by every run. Only the creation takes
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

struct Plan {
  Graph graph;
  const SessionOptions* options = nullptr;           // the session's: limits, caches, profiler
  std::vector<std::unique_ptr<KernelSlot>> kernels;  // by node (see KernelSlot)
  std::vector<std::vector<int>> release;             // by node: values whose last reader it is
  // The node after which a value is released (its last reader, or its producer when
  // nothing reads it); nodes.size() for graph outputs, which outlive the run.
  std::vector<int> last_use;
  mutable FramePool frames;
};

// What compiling a graph did: nodes the passes removed, by pass name (subgraphs included).
using PassReport = std::vector<std::pair<const char*, size_t>>;

// Compiles `graph` (built by BuildGraph) under the session's `options`: runs the passes of
// its level, tells each node which inputs are constants, compiles its nodes' subgraphs
// (their enclosing constants made theirs) and plans value lifetimes. `options` must
// outlive the plan.
Result<std::unique_ptr<Plan>> CompilePlan(Graph graph, const SessionOptions& options,
                                          PassReport* report);

// A Subgraph's insides. Built with its node (graph.cc): `graph` typed and checked, the
// values it reads from enclosing graphs listed with the node input each comes from. Then
// compiled with the enclosing plan: `plan`, and the outer values that are not constants
// there, fed by every run.
struct Subgraph::Impl {
  std::string name;
  std::unique_ptr<Graph> graph;                  // until compiled
  std::vector<int> outer_values;                 // values of `graph` read from enclosing graphs
  std::vector<size_t> outer_positions;           // for each: the node input it arrives as
  std::unique_ptr<Plan> plan;                    // once compiled
  std::vector<std::pair<int, size_t>> bindings;  // outer values fed per run: (value, input)
  // What a run's memory plan is keyed on, once compiled: its inputs, then the bindings'
  // values (all of them fed), made once rather than at every run of a loop body.
  std::vector<int> entries;
  std::vector<bool> entries_fed;
  const Graph& built() const { return plan ? plan->graph : *graph; }
};

}  // namespace onnx_light
