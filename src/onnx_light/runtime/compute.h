// Running one kernel, for the executor and for constant folding.
#pragma once

#include <cstdint>

#include "onnx_light/runtime/kernel.h"

namespace onnx_light {

// kernel.Compute(ctx) with any exception it throws turned into a status (the caller names
// the node, as for any error of the kernel), so none leaves the runtime: std::bad_alloc (an
// allocation too large for the machine, where no memory budget refused it first) is
// RESOURCE_EXHAUSTED; anything else is a bug in onnx-light and INTERNAL, "the kernel threw ..."
// (which the fuzzers treat as a crash).
Status ComputeNode(const KernelBase& kernel, KernelContext& ctx);

// How many exceptions ComputeNode has caught in this process (the fuzzers count a change
// as a crash; a message can't tell, since a model's node names appear in it).
uint64_t KernelExceptionsCaught();

}  // namespace onnx_light
