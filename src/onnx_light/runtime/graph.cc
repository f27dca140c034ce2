// Building the runtime graph from a ModelProto: validation, kernel matching, and the graph
// attributes of the nodes whose kernels run them (graph_to_model.cc writes it back).
#include "graph.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>

#include "onnx_light/runtime/subgraph.h"
#include "onnx_light/runtime/tensor_proto.h"
#include "op_schema.h"
#include "plan.h"

namespace onnx_light {

namespace {

// meta->type from a tensor type's element type, when it has one.
Status ReadElementType(const onnx::TypeProto_Tensor& et, const char* role, ValueMeta* meta) {
  if (!et.elem_type.has() || et.elem_type.get() == 0) return Status::Ok();
  Result<DataType> dt = DataTypeFromInt(et.elem_type.get());
  if (!dt.ok()) {
    return dt.status().WithContext(std::string("graph ") + role + " '" + meta->name + "'");
  }
  meta->type = *dt;
  return Status::Ok();
}

Result<ValueMeta> MetaFromValueInfo(const onnx::ValueInfoProto& vi, const char* role) {
  ValueMeta meta;
  meta.name = vi.name.get();
  const onnx::TypeProto* tp = &vi.type.get();
  if (!vi.type.has()) return meta;  // untyped (allowed for outputs)
  if (tp->sequence_type.has() && tp->sequence_type->elem_type.has() &&
      tp->sequence_type->elem_type->tensor_type.has()) {
    meta.kind = ValueKind::kSequence;  // a sequence of tensors: element type below, no shape
    ONNX_LIGHT_RETURN_IF_ERROR(
        ReadElementType(tp->sequence_type->elem_type->tensor_type.get(), role, &meta));
    return meta;
  }
  // A map (of a tensor value type) or a sequence of them: key and value types, no shape.
  const onnx::TypeProto* map = tp->map_type.has() ? tp : nullptr;
  if (tp->sequence_type.has() && tp->sequence_type->elem_type.has() &&
      tp->sequence_type->elem_type->map_type.has()) {
    map = &tp->sequence_type->elem_type.get();
  }
  if (map != nullptr && map->map_type->value_type.has() &&
      map->map_type->value_type->tensor_type.has()) {
    meta.kind = map == tp ? ValueKind::kMap : ValueKind::kMapSequence;
    ONNX_LIGHT_RETURN_IF_ERROR(
        ReadElementType(map->map_type->value_type->tensor_type.get(), role, &meta));
    const int32_t key = map->map_type->key_type.get();
    if (key != 0) {
      Result<DataType> kt = DataTypeFromInt(key);
      if (!kt.ok() || (*kt != DataType::kInt64 && *kt != DataType::kString)) {
        return Status(StatusCode::kNotImplemented,
                      std::string("graph ") + role + " '" + meta.name +
                          "' is a map with key type " + std::to_string(key) +
                          "; maps with int64 or string keys are supported");
      }
      meta.key_type = *kt;
    }
    return meta;
  }
  if (tp->optional_type.has() && tp->optional_type->elem_type.has() &&
      tp->optional_type->elem_type->tensor_type.has()) {
    meta.kind = ValueKind::kOptional;  // an optional tensor: element type below, no shape
    ONNX_LIGHT_RETURN_IF_ERROR(
        ReadElementType(tp->optional_type->elem_type->tensor_type.get(), role, &meta));
    return meta;
  }
  const onnx::TypeProto& type = *tp;
  if (!type.tensor_type.has()) {
    const char* kind = type.sequence_type.has()        ? "sequence"
                       : type.map_type.has()           ? "map"
                       : type.optional_type.has()      ? "optional"
                       : type.sparse_tensor_type.has() ? "sparse tensor"
                       : type.opaque_type.has()        ? "opaque"
                                                       : nullptr;
    if (kind == nullptr) return meta;  // a TypeProto with no kind set: untyped as above
    return Status(StatusCode::kNotImplemented,
                  std::string("graph ") + role + " '" + meta.name + "' has a " + kind +
                      " type; only tensors, sequences of tensors, optional tensors, maps and "
                      "sequences of maps are supported");
  }
  const onnx::TypeProto_Tensor& tt = type.tensor_type.get();
  ONNX_LIGHT_RETURN_IF_ERROR(ReadElementType(tt, role, &meta));
  if (tt.shape.has()) {
    meta.has_shape = true;
    for (const onnx::TensorShapeProto_Dimension& d : tt.shape->dim) {
      meta.dims.push_back(d.dim_value.has() ? d.dim_value.get() : -1);
      meta.dim_params.push_back(d.dim_param.get());
    }
  }
  return meta;
}

// Tensor for a Constant node's value attribute.
Result<Tensor> ConstantValue(const onnx::NodeProto& node, const ShapeLimits& limits) {
  const std::string where = "Constant node '" + node.name.get() + "'";
  if (node.attribute.size() != 1) {
    return Status(StatusCode::kInvalidModel, where + " must have exactly one value attribute");
  }
  const onnx::AttributeProto& a = node.attribute[0];
  const std::string& name = a.name.get();
  auto scalar = [&](DataType type, std::vector<int64_t> dims, const void* data,
                    size_t bytes) -> Result<Tensor> {
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims, limits));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(type, std::move(shape)));
    if (bytes) std::memcpy(t.mutable_raw_data(), data, bytes);
    return t;
  };
  if (name == "value") {
    Result<Tensor> t = TensorFromProto(a.t.get(), limits);
    if (!t.ok()) return t.status().WithContext(where);
    return t;
  }
  if (name == "value_float") return scalar(DataType::kFloat, {}, &a.f.get(), 4);
  if (name == "value_int") return scalar(DataType::kInt64, {}, &a.i.get(), 8);
  if (name == "value_floats") {
    return scalar(DataType::kFloat, {static_cast<int64_t>(a.floats.size())}, a.floats.data(),
                  a.floats.size() * 4);
  }
  if (name == "value_ints") {
    return scalar(DataType::kInt64, {static_cast<int64_t>(a.ints.size())}, a.ints.data(),
                  a.ints.size() * 8);
  }
  if (name == "value_string" || name == "value_strings") {
    const bool one = name == "value_string";
    std::vector<int64_t> dims;
    if (!one) dims.push_back(static_cast<int64_t>(a.strings.size()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims, limits));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(DataType::kString, std::move(shape)));
    std::string* out = t.mutable_data<std::string>();
    if (one) {
      out[0] = a.s.get();
    } else {
      for (size_t i = 0; i < a.strings.size(); ++i)
        out[i] = a.strings[i];
    }
    return t;
  }
  return Status(StatusCode::kNotImplemented, where + ": attribute '" + name + "' is not supported");
}

}  // namespace

