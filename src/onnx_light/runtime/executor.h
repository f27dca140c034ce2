// The executor: runs a plan on a frame of its own, so that any number of threads may run
// one plan at once. A run is four steps (tract's set_inputs / exec / outputs split), each
// on the run's frame: bind the inputs, pick the memory plan of their shapes, run the
// nodes, collect the outputs. A session runs its plan by name (RunPlan); a Subgraph binds
// its inputs by position and runs the same steps (subgraph.cc).
#pragma once

#include <string>
#include <vector>

#include "frame.h"
#include "onnx_light/runtime/profiler.h"
#include "onnx_light/runtime/run_control.h"
#include "onnx_light/runtime/value.h"
#include "plan.h"

namespace onnx_light {

class ThreadPool;

// What a run runs on and under.
struct RunEnv {
  ThreadPool* pool = nullptr;
  const RunControl* control = nullptr;  // null: nothing to check between nodes
  Profiler* profiler = nullptr;         // null: no timings
  // A session's run adds a "model_run" event around its nodes'; a subgraph's nodes join
  // the run of the node that runs them.
  bool run_event = false;
};

// Checks a value given for a graph input described by `meta`: kind (tensor, sequence,
// none for an optional), element type, bool bytes, rank limit and declared dimensions.
// Errors name the input.
Status CheckInput(const ValueMeta& meta, const Value& value, const ShapeLimits& limits);

// Step 1 for a session: binds `feeds` (by input name, each at most once) to the frame's
// values; fed[k] says whether input k got one. Every input without a default must be fed.
Status BindFeeds(const Plan& plan, const std::vector<NamedValue>& feeds, Frame& frame,
                 std::vector<bool>* fed);

// Step 2: the memory plan for the shapes of `values` (fed[k] false: value k was not
// given), recorded on the first run with those shapes and used by the runs that repeat
// them.
void PickMemoryPlan(const std::vector<int>& values, const std::vector<bool>& fed, Frame& frame);

// Step 3: runs the plan's nodes in order (those marked in `needed`; all when it is
// empty), releasing each value after its last reader. A node's error is prefixed with its
// description (KernelInfo::Describe) here, once: kernels return the bare reason.
Status RunNodes(const Plan& plan, const RunEnv& env, const std::vector<char>& needed, Frame& frame);

// Step 4: the values `wanted`, owned by the caller alone (views of feeds or constants, and
// storage shared with other values, are copied). With `share_within_frame` (a subgraph's
// run, read by the kernel that runs it), storage whose only other holders are this frame's
// values or the other outputs is not copied: the outputs may share it.
Result<std::vector<Value>> CollectOutputs(const Plan& plan, const std::vector<int>& wanted,
                                          Frame& frame, bool share_within_frame = false);

// A session's run: the four steps for `feeds` and the outputs named (all when empty).
Result<std::vector<Value>> RunPlan(const Plan& plan, const std::vector<NamedValue>& feeds,
                                   const std::vector<std::string>& output_names, const RunEnv& env);

}  // namespace onnx_light
