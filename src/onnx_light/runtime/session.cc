#include "onnx_light/runtime/session.h"

// The session: the facade over the runtime. Create builds the graph (graph.cc) and
// compiles it into a plan (plan.cc); Run hands the plan to the executor (executor.cc).
#include <cstring>
#include <string>

#include "executor.h"
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
  // The session's one pool: its subgraphs run on it too (Subgraph::Run).
  s->pool_ = std::make_unique<ThreadPool>(s->options_.intra_op_threads);
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
  Graph graph;
  ONNX_LIGHT_RETURN_IF_ERROR(BuildGraph(*model_, options_, &graph));
  PassReport report;
  ONNX_LIGHT_ASSIGN_OR_RETURN(plan_, CompilePlan(std::move(graph), options_, &report));
  for (const auto& [pass, removed] : report)
    (std::strcmp(pass, "constant_folding") == 0 ? folded_nodes_ : removed_nodes_) += removed;
  return Status::Ok();
}

const std::vector<ValueMeta>& RuntimeSession::inputs() const noexcept {
  return plan_->graph.input_meta;
}

const std::vector<ValueMeta>& RuntimeSession::outputs() const noexcept {
  return plan_->graph.output_meta;
}

size_t RuntimeSession::planned_nodes() const noexcept {
  return plan_->graph.nodes.size();
}

Result<onnx::ModelProto> RuntimeSession::OptimizedModel() const {
  return GraphToModel(plan_->graph, *model_);
}

RuntimeSession::MemoryPatternStats RuntimeSession::memory_pattern_stats() const {
  MemoryPatternStats stats;
  FramePool& frames = plan_->frames;
  std::vector<std::unique_ptr<Frame>> idle;
  while (std::unique_ptr<Frame> f = frames.Take())
    idle.push_back(std::move(f));
  for (std::unique_ptr<Frame>& f : idle) {
    if (f->memory && f->memory->planned()) {
      ++stats.planned_frames;
      stats.arena_bytes = std::max(stats.arena_bytes, f->memory->arena_bytes());
      stats.placed_values = std::max(stats.placed_values, f->memory->placed_values());
    }
    frames.Give(std::move(f));
  }
  return stats;
}

namespace {

std::vector<NamedValue> AsValues(const std::vector<NamedTensor>& feeds) {
  std::vector<NamedValue> values;
  values.reserve(feeds.size());
  for (const NamedTensor& f : feeds)
    values.push_back({f.first, Value{f.second, nullptr}});
  return values;
}

Result<std::vector<Tensor>> AsTensors(std::vector<Value> outs) {
  std::vector<Tensor> tensors;
  tensors.reserve(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].is_container() || outs[i].none) {
      return Status(StatusCode::kInvalidArgument,
                    std::string("an output is ") +
                        (outs[i].none ? "an empty optional"
                                      : std::string("a ") + ValueKindName(outs[i].kind())) +
                        ": use RunValues for this model");
    }
    tensors.push_back(std::move(outs[i].tensor));
  }
  return tensors;
}

}  // namespace

Result<std::vector<Tensor>> RuntimeSession::Run(const std::vector<NamedTensor>& feeds,
                                                const std::vector<std::string>& output_names,
                                                const RunOptions* run_options) const {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Value> outs,
                              RunValues(AsValues(feeds), output_names, run_options));
  return AsTensors(std::move(outs));
}

Result<std::vector<Value>> RuntimeSession::RunValues(const std::vector<NamedValue>& feeds,
                                                     const std::vector<std::string>& output_names,
                                                     const RunOptions* run_options) const {
  RunEnv env;
  env.pool = pool_.get();
  env.profiler = options_.profiler.get();
  env.run_event = options_.enable_profiling;
  // Without options or a budget, nothing to check between nodes.
  RunControl control = run_options != nullptr ? run_options->Control() : RunControl{};
  RunBudget budget;
  budget.limit = options_.memory_budget_bytes;
  if (budget.limit > 0) control.budget = &budget;
  if (run_options != nullptr || budget.limit > 0) env.control = &control;
  return RunPlan(*plan_, feeds, output_names, env);
}

}  // namespace onnx_light
