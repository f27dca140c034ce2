// Reading a graph for a rewrite (pattern.h).
#include "pattern.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace onnx_light::passes {

std::vector<int> ReaderCounts(const Graph& graph) {
  std::vector<int> count(graph.value_names.size(), 0);
  for (const Graph::Node& n : graph.nodes) {
    for (int v : n.inputs) {
      if (v >= 0) ++count[static_cast<size_t>(v)];
    }
  }
  for (int v : graph.output_values)
    ++count[static_cast<size_t>(v)];
  return count;
}

std::vector<std::vector<size_t>> Consumers(const Graph& graph) {
  std::vector<std::vector<size_t>> consumers(graph.value_names.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (int v : graph.nodes[i].inputs) {
      if (v >= 0) consumers[static_cast<size_t>(v)].push_back(i);
    }
  }
  return consumers;
}

std::vector<char> NeededNodes(const Graph& graph, const std::vector<int>& wanted) {
  std::vector<char> needed(graph.nodes.size(), 0);
  std::vector<int> todo(wanted.begin(), wanted.end());
  while (!todo.empty()) {
    const int v = todo.back();
    todo.pop_back();
    const int p = graph.producer[static_cast<size_t>(v)];
    if (p < 0 || needed[static_cast<size_t>(p)]) continue;
    needed[static_cast<size_t>(p)] = 1;
    for (int in : graph.nodes[static_cast<size_t>(p)].inputs) {
      if (in >= 0) todo.push_back(in);
    }
  }
  return needed;
}

bool IsOnnxOp(const onnx::NodeProto& n, const char* op) {
  return n.op_type.get() == op && NormalizeDomain(n.domain.get()).empty();
}

bool HasOnnxOp(const Graph& graph, const char* op) {
  return std::any_of(graph.nodes.begin(), graph.nodes.end(),
                     [op](const Graph::Node& n) { return IsOnnxOp(*n.proto, op); });
}

bool IsMsOp(const onnx::NodeProto& n, const char* op) {
  return n.op_type.get() == op && n.domain.get() == "com.microsoft";
}

bool HasMsOp(const Graph& graph, const char* op) {
  return std::any_of(graph.nodes.begin(), graph.nodes.end(),
                     [op](const Graph::Node& n) { return IsMsOp(*n.proto, op); });
}

const Tensor* ConstantOf(const Graph& graph, int v) {
  if (v < 0 || graph.producer[static_cast<size_t>(v)] >= 0) return nullptr;
  if (std::find(graph.input_values.begin(), graph.input_values.end(), v) !=
      graph.input_values.end()) {
    return nullptr;  // an initializer that backs a graph input: a feed may replace it
  }
  return graph.constants[static_cast<size_t>(v)].tensor_or_null();
}

std::vector<std::vector<size_t>> WeightGroups(
    const Graph& graph, const std::function<bool(const Tensor&)>& qualifies,
    const std::function<bool(const Graph::Node&, int value)>& reads) {
  const std::vector<std::vector<size_t>> consumers = Consumers(graph);
  const std::vector<int> readers = ReaderCounts(graph);
  struct Group {
    std::vector<size_t> values;
    bool ok = true;
  };
  std::map<const void*, Group> groups;
  for (size_t v = 0; v < graph.value_names.size(); ++v) {
    const int value = static_cast<int>(v);
    const Tensor* t = ConstantOf(graph, value);
    if (t == nullptr || t->raw_data() == nullptr) continue;
    Group& g = groups[t->raw_data()];
    g.values.push_back(v);
    g.ok = g.ok && qualifies(*t) && !consumers[v].empty() &&
           readers[v] == static_cast<int>(consumers[v].size());  // no graph output
    for (size_t n : consumers[v])
      g.ok = g.ok && reads(graph.nodes[n], value);
  }
  std::vector<std::vector<size_t>> out;
  for (auto& [data, g] : groups)
    if (g.ok) out.push_back(std::move(g.values));
  return out;
}

bool ScalarConstant(const Graph& graph, int v, float* out) {
  const Tensor* t = ConstantOf(graph, v);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->num_elements() != 1) return false;
  *out = t->data<float>()[0];
  return true;
}

Pattern::Pattern(const Graph& graph)
    : g_(graph), readers_(ReaderCounts(graph)), consumers_(passes::Consumers(graph)) {}

int Pattern::Out(size_t n) const {
  const Graph::Node& nd = g_.nodes[n];
  return nd.outputs.size() == 1 ? nd.outputs[0] : -1;
}

bool Pattern::OneOutput(size_t n) const {
  const Graph::Node& nd = g_.nodes[n];
  for (size_t o = 1; o < nd.outputs.size(); ++o) {
    if (nd.outputs[o] >= 0 && Readers(nd.outputs[o]) > 0) return false;
  }
  return !nd.outputs.empty() && nd.outputs[0] >= 0;
}

bool Pattern::Float(int v) const {
  return v >= 0 && g_.value_types[static_cast<size_t>(v)] == DataType::kFloat &&
         g_.kinds[static_cast<size_t>(v)] == ValueKind::kTensor;
}

bool Pattern::SingleReader(int v, size_t* n) const {
  if (!Private(v) || consumers_[static_cast<size_t>(v)].size() != 1) return false;
  *n = consumers_[static_cast<size_t>(v)][0];
  return true;
}

bool Pattern::SingleReader(int v, const char* op, size_t* n, int* other) const {
  if (!SingleReader(v, n)) return false;
  const Graph::Node& nd = g_.nodes[*n];
  if (!IsOnnxOp(*nd.proto, op) || nd.inputs.size() != 2 || nd.inputs[0] == nd.inputs[1] ||
      Out(*n) < 0) {
    return false;
  }
  *other = nd.inputs[0] == v ? nd.inputs[1] : nd.inputs[0];
  return true;
}

bool Pattern::MadeBy(int v, const char* op, size_t* n) const {
  const int p = Producer(v);
  if (p < 0 || !Private(v) || !IsOnnxOp(*g_.nodes[static_cast<size_t>(p)].proto, op)) return false;
  *n = static_cast<size_t>(p);
  return true;
}

bool Pattern::IsScalar(int v, float k, float rel) const {
  float c = 0;
  if (!ScalarConstant(g_, v, &c)) return false;
  return rel == 0.0f ? c == k : std::fabs(c - k) <= rel * std::fabs(k);
}

bool Pattern::ScalarOperand(size_t n, int x, float* value) const {
  const Graph::Node& nd = g_.nodes[n];
  if (nd.inputs.size() != 2 || (nd.inputs[0] != x && nd.inputs[1] != x)) return false;
  return ScalarConstant(g_, nd.inputs[0] == x ? nd.inputs[1] : nd.inputs[0], value);
}

bool Pattern::VectorOperand(size_t n, int x, int* c) const {
  const Graph::Node& nd = g_.nodes[n];
  if (nd.inputs.size() != 2 || (nd.inputs[0] != x && nd.inputs[1] != x)) return false;
  const int other = nd.inputs[0] == x ? nd.inputs[1] : nd.inputs[0];
  const Tensor* t = ConstantOf(g_, other);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->shape().rank() != 1) return false;
  *c = other;
  return true;
}

}  // namespace onnx_light::passes
