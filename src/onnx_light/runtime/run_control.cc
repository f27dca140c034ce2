// A run's controls: cancellation, the deadline and the memory budget (run_control.h), and
// RunOptions, which makes them (session_options.h).
#include "onnx_light/runtime/run_control.h"

#include "onnx_light/runtime/session_options.h"

namespace onnx_light {

Status BudgetHold::Add(uint64_t bytes, const std::string& what) {
  if (budget_ != nullptr) {
    uint64_t held = 0;
    if (!budget_->Fits(bytes, &held)) {
      return Status(StatusCode::kResourceExhausted,
                    what + " needs " + std::to_string(bytes) + " bytes more; the run holds " +
                        std::to_string(held) + " and its memory budget is " +
                        std::to_string(budget_->limit) + " bytes");
    }
    budget_->used.fetch_add(bytes, std::memory_order_relaxed);
  }
  bytes_ += bytes;
  return Status::Ok();
}

Status RunControl::Check() const {
  if (terminate != nullptr && terminate->load(std::memory_order_relaxed)) {
    return Status(StatusCode::kCancelled, "the run was cancelled (RunOptions::Terminate)");
  }
  if (deadline != std::chrono::steady_clock::time_point::max() &&
      std::chrono::steady_clock::now() >= deadline) {
    return Status(StatusCode::kDeadlineExceeded, "the run passed its RunOptions timeout");
  }
  return Status::Ok();
}

RunControl RunOptions::Control() const {
  RunControl c;
  c.terminate = &terminate_;
  if (timeout.count() > 0) {
    const auto now = std::chrono::steady_clock::now();
    // A timeout past the clock's range is no limit (now + timeout would wrap around).
    if (timeout < std::chrono::steady_clock::time_point::max() - now) c.deadline = now + timeout;
  }
  return c;
}

}  // namespace onnx_light
