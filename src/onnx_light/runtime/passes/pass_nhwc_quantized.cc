// Quantized CNNs run channels-last (ONNX Runtime's NHWC transformer does the same for its
// 8-bit QLinearConv). The integer convolution works on [pixels x channels] rows: given
// NCHW it transposes its input in and its output out, every time. Here each region of
// 8-bit ops around 2-D QLinearConvs turns NHWC as a whole, so those transposes happen once,
// where the region meets the rest of the graph:
//   - QLinearConv (ai.onnx or com.microsoft) with a 4-D constant W -> com.microsoft
//     QLinearConv, channels_last = 1;
//   - 8-bit MaxPool over 2-D windows, Indices unused -> com.microsoft NhwcMaxPool;
//   - com.microsoft QLinearGlobalAveragePool and 2-D QLinearAveragePool -> channels_last;
//   - com.microsoft QLinearAdd, QLinearMul, QLinearLeakyRelu, QLinearSigmoid: element-wise
//     (broadcasting commutes with one permutation of both 4-D inputs), unchanged.
// A region grows from the convolutions to the ops above that read its values and whose
// other activation inputs are 4-D too. A value entering it passes Transpose(0,2,3,1) once;
// a value read outside it (or a graph output) is made again by Transpose(0,3,1,2) under its
// own name. Runs at level "all" (a layout change, as ORT's).
#include <string>
#include <vector>

#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"
#include "pattern.h"
#include "rewrite.h"

namespace onnx_light::passes {
namespace {

enum class Kind { kNone, kConv, kMaxPool, kPool, kElementWise };

bool EightBit(const Graph& g, int v) {
  return v >= 0 && (g.value_types[static_cast<size_t>(v)] == DataType::kUint8 ||
                    g.value_types[static_cast<size_t>(v)] == DataType::kInt8);
}

int64_t IntAttr(const Graph::Node& n, const char* name, int64_t fallback) {
  Result<int64_t> v = n.info->GetInt(name, fallback);
  return v.ok() ? *v : -1;
}

size_t KernelRank(const Graph::Node& n) {
  Result<std::vector<int64_t>> k = n.info->GetInts("kernel_shape");
  return k.ok() ? k->size() : 0;
}

// What node n becomes in a channels-last region, and its activation input slots.
Kind KindOf(const Graph& g, const Graph::Node& n, std::vector<size_t>* slots) {
  const std::string domain = NormalizeDomain(n.proto->domain.get());
  const std::string& op = n.proto->op_type.get();
  const bool ms = domain == "com.microsoft";
  if (n.outputs.empty() || n.outputs[0] < 0 || n.inputs.empty() || !EightBit(g, n.inputs[0]) ||
      n.inputs.size() != n.proto->input.size()) {  // (a subgraph read: leave it)
    return Kind::kNone;
  }
  *slots = {0};
  if (op == "QLinearConv" && (domain.empty() || (ms && IntAttr(n, "channels_last", 0) == 0))) {
    const Tensor* w = n.inputs.size() > 3 ? ConstantOf(g, n.inputs[3]) : nullptr;
    return w != nullptr && w->shape().rank() == 4 ? Kind::kConv : Kind::kNone;
  }
  if (domain.empty() && op == "MaxPool") {
    const bool indices = n.outputs.size() > 1 && n.outputs[1] >= 0;
    return !indices && KernelRank(n) == 2 && IntAttr(n, "storage_order", 0) == 0 ? Kind::kMaxPool
                                                                                 : Kind::kNone;
  }
  if (!ms) return Kind::kNone;
  if (op == "QLinearGlobalAveragePool" && IntAttr(n, "channels_last", 0) == 0) return Kind::kPool;
  if (op == "QLinearAveragePool" && IntAttr(n, "channels_last", 0) == 0 && KernelRank(n) == 2)
    return Kind::kPool;
  if (op == "QLinearLeakyRelu" || op == "QLinearSigmoid") return Kind::kElementWise;
  if ((op == "QLinearAdd" || op == "QLinearMul") && n.inputs.size() > 3 && n.inputs[3] >= 0) {
    *slots = {0, 3};
    return Kind::kElementWise;
  }
  return Kind::kNone;
}

class NhwcRewrite {
 public:
  NhwcRewrite(Graph& g, const PassContext& ctx) : g_(g), ctx_(ctx) {}

