// Reading a graph for a rewrite: who reads and who makes each value, which values are
// constants, and the small matches every fusion asks for (a value's single reader, the
// node that made it, a scalar or vector constant operand). Pattern computes the readers
// once; build it after the last rewrite it must see.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "../graph.h"

namespace onnx_light::passes {

// How many times each value is read: by nodes (subgraph reads included) and as a graph
// output (counted once more, so a graph output never looks private to one reader).
std::vector<int> ReaderCounts(const Graph& graph);

// The nodes reading each value, by value index (a node once per input it reads it as).
std::vector<std::vector<size_t>> Consumers(const Graph& graph);

// Which nodes (1 = needed) the values `wanted` depend on, through any chain of nodes
// (subgraph reads are a node's implicit inputs).
std::vector<char> NeededNodes(const Graph& graph, const std::vector<int>& wanted);

// Whether node n is the ai.onnx op `op`; whether the graph has one.
bool IsOnnxOp(const onnx::NodeProto& n, const char* op);
bool HasOnnxOp(const Graph& graph, const char* op);
// The same for a com.microsoft op.
bool IsMsOp(const onnx::NodeProto& n, const char* op);
bool HasMsOp(const Graph& graph, const char* op);

// The constant behind value v (an initializer, a Constant node or a folded value that no
// feed can replace), or null.
const Tensor* ConstantOf(const Graph& graph, int v);

// The value of v when it is a one-element float32 constant (false otherwise).
bool ScalarConstant(const Graph& graph, int v, float* out);

// The constants that a pass may replace by another form of the same matrix (transposed,
// packed): grouped by storage (the folded outputs of Identity, one initializer read by every
// layer are one matrix), each group kept only when every one of its values is read, and
// only, by nodes for which `reads(node, value)` holds (no graph output, no subgraph). The
// value indices of each group, in index order.
std::vector<std::vector<size_t>> WeightGroups(
    const Graph& graph, const std::function<bool(const Tensor&)>& qualifies,
    const std::function<bool(const Graph::Node&, int value)>& reads);

class Pattern {
 public:
  explicit Pattern(const Graph& graph);

  const Graph& graph() const noexcept { return g_; }
  const Graph::Node& node(size_t n) const { return g_.nodes[n]; }
  // Node n is the ai.onnx op `op`.
  bool Is(size_t n, const char* op) const { return IsOnnxOp(*g_.nodes[n].proto, op); }

  // How many times v is read (a graph output counts once more); v read exactly once.
  int Readers(int v) const { return v < 0 ? 0 : readers_[static_cast<size_t>(v)]; }
  bool Private(int v) const { return Readers(v) == 1; }
  // The nodes reading v (a node once per input slot it reads v in).
  const std::vector<size_t>& Consumers(int v) const { return consumers_[static_cast<size_t>(v)]; }
  // The node that makes v; -1 for graph inputs and constants.
  int Producer(int v) const { return v < 0 ? -1 : g_.producer[static_cast<size_t>(v)]; }

  // Node n's output when it has exactly one; -1 otherwise.
  int Out(size_t n) const;
  // Node n's output 0 exists and none of its other outputs is read.
  bool OneOutput(size_t n) const;
  // v is a float32 tensor value.
  bool Float(int v) const;

  // The one node reading private v (*n).
  bool SingleReader(int v, size_t* n) const;
  // The one node reading private v, when it is the ai.onnx `op` with two different inputs,
  // v among them, and one output; *other: its input that is not v.
  bool SingleReader(int v, const char* op, size_t* n, int* other) const;
  // v is private and made by an ai.onnx `op` node (*n).
  bool MadeBy(int v, const char* op, size_t* n) const;

  // v is a float32 one-element constant equal to k within `rel` of it, relatively.
  bool IsScalar(int v, float k, float rel = 0.0f) const;
  // Node n has two inputs, x and a float32 one-element constant (*value).
  bool ScalarOperand(size_t n, int x, float* value) const;
  // Node n has two inputs, x and a 1-D float32 constant (*c, its value index).
  bool VectorOperand(size_t n, int x, int* c) const;

 private:
  const Graph& g_;
  std::vector<int> readers_;
  std::vector<std::vector<size_t>> consumers_;
};

}  // namespace onnx_light::passes
