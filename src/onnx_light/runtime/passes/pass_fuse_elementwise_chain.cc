// fuse_elementwise_chain: two or more float32 element-wise nodes in a row, each the only
// reader of the one before (Add, Sub, Mul, Div by anything, or Relu, Sigmoid, Tanh, Exp,
// Erf, HardSwish), become one onnx_light:ElementwiseChain that runs every step over a
// block of the tensor while it is in the L1 cache (kernels/math/elementwise_chain.cc).
// The chain starts from its first node's non-constant input; the other inputs of its
// binary nodes become the fused node's further inputs, in order of first use. It runs
// after the specific fusions (GELU, layer norms, convolution epilogues), which take their
// patterns first.
#include <algorithm>

#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

// Inputs of one ElementwiseChain node: the running value and operands 1..63
// (kernels/math/elementwise_chain.cc).
constexpr size_t kMaxChainInputs = 64;

bool IsBinary(const onnx::NodeProto& p) {
  return IsOnnxOp(p, "Add") || IsOnnxOp(p, "Sub") || IsOnnxOp(p, "Mul") || IsOnnxOp(p, "Div");
}
bool IsUnary(const onnx::NodeProto& p) {
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Exp", "Erf", "HardSwish"}) {
    if (IsOnnxOp(p, op)) return true;
  }
  return false;
}

class ChainFinder {
 public:
  explicit ChainFinder(const Graph& g) : g_(g), p_(g) {}

  // Whether node i can be a step: one of the ops, float32 in and out.
  bool Step(size_t i) const {
    const Graph::Node& n = g_.nodes[i];
    const onnx::NodeProto& p = *n.proto;
    const bool binary = IsBinary(p);
    if ((!binary && !IsUnary(p)) || n.inputs.size() != (binary ? 2u : 1u) ||
        n.outputs.size() != 1 || n.outputs[0] < 0) {
      return false;
    }
    for (int v : n.inputs) {
      if (v < 0 || g_.value_types[static_cast<size_t>(v)] != DataType::kFloat ||
          g_.kinds[static_cast<size_t>(v)] != ValueKind::kTensor) {
        return false;
      }
    }
    return g_.value_types[static_cast<size_t>(n.outputs[0])] == DataType::kFloat;
  }

  // The node after step i in a chain: the only reader of i's output, a step itself, that
  // reads it once (x * x is not a step of x).
  int Next(size_t i) const {
    const int v = g_.nodes[i].outputs[0];
    size_t j;
    if (!p_.SingleReader(v, &j) || !Step(j)) return -1;
    const std::vector<int>& in = g_.nodes[j].inputs;
    if (std::count(in.begin(), in.end(), v) != 1) return -1;
    return static_cast<int>(j);
  }

 private:
  const Graph& g_;
  const Pattern p_;
};

}  // namespace

size_t FuseElementwiseChain(Graph& graph, const PassContext& ctx) {
  const ChainFinder find(graph);
  std::vector<char> taken(graph.nodes.size(), 0);
  Fusions fusions(graph, ctx);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    // Nodes in topological order: the first step met is a chain's head.
    if (taken[i] || !find.Step(i)) continue;
    std::vector<size_t> chain = {i};
    for (int j = find.Next(i); j >= 0 && !taken[static_cast<size_t>(j)];
         j = find.Next(static_cast<size_t>(j))) {
      chain.push_back(static_cast<size_t>(j));
    }
    if (chain.size() < 2) continue;
    // The head's running value: its input that is not a constant (the first, when both
    // or neither are).
    const Graph::Node& head = graph.nodes[i];
    int x = head.inputs[0];
    if (head.inputs.size() == 2 && ConstantOf(graph, x) != nullptr &&
        ConstantOf(graph, head.inputs[1]) == nullptr) {
      x = head.inputs[1];
    }
    std::vector<int> inputs = {x};
    std::vector<std::string> ops;
    std::vector<int64_t> operands, first;
    int value = x;
    size_t steps = 0;
    for (size_t k : chain) {
      const Graph::Node& n = graph.nodes[k];
      // The kernel names operands 1..63: a chain that would need a 64th input ends before
      // that step, which heads a chain of its own when the scan reaches it (80 Div/Mul by
      // constants in a row, onnxruntime_go's example_big_compute.onnx, had been refused).
      if (n.inputs.size() == 2 && inputs.size() == kMaxChainInputs) {
        const int other = n.inputs[0] == value ? n.inputs[1] : n.inputs[0];
        if (std::find(inputs.begin() + 1, inputs.end(), other) == inputs.end()) break;
      }
      ++steps;
      ops.push_back(n.proto->op_type.get());
      if (n.inputs.size() == 1) {
        operands.push_back(-1);
        first.push_back(1);
      } else {
        const bool value_first = n.inputs[0] == value;
        const int other = value_first ? n.inputs[1] : n.inputs[0];
        // Input 0 is the running value only at the start: an operand equal to x (x *
        // sigmoid(x)) is passed again as an input of its own.
        auto at = std::find(inputs.begin() + 1, inputs.end(), other);
        if (at == inputs.end()) at = inputs.insert(inputs.end(), other);
        operands.push_back(at - inputs.begin());
        first.push_back(value_first ? 1 : 0);
      }
      value = n.outputs[0];
    }
    chain.resize(steps);
    if (chain.size() < 2) continue;
    for (size_t k : chain)
      taken[k] = 1;
    const size_t last = chain.back();
    const std::vector<int> outputs = graph.nodes[last].outputs;
    onnx::NodeProto proto = NodeProtoOf(graph, graph.nodes[last].proto->name.get() + "_chain",
                                        "onnx_light", "ElementwiseChain", inputs, outputs);
    proto.attribute.push_back(StringsAttribute("ops", std::move(ops)));
    proto.attribute.push_back(IntsAttribute("operands", std::move(operands)));
    proto.attribute.push_back(IntsAttribute("value_first", std::move(first)));
    // The fused node takes the last step's place: every operand is computed by then.
    fusions.Replace(last, std::move(proto), inputs, outputs, chain);
  }
  return fusions.Finish();
}

}  // namespace onnx_light::passes
