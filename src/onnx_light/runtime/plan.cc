// Compiling a graph into a plan: the passes, each node's constant inputs, its subgraphs,
// kernel slots and value lifetimes.
#include "plan.h"

#include <cstring>

#include "passes/pass_manager.h"

namespace onnx_light {

Result<const KernelBase*> KernelSlot::Get(const KernelDef& def, const KernelInfo& info) {
  const KernelBase* k = ready_.load(std::memory_order_acquire);
  if (k != nullptr) return k;
  std::lock_guard<std::mutex> lock(create_mu_);
  if (owner_ == nullptr) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(owner_, def.create(info));
    if (owner_ == nullptr) {
      return Status(StatusCode::kInternal, "the kernel factory returned null");
    }
    ready_.store(owner_.get(), std::memory_order_release);
  }
  return owner_.get();
}

namespace {

// Every node learns which of its inputs are constants: the kernels prepare constant
// weights once (MatMulInteger packs them), and subgraphs take them as their own.
void SetConstantInputs(Graph& graph) {
  for (Graph::Node& n : graph.nodes) {
    std::vector<Tensor> constants(n.inputs.size());
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (const Tensor* t = passes::ConstantOf(graph, n.inputs[i])) constants[i] = *t;
    }
    n.info->set_constant_inputs(std::move(constants));
  }
}

// The subgraphs of `node`: the values they read from the enclosing graph that are
// constants there become theirs (so they fold and fuse with them, as ONNX Runtime's
// subgraphs see outer initializers); the rest are fed by every run. Then each is compiled.
Status CompileSubgraphs(const Graph::Node& node, const SessionOptions& options) {
  for (const auto& [attr, subgraph] : node.subgraphs) {
    Subgraph::Impl& impl = subgraph->impl();
    Graph& g = *impl.graph;
    for (size_t k = 0; k < impl.outer_values.size(); ++k) {
      const int v = impl.outer_values[k];
      const size_t pos = impl.outer_positions[k];
      if (const Tensor* c = node.info->constant_input(pos)) {
        g.constants[static_cast<size_t>(v)] = Value{*c, nullptr};
      } else {
        impl.bindings.emplace_back(v, pos);
      }
    }
    // What the passes did inside subgraphs is theirs: the session counts its own graph's.
    Result<std::unique_ptr<Plan>> plan = CompilePlan(std::move(g), options, nullptr);
    if (!plan.ok()) {
      return plan.status().WithContext(node.info->Describe() + ": graph '" + attr + "'");
    }
    impl.plan = std::move(*plan);
    impl.graph.reset();
    impl.entries = impl.plan->graph.input_values;
    for (const auto& binding : impl.bindings)
      impl.entries.push_back(binding.first);
    impl.entries_fed.assign(impl.entries.size(), true);
  }
  return Status::Ok();
}

// A kernel slot per node (kernels are created by the first run that needs them); every
// intermediate value released after its last reader, or right after its producer when
// nothing reads it (graph outputs never).
void PlanLifetimes(Plan& plan) {
  const Graph& g = plan.graph;
  plan.kernels.clear();
  for (size_t i = 0; i < g.nodes.size(); ++i)
    plan.kernels.push_back(std::make_unique<KernelSlot>());
  plan.release.assign(g.nodes.size(), {});
  std::vector<int>& last = plan.last_use;
  last.assign(g.value_names.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (int v : g.nodes[i].inputs) {
      if (v >= 0) last[static_cast<size_t>(v)] = static_cast<int>(i);
    }
  }
  for (size_t v = 0; v < last.size(); ++v) {
    if (last[v] < 0) last[v] = g.producer[v];
  }
  for (int v : g.output_values)
    last[static_cast<size_t>(v)] = static_cast<int>(g.nodes.size());
  for (size_t v = 0; v < last.size(); ++v) {
    if (g.producer[v] >= 0 && last[v] >= 0 && last[v] < static_cast<int>(g.nodes.size())) {
      plan.release[static_cast<size_t>(last[v])].push_back(static_cast<int>(v));
    }
  }
}

}  // namespace

namespace {

// The built-in kernels are made with the session, as ONNX Runtime makes its kernels: their
// constant weights are packed then, not by the first run (PP-OCRv4's recognizer: first run
// 13.6 -> 13.0-13.2 ms, ORT 13.3-13.5; the session, 11.3-11.6 ms, no longer measurably). A
// kernel that fails here is made again by the first run that reaches its node, which reports
// the error, as before. The plugin host's kernels stay lazy (made at a node's first run by
// design: plugin_host.h).
void PrepareBuiltinKernels(Plan& plan) {
  for (size_t i = 0; i < plan.graph.nodes.size(); ++i) {
    const Graph::Node& node = plan.graph.nodes[i];
    const std::string& domain = node.def->domain;
    if (domain.empty() || domain == "ai.onnx.ml" || domain == "com.microsoft" ||
        domain == "onnx_light" || domain == "onnx_light_cpu") {
      (void)plan.kernels[i]->Get(*node.def, *node.info);
    }
  }
}

}  // namespace

Result<std::unique_ptr<Plan>> CompilePlan(Graph graph, const SessionOptions& options,
                                          PassReport* report) {
  auto plan = std::make_unique<Plan>();
  plan->graph = std::move(graph);
  plan->options = &options;
  Graph& g = plan->graph;
  const passes::PassContext ctx{options.registry.get(), &options};
  for (const auto& entry : passes::RunGraphPasses(g, options.graph_optimization_level, ctx)) {
    if (report != nullptr) report->push_back(entry);
  }
  SetConstantInputs(g);
  for (const Graph::Node& n : g.nodes)
    ONNX_LIGHT_RETURN_IF_ERROR(CompileSubgraphs(n, options));
  PlanLifetimes(*plan);
  PrepareBuiltinKernels(*plan);
  return plan;
}

}  // namespace onnx_light
