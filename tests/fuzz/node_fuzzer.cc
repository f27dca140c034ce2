// libFuzzer target, structure-aware: one node of an op drawn from the kernel registry, with
// attributes, input types, shapes and values drawn from the fuzzer's bytes, as a model
// that goes through session creation (passes, constant folding when the inputs are
// initializers) and one run. Where session_fuzzer mutates bytes and mostly meets the
// model reader's checks, this reaches every kernel's shape logic and its edge sizes:
// dimensions 0 and 1, the tails of every SIMD width (7, 9, 15, 17, 31, 33, 63, 65), rank 0
// to 6 and 16, INT64 extremes as indices and axes, NaN and infinities, empty sequences.
// Any step may fail with a status; none may crash, leak, trip a sanitizer or hang.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "onnx_light/runtime/kernel_registry.h"
#include "onnx_light/runtime/op_schema.h"
#include "onnx_light/runtime/session.h"

namespace {

using onnx_light::DataType;
namespace onnx = onnx_light::onnx;

constexpr int64_t kMaxElements = 1 << 12;  // per tensor: keeps each run fast
constexpr int kMaxInputs = 8;
constexpr int kMaxOutputs = 4;
constexpr int kNewestOnnxOpset = 23;

// ONNX AttributeProto.AttributeType values.
enum AttrType : int32_t {
  kAttrFloat = 1,
  kAttrInt = 2,
  kAttrString = 3,
  kAttrTensor = 4,
  kAttrGraph = 5,
  kAttrFloats = 6,
  kAttrInts = 7,
  kAttrStrings = 8,
};

// Attributes of the ops outside ai.onnx (no schema): the names their kernels read.
struct NamedAttr {
  const char* name;
  int32_t type;
};
constexpr NamedAttr kContribAttrs[] = {
    {"axis", kAttrInt},
    {"axes", kAttrInts},
    {"epsilon", kAttrFloat},
    {"num_heads", kAttrInt},
    {"kv_num_heads", kAttrInt},
    {"alpha", kAttrFloat},
    {"beta", kAttrFloat},
    {"activation", kAttrString},
    {"ops", kAttrStrings},
    {"operands", kAttrInts},
    {"value_first", kAttrInts},
    {"post_scale", kAttrFloats},
    {"post_shift", kAttrFloats},
    {"post_max", kAttrFloats},
    {"kernel_shape", kAttrInts},
    {"strides", kAttrInts},
    {"pads", kAttrInts},
    {"dilations", kAttrInts},
    {"group", kAttrInt},
    {"scale", kAttrFloat},
    {"unidirectional", kAttrInt},
    {"interleaved", kAttrInt},
    {"rotary_embedding_dim", kAttrInt},
    {"do_rotary", kAttrInt},
    {"hidden_size", kAttrInt},
    {"activation_params", kAttrFloats},
    {"approximate", kAttrString},
    {"mode", kAttrString},
    {"transA", kAttrInt},
    {"transB", kAttrInt},
    {"keepdims", kAttrInt},
};

// ai.onnx.ml's attributes: the trees' node and leaf arrays, the linear and SVM models, the
// encoders. Their lists get one length per node (most of the time), as a model's do.
constexpr NamedAttr kMlAttrs[] = {
    {"nodes_treeids", kAttrInts},
    {"nodes_nodeids", kAttrInts},
    {"nodes_featureids", kAttrInts},
    {"nodes_values", kAttrFloats},
    {"nodes_modes", kAttrStrings},
    {"nodes_truenodeids", kAttrInts},
    {"nodes_falsenodeids", kAttrInts},
    {"nodes_missing_value_tracks_true", kAttrInts},
    {"target_treeids", kAttrInts},
    {"target_nodeids", kAttrInts},
    {"target_ids", kAttrInts},
    {"target_weights", kAttrFloats},
    {"class_treeids", kAttrInts},
    {"class_nodeids", kAttrInts},
    {"class_ids", kAttrInts},
    {"class_weights", kAttrFloats},
    {"classlabels_int64s", kAttrInts},
    {"classlabels_ints", kAttrInts},
    {"base_values", kAttrFloats},
    {"n_targets", kAttrInt},
    {"aggregate_function", kAttrString},
    {"post_transform", kAttrString},
    {"tree_roots", kAttrInts},
    {"nodes_trueleafs", kAttrInts},
    {"nodes_falseleafs", kAttrInts},
    {"leaf_targetids", kAttrInts},
    {"coefficients", kAttrFloats},
    {"intercepts", kAttrFloats},
    {"targets", kAttrInt},
    {"rho", kAttrFloats},
    {"support_vectors", kAttrFloats},
    {"vectors_per_class", kAttrInts},
    {"kernel_params", kAttrFloats},
    {"kernel_type", kAttrString},
    {"prob_a", kAttrFloats},
    {"prob_b", kAttrFloats},
    {"n_supports", kAttrInt},
    {"one_class", kAttrInt},
    {"cats_int64s", kAttrInts},
    {"cats_strings", kAttrStrings},
    {"keys_int64s", kAttrInts},
    {"keys_strings", kAttrStrings},
    {"values_int64s", kAttrInts},
    {"values_floats", kAttrFloats},
    {"classes_strings", kAttrStrings},
    {"inputdimensions", kAttrInts},
    {"imputed_value_floats", kAttrFloats},
    {"replaced_value_float", kAttrFloat},
    {"offset", kAttrFloats},
    {"threshold", kAttrFloat},
    {"norm", kAttrString},
    {"zeros", kAttrInt},
};

// Strings worth trying: the values of every enum-like string attribute in the registry.
constexpr const char* kStrings[] = {
    "",
    "BRANCH_LEQ",
    "BRANCH_LT",
    "LEAF",
    "SUM",
    "AVERAGE",
    "MAX",
    "SOFTMAX",
    "LOGISTIC",
    "PROBIT",
    "RBF",
    "POLY",
    "L2",
    "Relu",
    "Sigmoid",
    "Tanh",
    "LeakyRelu",
    "HardSigmoid",
    "Clip",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Max",
    "Min",
    "constant",
    "reflect",
    "edge",
    "wrap",
    "linear",
    "nearest",
    "cubic",
    "bilinear",
    "bicubic",
    "forward",
    "reverse",
    "bidirectional",
    "NOTSET",
    "SAME_UPPER",
    "SAME_LOWER",
    "VALID",
    "half_pixel",
    "asymmetric",
    "align_corners",
    "pytorch_half_pixel",
    "tf_crop_and_resize",
    "round_prefer_floor",
    "round_prefer_ceil",
    "floor",
    "ceil",
    "tanh",
    "none",
    "zeros",
    "border",
    "reflection",
    "DCR",
    "CRD",
    "ij,jk->ik",
    "i,i",
    "...ii->...i",
    "bij,bjk->bik",
    "NONE",
    "LOWER",
    "UPPER",
    "avg",
    "max",
    "mean",
    "sum",
    "Affine",
    "Elu",
    "Softsign",
    "Softplus",
    "ScaledTanh",
    "ThresholdedRelu",
    "x",
    "y",
    "abc",
};

constexpr int64_t kDims[] = {0, 1, 1, 2, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65};
constexpr int64_t kInts[] = {0,
                             1,
                             2,
                             3,
                             -1,
                             -2,
                             1,
                             0,
                             4,
                             5,
                             -3,
                             7,
                             8,
                             16,
                             17,
                             64,
                             65,
                             0,
                             1,
                             2,
                             -1,
                             3,
                             std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min(),
                             INT32_MAX,
                             INT32_MIN,
                             1 << 20};
constexpr float kFloats[] = {0.0f,  1.0f,  -1.0f, 0.5f,  2.0f,  -2.5f,  3.0f,   1e-3f,
                             100.f, 1e30f, -0.0f, 1e-7f, 0.25f, -100.f, 1e-38f, 65504.f};
constexpr DataType kAnyTypes[] = {DataType::kFloat,   DataType::kInt64,  DataType::kInt32,
                                  DataType::kBool,    DataType::kUint8,  DataType::kInt8,
                                  DataType::kFloat16, DataType::kDouble, DataType::kString};

template <typename T, size_t N>
const T& Pick(FuzzedDataProvider& fdp, const T (&table)[N]) {
  return table[fdp.ConsumeIntegralInRange<size_t>(0, N - 1)];
}

float PickFloat(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange(0, 15)) {
    case 0:
      return std::numeric_limits<float>::quiet_NaN();
    case 1:
      return std::numeric_limits<float>::infinity();
    case 2:
      return -std::numeric_limits<float>::infinity();
    case 3:
      return fdp.ConsumeFloatingPoint<float>();
    default:
      return Pick(fdp, kFloats);
  }
}

