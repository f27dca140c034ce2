// Changing a graph in a pass (rewrite.h).
#include "rewrite.h"

#include <algorithm>

#include "../compute.h"
#include "onnx_light/platform/mapped_file.h"
#include "pattern.h"

namespace onnx_light::passes {

void RemoveNodes(Graph& graph, const std::vector<char>& removed) {
  std::vector<Graph::Node> kept;
  kept.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!removed[i]) kept.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(kept);
  RenumberProducers(graph);
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

onnx::NodeProto NodeProtoOf(const Graph& graph, const std::string& name, const char* domain,
                            const char* op, const std::vector<int>& inputs,
                            const std::vector<int>& outputs) {
  onnx::NodeProto proto;
  proto.name.set(name);
  proto.domain.set(domain);
  proto.op_type.set(op);
  for (int v : inputs)
    proto.input.push_back(v >= 0 ? graph.value_names[static_cast<size_t>(v)] : std::string());
  for (int v : outputs)
    proto.output.push_back(v >= 0 ? graph.value_names[static_cast<size_t>(v)] : std::string());
  return proto;
}

bool Fusions::Free(const std::vector<size_t>& group) const {
  return std::none_of(group.begin(), group.end(), [this](size_t n) { return removed_[n] != 0; });
}

bool Fusions::Replace(size_t at, onnx::NodeProto proto, std::vector<int> inputs,
                      std::vector<int> outputs, const std::vector<size_t>& group) {
  Graph::Node& n = graph_.nodes[at];
  std::vector<int> old_outputs = std::move(n.outputs);
  n.outputs = std::move(outputs);
  if (!ReplaceNode(graph_, ctx_, n, std::move(proto), std::move(inputs)).ok()) {
    n.outputs = std::move(old_outputs);
    return false;
  }
  for (size_t g : group) {
    if (g != at && !removed_[g]) {
      removed_[g] = 1;
      ++count_;
    }
  }
  return true;
}

size_t Fusions::Finish() {
  if (count_ > 0) RemoveNodes(graph_, removed_);
  return count_;
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

}  // namespace onnx_light::passes
