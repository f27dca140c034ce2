#include "pass_manager.h"

#include <algorithm>

#include "../compute.h"
#include "../graph.h"
#include "onnx_light/platform/mapped_file.h"

namespace onnx_light::passes {

const std::vector<GraphPass>& AllGraphPasses() {
  static const std::vector<GraphPass> passes = {
      {"constant_folding", GraphOptimizationLevel::kBasic, &FoldConstants},
      {"eliminate_identities", GraphOptimizationLevel::kBasic, &EliminateIdentities},
      {"sink_transposes", GraphOptimizationLevel::kBasic, &SinkTransposes},
      {"eliminate_dead_nodes", GraphOptimizationLevel::kBasic, &EliminateDeadNodes},
      {"fold_batch_norm_into_conv", GraphOptimizationLevel::kExtended, &FoldBatchNormIntoConv},
      {"fold_affine_into_conv", GraphOptimizationLevel::kExtended, &FoldAffineIntoConv},
      {"fuse_conv_activation", GraphOptimizationLevel::kExtended, &FuseConvActivation},
      {"fuse_conv_residual", GraphOptimizationLevel::kExtended, &FuseConvResidual},
      {"fuse_conv_affine", GraphOptimizationLevel::kExtended, &FuseConvAffine},
      {"fuse_layer_norm", GraphOptimizationLevel::kExtended, &FuseLayerNorm},
      {"fuse_matmul_integer_scale", GraphOptimizationLevel::kExtended, &FuseMatMulIntegerScale},
      {"fuse_gelu", GraphOptimizationLevel::kExtended, &FuseGelu},
      {"fuse_elementwise_chain", GraphOptimizationLevel::kExtended, &FuseElementwiseChain},
      {"prepack_matmul_weights", GraphOptimizationLevel::kExtended, &PrepackMatMulWeights},
  };
  return passes;
}

std::vector<std::pair<const char*, size_t>> RunGraphPasses(Graph& graph,
                                                           GraphOptimizationLevel level,
                                                           const PassContext& ctx) {
  std::vector<std::pair<const char*, size_t>> report;
  report.reserve(AllGraphPasses().size());
  const std::vector<std::string>* disabled =
      ctx.options != nullptr ? &ctx.options->disabled_passes : nullptr;
  for (const GraphPass& pass : AllGraphPasses()) {
    if (static_cast<int>(level) < static_cast<int>(pass.level)) continue;
    if (disabled != nullptr &&
        std::find(disabled->begin(), disabled->end(), pass.name) != disabled->end()) {
      continue;
    }
    report.emplace_back(pass.name, pass.apply(graph, ctx));
  }
  DropUnreadConstants(graph);
  return report;
}

namespace {
onnx::AttributeProto Attribute(const char* name, onnx::AttributeType type) {
  onnx::AttributeProto a;
  a.name.set(name);
  a.type.set(static_cast<int32_t>(type));
  return a;
}
}  // namespace

onnx::AttributeProto FloatAttribute(const char* name, float value) {
  onnx::AttributeProto a = Attribute(name, onnx::AttributeType::kFloat);
  a.f.set(value);
  return a;
}
onnx::AttributeProto FloatsAttribute(const char* name, std::vector<float> values) {
  onnx::AttributeProto a = Attribute(name, onnx::AttributeType::kFloats);
  a.floats = std::move(values);
  return a;
}
onnx::AttributeProto IntAttribute(const char* name, int64_t value) {
  onnx::AttributeProto a = Attribute(name, onnx::AttributeType::kInt);
  a.i.set(value);
  return a;
}
onnx::AttributeProto IntsAttribute(const char* name, std::vector<int64_t> values) {
  onnx::AttributeProto a = Attribute(name, onnx::AttributeType::kInts);
  a.ints = std::move(values);
  return a;
}
onnx::AttributeProto StringAttribute(const char* name, const std::string& value) {
  onnx::AttributeProto a = Attribute(name, onnx::AttributeType::kString);
  a.s.set(value);
  return a;
}
onnx::AttributeProto StringsAttribute(const char* name, std::vector<std::string> values) {
  onnx::AttributeProto a = Attribute(name, onnx::AttributeType::kStrings);
  a.strings = std::move(values);
  return a;
}

Status CheckPassNames(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    bool known = false;
    std::string all;
    for (const GraphPass& pass : AllGraphPasses()) {
      known = known || name == pass.name;
      all += (all.empty() ? "" : ", ") + std::string(pass.name);
    }
    if (!known) {
      return Status(StatusCode::kInvalidArgument,
                    "disabled_passes: no pass is named '" + name + "' (the passes: " + all + ")");
    }
  }
  return Status::Ok();
}