int64_t PickInt(FuzzedDataProvider& fdp) {
  return fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegral<int64_t>() : Pick(fdp, kInts);
}

// `count` elements of `type` as raw little-endian bytes (strings: not here).
std::string MakeBytes(FuzzedDataProvider& fdp, DataType type, int64_t count) {
  auto bytes = onnx_light::StorageBytes(type, count);
  std::string out(bytes.ok() ? *bytes : 0, '\0');
  char* p = out.data();
  auto put = [&p](const auto& v) {
    std::memcpy(p, &v, sizeof(v));
    p += sizeof(v);
  };
  switch (type) {
    case DataType::kFloat:
      for (int64_t i = 0; i < count; ++i)
        put(PickFloat(fdp));
      break;
    case DataType::kDouble:
      for (int64_t i = 0; i < count; ++i)
        put(static_cast<double>(PickFloat(fdp)));
      break;
    case DataType::kInt64:
      for (int64_t i = 0; i < count; ++i)
        put(PickInt(fdp));
      break;
    case DataType::kInt32:
      for (int64_t i = 0; i < count; ++i)
        put(static_cast<int32_t>(PickInt(fdp)));
      break;
    case DataType::kBool:
      for (int64_t i = 0; i < count; ++i)
        put(static_cast<uint8_t>(fdp.ConsumeBool()));
      break;
    default:  // every bit pattern is a value of the other types
      for (char& c : out)
        c = static_cast<char>(fdp.ConsumeIntegral<uint8_t>());
      break;
  }
  return out;
}

