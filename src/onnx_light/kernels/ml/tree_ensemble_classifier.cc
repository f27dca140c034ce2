// ai.onnx.ml TreeEnsembleClassifier (versions 1 and 3): per class, the sum of the class
// weights of the leaves a row reaches, plus base_values; Y is the label of the largest, Z
// the scores after the post-transform. Two classes follow ONNX Runtime's reading of what
// the converters write (weights for one class only: skl2onnx's binary forests and boosting,
// LightGBM, XGBoost):
//   - the score s is the second class's; Y is the second label where s > 0.5 (all weights
//     >= 0, probabilities) or s > 0 (any negative weight, margins);
//   - Z is (1 - s, s) for probabilities, (-s, s) for margins, or (logistic(-s), logistic(s))
//     under LOGISTIC.
#include "ml/tree_engine.h"

namespace onnx_light::kernels {
namespace {

class TreeEnsembleClassifier : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<TreeEnsembleClassifier>();
    k->strings_ = info.output_type(0) == DataType::kString;
    if (k->strings_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->string_labels_, info.GetStrings("classlabels_strings"));
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->int_labels_, info.GetInts("classlabels_int64s"));
    }
    const int64_t classes =
        static_cast<int64_t>(k->strings_ ? k->string_labels_.size() : k->int_labels_.size());
    if (classes < 2) {
      return Status(StatusCode::kInvalidModel,
                    "needs at least two class labels, has " + std::to_string(classes));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(TreeSpec spec, ReadLegacyTreeSpec(info, "class"));
    spec.targets = classes;
    std::vector<int64_t> ids = spec.w_target;
    std::sort(ids.begin(), ids.end());
    k->binary_case_ = classes == 2 && std::unique(ids.begin(), ids.end()) - ids.begin() == 1;
    k->all_positive_ =
        std::all_of(spec.w_value.begin(), spec.w_value.end(), [](double v) { return v >= 0; });
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->engine_, TreeEnsembleEngine::Compile(std::move(spec)));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto rc, MlRows(x));
    const int64_t rows = rc.first, k = engine_.targets();
    std::vector<double> s;
    std::vector<uint8_t> has;
    ONNX_LIGHT_RETURN_IF_ERROR(engine_.Evaluate(x, ctx.thread_pool(), &s, &has));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {rows}));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * zt, ctx.AllocateOutput(1, {rows, k}));
    float* z = zt->mutable_data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t label = k > 2 ? Multiclass(&s[static_cast<size_t>(r * k)],
                                               &has[static_cast<size_t>(r * k)], z + r * k)
                                  : Binary(&s[static_cast<size_t>(r * 2)],
                                           &has[static_cast<size_t>(r * 2)], z + r * 2);
      if (strings_) {
        y->mutable_data<std::string>()[r] = string_labels_[static_cast<size_t>(label)];
      } else {
        y->mutable_data<int64_t>()[r] = int_labels_[static_cast<size_t>(label)];
      }
    }
    return Status::Ok();
  }

 private:
  // More than two classes: base values added, the largest scored class, the post-transform.
  int64_t Multiclass(double* s, uint8_t* has, float* z) const {
    const std::vector<double>& base = engine_.spec().base_values;
    const int64_t k = engine_.targets();
    for (size_t c = 0; c < base.size() && static_cast<int64_t>(c) < k; ++c) {
      s[c] = has[c] ? s[c] + base[c] : base[c];
      has[c] = 1;
    }
    int64_t best = -1;
    for (int64_t c = 0; c < k; ++c) {
      if (has[c] && (best < 0 || s[c] > s[best])) best = c;
      z[c] = has[c] ? static_cast<float>(s[c]) : 0.0f;
    }
    MlTransformRows(z, 1, k, engine_.spec().post);
    return best < 0 ? 0 : best;
  }

  // Two classes, as ORT aggregates them (see the file comment); returns the label index.
  int64_t Binary(double* s, uint8_t* has, float* z) const {
    const std::vector<double>& base = engine_.spec().base_values;
    const PostTransform post = engine_.spec().post;
    SecondClass mode = SecondClass::kSigned;
    bool expand = false;  // one score, written as two columns
    if (base.size() == 2) {
      if (has[1]) {
        s[1] = base[1] + s[0];
        s[0] = -s[1];
      } else {
        s[1] += base[1];
        s[0] += base[0];
      }
    } else if (base.size() == 1) {
      s[0] += base[0];
      expand = !has[1];
    } else if (base.empty()) {
      expand = !has[1];
    }
    const double pos = !expand && has[1] ? s[1] : has[0] ? s[0] : 0.0;
    int64_t label = pos > 0 ? 1 : 0;
    if (binary_case_) {
      const bool positive = all_positive_ ? pos > 0.5 : pos > 0;
      label = positive ? 1 : 0;
      mode = all_positive_ ? SecondClass::kComplement : SecondClass::kSigned;
    } else if (expand && base.size() == 1) {
      // ORT writes only the one score here; the second column is 0.
      z[0] = has[0] ? static_cast<float>(s[0]) : 0.0f;
      z[1] = 0.0f;
      if (post == PostTransform::kProbit) z[0] = MlProbit(z[0]);
      return label;
    }
    if (!expand) {
      z[0] = has[0] ? static_cast<float>(s[0]) : 0.0f;
      z[1] = has[1] ? static_cast<float>(s[1]) : 0.0f;
      MlTransformRows(z, 1, 2, post);
      return label;
    }
    z[0] = has[0] ? static_cast<float>(s[0]) : 0.0f;
    if (post == PostTransform::kProbit) {
      z[0] = MlProbit(z[0]);
      z[1] = 0.0f;  // ORT writes only the one score
    } else {
      MlExpandBinary(z, 1, post, mode);
    }
    return label;
  }

  TreeEnsembleEngine engine_;
  std::vector<std::string> string_labels_;
  std::vector<int64_t> int_labels_;
  bool strings_ = false, binary_case_ = false, all_positive_ = true;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, TreeEnsembleClassifier) {
  KernelDef def = MlDef("TreeEnsembleClassifier", 1, kMaxOpset,
                        {{"T1", {0}, {}, MlNumericTypes()}, {"Z", {}, {1}, {DataType::kFloat}}},
                        FactoryOf<TreeEnsembleClassifier>(), {1, 1}, {2, 2});
  def.output_types = &MlClassifierLabelType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
