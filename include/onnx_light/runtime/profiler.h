// Profiler: per-node timings of a session's runs, written as a Chrome trace (the format
// ONNX Runtime's profiler writes; Perfetto and chrome://tracing open it) and summed by op
// type. A session records only when SessionOptions::enable_profiling is set.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "onnx_light/core/status.h"

namespace onnx_light {

struct ProfileEvent {
  enum class Category : uint8_t { kSession, kNode };
  Category category = Category::kNode;
  std::string name;      // the node's name (or "model_run")
  std::string op_type;   // "domain:Op" outside the default domain
  int64_t start_ns = 0;  // since the profiler started
  int64_t duration_ns = 0;
  uint32_t thread = 0;       // a small number per calling thread
  std::string input_shapes;  // e.g. "float[1,3,224,224], float[16,3,3,3]"
};

// Per op type: summed self time (a control-flow node's subgraph nodes count as
// themselves), share of all node time, and how many times it ran.
struct OpTypeTime {
  std::string op_type;
  double total_ms = 0;
  double share = 0;  // 0..1
  int64_t calls = 0;
};

class Profiler {
 public:
  using Clock = std::chrono::steady_clock;
  Profiler() : origin_(Clock::now()) {}

  int64_t Now() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - origin_).count();
  }
  // The events of one run, added when it ends (one lock per run, none per node).
  void Add(std::vector<ProfileEvent> events);

  std::vector<ProfileEvent> Events() const;
  // Node time by op type, largest first.
  std::vector<OpTypeTime> Summary() const;
  // The events as a Chrome trace (a JSON array of complete events, times in µs).
  std::string ChromeTrace() const;
  Status WriteChromeTrace(const std::string& path) const;
  void Clear();

  // A stable number for the calling thread (a trace lane).
  static uint32_t ThreadNumber();

 private:
  Clock::time_point origin_;
  mutable std::mutex mu_;
  std::vector<ProfileEvent> events_;
};

}  // namespace onnx_light
