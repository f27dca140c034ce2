// QDQ groups to integer kernels (extended level), as ONNX Runtime's QDQ transformer does
// it: a quantized model in QDQ format (onnxruntime.quantization.quantize_static with
// QuantFormat.QDQ, or any exporter writing DequantizeLinear -> op -> QuantizeLinear) runs
// the float op between a DequantizeLinear of each input and a QuantizeLinear of its
// output. Where the group has an integer kernel, it becomes that kernel on the 8-bit codes
// directly, the node ORT's quantizer writes in QOperator format, so both formats give the
// same codes:
//   Conv -> QLinearConv           MatMul -> QLinearMatMul (or MatMulIntegerToFloat
//   Gemm -> com.microsoft QGemm             without a QuantizeLinear after it)
//   Add, Mul -> QLinearAdd, QLinearMul      Concat -> QLinearConcat
//   Sigmoid, LeakyRelu, Softmax, AveragePool, GlobalAveragePool -> their QLinear ops
//   MaxPool, Reshape, Transpose, Flatten, Squeeze, Unsqueeze, Resize in nearest mode
//   (quantization parameters equal on both sides): the op on the codes, without its
//   DequantizeLinear and QuantizeLinear.
// What is matched: every 8-bit input a DequantizeLinear with constant per-tensor scale and
// zero point (weights also per output channel: Conv's along axis 0, Gemm's along its
// output columns); Conv's and Gemm's bias
// absent or an int32 DequantizeLinear whose scale is input scale x weight scale and zero
// point 0 (so the integer sum equals the float one); the op's one output read only by one
// per-tensor QuantizeLinear (the MatMul and Gemm forms with a float output excepted).
// DequantizeLinear nodes left without readers go. Anything else stays in float.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../graph.h"
#include "onnx_light/runtime/kernel.h"
#include "pass_manager.h"

namespace onnx_light::passes {
namespace {

bool Is8Bit(DataType t) {
  return t == DataType::kUint8 || t == DataType::kInt8;
}

// A DequantizeLinear's or QuantizeLinear's parameters: the values of its scale and zero
// point (-1: absent), and whether they are one value each.
struct QuantParams {
  size_t node = 0;
  int codes = -1;  // the 8-bit (or int32) side
  int scale = -1, zero = -1;
  bool per_tensor = true;
  int64_t axis = 1;
};

class Qdq {
 public:
  Qdq(Graph& graph, const PassContext& ctx) : g_(graph), p_(graph), fusions_(graph, ctx) {}

  size_t Run() {
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (fusions_.Taken(i)) continue;
      const onnx::NodeProto& n = *g_.nodes[i].proto;
      if (!n.domain.get().empty() && n.domain.get() != "ai.onnx") continue;
      const std::string& op = n.op_type.get();
      if (op == "Conv") {
        Conv(i);
      } else if (op == "MatMul") {
        MatMul(i);
      } else if (op == "Gemm") {
        Gemm(i);
      } else if (op == "Add" || op == "Mul") {
        Binary(i, op == "Add" ? "QLinearAdd" : "QLinearMul");
      } else if (op == "Concat") {
        Concat(i);
      } else if (op == "Sigmoid" || op == "LeakyRelu" || op == "Softmax" || op == "AveragePool" ||
                 op == "GlobalAveragePool") {
        Unary(i, op);
      } else if (op == "MaxPool" || op == "Reshape" || op == "Transpose" || op == "Flatten" ||
                 op == "Squeeze" || op == "Unsqueeze" || op == "Resize") {
        DropQdq(i);
      }
    }
    return fusions_.Finish();
  }

 private:
  DataType Type(int v) const { return g_.value_types[static_cast<size_t>(v)]; }