struct Input {
  std::string name;
  DataType type = DataType::kFloat;
  std::vector<int64_t> dims;
  std::string bytes;
  bool sequence = false;
  int64_t sequence_length = 0;
  bool initializer = false;
};

std::vector<int64_t> PickDims(FuzzedDataProvider& fdp) {
  int rank;
  switch (fdp.ConsumeIntegralInRange(0, 31)) {
    case 0:
      rank = 16;
      break;
    case 1:
    case 2:
      rank = fdp.ConsumeIntegralInRange(5, 6);
      break;
    default:
      rank = fdp.ConsumeIntegralInRange(0, 4);
  }
  std::vector<int64_t> dims;
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) {
    int64_t v = rank > 6 ? fdp.ConsumeIntegralInRange(0, 1) : Pick(fdp, kDims);
    if (v != 0 && n * v > kMaxElements) v = 1;
    n *= v;
    dims.push_back(v);
  }
  return dims;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

onnx::TensorProto MakeTensorProto(const std::string& name, DataType type,
                                  const std::vector<int64_t>& dims, FuzzedDataProvider& fdp) {
  onnx::TensorProto t;
  t.name = name;
  t.data_type = static_cast<int32_t>(type);
  t.dims = dims;
  const int64_t n = Count(dims);
  if (type == DataType::kString) {
    for (int64_t i = 0; i < n; ++i)
      t.string_data.push_back(Pick(fdp, kStrings));
  } else {
    t.raw_data = onnx::Bytes(MakeBytes(fdp, type, n));
  }
  return t;
}

onnx::ValueInfoProto Info(const Input& in, FuzzedDataProvider& fdp) {
  onnx::ValueInfoProto vi;
  vi.name = in.name;
  onnx::TypeProto* type = vi.type.mutable_get();
  onnx::TypeProto_Tensor* tensor =
      in.sequence
          ? type->sequence_type.mutable_get()->elem_type.mutable_get()->tensor_type.mutable_get()
          : type->tensor_type.mutable_get();
  tensor->elem_type = static_cast<int32_t>(in.type);
  if (fdp.ConsumeBool()) {  // a declared shape, some dimensions symbolic
    onnx::TensorShapeProto* shape = tensor->shape.mutable_get();
    for (int64_t d : in.dims) {
      onnx::TensorShapeProto_Dimension* dim = shape->dim.Add();
      if (fdp.ConsumeBool()) {
        dim->dim_param = std::string("s") + std::to_string(shape->dim.size());
      } else {
        dim->dim_value = d;
      }
    }
  }
  return vi;
}

