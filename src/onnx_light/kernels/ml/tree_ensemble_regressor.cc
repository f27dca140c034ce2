// ai.onnx.ml TreeEnsembleRegressor (versions 1 and 3): Y[N, n_targets] (float), the sum (or
// average, min, max: aggregate_function) of the leaf weights each row reaches in every
// tree, plus base_values, then the post-transform. What skl2onnx writes for decision trees,
// forests and gradient boosting, and onnxmltools for LightGBM and XGBoost regressors.
#include "ml/tree_engine.h"

namespace onnx_light::kernels {
namespace {

class TreeEnsembleRegressor : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(TreeSpec spec, ReadLegacyTreeSpec(info, "target"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(spec.targets, info.GetInt("n_targets", 1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string agg, info.GetString("aggregate_function", "SUM"));
    ONNX_LIGHT_RETURN_IF_ERROR(
        MlCheckChoice("aggregate_function", agg, {"SUM", "AVERAGE", "MIN", "MAX"}));
    spec.aggregate = agg == "AVERAGE" ? TreeAggregate::kAverage
                     : agg == "MIN"   ? TreeAggregate::kMin
                     : agg == "MAX"   ? TreeAggregate::kMax
                                      : TreeAggregate::kSum;
    if (!spec.base_values.empty() && spec.base_values.size() != 1 &&
        static_cast<int64_t>(spec.base_values.size()) != spec.targets) {
      return Status(StatusCode::kInvalidModel, std::to_string(spec.base_values.size()) +
                                                   " base_values for " +
                                                   std::to_string(spec.targets) + " targets");
    }
    auto k = std::make_unique<TreeEnsembleRegressor>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->engine_, TreeEnsembleEngine::Compile(std::move(spec)));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    int64_t rows = 0;
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<float> out,
                                Regress(engine_, *ctx.input(0), ctx.thread_pool(), &rows));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {rows, engine_.targets()}));
    std::copy(out.begin(), out.end(), y->mutable_data<float>());
    return Status::Ok();
  }

 private:
  TreeEnsembleEngine engine_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, TreeEnsembleRegressor) {
  return r.Register(MlDef("TreeEnsembleRegressor", 1, kMaxOpset,
                          {{"T", {0}, {}, MlNumericTypes()}, {"Y", {}, {0}, {DataType::kFloat}}},
                          FactoryOf<TreeEnsembleRegressor>()));
}

}  // namespace onnx_light::kernels