bool HasSubgraph(const onnx::NodeProto& node) {
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.g.has() || !a.graphs.empty()) return true;
  }
  return false;
}

namespace {

// The kernel's input 0 takes a tensor or a sequence at this opset, and its output 0 the
// same kind (KernelDef::passes_kind_since).
bool PassesKind(const KernelDef& def, int opset) {
  return def.passes_kind_since > 0 && opset >= def.passes_kind_since;
}

// A value a subgraph reads from its enclosing graphs: the enclosing node's input
// `position` (one of its implicit inputs).
struct OuterValue {
  std::string name;
  DataType type;
  ValueKind kind;
  size_t position;
};

// Builds a Graph step by step (BuildGraph below); each step reads what the earlier ones
// left in its members. The same builder makes a model's graph and, recursively, the graph
// attributes of its nodes (a subgraph: `outer` values readable from enclosing graphs, and
// `own_types` for its inputs that leave their element type out).
struct GraphBuilder {
  const onnx::GraphProto& graph;
  const SessionOptions& options;
  const std::map<std::string, int>& opsets;  // domain -> imported version
  bool listed_weights;  // IR < 4: initializers listed among the inputs are weights
  const std::vector<DataType>& own_types;
  const std::vector<OuterValue>& outer;
  Graph& g;
  std::unordered_map<std::string, DataType> declared;  // value -> declared element type
  std::vector<std::vector<std::string>> implicit;      // by node: names its subgraphs read
  std::vector<size_t> order;                           // node positions, topologically

