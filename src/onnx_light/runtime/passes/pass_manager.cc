#include "pass_manager.h"

#include <algorithm>

#include "../plan.h"

namespace onnx_light::passes {

const std::vector<GraphPass>& AllGraphPasses() {
  static const std::vector<GraphPass> passes = {
      {"eliminate_identities", GraphOptimizationLevel::kBasic, &EliminateIdentities},
      {"eliminate_dead_nodes", GraphOptimizationLevel::kBasic, &EliminateDeadNodes},
      {"fold_batch_norm_into_conv", GraphOptimizationLevel::kExtended, &FoldBatchNormIntoConv},
      {"fold_affine_into_conv", GraphOptimizationLevel::kExtended, &FoldAffineIntoConv},
      {"fuse_conv_activation", GraphOptimizationLevel::kExtended, &FuseConvActivation},
  };
  return passes;
}

std::vector<std::pair<std::string, size_t>> RunGraphPasses(Plan& plan, GraphOptimizationLevel level,
                                                           const PassContext& ctx) {
  std::vector<std::pair<std::string, size_t>> report;
  for (const GraphPass& pass : AllGraphPasses()) {
    if (static_cast<int>(level) < static_cast<int>(pass.level)) continue;
    report.emplace_back(pass.name, pass.apply(plan, ctx));
  }
  return report;
}

std::vector<int> ReaderCounts(const Plan& plan) {
  std::vector<int> count(plan.value_names.size(), 0);
  for (const Plan::Node& n : plan.nodes) {
    for (int v : n.inputs) {
      if (v >= 0) ++count[static_cast<size_t>(v)];
    }
  }
  for (int v : plan.output_values)
    ++count[static_cast<size_t>(v)];
  return count;
}

bool IsOnnxOp(const onnx::NodeProto& n, const char* op) {
  return n.op_type.get() == op && NormalizeDomain(n.domain.get()).empty();
}

bool HasOnnxOp(const Plan& plan, const char* op) {
  return std::any_of(plan.nodes.begin(), plan.nodes.end(),
                     [op](const Plan::Node& n) { return IsOnnxOp(*n.proto, op); });
}

void RemoveNodes(Plan& plan, const std::vector<char>& removed) {
  std::vector<Plan::Node> kept;
  kept.reserve(plan.nodes.size());
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    if (!removed[i]) kept.push_back(std::move(plan.nodes[i]));
  }
  plan.nodes = std::move(kept);
  RenumberProducers(plan);
}

int AddConstant(Plan& plan, const std::string& name, Tensor value) {
  std::string unique = name;
  for (int k = 1; plan.index.count(unique); ++k)
    unique = name + "_" + std::to_string(k);
  const int id = static_cast<int>(plan.value_names.size());
  plan.index.emplace(unique, id);
  plan.value_names.push_back(unique);
  plan.value_types.push_back(value.dtype());
  plan.kinds.push_back(ValueKind::kTensor);
  plan.producer.push_back(-1);
  plan.constants.push_back(Value{std::move(value), nullptr});
  return id;
}

const Tensor* ConstantOf(const Plan& plan, int v) {
  if (v < 0 || plan.producer[static_cast<size_t>(v)] >= 0) return nullptr;
  if (std::find(plan.input_values.begin(), plan.input_values.end(), v) != plan.input_values.end()) {
    return nullptr;  // an initializer that backs a graph input: a feed may replace it
  }
  return plan.constants[static_cast<size_t>(v)].tensor_or_null();
}

int64_t FoldableConvChannels(const Plan& plan, const Plan::Node& conv) {
  if (!IsOnnxOp(*conv.proto, "Conv") || conv.inputs.size() < 2 || conv.outputs.size() != 1) {
    return -1;
  }
  const Tensor* w = ConstantOf(plan, conv.inputs[1]);
  if (w == nullptr || w->dtype() != DataType::kFloat || w->shape().rank() < 3) return -1;
  const int64_t m = w->shape()[0];
  if (conv.inputs.size() > 2 && conv.inputs[2] >= 0) {
    const Tensor* b = ConstantOf(plan, conv.inputs[2]);
    if (b == nullptr || b->dtype() != DataType::kFloat || b->num_elements() != m) return -1;
  }
  return m;
}

