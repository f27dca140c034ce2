// 16-bit float compute in float32, as ONNX Runtime does on x86 CPUs (its cast-inserting
// transformer runs float16 nodes that have no float16 kernel in float32 and removes the
// casts between them). Each region of ai.onnx compute ops over float16 or bfloat16 values
// (convolutions, products, element-wise math, normalizations, pools, reductions, Resize,
// Softmax) runs on the float32 kernels: a half value entering the region passes Cast(to =
// float) once, a region value read outside it (or a graph output) is rounded back by
// Cast(to = half) under its own name. Inside, nothing is rounded to 16 bits between nodes,
// so results are as close to a float32 computation as ORT's (a stack of float16 Conv1D
// layers: 4x closer than rounding after every node), and the fast float32 paths run
// (fused epilogues, packed weights). Half constants read by the region are widened by
// constant folding, once per session (the pass runs before it); a constant nothing else
// reads is then dropped. Data-movement ops (Reshape, Transpose, Concat, Slice, Gather, ...)
// join a region when every half value they read comes from it (or is a constant) and every
// reader of what they make is in it, so regions do not break at a Squeeze. Runs at level
// "basic" and above; disabled by name, half nodes compute as their own kernels do.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "onnx_light/runtime/kernel_registry.h"
#include "pass_manager.h"
#include "pattern.h"
#include "rewrite.h"

namespace onnx_light::passes {
namespace {

// Ops whose float32 kernels compute what their half kernels would, closer to exact.
const std::unordered_set<std::string>& ComputeOps() {
  static const std::unordered_set<std::string> ops = {"Conv",
                                                      "ConvTranspose",
                                                      "MatMul",
                                                      "Gemm",
                                                      "Einsum",
                                                      "Add",
                                                      "Sub",
                                                      "Mul",
                                                      "Div",
                                                      "Pow",
                                                      "Relu",
                                                      "LeakyRelu",
                                                      "PRelu",
                                                      "Sigmoid",
                                                      "HardSigmoid",
                                                      "HardSwish",
                                                      "Tanh",
                                                      "Elu",
                                                      "Selu",
                                                      "Celu",
                                                      "Gelu",
                                                      "Erf",
                                                      "Exp",
                                                      "Log",
                                                      "Sqrt",
                                                      "Reciprocal",
                                                      "Softplus",
                                                      "Softsign",
                                                      "Mish",
                                                      "Sin",
                                                      "Cos",
                                                      "Softmax",
                                                      "LogSoftmax",
                                                      "LayerNormalization",
                                                      "BatchNormalization",
                                                      "InstanceNormalization",
                                                      "GroupNormalization",
                                                      "GlobalAveragePool",
                                                      "GlobalMaxPool",
                                                      "AveragePool",
                                                      "MaxPool",
                                                      "LpPool",
                                                      "ReduceMean",
                                                      "ReduceSum",
                                                      "ReduceMax",
                                                      "ReduceMin",
                                                      "ReduceL2",
                                                      "ReduceSumSquare",
                                                      "ReduceLogSumExp",
                                                      "Resize",
                                                      "Clip",
                                                      "Max",
                                                      "Min",
                                                      "Sum",
                                                      "Mean"};
  return ops;
}

// Ops that move or select values (exact in any type): in a region only between its nodes.
const std::unordered_set<std::string>& MovementOps() {
  static const std::unordered_set<std::string> ops = {
      "Reshape",      "Squeeze", "Unsqueeze", "Transpose",      "Flatten",
      "Identity",     "Concat",  "Slice",     "Split",          "Expand",
      "Tile",         "Pad",     "Gather",    "GatherElements", "DepthToSpace",
      "SpaceToDepth", "Where",   "Shape",     "Size",           "Neg",
      "Abs"};
  return ops;
}

enum class Kind { kNone, kCompute, kMovement };

bool Half(DataType t) {
  return t == DataType::kFloat16 || t == DataType::kBFloat16;
}

class HalfRegion {
 public:
  HalfRegion(Graph& g, const PassContext& ctx) : g_(g), ctx_(ctx) {}