void DropUnreadConstants(Graph& graph) {
  std::vector<int> readers = ReaderCounts(graph);
  for (int v : graph.input_values)
    ++readers[static_cast<size_t>(v)];  // an input's default stays
  for (size_t v = 0; v < readers.size(); ++v) {
    Value& c = graph.constants[v];
    if (readers[v] > 0 || c.tensor.dtype() == DataType::kUndefined) continue;
    const void* bytes = c.tensor.raw_data();
    const size_t size = c.tensor.byte_size();
    c = Value{};
    ReleaseMappedPages(bytes, size);  // pages of the model file a fold read; no-op otherwise
  }
}

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

bool IsOnnxOp(const onnx::NodeProto& n, const char* op) {
  return n.op_type.get() == op && NormalizeDomain(n.domain.get()).empty();
}

bool HasOnnxOp(const Graph& graph, const char* op) {
  return std::any_of(graph.nodes.begin(), graph.nodes.end(),
                     [op](const Graph::Node& n) { return IsOnnxOp(*n.proto, op); });
}

void RemoveNodes(Graph& graph, const std::vector<char>& removed) {
  std::vector<Graph::Node> kept;
  kept.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!removed[i]) kept.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(kept);
  RenumberProducers(graph);
}

int AddValue(Graph& graph, const std::string& name, DataType type, ValueKind kind) {
  std::string unique = name;
  for (int k = 1; graph.index.count(unique); ++k)
    unique = name + "_" + std::to_string(k);
  const int id = static_cast<int>(graph.value_names.size());
  graph.index.emplace(unique, id);
  graph.value_names.push_back(unique);
  graph.value_types.push_back(type);
  graph.kinds.push_back(kind);
  graph.producer.push_back(-1);
  graph.constants.emplace_back();
  return id;
}

int AddConstant(Graph& graph, const std::string& name, Tensor value) {
  const int id = AddValue(graph, name, value.dtype(), ValueKind::kTensor);
  graph.constants[static_cast<size_t>(id)] = Value{std::move(value), nullptr};
  return id;
}

const Tensor* ConstantOf(const Graph& graph, int v) {
  if (v < 0 || graph.producer[static_cast<size_t>(v)] >= 0) return nullptr;
  if (std::find(graph.input_values.begin(), graph.input_values.end(), v) !=
      graph.input_values.end()) {
    return nullptr;  // an initializer that backs a graph input: a feed may replace it
  }
  return graph.constants[static_cast<size_t>(v)].tensor_or_null();
}

Result<std::vector<Value>> RunNodeOnce(const Graph::Node& node,
                                       const std::vector<const Value*>& inputs,
                                       const SessionOptions& options) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::unique_ptr<KernelBase> kernel, node.def->create(*node.info));
  std::vector<Value> out(node.outputs.size());
  // A folded value lives as long as the session, and folding runs before any run's memory
  // budget: a node that makes far more than its constant inputs (ConstantOfShape, Expand,
  // Tile, Range to gigabytes) is not folded past 16 MiB and 8 times its inputs' bytes, nor
  // past the budget. Its kernel refuses the output before allocating; the node stays, to
  // run under the run's budget. (Dequantized weights, 4 times their bytes, still fold.)
  uint64_t in_bytes = 0;
  for (const Value* v : inputs) {
    if (v != nullptr && v->tensor.is_defined()) in_bytes += v->tensor.byte_size();
  }
  uint64_t fold_cap =
      std::max<uint64_t>(uint64_t{16} << 20, in_bytes > UINT64_MAX / 8 ? UINT64_MAX : in_bytes * 8);
  fold_cap = std::min(fold_cap, options.max_tensor_bytes);
  if (options.memory_budget_bytes > 0) fold_cap = std::min(fold_cap, options.memory_budget_bytes);
  KernelContext ctx(node.info.get(), inputs, &out, nullptr, &options.shape_limits, fold_cap);
  ONNX_LIGHT_RETURN_IF_ERROR(ComputeNode(*kernel, ctx));
  return out;
}

bool ScalarConstant(const Graph& graph, int v, float* out) {
  const Tensor* t = ConstantOf(graph, v);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->num_elements() != 1) return false;
  *out = t->data<float>()[0];
  return true;
}

int64_t FoldableConvChannels(const Graph& graph, const Graph::Node& conv) {
  if (!IsOnnxOp(*conv.proto, "Conv") || conv.inputs.size() < 2 || conv.outputs.size() != 1) {
    return -1;
  }
  const Tensor* w = ConstantOf(graph, conv.inputs[1]);
  if (w == nullptr || w->dtype() != DataType::kFloat || w->shape().rank() < 3) return -1;
  const int64_t m = w->shape()[0];
  if (conv.inputs.size() > 2 && conv.inputs[2] >= 0) {
    const Tensor* b = ConstantOf(graph, conv.inputs[2]);
    if (b == nullptr || b->dtype() != DataType::kFloat || b->num_elements() != m) return -1;
  }
  return m;
}

