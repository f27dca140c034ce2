// Subgraphs: the names they read from enclosing graphs, and how a compiled one runs inside
// the run of the node that owns it.
#include "onnx_light/runtime/subgraph.h"

#include <set>

#include "executor.h"
#include "plan.h"

namespace onnx_light {
namespace {

void AddNodeGraphs(const onnx::NodeProto& node, std::set<std::string>* free);

void AddGraph(const onnx::GraphProto& graph, std::set<std::string>* free) {
  std::set<std::string> defined;
  for (const onnx::ValueInfoProto& vi : graph.input)
    defined.insert(vi.name.get());
  for (const onnx::TensorProto& t : graph.initializer)
    defined.insert(t.name.get());
  for (const onnx::NodeProto& n : graph.node) {
    for (const std::string& out : n.output)
      defined.insert(out);
  }
  std::set<std::string> used;
  for (const onnx::NodeProto& n : graph.node) {
    for (const std::string& in : n.input) {
      if (!in.empty()) used.insert(in);
    }
    AddNodeGraphs(n, &used);
  }
  for (const onnx::ValueInfoProto& vi : graph.output)
    used.insert(vi.name.get());
  for (const std::string& name : used) {
    if (!defined.count(name)) free->insert(name);
  }
}

void AddNodeGraphs(const onnx::NodeProto& node, std::set<std::string>* free) {
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.g.has()) AddGraph(a.g.get(), free);
    for (const onnx::GraphProto& g : a.graphs)
      AddGraph(g, free);
  }
}

}  // namespace

std::vector<std::string> SubgraphFreeNames(const onnx::NodeProto& node) {
  std::set<std::string> free;
  AddNodeGraphs(node, &free);
  return {free.begin(), free.end()};
}

std::vector<std::string> GraphFreeNames(const onnx::GraphProto& graph) {
  std::set<std::string> free;
  AddGraph(graph, &free);
  return {free.begin(), free.end()};
}

Subgraph::Subgraph(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Subgraph::~Subgraph() = default;

const std::string& Subgraph::name() const noexcept {
  return impl_->name;
}

const std::vector<ValueMeta>& Subgraph::inputs() const noexcept {
  return impl_->built().input_meta;
}

const std::vector<ValueMeta>& Subgraph::outputs() const noexcept {
  return impl_->built().output_meta;
}

Result<std::vector<Value>> Subgraph::Run(const KernelContext& ctx,
                                         std::vector<Value> inputs) const {
  if (impl_->plan == nullptr) {
    return Status(StatusCode::kInternal, "graph '" + impl_->name + "' was not compiled");
  }
  const Plan& plan = *impl_->plan;
  const Graph& g = plan.graph;
  if (inputs.size() != g.input_meta.size()) {
    return Status(StatusCode::kInvalidModel, "graph '" + impl_->name + "' takes " +
                                                 std::to_string(g.input_meta.size()) +
                                                 " inputs, given " + std::to_string(inputs.size()));
  }
  FrameLease lease(plan);
  Frame& frame = lease.frame();
  frame.values.resize(g.constants.size());
  const RunControl* control = ctx.run_control();
  frame.ledger.Begin(control != nullptr ? control->budget : nullptr, g.constants.size());
  // Its own inputs, checked as a session's feeds are, then what it reads from enclosing
  // graphs: together, the shapes its memory plan is keyed on.
  for (size_t k = 0; k < inputs.size(); ++k) {
    ONNX_LIGHT_RETURN_IF_ERROR(CheckInput(g.input_meta[k], inputs[k], plan.options->shape_limits));
    frame.values[static_cast<size_t>(g.input_values[k])] = std::move(inputs[k]);
  }
  for (const auto& [v, position] : impl_->bindings) {
    const Value* outer = ctx.input_value(position);
    if (outer == nullptr) {
      return Status(StatusCode::kInternal, "graph '" + impl_->name + "': enclosing value " +
                                               std::to_string(position) + " is missing");
    }
    frame.values[static_cast<size_t>(v)] = *outer;
  }
  PickMemoryPlan(impl_->entries, impl_->entries_fed, frame);
  RunEnv env;
  env.pool = ctx.thread_pool();
  env.control = control;
  env.profiler = plan.options->profiler.get();
  ONNX_LIGHT_RETURN_IF_ERROR(RunNodes(plan, env, {}, frame));
  lease.set_complete_if(true);
  // Outputs that share storage only among themselves and this frame's values (a body's
  // state also returned as its scan output, through Identity) are handed out as they are:
  // the Loop or Scan that runs the body reads them, and copies what it stacks.
  return CollectOutputs(plan, g.output_values, frame, /*share_within_frame=*/true);
}

}  // namespace onnx_light