  size_t Run() {
    const size_t count = g_.nodes.size();
    member_.assign(count, 0);
    std::vector<Kind> kinds(count, Kind::kNone);
    bool any = false;
    for (size_t i = 0; i < count; ++i) {
      kinds[i] = KindOf(g_.nodes[i]);
      any = any || kinds[i] != Kind::kNone;
    }
    if (!any) return 0;
    readers_ = Consumers(g_);
    output_.assign(g_.value_names.size(), 0);
    for (int v : g_.output_values)
      output_[static_cast<size_t>(v)] = 1;
    // Compute ops always; movement ops optimistically, then dropped (to a fixed point)
    // while one reads a half value from outside or has a half output read outside.
    for (size_t i = 0; i < count; ++i)
      member_[i] = kinds[i] != Kind::kNone;
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < count; ++i) {
        if (member_[i] && kinds[i] == Kind::kMovement && !Enclosed(g_.nodes[i])) {
          member_[i] = 0;
          changed = true;
        }
      }
    }
    return Rewrite();
  }

 private:
  Kind KindOf(const Graph::Node& n) const {
    if (!NormalizeDomain(n.proto->domain.get()).empty()) return Kind::kNone;
    if (n.inputs.size() != n.proto->input.size()) return Kind::kNone;  // a subgraph read
    const std::string& op = n.proto->op_type.get();
    const bool compute = ComputeOps().count(op) != 0;
    if (!compute && MovementOps().count(op) == 0) return Kind::kNone;
    // Half values of one type only; their float32 form must have a kernel.
    DataType half = DataType::kUndefined;
    std::vector<DataType> wide;
    for (int v : n.inputs) {
      DataType t = v >= 0 ? Type(v) : DataType::kUndefined;
      if (v >= 0 && Half(t)) {
        if (half != DataType::kUndefined && half != t) return Kind::kNone;
        half = t;
        t = DataType::kFloat;
      }
      wide.push_back(t);
    }
    for (int v : n.outputs) {
      if (v < 0 || !Half(Type(v))) continue;
      if (half != DataType::kUndefined && half != Type(v)) return Kind::kNone;
      half = Type(v);
    }
    if (half == DataType::kUndefined) return Kind::kNone;
    KernelQuery query{"", op, n.info->opset(), std::move(wide), n.proto->name.get()};
    if (!ctx_.registry->Find(query).ok()) return Kind::kNone;
    return compute ? Kind::kCompute : Kind::kMovement;
  }

  DataType Type(int v) const { return g_.value_types[static_cast<size_t>(v)]; }
  bool HalfTensor(int v) const {
    return v >= 0 && g_.kinds[static_cast<size_t>(v)] == ValueKind::kTensor && Half(Type(v));
  }

  // Every half input made inside the region (or constant), every half output read only
  // there.
  bool Enclosed(const Graph::Node& n) const {
    for (int v : n.inputs) {
      if (!HalfTensor(v) || ConstantOf(g_, v) != nullptr) continue;
      const int p = g_.producer[static_cast<size_t>(v)];
      if (p < 0 || !member_[static_cast<size_t>(p)]) return false;
    }
    for (int v : n.outputs) {
      if (!HalfTensor(v)) continue;
      if (output_[static_cast<size_t>(v)]) return false;
      for (size_t r : readers_[static_cast<size_t>(v)])
        if (!member_[r]) return false;
    }
    return true;
  }