// A small body for If, Loop and Scan: `inputs` float inputs of any shape, each output an
// Identity of an input, an outer-scope value or a constant, or a Relu of one.
onnx::GraphProto MakeSubgraph(FuzzedDataProvider& fdp, const std::vector<Input>& outer) {
  onnx::GraphProto g;
  g.name = std::string("body");
  const int inputs = fdp.ConsumeIntegralInRange(0, 3);
  std::vector<std::string> names;
  for (int i = 0; i < inputs; ++i) {
    onnx::ValueInfoProto vi;
    vi.name = "b" + std::to_string(i);
    const DataType t = i == 0 && fdp.ConsumeBool()   ? DataType::kInt64
                       : i == 1 && fdp.ConsumeBool() ? DataType::kBool
                                                     : DataType::kFloat;
    vi.type.mutable_get()->tensor_type.mutable_get()->elem_type = static_cast<int32_t>(t);
    names.push_back(vi.name.get());
    g.input.push_back(std::move(vi));
  }
  for (const Input& in : outer)
    if (!in.sequence) names.push_back(in.name);
  const int outputs = fdp.ConsumeIntegralInRange(0, 3);
  for (int o = 0; o < outputs; ++o) {
    onnx::NodeProto n;
    const std::string out = "bo" + std::to_string(o);
    if (names.empty() || fdp.ConsumeIntegralInRange(0, 3) == 0) {
      n.op_type = std::string("Constant");
      onnx::AttributeProto* a = n.attribute.Add();
      a->name = std::string("value");
      a->type = kAttrTensor;
      const DataType t = fdp.ConsumeBool() ? DataType::kFloat : DataType::kBool;
      a->t.set(MakeTensorProto("", t, PickDims(fdp), fdp));
    } else {
      n.op_type = std::string(fdp.ConsumeBool() ? "Identity" : "Relu");
      n.input.push_back(names[fdp.ConsumeIntegralInRange<size_t>(0, names.size() - 1)]);
    }
    n.output.push_back(out);
    g.node.push_back(std::move(n));
    onnx::ValueInfoProto vi;
    vi.name = out;
    g.output.push_back(std::move(vi));
  }
  return g;
}

void AddAttribute(FuzzedDataProvider& fdp, const std::string& name, int32_t type,
                  const std::vector<Input>& outer, onnx::NodeProto* node, int list_len = -1) {
  onnx::AttributeProto* a = node->attribute.Add();
  a->name = name;
  a->type = type;
  const size_t count = list_len >= 0 && fdp.ConsumeIntegralInRange(0, 3) != 0
                           ? static_cast<size_t>(list_len)
                           : fdp.ConsumeIntegralInRange<size_t>(0, 6);
  switch (type) {
    case kAttrFloat:
      a->f = PickFloat(fdp);
      break;
    case kAttrInt:
      a->i = PickInt(fdp);
      break;
    case kAttrString:
      a->s = std::string(Pick(fdp, kStrings));
      break;
    case kAttrTensor: {
      const DataType t = Pick(fdp, kAnyTypes);
      a->t.set(MakeTensorProto("", t, PickDims(fdp), fdp));
      break;
    }
    case kAttrGraph:
      a->g.set(MakeSubgraph(fdp, outer));
      break;
    case kAttrFloats:
      for (size_t i = 0; i < count; ++i)
        a->floats.push_back(PickFloat(fdp));
      break;
    case kAttrInts:
      for (size_t i = 0; i < count; ++i)
        a->ints.push_back(PickInt(fdp));
      break;
    case kAttrStrings:
      for (size_t i = 0; i < count; ++i)
        a->strings.push_back(Pick(fdp, kStrings));
      break;
    default:  // sparse tensors, type protos: present but empty
      break;
  }
}