  Status Build() {
    for (const OuterValue& o : outer) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int id, AddValue(o.name, o.type, -1));
      g.kinds[static_cast<size_t>(id)] = o.kind;
    }
    ONNX_LIGHT_RETURN_IF_ERROR(AddInitializersAndInputs());
    CollectDeclaredTypes();
    ONNX_LIGHT_RETURN_IF_ERROR(Order());
    for (size_t k : order)
      ONNX_LIGHT_RETURN_IF_ERROR(AddNode(k));
    return AddOutputs();
  }

  // A new value (each name once: single assignment).
  Result<int> AddValue(const std::string& name, DataType type, int producer) {
    if (g.index.count(name)) {
      return Status(StatusCode::kInvalidModel, "value '" + name + "' is defined more than once");
    }
    const int id = static_cast<int>(g.value_names.size());
    g.index.emplace(name, id);
    g.value_names.push_back(name);
    g.value_types.push_back(type);
    g.kinds.push_back(ValueKind::kTensor);
    g.producer.push_back(producer);
    g.constants.emplace_back();
    return id;
  }

  Status AddInitializersAndInputs() {
    // Initializers first, so graph inputs that they back become inputs with defaults.
    for (const onnx::TensorProto& init : graph.initializer) {
      Result<Tensor> t = TensorFromProto(init, options.shape_limits);
      if (!t.ok()) return t.status().WithContext("initializer");
      ONNX_LIGHT_ASSIGN_OR_RETURN(int id, AddValue(init.name.get(), t->dtype(), -1));
      g.constants[static_cast<size_t>(id)].tensor = std::move(*t);
    }
    if (!graph.sparse_initializer.empty()) {
      return Status(StatusCode::kNotImplemented, "sparse initializers are not supported");
    }
    // Before IR version 4 every initializer had to be listed among the graph inputs as
    // well; those are weights, not inputs (ONNX Runtime treats them the same way), so they
    // stay constants. From IR 4 on, an initializer that is also an input is its default.
    for (size_t k = 0; k < graph.input.size(); ++k) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(ValueMeta meta, MetaFromValueInfo(graph.input[k], "input"));
      if (meta.type == DataType::kUndefined && k < own_types.size()) meta.type = own_types[k];
      auto it = g.index.find(meta.name);
      if (it != g.index.end() && listed_weights) continue;
      if (it != g.index.end()) {  // an initializer: optional input with a default
        if (meta.type != DataType::kUndefined && meta.type != g.value_types[it->second]) {
          return Status(StatusCode::kInvalidModel,
                        "graph input '" + meta.name + "' is declared " + DataTypeName(meta.type) +
                            " but its initializer is " + DataTypeName(g.value_types[it->second]));
        }
        meta.type = g.value_types[it->second];
        g.input_values.push_back(it->second);
        g.input_has_default.push_back(true);
      } else {
        if (meta.type == DataType::kUndefined) {
          return Status(StatusCode::kInvalidModel,
                        "graph input '" + meta.name + "' has no element type");
        }
        ONNX_LIGHT_ASSIGN_OR_RETURN(int id, AddValue(meta.name, meta.type, -1));
        g.kinds[static_cast<size_t>(id)] = meta.kind;
        g.input_values.push_back(id);
        g.input_has_default.push_back(false);
      }
      g.input_meta.push_back(std::move(meta));
    }
    return Status::Ok();
  }

  // Declared types of intermediate values and outputs (used when a kernel leaves one open).
  void CollectDeclaredTypes() {
    for (const auto* list : {&graph.value_info, &graph.output}) {
      for (const onnx::ValueInfoProto& vi : *list) {
        Result<ValueMeta> meta = MetaFromValueInfo(vi, "value");
        if (meta.ok() && meta->type != DataType::kUndefined) declared[meta->name] = meta->type;
      }
    }
  }

  Status Order() {
    // Topological order (Kahn's), whatever the order in the file.
    const size_t n_nodes = graph.node.size();
    std::unordered_map<std::string, size_t> produced_by;
    for (size_t i = 0; i < n_nodes; ++i) {
      for (const std::string& out : graph.node[i].output) {
        if (out.empty()) continue;
        if (g.index.count(out) || !produced_by.emplace(out, i).second) {
          return Status(StatusCode::kInvalidModel,
                        "value '" + out + "' is produced more than once (again by node '" +
                            graph.node[i].name.get() + "')");
        }
      }
    }
    std::vector<int> pending(n_nodes, 0);
    std::vector<std::vector<size_t>> readers(n_nodes);
    // Values read by a node's subgraphs (If/Loop bodies) count as extra inputs of the node.
    implicit.assign(n_nodes, {});
    for (size_t i = 0; i < n_nodes; ++i)
      implicit[i] = SubgraphFreeNames(graph.node[i]);
    for (size_t i = 0; i < n_nodes; ++i) {
      const onnx::NodeProto& node = graph.node[i];
      std::vector<std::string> reads(node.input.begin(), node.input.end());
      reads.insert(reads.end(), implicit[i].begin(), implicit[i].end());
      for (const std::string& in : reads) {
        if (in.empty() || g.index.count(in)) continue;
        auto it = produced_by.find(in);
        if (it == produced_by.end()) {
          return Status(StatusCode::kInvalidModel,
                        "node '" + node.name.get() + "' (" + node.op_type.get() + ") reads '" + in +
                            "', which no node, initializer or graph input produces");
        }
        ++pending[i];
        readers[it->second].push_back(i);
      }
    }
    // Of the nodes ready to run, the one first in the file: a file in topological order
    // keeps its order (exporters write a branch's nodes together, so each branch's
    // tensors die before the next one starts). Breadth first (a FIFO of ready nodes), the
    // twelve parallel Conv branches of a Keras segmenter ran layer by layer across all of
    // them, every branch's 7 MB maps alive at once: a 72 MB arena where 20 MB do.
    order.clear();
    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
    for (size_t i = 0; i < n_nodes; ++i) {
      if (pending[i] == 0) ready.push(i);
    }
    while (!ready.empty()) {
      const size_t k = ready.top();
      ready.pop();
      order.push_back(k);
      for (size_t r : readers[k]) {
        if (--pending[r] == 0) ready.push(r);
      }
    }
    if (order.size() != n_nodes) {
      for (size_t i = 0; i < n_nodes; ++i) {
        if (pending[i] > 0) {
          return Status(StatusCode::kInvalidModel, "the graph has a cycle through node '" +
                                                       graph.node[i].name.get() + "' (" +
                                                       graph.node[i].op_type.get() + ")");
        }
      }
    }
    return Status::Ok();
  }

  // Sequence inputs where the kernel takes them, optionals where it takes them, tensors
  // elsewhere.
  Status CheckInputKinds(const onnx::NodeProto& node, const KernelDef& def, int opset,
                         const std::vector<int>& inputs, const std::vector<std::string>& reads) {
    const bool passes = PassesKind(def, opset);
    // The implicit inputs (values of this graph that the node's subgraphs read, after its
    // own inputs) go to the subgraphs as they are, of any kind: the subgraph's nodes check
    // what they take (an optional read by OptionalHasElement in an If branch).
    const size_t own = std::min(inputs.size(), node.input.size());
    for (size_t i = 0; i < own; ++i) {
      if (inputs[i] < 0) continue;
      auto lists = [&](const std::vector<int>& positions) {
        return std::find(positions.begin(), positions.end(), static_cast<int>(i)) !=
               positions.end();
      };
      const ValueKind want = lists(def.sequence_inputs) ? ValueKind::kSequence
                             : lists(def.map_inputs)    ? ValueKind::kMap
                                                        : ValueKind::kTensor;
      const ValueKind kind = g.kinds[static_cast<size_t>(inputs[i])];
      if (passes && i == 0 && (kind == ValueKind::kTensor || kind == ValueKind::kSequence)) {
        continue;  // output 0 takes its kind (AddNode)
      }
      const std::string which = "node '" + node.name.get() + "' (" + node.op_type.get() +
                                "): input " + std::to_string(i) + " ('" + reads[i] + "') is ";
      if (kind == ValueKind::kOptional && !lists(def.optional_inputs)) {
        return Status(StatusCode::kNotImplemented,
                      which + "an optional; this op takes tensors only");
      }
      const ValueKind got = kind == ValueKind::kOptional ? ValueKind::kTensor : kind;
      if (got != want) {
        return Status(
            want != ValueKind::kTensor ? StatusCode::kInvalidModel : StatusCode::kNotImplemented,
            which + "a " + ValueKindName(got) + " where this op takes a " + ValueKindName(want));
      }
    }
    return Status::Ok();
  }

  // Output types from the type constraints that bind them (UNDEFINED where none does).
  static std::vector<DataType> ConstrainedOutputTypes(const onnx::NodeProto& node,
                                                      const KernelDef& def,
                                                      const std::vector<DataType>& input_types) {
    std::vector<DataType> output_types(node.output.size(), DataType::kUndefined);
    for (const TypeConstraint& c : def.constraints) {
      DataType bound = DataType::kUndefined;
      for (int pos : c.inputs) {
        if (static_cast<size_t>(pos) < input_types.size() &&
            input_types[static_cast<size_t>(pos)] != DataType::kUndefined) {
          bound = input_types[static_cast<size_t>(pos)];
        }
      }
      if (bound == DataType::kUndefined && c.types.size() == 1) bound = c.types[0];
      for (int pos : c.outputs) {
        if (static_cast<size_t>(pos) < output_types.size()) {
          output_types[static_cast<size_t>(pos)] = bound;
        }
      }
    }
    return output_types;
  }

  // The node's output values (`outputs`: their indices, -1 for an unused optional output),
  // typed by `output_types`, else by the model's declaration; of the kind the kernel makes.
  Status AddOutputValues(const onnx::NodeProto& node, const KernelDef& def,
                         std::vector<DataType>* output_types, std::vector<int>* outputs) {
    const int node_index = static_cast<int>(g.nodes.size());
    for (size_t o = 0; o < node.output.size(); ++o) {
      const std::string& out = node.output[o];
      if (out.empty()) {
        outputs->push_back(-1);
        continue;
      }
      DataType t = (*output_types)[o];
      if (t == DataType::kUndefined) {
        auto d = declared.find(out);
        if (d == declared.end()) {
          // ONNX does not require these declarations; inferring them is not implemented.
          return Status(StatusCode::kNotImplemented,
                        "node '" + node.name.get() + "' (" + node.op_type.get() +
                            "): cannot determine the element type of output '" + out +
                            "' (no kernel rule and no declaration in the model)");
        }
        t = d->second;
        (*output_types)[o] = t;
      }
      ONNX_LIGHT_ASSIGN_OR_RETURN(int id, AddValue(out, t, node_index));
      auto lists = [&](const std::vector<int>& positions) {
        return std::find(positions.begin(), positions.end(), static_cast<int>(o)) !=
               positions.end();
      };
      g.kinds[static_cast<size_t>(id)] = lists(def.sequence_outputs)       ? ValueKind::kSequence
                                         : lists(def.optional_outputs)     ? ValueKind::kOptional
                                         : lists(def.map_sequence_outputs) ? ValueKind::kMapSequence
                                                                           : ValueKind::kTensor;
      outputs->push_back(id);
    }
    return Status::Ok();
  }

  // Node `k` of the file: checked against its op, its kernel matched, its outputs typed.
  Status AddNode(size_t k) {
    const KernelRegistry& registry = *options.registry;
    const onnx::NodeProto& node = graph.node[k];
    const std::string domain = NormalizeDomain(node.domain.get());
    auto opset_it = opsets.find(domain);
    if (opset_it == opsets.end()) {
      return Status(StatusCode::kInvalidModel, "node '" + node.name.get() + "' (" +
                                                   node.op_type.get() + ") uses domain '" +
                                                   (domain.empty() ? "ai.onnx" : domain) +
                                                   "', which the model does not import");
    }
    std::vector<int> inputs;
    std::vector<DataType> input_types;
    std::vector<std::string> reads(node.input.begin(), node.input.end());
    reads.insert(reads.end(), implicit[k].begin(), implicit[k].end());
    for (const std::string& in : reads) {
      if (in.empty()) {
        inputs.push_back(-1);
        input_types.push_back(DataType::kUndefined);
        continue;
      }
      const int id = g.index.at(in);
      inputs.push_back(id);
      input_types.push_back(g.value_types[static_cast<size_t>(id)]);
    }

    if (domain.empty() && node.op_type.get() == "Constant") {
      if (node.output.size() != 1 || node.output[0].empty()) {
        return Status(StatusCode::kInvalidModel,
                      "Constant node '" + node.name.get() + "' must have one output");
      }
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, ConstantValue(node, options.shape_limits));
      ONNX_LIGHT_ASSIGN_OR_RETURN(int id, AddValue(node.output[0], t.dtype(), -1));
      g.constants[static_cast<size_t>(id)].tensor = std::move(t);
      return Status::Ok();
    }

    // Arity and attribute types first: a malformed node gets an error naming what is
    // wrong, and no kernel ever sees an input it requires missing.
    const std::optional<OpSchemaRow> schema =
        domain.empty() ? FindOnnxOpSchema(node.op_type.get(), opset_it->second) : std::nullopt;
    if (schema) {
      ONNX_LIGHT_RETURN_IF_ERROR(CheckArity(node, schema->arity, opset_it->second));
      ONNX_LIGHT_RETURN_IF_ERROR(CheckAttributes(node, schema->attributes, opset_it->second));
    }
    KernelQuery query{domain, node.op_type.get(), opset_it->second, input_types, node.name.get()};
    ONNX_LIGHT_ASSIGN_OR_RETURN(const KernelDef* def, registry.Find(query));
    // A kernel may take more types than the op allows at this opset: the schema decides.
    // Without a schema, the kernel's declared arity.
    ONNX_LIGHT_RETURN_IF_ERROR(schema
                                   ? CheckInputTypes(node, *schema, input_types, opset_it->second)
                                   : CheckArity(node, DeclaredArity(*def), opset_it->second));
    ONNX_LIGHT_RETURN_IF_ERROR(CheckInputKinds(node, *def, opset_it->second, inputs, reads));
    std::vector<DataType> output_types = ConstrainedOutputTypes(node, *def, input_types);
    Graph::Node pn;
    if (def->subgraph_input_types) {
      Status s = AddSubgraphs(k, opset_it->second, *def, input_types, inputs, &pn.subgraphs);
      if (!s.ok()) {
        return s.WithContext("node '" + node.name.get() + "' (" + node.op_type.get() + ")");
      }
    }
    if (def->output_types) {
      Status s =
          def->output_types(node, opset_it->second, input_types, &output_types, pn.subgraphs);
      if (!s.ok()) {
        return s.WithContext("node '" + node.name.get() + "' (" + node.op_type.get() + ")");
      }
    }
    pn.proto = &node;
    pn.def = def;
    pn.inputs = std::move(inputs);
    ONNX_LIGHT_RETURN_IF_ERROR(AddOutputValues(node, *def, &output_types, &pn.outputs));
    if (PassesKind(*def, opset_it->second) && !pn.inputs.empty() && pn.inputs[0] >= 0 &&
        !pn.outputs.empty() && pn.outputs[0] >= 0) {
      g.kinds[static_cast<size_t>(pn.outputs[0])] = g.kinds[static_cast<size_t>(pn.inputs[0])];
    }
    pn.info = std::make_unique<KernelInfo>(&node, opset_it->second, input_types, output_types,
                                           pn.subgraphs);
    g.nodes.push_back(std::move(pn));
    return Status::Ok();
  }

  // The graph attributes of node `k`, whose kernel runs them: each built as a graph of its
  // own that reads the node's implicit inputs (`input_types`, `inputs`: the node's, by
  // position) as outer values.
  Status AddSubgraphs(size_t k, int opset, const KernelDef& def,
                      const std::vector<DataType>& input_types, const std::vector<int>& inputs,
                      NodeSubgraphs* built) {
    const onnx::NodeProto& node = graph.node[k];
    const std::vector<std::string>& node_free = implicit[k];
    const size_t first_implicit = node.input.size();
    for (const onnx::AttributeProto& a : node.attribute) {
      if (!a.g.has()) continue;
      const onnx::GraphProto& sub = a.g.get();
      const std::string where = "graph '" + a.name.get() + "'";
      std::vector<DataType> own(sub.input.size(), DataType::kUndefined);
      Status typed = def.subgraph_input_types(node, opset, a.name.get(), input_types, &own);
      if (!typed.ok()) return typed.WithContext(where);
      std::vector<OuterValue> reads;
      for (const std::string& name : GraphFreeNames(sub)) {
        auto it = std::lower_bound(node_free.begin(), node_free.end(), name);
        const size_t pos = first_implicit + static_cast<size_t>(it - node_free.begin());
        if (it == node_free.end() || *it != name || pos >= inputs.size() || inputs[pos] < 0) {
          return Status(StatusCode::kInternal, where + " reads unknown '" + name + "'");
        }
        reads.push_back({name, input_types[pos], g.kinds[static_cast<size_t>(inputs[pos])], pos});
      }
      auto impl = std::make_unique<Subgraph::Impl>();
      impl->name = sub.name.get();
      impl->graph = std::make_unique<Graph>();
      // A subgraph's initializers are never listed weights (they have no inputs to list).
      GraphBuilder b{sub, options, opsets, false, own, reads, *impl->graph, {}, {}, {}};
      Status s = b.Build();
      if (!s.ok()) return s.WithContext(where + " ('" + sub.name.get() + "')");
      for (const OuterValue& o : reads) {
        impl->outer_values.push_back(impl->graph->index.at(o.name));
        impl->outer_positions.push_back(o.position);
      }
      built->emplace_back(a.name.get(), std::make_shared<Subgraph>(std::move(impl)));
    }
    return Status::Ok();
  }

  Status AddOutputs() {
    for (const onnx::ValueInfoProto& vi : graph.output) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(ValueMeta meta, MetaFromValueInfo(vi, "output"));
      auto it = g.index.find(meta.name);
      if (it == g.index.end()) {
        return Status(StatusCode::kInvalidModel, "graph output '" + meta.name +
                                                     "' is not produced by any node, initializer "
                                                     "or graph input");
      }
      const DataType actual = g.value_types[static_cast<size_t>(it->second)];
      const ValueKind actual_kind = g.kinds[static_cast<size_t>(it->second)];
      // A declared tensor, sequence, map or maps must be what is computed (an optional
      // counts as a tensor here).
      auto plain = [](ValueKind k) { return k == ValueKind::kOptional ? ValueKind::kTensor : k; };
      if (vi.type.has() && (vi.type->tensor_type.has() || meta.kind != ValueKind::kTensor) &&
          plain(meta.kind) != plain(actual_kind)) {
        return Status(StatusCode::kInvalidModel, "graph output '" + meta.name + "' is declared a " +
                                                     ValueKindName(plain(meta.kind)) +
                                                     " but computed as a " +
                                                     ValueKindName(plain(actual_kind)));
      }
      meta.kind = actual_kind;
      if (meta.type != DataType::kUndefined && meta.type != actual) {
        return Status(StatusCode::kInvalidModel, "graph output '" + meta.name + "' is declared " +
                                                     DataTypeName(meta.type) + " but computed as " +
                                                     DataTypeName(actual));
      }
      meta.type = actual;
      g.output_values.push_back(it->second);
      g.output_meta.push_back(std::move(meta));
    }
    return Status::Ok();
  }
};

}  // namespace

Status BuildGraph(const onnx::ModelProto& model, const SessionOptions& options, Graph* built) {
  if (!model.graph.has()) return Status(StatusCode::kInvalidModel, "the model has no graph");
  std::map<std::string, int> opsets;
  for (const onnx::OperatorSetIdProto& o : model.opset_import) {
    const std::string domain = NormalizeDomain(o.domain.get());
    auto [it, inserted] = opsets.emplace(domain, static_cast<int>(o.version.get()));
    if (!inserted && it->second != o.version.get()) {
      return Status(StatusCode::kInvalidModel,
                    "opset of domain '" + domain + "' imported twice with different versions");
    }
  }
  const std::vector<DataType> own_types;  // a model's inputs declare theirs
  const std::vector<OuterValue> outer;    // a model's graph encloses nothing
  GraphBuilder b{model.graph.get(),
                 options,
                 opsets,
                 model.ir_version.get() < 4,
                 own_types,
                 outer,
                 *built,
                 {},
                 {},
                 {}};
  return b.Build();
}

}  // namespace onnx_light
