// What the running frame lends the node it runs, through its KernelContext: the node's
// kernel state, the frame's scratch and buffer cache, the run's controls, where budget
// charges are recorded, and the memory plan with the value index of each output. The
// executor fills one per node; kernels see it only through KernelContext's methods.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "onnx_light/core/buffer_pool.h"
#include "onnx_light/runtime/kernel.h"
#include "onnx_light/runtime/run_control.h"

namespace onnx_light {

class MemoryPattern;

struct NodeFrame {
  std::unique_ptr<KernelState>* state = nullptr;
  std::vector<float>* scratch = nullptr;
  const std::shared_ptr<BufferPool>* buffers = nullptr;
  const RunControl* control = nullptr;
  // Bytes each output charged to the run's budget (null: no budget); the executor moves
  // them to the values' ledger entries.
  std::vector<uint64_t>* charged = nullptr;
  MemoryPattern* pattern = nullptr;  // null: no memory plan
  const std::vector<int>* output_values = nullptr;
};

}  // namespace onnx_light