// Every kernel of the registry; with NODE_FUZZER_DOMAIN set (e.g. "ai.onnx.ml"), those of
// that domain only, for a campaign on one family.
const std::vector<const onnx_light::KernelDef*>& Kernels() {
  static const auto* defs = [] {
    auto* all = new std::vector<const onnx_light::KernelDef*>(
        onnx_light::KernelRegistry::BuiltinCpu()->All());
    const char* domain = std::getenv("NODE_FUZZER_DOMAIN");
    if (domain != nullptr) {
      all->erase(
          std::remove_if(all->begin(), all->end(),
                         [&](const onnx_light::KernelDef* d) { return d->domain != domain; }),
          all->end());
      if (all->empty()) std::abort();  // no kernel in that domain: a misspelt name
    }
    return all;
  }();
  return *defs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  const auto& defs = Kernels();
  const onnx_light::KernelDef& def = *defs[fdp.ConsumeIntegralInRange<size_t>(0, defs.size() - 1)];
  const bool onnx_domain = def.domain.empty();
  const int newest = onnx_domain ? kNewestOnnxOpset : std::max(def.since_version, 1);
  const int opset = fdp.ConsumeIntegralInRange(
      def.since_version, std::max(def.since_version, std::min(def.end_version, newest)));
  onnx_light::Arity arity = onnx_light::DeclaredArity(def);
  std::string_view schema_attrs;
  if (onnx_domain) {
    auto row = onnx_light::FindOnnxOpSchema(def.op_type, opset);
    if (!row) return 0;
    arity = row->arity;
    schema_attrs = row->attributes;
  }
  const int max_in = arity.max_inputs < 0 ? std::max(arity.min_inputs, 0) + 3 : arity.max_inputs;
  const int max_out =
      arity.max_outputs < 0 ? std::max(arity.min_outputs, 1) + 2 : arity.max_outputs;
  // Optional inputs and outputs up to kMaxInputs / kMaxOutputs; the required ones always
  // (com.microsoft QLinearWhere has 9, QEmbedLayerNormalization 18).
  const int min_in = std::max(arity.min_inputs, 0), min_out = std::max(arity.min_outputs, 1);
  const int n_in = fdp.ConsumeIntegralInRange(
      min_in, std::max(min_in, std::min(std::max(max_in, 0), kMaxInputs)));
  const int n_out =
      fdp.ConsumeIntegralInRange(min_out, std::max(min_out, std::min(max_out, kMaxOutputs)));

  // Inputs: the types the kernel's constraints allow (one per constraint), else any.
  std::map<std::string, DataType> bound;
  std::vector<Input> inputs;
  onnx::NodeProto node;
  node.op_type = def.op_type;
  node.name = std::string("n");
  if (!onnx_domain) node.domain = def.domain;
  for (int i = 0; i < n_in; ++i) {
    if (i < 32 && ((arity.optional_inputs >> i) & 1u) && fdp.ConsumeIntegralInRange(0, 3) == 0) {
      node.input.push_back("");
      continue;
    }
    Input in;
    in.name = "x" + std::to_string(i);
    in.type = Pick(fdp, kAnyTypes);
    for (const onnx_light::TypeConstraint& c : def.constraints) {
      if (std::find(c.inputs.begin(), c.inputs.end(), i) == c.inputs.end()) continue;
      auto it = bound.find(c.name);
      if (it != bound.end() && fdp.ConsumeIntegralInRange(0, 15) != 0) {
        in.type = it->second;
      } else if (!c.types.empty()) {
        in.type = c.types[fdp.ConsumeIntegralInRange<size_t>(0, c.types.size() - 1)];
        bound.emplace(c.name, in.type);
      }
    }
    in.sequence = std::find(def.sequence_inputs.begin(), def.sequence_inputs.end(), i) !=
                  def.sequence_inputs.end();
    in.dims = PickDims(fdp);
    in.initializer = !in.sequence && (in.type == DataType::kString || fdp.ConsumeBool());
    if (in.sequence) in.sequence_length = fdp.ConsumeIntegralInRange(0, 3);
    node.input.push_back(in.name);
    inputs.push_back(std::move(in));
  }
  std::vector<std::string> outputs;
  for (int o = 0; o < n_out; ++o) {
    if (o > 0 && o < 32 && ((arity.optional_outputs >> o) & 1u) && fdp.ConsumeBool()) {
      node.output.push_back("");
      continue;
    }
    outputs.push_back("y" + std::to_string(o));
    node.output.push_back(outputs.back());
  }

  // Attributes: the schema's (required ones always), or a few the contrib kernels read.
  if (onnx_domain) {
    size_t start = 0;
    while (start < schema_attrs.size()) {
      const size_t end = std::min(schema_attrs.find(',', start), schema_attrs.size());
      const std::string_view item = schema_attrs.substr(start, end - start);
      start = end + 1;
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos) continue;
      const bool required = item.back() == '!';
      if (!required && fdp.ConsumeIntegralInRange(0, 2) != 0) continue;
      const int32_t type = std::atoi(std::string(item.substr(eq + 1)).c_str());
      AddAttribute(fdp, std::string(item.substr(0, eq)), type, inputs, &node);
    }
  } else if (def.domain == "ai.onnx.ml") {
    const int count = fdp.ConsumeIntegralInRange(0, 16);
    const int list_len = fdp.ConsumeIntegralInRange(0, 9);
    for (int i = 0; i < count; ++i) {
      const NamedAttr& a = Pick(fdp, kMlAttrs);
      AddAttribute(fdp, a.name, a.type, inputs, &node, list_len);
    }
  } else {
    const int count = fdp.ConsumeIntegralInRange(0, 4);
    for (int i = 0; i < count; ++i) {
      const NamedAttr& a = Pick(fdp, kContribAttrs);
      AddAttribute(fdp, a.name, a.type, inputs, &node);
    }
  }

  onnx::ModelProto model;
  model.ir_version = 8;
  onnx::OperatorSetIdProto* op_import = model.opset_import.Add();
  op_import->domain = std::string("");
  op_import->version = onnx_domain ? opset : 17;
  if (!onnx_domain) {
    onnx::OperatorSetIdProto* d = model.opset_import.Add();
    d->domain = def.domain;
    d->version = opset;
  }
  onnx::GraphProto* g = model.graph.mutable_get();
  g->name = std::string("fuzz");
  std::vector<onnx_light::NamedValue> feeds;
  for (const Input& in : inputs) {
    if (in.initializer) {
      g->initializer.push_back(MakeTensorProto(in.name, in.type, in.dims, fdp));
      continue;
    }
    g->input.push_back(Info(in, fdp));
    onnx_light::Value v;
    auto make = [&]() -> onnx_light::Result<onnx_light::Tensor> {
      ONNX_LIGHT_ASSIGN_OR_RETURN(onnx_light::Shape shape, onnx_light::Shape::Create(in.dims));
      ONNX_LIGHT_ASSIGN_OR_RETURN(onnx_light::Tensor t,
                                  onnx_light::Tensor::Allocate(in.type, std::move(shape)));
      if (in.type == DataType::kString) return t;  // empty strings (raw bytes are no strings)
      const std::string bytes = MakeBytes(fdp, in.type, Count(in.dims));
      if (!bytes.empty()) std::memcpy(t.mutable_raw_data(), bytes.data(), bytes.size());
      return t;
    };
    if (in.sequence) {
      auto seq = std::make_shared<onnx_light::TensorSequence>();
      for (int64_t i = 0; i < in.sequence_length; ++i) {
        auto t = make();
        if (!t.ok()) return 0;
        seq->push_back(std::move(*t));
      }
      v.sequence = std::move(seq);
    } else {
      auto t = make();
      if (!t.ok()) return 0;
      v.tensor = std::move(*t);
    }
    feeds.push_back({in.name, std::move(v)});
  }
  g->node.push_back(std::move(node));
  for (const std::string& name : outputs) {
    onnx::ValueInfoProto vi;
    vi.name = name;
    g->output.push_back(std::move(vi));
  }

  onnx_light::SessionOptions options;
  options.intra_op_threads = 1;
  options.max_tensor_bytes = uint64_t{64} << 20;
  options.memory_budget_bytes = uint64_t{256} << 20;
  options.shape_limits.max_elements = int64_t{1} << 22;
  const KernelExceptionWatch watch;
  auto session = onnx_light::RuntimeSession::Create(std::move(model), options);
  watch.Check();  // constant folding runs kernels
  if (!session.ok()) return 0;
  onnx_light::RunOptions run;
  run.timeout = std::chrono::seconds(1);
  (void)(*session)->RunValues(feeds, {}, &run);
  watch.Check();
  return 0;
}
