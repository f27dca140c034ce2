// ai.onnx.ml SVMClassifier, as ONNX Runtime evaluates what skl2onnx writes for SVC, NuSVC
// and LinearSVC:
//   - with support vectors (vectors_per_class): libsvm's one-vs-one machines, one score per
//     pair of classes (coefficients [classes - 1, vectors], rho per pair), the label by
//     votes; with prob_a / prob_b, Platt's sigmoid per pair and pairwise coupling (Wu, Lin
//     and Weng) give one probability per class;
//   - without: linear, <x, coefficients[c]> + rho[0] per class, the label of the largest.
// Two classes: Z holds two columns, (-s, s) for the raw pair score under NONE, (1 - s, s)
// otherwise; Y follows ORT's binary rule (below).
#include "ml/svm.h"

namespace onnx_light::kernels {
namespace {

// Platt's probability of the pair's first class.
float SigmoidProbability(float score, float a, float b) {
  return 1.0f - MlLogistic(score * a + b);
}

// Pairwise coupling: class probabilities p[k] from pairwise r[i * k + j] (r[i][j] + r[j][i]
// = 1), by the iterative method of Wu, Lin and Weng (libsvm's multiclass_probability).
void CoupleProbabilities(int64_t k, const std::vector<float>& r, float* p) {
  std::vector<float> q(static_cast<size_t>(k * k), 0.0f), qp(static_cast<size_t>(k));
  const float eps = 0.005f / static_cast<float>(k);
  for (int64_t i = 0; i < k; ++i) {
    p[i] = 1.0f / static_cast<float>(k);
    for (int64_t j = 0; j < k; ++j) {
      if (j == i) continue;
      const float rji = r[static_cast<size_t>(j * k + i)];
      q[static_cast<size_t>(i * k + i)] += rji * rji;
      q[static_cast<size_t>(i * k + j)] = -rji * r[static_cast<size_t>(i * k + j)];
    }
  }
  for (int iter = 0; iter < 100; ++iter) {
    float pqp = 0.0f;
    for (int64_t i = 0; i < k; ++i) {
      float s = 0.0f;
      for (int64_t j = 0; j < k; ++j)
        s += q[static_cast<size_t>(i * k + j)] * p[j];
      qp[static_cast<size_t>(i)] = s;
      pqp += p[i] * s;
    }
    float max_error = 0.0f;
    for (int64_t i = 0; i < k; ++i)
      max_error = std::max(max_error, std::fabs(qp[static_cast<size_t>(i)] - pqp));
    if (max_error < eps) break;
    for (int64_t i = 0; i < k; ++i) {
      const float qii = q[static_cast<size_t>(i * k + i)];
      const float diff = (-qp[static_cast<size_t>(i)] + pqp) / qii;
      p[i] += diff;
      pqp = (pqp + diff * (diff * qii + 2 * qp[static_cast<size_t>(i)])) / (1 + diff) / (1 + diff);
      for (int64_t j = 0; j < k; ++j) {
        qp[static_cast<size_t>(j)] =
            (qp[static_cast<size_t>(j)] + diff * q[static_cast<size_t>(i * k + j)]) / (1 + diff);
        p[j] /= (1 + diff);
      }
    }
  }
}

class SVMClassifier : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<SVMClassifier>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->params_, ReadSvmParams(info));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->coefficients_, info.GetFloats("coefficients"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->rho_, info.GetFloats("rho"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->post_, MlPostTransform(info));
    for (const char* a : {"prob_a", "prob_b", "support_vectors"}) {
      if (!info.HasAttribute(a)) continue;
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<float> v, info.GetFloats(a));
      (a[0] == 's' ? k->support_vectors_ : a[5] == 'a' ? k->prob_a_ : k->prob_b_) = std::move(v);
    }
    if (info.HasAttribute("vectors_per_class")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->per_class_, info.GetInts("vectors_per_class"));
    }
    k->strings_ = info.output_type(0) == DataType::kString;
    if (k->strings_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->string_labels_, info.GetStrings("classlabels_strings"));
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->int_labels_, info.GetInts("classlabels_ints"));
    }
    ONNX_LIGHT_RETURN_IF_ERROR(k->Check());
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto rc, SvmRows(x, features_));
    const int64_t rows = rc.first, cols = rc.second;
    const int64_t pairs = classes_ * (classes_ - 1) / 2;
    const bool proba = !prob_a_.empty();
    const int64_t width = !svc_ || proba ? classes_ : classes_ > 2 ? pairs : 2;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {rows}));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * zt, ctx.AllocateOutput(1, {rows, width}));
    float* z = zt->mutable_data<float>();
    std::vector<float> buf;
    const float* in = MlFloats(x, buf);
    if (!svc_) {
      SvmKernelRows(params_, in, coefficients_.data(), rows, classes_, cols, rho_[0], z,
                    ctx.thread_pool());
      for (int64_t r = 0; r < rows; ++r) {
        float* s = z + r * classes_;
        const int64_t best = std::max_element(s, s + classes_) - s;
        SetLabel(y, r, best, s[best], proba);
        MlTransformRows(s, 1, classes_, post_);
      }
      return Status::Ok();
    }
    std::vector<float> kern(static_cast<size_t>(rows * vectors_));
    SvmKernelRows(params_, in, support_vectors_.data(), rows, vectors_, cols, 0.0f, kern.data(),
                  ctx.thread_pool());
    std::vector<float> pair_scores(static_cast<size_t>(pairs));
    std::vector<int64_t> votes(static_cast<size_t>(classes_));
    std::vector<float> r2(static_cast<size_t>(classes_ * classes_));
    for (int64_t r = 0; r < rows; ++r) {
      const float* kr = kern.data() + r * vectors_;
      std::fill(votes.begin(), votes.end(), 0);
      int64_t idx = 0;
      for (int64_t i = 0; i < classes_; ++i) {
        for (int64_t j = i + 1; j < classes_; ++j, ++idx) {
          double sum = rho_[static_cast<size_t>(idx)];
          // class i's vectors with row j - 1 of the coefficients, class j's with row i
          for (int64_t m = 0; m < per_class_[i]; ++m) {
            const int64_t v = start_[i] + m;
            sum += static_cast<double>(coefficients_[(j - 1) * vectors_ + v]) * kr[v];
          }
          for (int64_t m = 0; m < per_class_[j]; ++m) {
            const int64_t v = start_[j] + m;
            sum += static_cast<double>(coefficients_[i * vectors_ + v]) * kr[v];
          }
          pair_scores[static_cast<size_t>(idx)] = static_cast<float>(sum);
          ++votes[static_cast<size_t>(sum > 0 ? i : j)];
        }
      }
      const int64_t best = std::max_element(votes.begin(), votes.end()) - votes.begin();
      SetLabel(y, r, best, 0.0f, proba);
      float* s = z + r * width;
      if (proba) {
        idx = 0;
        for (int64_t i = 0; i < classes_; ++i) {
          for (int64_t j = i + 1; j < classes_; ++j, ++idx) {
            float p = SigmoidProbability(pair_scores[static_cast<size_t>(idx)],
                                         prob_a_[static_cast<size_t>(idx)],
                                         prob_b_[static_cast<size_t>(idx)]);
            p = std::min(std::max(p, 1e-7f), 1 - 1e-7f);
            r2[static_cast<size_t>(i * classes_ + j)] = p;
            r2[static_cast<size_t>(j * classes_ + i)] = 1 - p;
          }
        }
        CoupleProbabilities(classes_, r2, s);
        MlTransformRows(s, 1, classes_, post_);
      } else if (classes_ > 2) {
        std::copy(pair_scores.begin(), pair_scores.end(), s);
        MlTransformRows(s, 1, pairs, post_);
      } else if (post_ == PostTransform::kProbit) {
        s[0] = MlProbit(pair_scores[0]);
        s[1] = 0.0f;  // ORT leaves this column unwritten
      } else {
        s[0] = pair_scores[0];
        MlExpandBinary(
            s, 1, PostTransform::kNone,
            post_ == PostTransform::kNone ? SecondClass::kSigned : SecondClass::kComplement);
      }
    }
    return Status::Ok();
  }

 private:
  Status Check() {
    classes_ = static_cast<int64_t>(strings_ ? string_labels_.size() : int_labels_.size());
    auto bad = [&](const std::string& what) { return Status(StatusCode::kInvalidModel, what); };
    if (classes_ < 2) return bad("needs at least two class labels");
    if (prob_a_.size() != prob_b_.size()) return bad("prob_a and prob_b differ in length");
    if (rho_.empty()) return bad("no rho");
    for (int64_t n : per_class_) {
      if (n < 0 || n > INT32_MAX || vectors_ + n > INT32_MAX) {
        return bad("vectors_per_class holds a count outside [0, 2^31)");
      }
      start_.push_back(vectors_);
      vectors_ += n;
    }
    svc_ = vectors_ > 0;
    const int64_t pairs = classes_ * (classes_ - 1) / 2;
    if (svc_) {
      if (static_cast<int64_t>(per_class_.size()) != classes_) {
        return bad(std::to_string(per_class_.size()) + " vectors_per_class counts for " +
                   std::to_string(classes_) + " class labels");
      }
      if (support_vectors_.empty() ||
          static_cast<int64_t>(support_vectors_.size()) % vectors_ != 0) {
        return bad(std::to_string(support_vectors_.size()) + " support_vectors values for " +
                   std::to_string(vectors_) + " vectors");
      }
      features_ = static_cast<int64_t>(support_vectors_.size()) / vectors_;
      if (static_cast<int64_t>(coefficients_.size()) != (classes_ - 1) * vectors_) {
        return bad(std::to_string(coefficients_.size()) +
                   " coefficients; (classes - 1) * vectors = " +
                   std::to_string((classes_ - 1) * vectors_));
      }
      if (static_cast<int64_t>(rho_.size()) < pairs ||
          (!prob_a_.empty() && static_cast<int64_t>(prob_a_.size()) < pairs)) {
        return bad("rho (and prob_a / prob_b) need one value per pair of classes (" +
                   std::to_string(pairs) + ")");
      }
    } else {
      params_.kernel = SvmKernel::kLinear;
      if (coefficients_.empty() || static_cast<int64_t>(coefficients_.size()) % classes_ != 0) {
        return bad(std::to_string(coefficients_.size()) + " coefficients for " +
                   std::to_string(classes_) + " classes");
      }
      features_ = static_cast<int64_t>(coefficients_.size()) / classes_;
    }
    all_positive_ =
        std::all_of(coefficients_.begin(), coefficients_.end(), [](float v) { return v >= 0.0f; });
    return Status::Ok();
  }

  // Y for class `best`; with two classes ORT's rule: without probabilities, the second
  // label when the best score says so (>= 0.5 for all-positive coefficients, > 0 else).
  void SetLabel(Tensor* y, int64_t r, int64_t best, float best_score, bool proba) const {
    int64_t c = best;
    if (classes_ == 2 && !proba &&
        ((all_positive_ && best_score >= 0.5f) || (!all_positive_ && best_score > 0.0f))) {
      c = 1;
    }
    if (strings_) {
      y->mutable_data<std::string>()[r] = string_labels_[static_cast<size_t>(c)];
    } else {
      y->mutable_data<int64_t>()[r] = int_labels_[static_cast<size_t>(c)];
    }
  }

  SvmParams params_;
  std::vector<float> coefficients_, rho_, prob_a_, prob_b_, support_vectors_;
  std::vector<int64_t> per_class_, start_;
  std::vector<std::string> string_labels_;
  std::vector<int64_t> int_labels_;
  PostTransform post_ = PostTransform::kNone;
  bool strings_ = false, svc_ = false, all_positive_ = false;
  int64_t classes_ = 0, vectors_ = 0, features_ = 0;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, SVMClassifier) {
  KernelDef def = MlDef("SVMClassifier", 1, kMaxOpset,
                        {{"T1", {0}, {}, MlNumericTypes()}, {"Z", {}, {1}, {DataType::kFloat}}},
                        FactoryOf<SVMClassifier>(), {1, 1}, {2, 2});
  def.output_types = &MlClassifierLabelType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