  size_t Run() {
    const size_t count = g_.nodes.size();
    kinds_.assign(count, Kind::kNone);
    slots_.assign(count, {});
    member_.assign(count, 0);
    for (size_t i = 0; i < count; ++i)
      kinds_[i] = KindOf(g_, g_.nodes[i], &slots_[i]);
    // The region: the convolutions, then (nodes in topological order, so one sweep) every
    // other candidate that reads a region value in some slot and 4-D values in all.
    inside_.assign(g_.value_names.size(), 0);
    size_t members = 0;
    for (size_t i = 0; i < count; ++i) {
      if (kinds_[i] == Kind::kNone) continue;
      bool reads_region = false, four_d = true;
      for (size_t s : slots_[i]) {
        const int v = g_.nodes[i].inputs[s];
        reads_region = reads_region || inside_[static_cast<size_t>(v)];
        four_d = four_d && (inside_[static_cast<size_t>(v)] || FourD(v));
      }
      // Convolutions always; pools reading the region (their 2-D windows and the global
      // pool's region input are 4-D); element-wise ops reading it with 4-D inputs only.
      const Kind kind = kinds_[i];
      if (kind == Kind::kConv || (reads_region && (kind != Kind::kElementWise || four_d))) {
        member_[i] = 1;
        ++members;
        inside_[static_cast<size_t>(g_.nodes[i].outputs[0])] = 1;
      }
    }
    if (members == 0) return 0;
    return Rewrite();
  }

 private:
  // Whether v is known to be 4-D outside the region: a graph input declared so, a 4-D
  // constant, or what a QuantizeLinear / DequantizeLinear makes of such a value.
  bool FourD(int v) const {
    for (int depth = 0; depth < 8 && v >= 0; ++depth) {
      if (const Tensor* c = ConstantOf(g_, v)) return c->shape().rank() == 4;
      const int p = g_.producer[static_cast<size_t>(v)];
      if (p < 0) {
        for (size_t k = 0; k < g_.input_values.size(); ++k) {
          if (g_.input_values[k] == v && k < g_.input_meta.size())
            return g_.input_meta[k].has_shape && g_.input_meta[k].dims.size() == 4;
        }
        return false;
      }
      const Graph::Node& n = g_.nodes[static_cast<size_t>(p)];
      const std::string& op = n.proto->op_type.get();
      if ((op != "QuantizeLinear" && op != "DequantizeLinear") || n.inputs.empty()) return false;
      v = n.inputs[0];
    }
    return false;
  }

  size_t Rewrite() {
    const std::vector<std::vector<size_t>> readers = Consumers(g_);
    std::vector<char> output(g_.value_names.size(), 0);
    for (int v : g_.output_values)
      output[static_cast<size_t>(v)] = 1;
    std::vector<int> nhwc(g_.value_names.size(), -1);  // a value's channels-last form
    std::vector<Graph::Node> nodes;
    nodes.reserve(g_.nodes.size() * 2);
    size_t changed = 0;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      Graph::Node& n = g_.nodes[i];
      if (!member_[i]) {
        nodes.push_back(std::move(n));
        continue;
      }
      // Inputs: the region's values in their NHWC form; others transposed in, once.
      std::vector<int> inputs = n.inputs;
      std::vector<Graph::Node> before;
      bool ok = true;
      for (size_t s : slots_[i]) {
        const int v = inputs[s];
        if (nhwc[static_cast<size_t>(v)] < 0) {
          Result<Graph::Node> t = Transposed(v, {0, 2, 3, 1}, "_nhwc", &nhwc);
          if (!t.ok()) {
            ok = false;
            break;
          }
          before.push_back(std::move(*t));
        }
        inputs[s] = nhwc[static_cast<size_t>(v)];
      }
      const int y = n.outputs[0];
      const int y_nhwc = AddValue(g_, g_.value_names[static_cast<size_t>(y)] + "_nhwc",
                                  g_.value_types[static_cast<size_t>(y)], ValueKind::kTensor);
      const std::vector<int> old_outputs = n.outputs;
      n.outputs = {y_nhwc};
      if (!ok || !Convert(n, i, inputs)) {
        // (no kernel: not expected) the node stays NCHW, its inputs as they were
        n.outputs = old_outputs;
        nodes.push_back(std::move(n));
        continue;
      }
      for (Graph::Node& t : before)
        nodes.push_back(std::move(t));
      nodes.push_back(std::move(n));
      nhwc[static_cast<size_t>(y)] = y_nhwc;
      ++changed;
      // The NCHW value again where something outside the region reads it.
      bool outside = output[static_cast<size_t>(y)] != 0;
      for (size_t r : readers[static_cast<size_t>(y)])
        outside = outside || !member_[r];
      if (outside) {
        Result<Graph::Node> back = MakeTranspose(y_nhwc, y, {0, 3, 1, 2});
        if (back.ok()) nodes.push_back(std::move(*back));
      }
    }
    g_.nodes = std::move(nodes);
    RenumberProducers(g_);
    return changed;
  }