  // The parameters of quantize/dequantize node `n` (its inputs 1 and 2); false unless they
  // are constants of the expected form (per tensor, or per `channels` along axis 0).
  bool Params(size_t n, QuantParams* q, int64_t channels = 0) const {
    const Graph::Node& node = g_.nodes[n];
    if (node.inputs.size() < 2 || node.outputs.empty()) return false;
    int64_t block = 0;
    Result<int64_t> b = node.info->GetInt("block_size", 0);
    Result<int64_t> a = node.info->GetInt("axis", 1);
    if (!b.ok() || !a.ok()) return false;
    block = *b;
    q->axis = *a;
    if (block != 0) return false;
    q->node = n;
    q->codes = node.inputs[0];
    q->scale = node.inputs[1];
    q->zero = node.inputs.size() > 2 ? node.inputs[2] : -1;
    const Tensor* s = ConstantOf(g_, q->scale);
    if (s == nullptr || s->dtype() != DataType::kFloat || s->shape().rank() > 1) return false;
    const Tensor* z = q->zero >= 0 ? ConstantOf(g_, q->zero) : nullptr;
    if (q->zero >= 0 && (z == nullptr || z->num_elements() != s->num_elements())) return false;
    for (int64_t i = 0; i < s->num_elements(); ++i) {
      const float v = s->data<float>()[i];
      if (!(v > 0.0f) || std::isinf(v)) return false;
    }
    q->per_tensor = s->num_elements() == 1;
    if (q->per_tensor) return true;
    return channels > 0 && s->num_elements() == channels;
  }

  // v is made by a DequantizeLinear of 8-bit codes (*q); per tensor unless `channels`
  // (then also one per channel along `axis` of the rank-`rank` codes).
  bool Dequantized(int v, QuantParams* q, int64_t channels = 0, int64_t axis = 0,
                   int64_t rank = 0) const {
    size_t n = 0;
    const int p = p_.Producer(v);
    if (p < 0) return false;
    n = static_cast<size_t>(p);
    if (!p_.Is(n, "DequantizeLinear") || !Params(n, q, channels)) return false;
    if (!Is8Bit(Type(q->codes))) return false;
    return q->per_tensor || q->axis == axis || q->axis == axis - rank;
  }

  // Node i's one output, read only by a per-tensor QuantizeLinear to 8 bits (*q; its
  // output in q->codes).
  bool Quantized(size_t i, QuantParams* q) const {
    const int out = p_.Out(i);
    size_t n = 0;
    if (out < 0 || !p_.SingleReader(out, &n) || !p_.Is(n, "QuantizeLinear")) return false;
    if (g_.nodes[n].inputs[0] != out || !Params(n, q)) return false;
    q->codes = p_.Out(n);
    return q->codes >= 0 && Is8Bit(Type(q->codes));
  }

  // A zero point input for q: its own, or a new constant 0 of the codes' type.
  int ZeroOf(const QuantParams& q, const std::string& name) {
    if (q.zero >= 0) return q.zero;
    Result<Shape> shape = Shape::Create(std::vector<int64_t>{});
    Result<Tensor> t = Tensor::Allocate(Type(q.codes), *shape);
    std::memset(t->mutable_raw_data(), 0, t->byte_size());
    return AddConstant(g_, name + "_zero_point", std::move(*t));
  }

  bool SameParams(const QuantParams& a, const QuantParams& b) const {
    if (Type(a.codes) != Type(b.codes)) return false;
    const float sa = ConstantOf(g_, a.scale)->data<float>()[0];
    const float sb = ConstantOf(g_, b.scale)->data<float>()[0];
    return sa == sb && ZeroValue(a) == ZeroValue(b);
  }
  int32_t ZeroValue(const QuantParams& q) const {
    if (q.zero < 0) return 0;
    const Tensor* z = ConstantOf(g_, q.zero);
    return z->dtype() == DataType::kInt8 ? z->data<int8_t>()[0]
                                         : static_cast<int32_t>(z->data<uint8_t>()[0]);
  }

