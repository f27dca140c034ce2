// ai.onnx.ml LinearClassifier: scores Z = X W^T + intercepts (one column per class), the
// label Y of the highest score, then the post-transform. With one set of coefficients it is
// binary (two labels required), as ONNX Runtime reads it: Y is the second label where the
// score s is > 0, and Z's two columns are (1 - p, p) with p = s, logistic(s) or probit(s).
#include "ml/linear.h"

namespace onnx_light::kernels {
namespace {

class LinearClassifier : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<LinearClassifier>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->coefficients_, info.GetFloats("coefficients"));
    if (info.HasAttribute("intercepts")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->intercepts_, info.GetFloats("intercepts"));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->post_, MlPostTransform(info));
    k->strings_ = info.output_type(0) == DataType::kString;
    if (k->strings_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->string_labels_, info.GetStrings("classlabels_strings"));
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->int_labels_, info.GetInts("classlabels_ints"));
    }
    const int64_t labels =
        static_cast<int64_t>(k->strings_ ? k->string_labels_.size() : k->int_labels_.size());
    if (k->intercepts_.empty()) {
      return Status(StatusCode::kInvalidModel,
                    "no intercepts (one per class, or one for a binary model)");
    }
    k->classes_ = static_cast<int64_t>(k->intercepts_.size());
    k->binary_ = k->classes_ == 1;
    if (k->binary_ ? labels != 2 : labels != k->classes_) {
      return Status(StatusCode::kInvalidModel, std::to_string(labels) + " class labels for " +
                                                   std::to_string(k->classes_) +
                                                   " classes of coefficients");
    }
    k->transposed_ = MlTransposed(k->coefficients_, k->classes_);
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto rc, MlRows(x));
    const int64_t rows = rc.first, cols = rc.second;
    const bool two = binary_;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {rows}));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * z, ctx.AllocateOutput(1, {rows, two ? 2 : classes_}));
    std::vector<float> buf;
    float* s = z->mutable_data<float>();
    ONNX_LIGHT_RETURN_IF_ERROR(MlAffine(MlFloats(x, buf), rows, cols, transposed_, intercepts_,
                                        classes_, s, ctx.thread_pool()));
    for (int64_t r = 0; r < rows; ++r) {
      int64_t best = 0;
      if (binary_) {
        best = s[r] > 0 ? 1 : 0;
      } else {
        for (int64_t c = 1; c < classes_; ++c) {
          if (s[r * classes_ + c] > s[r * classes_ + best]) best = c;
        }
      }
      SetLabel(y, r, best);
    }
    if (!binary_) {
      // Rows split over the pool when there are many (softmax's exp per score dominates).
      ParallelOrInline(ctx.thread_pool(), rows, 1024, [&](int64_t begin, int64_t end) {
        MlTransformRows(s + begin * classes_, end - begin, classes_, post_);
      });
    } else {
      // One score: LOGISTIC or PROBIT turns it into the second class's probability p, and
      // Z is (1 - p, p), as ORT 1.30 gives it.
      for (int64_t r = 0; r < rows; ++r) {
        if (post_ == PostTransform::kLogistic) s[r] = MlLogistic(s[r]);
        if (post_ == PostTransform::kProbit) s[r] = MlProbit(s[r]);
      }
      MlExpandBinary(s, rows, PostTransform::kNone, SecondClass::kComplement);
    }
    return Status::Ok();
  }

 private:
  void SetLabel(Tensor* y, int64_t r, int64_t c) const {
    if (strings_) {
      y->mutable_data<std::string>()[r] = string_labels_[static_cast<size_t>(c)];
    } else {
      y->mutable_data<int64_t>()[r] = int_labels_[static_cast<size_t>(c)];
    }
  }

  std::vector<float> transposed_;  // W^T, for the GEMM
  std::vector<float> coefficients_, intercepts_;
  std::vector<std::string> string_labels_;
  std::vector<int64_t> int_labels_;
  PostTransform post_ = PostTransform::kNone;
  bool strings_ = false, binary_ = false;
  int64_t classes_ = 0;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, LinearClassifier) {
  KernelDef def = MlDef("LinearClassifier", 1, kMaxOpset,
                        {{"T1", {0}, {}, MlNumericTypes()}, {"Z", {}, {1}, {DataType::kFloat}}},
                        FactoryOf<LinearClassifier>(), {1, 1}, {2, 2});
  def.output_types = &MlClassifierLabelType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