  size_t Rewrite() {
    wide_.assign(g_.value_names.size(), -1);
    std::vector<Graph::Node> nodes;
    nodes.reserve(g_.nodes.size() * 2);
    size_t changed = 0;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      Graph::Node& n = g_.nodes[i];
      if (!member_[i]) {
        // Half values it reads from the region, rounded back where not done yet.
        for (int v : n.inputs)
          Narrow(v, &nodes);
        nodes.push_back(std::move(n));
        continue;
      }
      std::vector<int> inputs = n.inputs;
      std::vector<Graph::Node> before;
      std::vector<std::pair<int, int>> widened;  // (half value, its new float32 form)
      bool ok = true;
      for (int& v : inputs) {
        if (!HalfTensor(v)) continue;
        int w = wide_[static_cast<size_t>(v)];
        for (const auto& [half, wide] : widened)
          w = half == v ? wide : w;
        if (w < 0) {
          w = AddValue(g_, Name(v) + "_f32", DataType::kFloat, ValueKind::kTensor);
          Result<Graph::Node> c = MakeCast(v, w, DataType::kFloat, n.info->opset());
          if (!c.ok()) {
            ok = false;  // (not expected) the node stays as it is
            break;
          }
          before.push_back(std::move(*c));
          widened.emplace_back(v, w);
        }
        v = w;
      }
      const std::vector<int> old_outputs = n.outputs;
      std::vector<int> outputs = n.outputs;
      for (int& v : outputs) {
        if (ok && HalfTensor(v))
          v = AddValue(g_, Name(v) + "_f32", DataType::kFloat, ValueKind::kTensor);
      }
      // (not expected) no Cast or no float32 kernel: it stays as it was (Convert leaves n
      // unchanged), its casts go
      if (!ok || !Convert(n, inputs, outputs)) {
        for (int v : n.inputs)
          Narrow(v, &nodes);
        nodes.push_back(std::move(n));
        continue;
      }
      for (const auto& [half, wide] : widened)
        wide_[static_cast<size_t>(half)] = wide;
      for (Graph::Node& c : before)
        nodes.push_back(std::move(c));
      const int opset = n.info->opset();
      nodes.push_back(std::move(n));
      ++changed;
      for (size_t k = 0; k < outputs.size(); ++k) {
        const int y = old_outputs[k];
        if (outputs[k] == y) continue;
        wide_[static_cast<size_t>(y)] = outputs[k];
        opset_[y] = opset;
        bool outside = output_[static_cast<size_t>(y)] != 0;
        for (size_t r : readers_[static_cast<size_t>(y)])
          outside = outside || !member_[r];
        if (outside) Narrow(y, &nodes);
      }
    }
    g_.nodes = std::move(nodes);
    RenumberProducers(g_);
    return changed;
  }

  // Makes half value v again from its float32 form (once) when a region node made it.
  void Narrow(int v, std::vector<Graph::Node>* nodes) {
    if (v < 0 || wide_[static_cast<size_t>(v)] < 0 || g_.producer[static_cast<size_t>(v)] < 0)
      return;
    if (narrowed_.count(v)) return;
    const int p = g_.producer[static_cast<size_t>(v)];
    if (!member_[static_cast<size_t>(p)]) return;  // made as half: nothing to do
    Result<Graph::Node> c = MakeCast(wide_[static_cast<size_t>(v)], v, Type(v), opset_[v]);
    if (c.ok()) {
      nodes->push_back(std::move(*c));
      narrowed_.insert(v);
    }
  }

  // Cast(from) -> to, matched at the node's opset or 13 if older (Cast takes bfloat16 and an
  // integer `to` from there; a model of opset 1-5 spells `to` as a string).
  Result<Graph::Node> MakeCast(int from, int to, DataType type, int opset) {
    onnx::NodeProto proto = NodeProtoOf(g_, Name(to) + "_cast", "", "Cast", {from}, {to});
    proto.attribute.push_back(IntAttribute("to", static_cast<int64_t>(type)));
    return MakeNode(g_, ctx_, std::move(proto), {from}, {to}, std::max(opset, 13));
  }

  // Node n redefined over float32 `inputs` and `outputs`; false (n unchanged) without a
  // kernel.
  bool Convert(Graph::Node& n, const std::vector<int>& inputs, const std::vector<int>& outputs) {
    onnx::NodeProto proto = *n.proto;
    proto.input.clear();
    for (int v : inputs)
      proto.input.push_back(v >= 0 ? Name(v) : std::string());
    proto.output.clear();
    for (int v : outputs)
      proto.output.push_back(v >= 0 ? Name(v) : std::string());
    const std::vector<int> old = n.outputs;
    n.outputs = outputs;
    if (ReplaceNode(g_, ctx_, n, std::move(proto), inputs).ok()) return true;
    n.outputs = old;
    return false;
  }

  const std::string& Name(int v) const { return g_.value_names[static_cast<size_t>(v)]; }

  Graph& g_;
  const PassContext& ctx_;
  std::vector<char> member_;
  std::vector<char> output_;
  std::vector<std::vector<size_t>> readers_;
  std::vector<int> wide_;  // a half value's float32 form, -1 if none
  std::unordered_map<int, int> opset_;
  std::unordered_set<int> narrowed_;
};

}  // namespace

size_t HalfInFloat(Graph& graph, const PassContext& ctx) {
  return HalfRegion(graph, ctx).Run();
}

}  // namespace onnx_light::passes