  // Bias input `v` of Conv/Gemm: absent (true, *codes = -1), or an int32 DequantizeLinear
  // with zero point 0 and scale x_scale * w_scale (per channel where w's is).
  bool Bias(int v, const QuantParams& x, const QuantParams& w, int* codes) const {
    *codes = -1;
    if (v < 0) return true;
    const int p = p_.Producer(v);
    QuantParams b;
    if (p < 0 || !p_.Is(static_cast<size_t>(p), "DequantizeLinear")) return false;
    const Graph::Node& dq = g_.nodes[static_cast<size_t>(p)];
    const Tensor* values = ConstantOf(g_, dq.inputs[0]);
    if (values == nullptr || values->dtype() != DataType::kInt32 || values->shape().rank() != 1) {
      return false;
    }
    const int64_t n = values->num_elements();
    const Tensor* ws = ConstantOf(g_, w.scale);
    if (!Params(static_cast<size_t>(p), &b, n) ||
        (ws->num_elements() != 1 && ws->num_elements() != n)) {
      return false;
    }
    const Tensor* bs = ConstantOf(g_, b.scale);
    const float xs = ConstantOf(g_, x.scale)->data<float>()[0];
    for (int64_t i = 0; i < n; ++i) {
      const float want = xs * ws->data<float>()[ws->num_elements() == 1 ? 0 : i];
      const float got = bs->data<float>()[bs->num_elements() == 1 ? 0 : i];
      if (std::fabs(got - want) > 1e-6f * std::fabs(want)) return false;
    }
    if (b.zero >= 0) {
      const Tensor* z = ConstantOf(g_, b.zero);
      for (int64_t i = 0; i < z->num_elements(); ++i)
        if (z->data<int32_t>()[i] != 0) return false;
    }
    *codes = b.codes;
    return true;
  }

  // Node i becomes `op` of `domain` reading `inputs`, writing `out` (the QuantizeLinear's
  // codes, or the float output), its attributes `attrs`; the QuantizeLinear `q` goes.
  void Fuse(size_t i, const char* domain, const char* op, const std::vector<int>& inputs, int out,
            std::vector<onnx::AttributeProto> attrs, int q_node) {
    std::vector<size_t> group = {i};
    if (q_node >= 0) group.push_back(static_cast<size_t>(q_node));
    if (!fusions_.Free(group)) return;
    onnx::NodeProto proto =
        NodeProtoOf(g_, g_.nodes[i].proto->name.get(), domain, op, inputs, {out});
    for (onnx::AttributeProto& a : attrs)
      proto.attribute.push_back(std::move(a));
    fusions_.Replace(i, std::move(proto), inputs, {out}, group);
  }

  std::vector<onnx::AttributeProto> Attrs(size_t i, std::initializer_list<const char*> drop = {}) {
    std::vector<onnx::AttributeProto> out;
    for (const onnx::AttributeProto& a : g_.nodes[i].proto->attribute) {
      bool keep = true;
      for (const char* d : drop)
        keep = keep && a.name.get() != d;
      if (keep) out.push_back(a);
    }
    return out;
  }

  std::string Name(size_t i) const { return g_.nodes[i].proto->name.get() + "_qdq"; }

  void Conv(size_t i) {
    const Graph::Node& n = g_.nodes[i];
    QuantParams x, w, y;
    if (n.inputs.size() < 2 || !Dequantized(n.inputs[0], &x)) return;
    const Tensor* wt = nullptr;
    int64_t m = 0;
    const int wp = p_.Producer(n.inputs[1]);
    if (wp >= 0 && g_.nodes[static_cast<size_t>(wp)].inputs.size() > 0) {
      wt = ConstantOf(g_, g_.nodes[static_cast<size_t>(wp)].inputs[0]);
    }
    if (wt == nullptr || wt->shape().rank() < 3) return;
    m = wt->shape()[0];
    int bias = -1;
    if (!Dequantized(n.inputs[1], &w, m) ||
        !Bias(n.inputs.size() > 2 ? n.inputs[2] : -1, x, w, &bias) || !Quantized(i, &y)) {
      return;
    }
    std::vector<int> in = {x.codes,
                           x.scale,
                           ZeroOf(x, Name(i) + "_x"),
                           w.codes,
                           w.scale,
                           ZeroOf(w, Name(i) + "_w"),
                           y.scale,
                           ZeroOf(y, Name(i) + "_y")};
    if (bias >= 0) in.push_back(bias);
    Fuse(i, "", "QLinearConv", in, y.codes, Attrs(i), static_cast<int>(y.node));
  }