  // Transpose(v, perm) into a new value (named v + suffix), recorded in `alias`.
  Result<Graph::Node> Transposed(int v, std::vector<int64_t> perm, const char* suffix,
                                 std::vector<int>* alias) {
    const int out = AddValue(g_, g_.value_names[static_cast<size_t>(v)] + suffix,
                             g_.value_types[static_cast<size_t>(v)], ValueKind::kTensor);
    Result<Graph::Node> t = MakeTranspose(v, out, std::move(perm));
    if (t.ok()) {
      alias->resize(g_.value_names.size(), -1);
      (*alias)[static_cast<size_t>(v)] = out;
    }
    return t;
  }

  Result<Graph::Node> MakeTranspose(int in, int out, std::vector<int64_t> perm) {
    onnx::NodeProto proto = NodeProtoOf(g_, g_.value_names[static_cast<size_t>(out)] + "_Transpose",
                                        "", "Transpose", {in}, {out});
    proto.attribute.push_back(IntsAttribute("perm", std::move(perm)));
    return MakeNode(g_, ctx_, std::move(proto), {in}, {out}, 13);
  }

  // Node n redefined channels-last, reading `inputs`; false (n unchanged) without a kernel.
  bool Convert(Graph::Node& n, size_t i, const std::vector<int>& inputs) {
    onnx::NodeProto proto = *n.proto;
    proto.output.clear();
    for (int v : n.outputs)
      proto.output.push_back(v >= 0 ? g_.value_names[static_cast<size_t>(v)] : std::string());
    proto.input.clear();
    for (int v : inputs)
      proto.input.push_back(v >= 0 ? g_.value_names[static_cast<size_t>(v)] : std::string());
    std::vector<onnx::AttributeProto> attrs;
    for (const onnx::AttributeProto& a : proto.attribute) {
      if (a.name.get() != "channels_last" && a.name.get() != "storage_order") attrs.push_back(a);
    }
    switch (kinds_[i]) {
      case Kind::kConv:
        proto.domain.set("com.microsoft");
        attrs.push_back(IntAttribute("channels_last", 1));
        break;
      case Kind::kMaxPool:
        proto.domain.set("com.microsoft");
        proto.op_type.set("NhwcMaxPool");
        break;
      case Kind::kPool:
        attrs.push_back(IntAttribute("channels_last", 1));
        break;
      default:
        break;
    }
    proto.attribute.clear();
    for (onnx::AttributeProto& a : attrs)
      proto.attribute.push_back(std::move(a));
    return ReplaceNode(g_, ctx_, n, std::move(proto), inputs).ok();
  }

  Graph& g_;
  const PassContext& ctx_;
  std::vector<Kind> kinds_;
  std::vector<std::vector<size_t>> slots_;
  std::vector<char> member_;
  std::vector<char> inside_;
};

}  // namespace

size_t NhwcQuantized(Graph& graph, const PassContext& ctx) {
  return NhwcRewrite(graph, ctx).Run();
}

}  // namespace onnx_light::passes