bool FoldIntoConv(Graph& graph, const PassContext& ctx, Graph::Node& conv, int output,
                  const std::vector<float>& scale,
                  const std::function<float(int64_t, float)>& bias) {
  const Tensor& w = *ConstantOf(graph, conv.inputs[1]);
  const int64_t m = w.shape()[0];
  const float* b = conv.inputs.size() > 2 && conv.inputs[2] >= 0
                       ? ConstantOf(graph, conv.inputs[2])->data<float>()
                       : nullptr;
  const std::string& name = conv.proto->name.get();
  int wv = conv.inputs[1];
  if (!scale.empty()) {
    Result<Tensor> w2 = w.Clone();
    if (!w2.ok()) return false;
    const int64_t per_channel = w.num_elements() / m;
    float* wp = w2->mutable_data<float>();
    for (int64_t c = 0; c < m; ++c) {
      for (int64_t k = 0; k < per_channel; ++k)
        wp[c * per_channel + k] *= scale[static_cast<size_t>(c)];
    }
    wv = AddConstant(graph, name + "_folded_W", std::move(*w2));
  }
  Result<Tensor> b2 = Tensor::Allocate(DataType::kFloat, *Shape::Create({m}));
  if (!b2.ok()) return false;
  for (int64_t c = 0; c < m; ++c)
    b2->mutable_data<float>()[c] = bias(c, b != nullptr ? b[c] : 0.0f);
  const int bv = AddConstant(graph, name + "_folded_B", std::move(*b2));
  onnx::NodeProto proto = *conv.proto;
  proto.input.clear();
  for (int v : {conv.inputs[0], wv, bv})
    proto.input.push_back(graph.value_names[static_cast<size_t>(v)]);
  proto.output.clear();
  proto.output.push_back(graph.value_names[static_cast<size_t>(output)]);
  const std::vector<int> old_outputs = conv.outputs;
  conv.outputs = {output};
  if (!ReplaceNode(graph, ctx, conv, std::move(proto), {conv.inputs[0], wv, bv}).ok()) {
    conv.outputs = old_outputs;
    return false;
  }
  return true;
}

namespace {

// Matches `proto` (domain ai.onnx at `opset`, onnx_light at 1) for the value types of
// `inputs` and n.outputs and makes it n's definition.
Status Define(Graph& graph, const PassContext& ctx, Graph::Node& n, onnx::NodeProto proto,
              std::vector<int> inputs, int opset) {
  std::vector<DataType> input_types, output_types;
  for (int v : inputs)
    input_types.push_back(v >= 0 ? graph.value_types[static_cast<size_t>(v)]
                                 : DataType::kUndefined);
  for (int v : n.outputs)
    output_types.push_back(v >= 0 ? graph.value_types[static_cast<size_t>(v)]
                                  : DataType::kUndefined);
  const std::string domain = NormalizeDomain(proto.domain.get());
  if (!domain.empty()) opset = 1;
  KernelQuery query{domain, proto.op_type.get(), opset, input_types, proto.name.get()};
  ONNX_LIGHT_ASSIGN_OR_RETURN(const KernelDef* def, ctx.registry->Find(query));
  graph.owned_protos.push_back(std::move(proto));
  const onnx::NodeProto* owned = &graph.owned_protos.back();
  n.proto = owned;
  n.def = def;
  n.inputs = std::move(inputs);
  n.info =
      std::make_unique<KernelInfo>(owned, opset, std::move(input_types), std::move(output_types));
  return Status::Ok();
}

}  // namespace

Status ReplaceNode(Graph& graph, const PassContext& ctx, Graph::Node& n, onnx::NodeProto proto,
                   std::vector<int> inputs) {
  // Nodes made by passes live in onnx-light's own domain at opset 1, or in ai.onnx at the
  // opset of the node they replace.
  return Define(graph, ctx, n, std::move(proto), std::move(inputs), n.info->opset());
}

Result<Graph::Node> MakeNode(Graph& graph, const PassContext& ctx, onnx::NodeProto proto,
                             std::vector<int> inputs, std::vector<int> outputs, int opset) {
  Graph::Node n;
  n.outputs = std::move(outputs);
  ONNX_LIGHT_RETURN_IF_ERROR(Define(graph, ctx, n, std::move(proto), std::move(inputs), opset));
  return n;
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

void RenumberProducers(Graph& graph) {
  for (int& p : graph.producer) {
    if (p >= 0) p = -1;
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (int v : graph.nodes[i].outputs) {
      if (v >= 0) graph.producer[static_cast<size_t>(v)] = static_cast<int>(i);
    }
  }
}

}  // namespace onnx_light::passes
