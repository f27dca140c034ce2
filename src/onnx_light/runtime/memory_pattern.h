// MemoryPattern: a frame's memory plan for one input-shape signature (ORT's "memory
// pattern", XNNPACK's reshape-once). The first run with a signature allocates from the
// frame's buffer pool and records how many bytes each value took and which values are
// views of others; when the next run has the same signature, every recorded value gets an
// offset in one arena, packed by lifetime, and the runs that follow place their tensors
// there without a pool lookup. A change of signature drops the arena and records again,
// so alternating shapes never build one.
//
// The plan never trusts itself: a value is placed only after the values that had its
// bytes before it in the run are checked to be gone (a view or a copy may keep a tensor
// alive past its planned end); if one lives on, that value takes pool memory instead and
// the next run records a new plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "onnx_light/core/status.h"
#include "onnx_light/core/tensor.h"

namespace onnx_light {

class MemoryPattern {
 public:
  // Value lifetimes in node order: first[v] is the producing node (< 0: not produced by a
  // node: an input or a constant); last[v] the last node that reads it (>= the node count:
  // it outlives the run, as a graph output does). The vectors must outlive the pattern.
  MemoryPattern(const std::vector<int>* first, const std::vector<int>* last, int node_count)
      : first_(first), last_(last), node_count_(node_count) {}

  // Starts a run whose inputs have `signature` (ranks and dimensions, any encoding that
  // differs when the shapes do).
  void BeginRun(const std::vector<int64_t>& signature);
  // Ends it; `complete` when every node ran and the run succeeded (only such a run's
  // record becomes a plan).
  void EndRun(bool complete);

  // Recording: value v was allocated `bytes` bytes; value v is a view into `source`.
  bool recording() const noexcept { return mode_ == Mode::kRecording; }
  void Record(int v, size_t bytes);
  void RecordAlias(int v, int source);

  // Planned runs: a tensor in the arena for value v, or an undefined tensor when v has no
  // place there (then the caller allocates as usual).
  bool planned() const noexcept { return mode_ == Mode::kPlanned; }
  Result<Tensor> Allocate(int v, DataType type, Shape&& shape, size_t bytes);

  size_t arena_bytes() const noexcept { return arena_bytes_; }
  size_t placed_values() const noexcept { return placed_; }

 private:
  enum class Mode { kRecording, kRecorded, kPlanned, kUnused };
  void Build();
  bool BytesFree(int v);
  // Whether a tensor still holds v's bytes.
  bool Occupied(size_t v) const { return !tenant_[v].expired(); }

  const std::vector<int>* first_;
  const std::vector<int>* last_;
  int node_count_;
  Mode mode_ = Mode::kRecording;
  std::vector<int64_t> signature_;
  bool has_signature_ = false;
  // The record of the last run with the signature.
  std::vector<size_t> recorded_;  // bytes by value, 0: not allocated through the context
  std::vector<int> alias_;        // the value whose memory v views, -1: none
  // The plan.
  static constexpr size_t kNotPlaced = ~size_t{0};
  std::vector<size_t> offset_;            // by value
  std::vector<size_t> size_;              // by value
  std::vector<std::vector<int>> before_;  // by value: the last earlier tenants of its bytes
  std::vector<std::weak_ptr<const void>> tenant_;  // by value: its tensor's storage handle
  std::vector<uint32_t> placed_in_;                // by value: the run that placed it
  std::vector<uint32_t> cleared_in_;               // by value: the run that found its bytes free
  uint32_t run_ = 0;
  bool conflict_ = false;  // a tenant outlived its plan in this run
  std::shared_ptr<void> arena_;
  size_t arena_bytes_ = 0;
  size_t placed_ = 0;
};

}  // namespace onnx_light
