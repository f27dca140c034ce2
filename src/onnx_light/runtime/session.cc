#include "onnx_light/runtime/session.h"

// The session: Create builds the graph (graph.cc), runs the passes (passes/) and plans it
// (kernel slots, value lifetimes); Run is in executor.cc.
#include <cstring>
#include <string>

#include "onnx_light/runtime/cpu.h"
#include "onnx_light/runtime/thread_pool.h"
#include "passes/pass_manager.h"
#include "plan.h"

namespace onnx_light {

RuntimeSession::~RuntimeSession() = default;

Result<std::unique_ptr<RuntimeSession>> RuntimeSession::Create(onnx::ModelProto model,
                                                               SessionOptions options) {
  std::unique_ptr<RuntimeSession> s(new RuntimeSession());
  s->model_ = std::make_shared<onnx::ModelProto>(std::move(model));
  s->options_ = std::move(options);
  if (!s->options_.registry) s->options_.registry = KernelRegistry::BuiltinCpu();
  if (s->options_.intra_op_threads == 0) s->options_.intra_op_threads = PhysicalCores();
  if (s->options_.intra_op_threads < 1) {
    return Status(StatusCode::kInvalidArgument,
                  "intra_op_threads must be 0 (one per physical core) or at least 1, got " +
                      std::to_string(s->options_.intra_op_threads));
  }
  if (s->options_.enable_profiling && !s->options_.profiler) {
    s->options_.profiler = std::make_shared<Profiler>();
  }
  s->scope_ = SubgraphScope{&s->options_, s->model_.get()};
  const GraphOptimizationLevel level = s->options_.graph_optimization_level;
  if (level != GraphOptimizationLevel::kNone && level != GraphOptimizationLevel::kBasic &&
      level != GraphOptimizationLevel::kExtended && level != GraphOptimizationLevel::kAll) {
    return Status(StatusCode::kInvalidArgument,
                  "graph_optimization_level must be 0 (none), 1 (basic), 2 (extended) or 99 "
                  "(all), got " +
                      std::to_string(static_cast<int>(level)));
  }
  ONNX_LIGHT_RETURN_IF_ERROR(s->Build());
  if (!s->options_.optimized_model_path.empty()) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(onnx::ModelProto optimized, s->OptimizedModel());
    Status saved = onnx::SaveModel(optimized, s->options_.optimized_model_path);
    if (!saved.ok()) return saved.WithContext("writing optimized_model_path");
  }
  s->pool_ = std::make_unique<ThreadPool>(s->options_.intra_op_threads);
  s->frames_ = std::make_unique<FramePool>();
  return s;
}

Result<std::unique_ptr<RuntimeSession>> RuntimeSession::CreateFromBytes(const void* data,
                                                                        size_t size,
                                                                        SessionOptions options) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(onnx::ModelProto model,
                              onnx::LoadModelFromBytes(data, size, options.load.parse));
  return Create(std::move(model), std::move(options));
}

Result<std::unique_ptr<RuntimeSession>> RuntimeSession::CreateFromFile(const std::string& path,
                                                                       SessionOptions options) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(onnx::ModelProto model, onnx::LoadModel(path, options.load));
  return Create(std::move(model), std::move(options));
}

Status RuntimeSession::Build() {
  ONNX_LIGHT_RETURN_IF_ERROR(passes::CheckPassNames(options_.disabled_passes));
  plan_ = std::make_unique<Plan>();
  Plan& plan = *plan_;
  ONNX_LIGHT_RETURN_IF_ERROR(BuildGraph(*model_, options_, &scope_, &plan, &inputs_, &outputs_));
  const passes::PassContext ctx{options_.registry.get(), &scope_, &options_};
  for (const auto& [pass, removed] :
       passes::RunGraphPasses(plan, options_.graph_optimization_level, ctx)) {
    (std::strcmp(pass, "constant_folding") == 0 ? folded_nodes_ : removed_nodes_) += removed;
  }

  // Every node learns which of its inputs are constants: the branches of nodes with
  // subgraphs fold and fuse with them as the enclosing graph does, and kernels prepare
  // constant weights once (MatMulInteger packs them).
  for (Graph::Node& n : plan.nodes) {
    std::vector<Tensor> constants(n.inputs.size());
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (const Tensor* t = passes::ConstantOf(plan, n.inputs[i])) constants[i] = *t;
    }
    n.info->set_constant_inputs(std::move(constants));
  }

  // The plan: a kernel slot per node (kernels are created by the first run that needs
  // them); every intermediate value released after its last reader, or right after its
  // producer when nothing reads it (graph outputs never).
  plan.kernels.clear();
  for (size_t i = 0; i < plan.nodes.size(); ++i)
    plan.kernels.push_back(std::make_unique<KernelSlot>());
  plan.release.assign(plan.nodes.size(), {});
  std::vector<int>& last = plan.last_use;
  last.assign(plan.value_names.size(), -1);
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    for (int v : plan.nodes[i].inputs) {
      if (v >= 0) last[static_cast<size_t>(v)] = static_cast<int>(i);
    }
  }
  for (size_t v = 0; v < last.size(); ++v) {
    if (last[v] < 0) last[v] = plan.producer[v];
  }
  for (int v : plan.output_values)
    last[static_cast<size_t>(v)] = static_cast<int>(plan.nodes.size());
  for (size_t v = 0; v < last.size(); ++v) {
    if (plan.producer[v] >= 0 && last[v] >= 0 && last[v] < static_cast<int>(plan.nodes.size())) {
      plan.release[static_cast<size_t>(last[v])].push_back(static_cast<int>(v));
    }
  }
  return Status::Ok();
}

size_t RuntimeSession::planned_nodes() const noexcept {
  return plan_->nodes.size();
}

Result<onnx::ModelProto> RuntimeSession::OptimizedModel() const {
  return GraphToModel(*plan_, *model_);
}

}  // namespace onnx_light