bool FoldIntoConv(Plan& plan, const PassContext& ctx, Plan::Node& conv, int output,
                  const std::vector<float>& scale,
                  const std::function<float(int64_t, float)>& bias) {
  const Tensor& w = *ConstantOf(plan, conv.inputs[1]);
  const int64_t m = w.shape()[0];
  const float* b = conv.inputs.size() > 2 && conv.inputs[2] >= 0
                       ? ConstantOf(plan, conv.inputs[2])->data<float>()
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
    wv = AddConstant(plan, name + "_folded_W", std::move(*w2));
  }
  Result<Tensor> b2 = Tensor::Allocate(DataType::kFloat, *Shape::Create({m}));
  if (!b2.ok()) return false;
  for (int64_t c = 0; c < m; ++c)
    b2->mutable_data<float>()[c] = bias(c, b != nullptr ? b[c] : 0.0f);
  const int bv = AddConstant(plan, name + "_folded_B", std::move(*b2));
  onnx::NodeProto proto = *conv.proto;
  proto.input.clear();
  for (int v : {conv.inputs[0], wv, bv})
    proto.input.push_back(plan.value_names[static_cast<size_t>(v)]);
  proto.output.clear();
  proto.output.push_back(plan.value_names[static_cast<size_t>(output)]);
  const std::vector<int> old_outputs = conv.outputs;
  conv.outputs = {output};
  if (!ReplaceNode(plan, ctx, conv, std::move(proto), {conv.inputs[0], wv, bv}).ok()) {
    conv.outputs = old_outputs;
    return false;
  }
  return true;
}

Status ReplaceNode(Plan& plan, const PassContext& ctx, Plan::Node& n, onnx::NodeProto proto,
                   std::vector<int> inputs) {
  std::vector<DataType> input_types, output_types;
  for (int v : inputs)
    input_types.push_back(v >= 0 ? plan.value_types[static_cast<size_t>(v)] : DataType::kUndefined);
  for (int v : n.outputs)
    output_types.push_back(v >= 0 ? plan.value_types[static_cast<size_t>(v)]
                                  : DataType::kUndefined);
  // Nodes made by passes live in onnx-light's own domain at opset 1, or in ai.onnx at the
  // opset of the node they replace.
  const std::string domain = NormalizeDomain(proto.domain.get());
  const int opset = domain.empty() ? n.info->opset() : 1;
  KernelQuery query{domain, proto.op_type.get(), opset, input_types, proto.name.get()};
  ONNX_LIGHT_ASSIGN_OR_RETURN(const KernelDef* def, ctx.registry->Find(query));
  plan.owned_protos.push_back(std::move(proto));
  const onnx::NodeProto* owned = &plan.owned_protos.back();
  n.proto = owned;
  n.def = def;
  n.inputs = std::move(inputs);
  n.info = std::make_unique<KernelInfo>(owned, opset, std::move(input_types),
                                        std::move(output_types), ctx.scope);
  n.kernel = std::make_unique<KernelSlot>();
  return Status::Ok();
}

std::vector<char> NeededNodes(const Plan& plan, const std::vector<int>& wanted) {
  std::vector<char> needed(plan.nodes.size(), 0);
  std::vector<int> todo(wanted.begin(), wanted.end());
  while (!todo.empty()) {
    const int v = todo.back();
    todo.pop_back();
    const int p = plan.producer[static_cast<size_t>(v)];
    if (p < 0 || needed[static_cast<size_t>(p)]) continue;
    needed[static_cast<size_t>(p)] = 1;
    for (int in : plan.nodes[static_cast<size_t>(p)].inputs) {
      if (in >= 0) todo.push_back(in);
    }
  }
  return needed;
}

void RenumberProducers(Plan& plan) {
  for (int& p : plan.producer) {
    if (p >= 0) p = -1;
  }
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    for (int v : plan.nodes[i].outputs) {
      if (v >= 0) plan.producer[static_cast<size_t>(v)] = static_cast<int>(i);
    }
  }
}

}  // namespace onnx_light::passes
