// What a run checks while it goes (RunOptions in session_options.h makes one): a flag
// another thread may set, a deadline and a memory budget. The runs of subgraphs (If, Loop,
// Scan) check their parent's.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "onnx_light/core/status.h"

namespace onnx_light {

// The bytes a run's node outputs hold at once, against SessionOptions::memory_budget_bytes.
struct RunBudget {
  uint64_t limit = 0;
  std::atomic<uint64_t> used{0};
  // Whether `bytes` more fit; *held: what the run holds now (for the error message).
  bool Fits(uint64_t bytes, uint64_t* held) const noexcept {
    *held = used.load(std::memory_order_relaxed);
    return bytes <= limit && *held <= limit - bytes;
  }
};

// Bytes a kernel keeps outside its outputs while it runs (a Loop's or Scan's per-iteration
// results before they are stacked), charged to the run's memory budget while the hold
// lives. Without a budget it only counts.
class BudgetHold {
 public:
  explicit BudgetHold(RunBudget* budget = nullptr) : budget_(budget) {}
  BudgetHold(const BudgetHold&) = delete;
  BudgetHold& operator=(const BudgetHold&) = delete;
  ~BudgetHold() {
    if (budget_ != nullptr) budget_->used.fetch_sub(bytes_, std::memory_order_relaxed);
  }
  // RESOURCE_EXHAUSTED (naming `what`) when `bytes` more would pass the budget.
  Status Add(uint64_t bytes, const std::string& what);
  // The same with the name made only when there is a budget to pass (a Loop's or Scan's
  // every iteration built its message for nothing: a tenth of a small cell's step).
  template <typename Name>
  Status AddNamed(uint64_t bytes, const Name& name) {
    return Add(bytes, budget_ != nullptr ? name() : std::string());
  }
  uint64_t bytes() const noexcept { return bytes_; }

 private:
  RunBudget* budget_;
  uint64_t bytes_ = 0;
};

struct RunControl {
  const std::atomic<bool>* terminate = nullptr;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  RunBudget* budget = nullptr;  // null: no budget
  // CANCELLED or DEADLINE_EXCEEDED when the run must stop, else OK.
  Status Check() const;
};

}  // namespace onnx_light