  void MatMul(size_t i) {
    const Graph::Node& n = g_.nodes[i];
    QuantParams a, b, y;
    if (n.inputs.size() != 2 || !Dequantized(n.inputs[0], &a) || !Dequantized(n.inputs[1], &b)) {
      return;
    }
    if (Quantized(i, &y)) {
      Fuse(i, "", "QLinearMatMul",
           {a.codes, a.scale, ZeroOf(a, Name(i) + "_a"), b.codes, b.scale,
            ZeroOf(b, Name(i) + "_b"), y.scale, ZeroOf(y, Name(i) + "_y")},
           y.codes, {}, static_cast<int>(y.node));
    } else if (p_.Out(i) >= 0 && Type(p_.Out(i)) == DataType::kFloat) {
      Fuse(i, "com.microsoft", "MatMulIntegerToFloat",
           {a.codes, b.codes, a.scale, b.scale, ZeroOf(a, Name(i) + "_a"),
            ZeroOf(b, Name(i) + "_b")},
           p_.Out(i), {}, -1);
    }
  }

  void Gemm(size_t i) {
    const Graph::Node& n = g_.nodes[i];
    QuantParams a, b, y;
    // B's scale per tensor or per output column: axis 1 of B [K, N], 0 of B [N, K] (transB).
    Result<int64_t> trans_b = n.info->GetInt("transB", 0);
    const int wp = n.inputs.size() < 2 ? -1 : p_.Producer(n.inputs[1]);
    const Tensor* bt = wp < 0 || g_.nodes[static_cast<size_t>(wp)].inputs.empty()
                           ? nullptr
                           : ConstantOf(g_, g_.nodes[static_cast<size_t>(wp)].inputs[0]);
    if (!trans_b.ok() || bt == nullptr || bt->shape().rank() != 2) return;
    const int64_t cols = *trans_b != 0 ? bt->shape()[0] : bt->shape()[1];
    if (!Dequantized(n.inputs[0], &a) ||
        !Dequantized(n.inputs[1], &b, cols, *trans_b != 0 ? 0 : 1, 2)) {
      return;
    }
    int bias = -1;
    Result<float> beta = n.info->GetFloat("beta", 1.0f);
    if (!Bias(n.inputs.size() > 2 ? n.inputs[2] : -1, a, b, &bias) ||
        (bias >= 0 && (!beta.ok() || *beta != 1.0f))) {
      return;
    }
    std::vector<int> in = {a.codes, a.scale, ZeroOf(a, Name(i) + "_a"),
                           b.codes, b.scale, ZeroOf(b, Name(i) + "_b"),
                           bias};
    const bool quantized = Quantized(i, &y);
    if (quantized) {
      in.push_back(y.scale);
      in.push_back(ZeroOf(y, Name(i) + "_y"));
    } else if (p_.Out(i) < 0 || Type(p_.Out(i)) != DataType::kFloat) {
      return;
    }
    Fuse(i, "com.microsoft", "QGemm", in, quantized ? y.codes : p_.Out(i), Attrs(i, {"beta"}),
         quantized ? static_cast<int>(y.node) : -1);
  }

