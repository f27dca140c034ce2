// Frames: what one run owns, the plan's pool of idle ones, a run's lease on one, and the
// run's budget ledger.
#include "frame.h"

#include "plan.h"

namespace onnx_light {

void BudgetLedger::Begin(RunBudget* budget, size_t values) {
  budget_ = budget;
  if (budget_ != nullptr) charged_.assign(values, 0);
}

std::vector<uint64_t>* BudgetLedger::NodeCharges(size_t outputs) {
  if (budget_ == nullptr) return nullptr;
  node_.assign(outputs, 0);
  return &node_;
}

void BudgetLedger::Settle(const std::vector<int>& outputs) {
  if (budget_ == nullptr) return;
  for (size_t o = 0; o < outputs.size() && o < node_.size(); ++o) {
    const int v = outputs[o];
    if (v >= 0) {
      charged_[static_cast<size_t>(v)] += node_[o];
    } else {
      budget_->used.fetch_sub(node_[o], std::memory_order_relaxed);
    }
    node_[o] = 0;
  }
}

void BudgetLedger::Release(int v) {
  if (budget_ == nullptr) return;
  budget_->used.fetch_sub(charged_[static_cast<size_t>(v)], std::memory_order_relaxed);
  charged_[static_cast<size_t>(v)] = 0;
}

void BudgetLedger::End() {
  if (budget_ == nullptr) return;
  for (uint64_t& c : charged_) {
    budget_->used.fetch_sub(c, std::memory_order_relaxed);
    c = 0;
  }
  budget_ = nullptr;
}

FramePool::~FramePool() {
  // The plan is going away: no run can hold or return a frame now.
  for (std::atomic<Frame*>& slot : slots_)
    delete slot.load(std::memory_order_acquire);
}

std::unique_ptr<Frame> FramePool::Take() {
  for (std::atomic<Frame*>& slot : slots_) {
    if (slot.load(std::memory_order_relaxed) == nullptr) continue;
    if (Frame* f = slot.exchange(nullptr, std::memory_order_acquire)) {
      return std::unique_ptr<Frame>(f);
    }
  }
  return nullptr;
}

void FramePool::Give(std::unique_ptr<Frame> frame) {
  for (std::atomic<Frame*>& slot : slots_) {
    Frame* expected = nullptr;
    if (slot.compare_exchange_strong(expected, frame.get(), std::memory_order_release)) {
      frame.release();
      return;
    }
  }
}  // more frames than slots: this one is freed

FrameLease::FrameLease(const Plan& plan) : plan_(plan) {
  frame_ = plan.frames.Take();
  if (frame_ == nullptr) {
    frame_ = std::make_unique<Frame>();
    frame_->states.resize(plan.graph.nodes.size());
    const SessionOptions& options = *plan.options;
    if (options.buffer_cache_bytes > 0) {
      frame_->buffers = std::make_shared<BufferPool>(options.buffer_cache_bytes);
    }
    if (options.enable_mem_pattern) {
      frame_->memory = std::make_unique<MemoryPattern>(&plan.graph.producer, &plan.last_use,
                                                       static_cast<int>(plan.graph.nodes.size()));
    }
  }
}

FrameLease::~FrameLease() {
  frame_->ledger.End();
  // The values emptied in place, the vector kept at its size: most were released during
  // the run, and a loop body's next step would construct them all again (5% of a small
  // body's step).
  for (Value& v : frame_->values) {
    if (v.tensor.is_defined() || v.is_container() || v.none) v = Value();
  }
  if (frame_->memory) frame_->memory->EndRun(complete_);
  plan_.frames.Give(std::move(frame_));
}

}  // namespace onnx_light
