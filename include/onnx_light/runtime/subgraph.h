// Subgraphs: the graph attributes of If, Loop and Scan, compiled by the session that owns
// the node and run by its kernel inside the node's run.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onnx_light/core/status.h"
#include "onnx_light/onnx/onnx.h"
#include "onnx_light/runtime/value.h"

namespace onnx_light {

class KernelContext;

// The names a node's graph attributes read but do not define (their inputs, initializers
// and node outputs, nested subgraphs included), sorted and unique. The session treats them
// as extra inputs of the node, appended after its own, in this order.
std::vector<std::string> SubgraphFreeNames(const onnx::NodeProto& node);

// The free names of one graph (as above, for a single graph).
std::vector<std::string> GraphFreeNames(const onnx::GraphProto& graph);

// One graph attribute of a node, compiled once with the session: built and checked with
// the node (its values typed from the node's inputs), then optimized and planned with the
// enclosing graph, the enclosing values known before any run (weights, folded values)
// becoming its constants. It has no thread pool, frames of runs or options of its own
// beyond its plan: a run of it is part of the node's run (Run below).
//
// Thread safety: as a session's, any number of runs at once.
class Subgraph {
 public:
  struct Impl;  // runtime/plan.h
  explicit Subgraph(std::unique_ptr<Impl> impl);
  ~Subgraph();
  Subgraph(const Subgraph&) = delete;
  Subgraph& operator=(const Subgraph&) = delete;

  // The graph's name, its own inputs and its outputs (name, element type, kind, shape).
  const std::string& name() const noexcept;
  const std::vector<ValueMeta>& inputs() const noexcept;
  const std::vector<ValueMeta>& outputs() const noexcept;

  // Runs the graph once: `inputs` are its own inputs, in order, checked as a session's
  // feeds are (kind, element type, rank, declared dimensions); what it reads from the
  // enclosing graphs comes from the running node's implicit inputs (ctx). It runs on the
  // node's thread pool, under the node's run controls and memory budget, and records into
  // the session's profiler. Outputs are the graph's, in order, owned by the caller.
  Result<std::vector<Value>> Run(const KernelContext& ctx, std::vector<Value> inputs) const;

  Impl& impl() noexcept { return *impl_; }
  const Impl& impl() const noexcept { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// A node's graph attributes compiled for its kernel, by attribute name.
using NodeSubgraphs = std::vector<std::pair<std::string, std::shared_ptr<Subgraph>>>;

// The subgraph of attribute `attr`, or null.
inline const Subgraph* FindSubgraph(const NodeSubgraphs& subgraphs, const std::string& attr) {
  for (const auto& [name, graph] : subgraphs) {
    if (name == attr) return graph.get();
  }
  return nullptr;
}

}  // namespace onnx_light