  void Binary(size_t i, const char* op) {
    const Graph::Node& n = g_.nodes[i];
    QuantParams a, b, y;
    if (n.inputs.size() != 2 || !Dequantized(n.inputs[0], &a) || !Dequantized(n.inputs[1], &b) ||
        !Quantized(i, &y) || Type(a.codes) != Type(y.codes) || Type(b.codes) != Type(y.codes)) {
      return;
    }
    Fuse(i, "com.microsoft", op,
         {a.codes, a.scale, ZeroOf(a, Name(i) + "_a"), b.codes, b.scale, ZeroOf(b, Name(i) + "_b"),
          y.scale, ZeroOf(y, Name(i) + "_y")},
         y.codes, {}, static_cast<int>(y.node));
  }

  void Concat(size_t i) {
    const Graph::Node& n = g_.nodes[i];
    QuantParams y;
    if (n.inputs.empty() || !Quantized(i, &y)) return;
    std::vector<int> in = {y.scale, ZeroOf(y, Name(i) + "_y")};
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      QuantParams x;
      if (!Dequantized(n.inputs[k], &x) || Type(x.codes) != Type(y.codes)) return;
      in.push_back(x.codes);
      in.push_back(x.scale);
      in.push_back(ZeroOf(x, Name(i) + "_x" + std::to_string(k)));
    }
    Fuse(i, "com.microsoft", "QLinearConcat", in, y.codes, Attrs(i), static_cast<int>(y.node));
  }

  void Unary(size_t i, const std::string& op) {
    const Graph::Node& n = g_.nodes[i];
    QuantParams x, y;
    if (n.inputs.size() != 1 || !Dequantized(n.inputs[0], &x) || !Quantized(i, &y) ||
        Type(x.codes) != Type(y.codes)) {
      return;
    }
    std::vector<onnx::AttributeProto> attrs = Attrs(i);
    if (op == "AveragePool") {
      for (const onnx::AttributeProto& a : attrs)
        if (a.name.get() == "dilations") return;  // QLinearAveragePool has none
    }
    if (op == "Softmax") attrs.push_back(IntAttribute("opset", n.info->opset()));
    const std::string q = "QLinear" + op;
    Fuse(i, "com.microsoft", q.c_str(),
         {x.codes, x.scale, ZeroOf(x, Name(i) + "_x"), y.scale, ZeroOf(y, Name(i) + "_y")}, y.codes,
         std::move(attrs), static_cast<int>(y.node));
  }

  // An op that only moves or selects values: with the same parameters on both sides, the
  // op on the codes gives the codes of the float result exactly.
  void DropQdq(size_t i) {
    const Graph::Node& n = g_.nodes[i];
    QuantParams x, y;
    if (n.inputs.empty() || n.outputs.size() != 1 || !Dequantized(n.inputs[0], &x) ||
        !Quantized(i, &y) || !SameParams(x, y)) {
      return;
    }
    if (p_.Is(i, "Resize")) {  // nearest only selects values; linear would round anew
      Result<std::string> mode = n.info->GetString("mode", "nearest");
      if (!mode.ok() || *mode != "nearest") return;
    }
    std::vector<int> in = n.inputs;
    in[0] = x.codes;
    std::vector<size_t> group = {i, y.node};
    if (!fusions_.Free(group)) return;
    onnx::NodeProto proto = *n.proto;
    proto.input.clear();
    for (int v : in)
      proto.input.push_back(v >= 0 ? g_.value_names[static_cast<size_t>(v)] : std::string());
    proto.output.clear();
    proto.output.push_back(g_.value_names[static_cast<size_t>(y.codes)]);
    fusions_.Replace(i, std::move(proto), in, {y.codes}, group);
  }

  Graph& g_;
  const Pattern p_;
  Fusions fusions_;
};

}  // namespace

size_t QdqToInteger(Graph& graph, const PassContext& ctx) {
  if (!HasOnnxOp(graph, "DequantizeLinear")) return 0;
  size_t removed = Qdq(graph, ctx).Run();
  if (removed > 0) removed += EliminateDeadNodes(graph, ctx);  // DequantizeLinears left unread
  return removed;
}

}  // namespace onnx_light::passes
