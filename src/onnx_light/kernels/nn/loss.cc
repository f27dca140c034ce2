// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (reduction none / sum / mean,
// class weights, ignore_index, extra dims [N, C, d1, ...]). Computed in double, except a
// float32 log-softmax along contiguous classes (the vector kernel's, as ORT computes it).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "simd/softmax_simd.h"

namespace onnx_light::kernels {
namespace {

template <bool kSoftmax>
class Loss : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Loss>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->reduction_, info.GetString("reduction", "mean"));
    ONNX_LIGHT_RETURN_IF(
        k->reduction_ != "none" && k->reduction_ != "sum" && k->reduction_ != "mean", kInvalidModel,
        "unknown reduction '" + k->reduction_ + "'");
    k->has_ignore_ = info.HasAttribute("ignore_index");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->ignore_, info.GetInt("ignore_index", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& target = *ctx.input(1);
    const Tensor* weight = ctx.input(2);
    const std::vector<int64_t>& xd = x.shape().dims();
    ONNX_LIGHT_RETURN_IF(xd.size() < 2, kInvalidArgument, "input must be [N, C, ...]");
    const int64_t n = xd[0], c = xd[1];
    std::vector<int64_t> td = {n};
    td.insert(td.end(), xd.begin() + 2, xd.end());
    if (target.shape().dims() != td) {
      return Status(
          StatusCode::kInvalidArgument,
          "target " + target.shape().ToString() + " does not match input " + x.shape().ToString());
    }
    ONNX_LIGHT_RETURN_IF(
        weight != nullptr && (weight->shape().rank() != 1 || weight->shape()[0] != c),
        kInvalidArgument, "weight must be [" + std::to_string(c) + "]");
    const int64_t inner = n == 0 || c == 0 ? 0 : x.num_elements() / (n * c);
    const std::vector<int64_t> labels = IndexValues(target);
    const std::vector<double> w = ToDoubles(weight);
    std::vector<double> logp;
    if (kSoftmax && x.dtype() == DataType::kFloat && inner == 1) {
      // float32 classes along a contiguous row: the vector log-softmax (float, as ORT's;
      // in double, an exp per logit, it ran 15x ORT's time), then the rest in double.
      std::vector<float> row(static_cast<size_t>(c));
      logp.resize(static_cast<size_t>(n * c));
      for (int64_t b = 0; b < n; ++b) {
        LogSoftmaxRowF32(x.data<float>() + b * c, row.data(), static_cast<size_t>(c));
        std::copy(row.begin(), row.end(), logp.begin() + b * c);
      }
    } else if (kSoftmax) {
      logp = ToDoubles(&x);
    }
    // NegativeLogLikelihoodLoss reads only the target's log-probability of each position
    // (a double copy of the whole input first was 3x ORT's time).
    auto logp_at = [&](int64_t i) {
      if (!logp.empty()) return logp[static_cast<size_t>(i)];
      double v = 0;
      ForFloat(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        v = static_cast<double>(x.data<T>()[i]);
      });
      return v;
    };
    if (kSoftmax && !(x.dtype() == DataType::kFloat && inner == 1)) {
      // log-softmax over the class axis
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t j = 0; j < inner; ++j) {
          double m = -std::numeric_limits<double>::infinity(), sum = 0;
          for (int64_t k = 0; k < c; ++k)
            m = std::max(m, logp[static_cast<size_t>((b * c + k) * inner + j)]);
          for (int64_t k = 0; k < c; ++k)
            sum += std::exp(logp[static_cast<size_t>((b * c + k) * inner + j)] - m);
          const double lse = m + std::log(sum);
          for (int64_t k = 0; k < c; ++k)
            logp[static_cast<size_t>((b * c + k) * inner + j)] -= lse;
        }
      }
    }
    std::vector<double> loss(static_cast<size_t>(n * inner));
    double total = 0, total_w = 0;
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < inner; ++j) {
        const auto at = static_cast<size_t>(b * inner + j);
        const int64_t t = labels[at];
        if (has_ignore_ && t == ignore_) {
          loss[at] = 0;
          continue;
        }
        if (t < 0 || t >= c) {
          return Status(
              StatusCode::kInvalidArgument,
              "target " + std::to_string(t) + " is outside [0, " + std::to_string(c) + ")");
        }
        const double wt = w.empty() ? 1.0 : w[static_cast<size_t>(t)];
        loss[at] = -logp_at((b * c + t) * inner + j) * wt;
        total += loss[at];
        total_w += wt;
      }
    }
    std::vector<int64_t> out_dims;
    if (reduction_ == "none") out_dims = td;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out_dims));
    Tensor* lp = nullptr;
    if (kSoftmax && ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(lp, ctx.AllocateOutput(1, xd));
    }
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_integral_v<T>) {
        T* out = y->mutable_data<T>();
        if (reduction_ == "none") {
          for (size_t i = 0; i < loss.size(); ++i)
            out[i] = static_cast<T>(loss[i]);
        } else {
          out[0] = static_cast<T>(reduction_ == "sum" ? total : total / total_w);
        }
        if (lp != nullptr) {
          for (size_t i = 0; i < logp.size(); ++i)
            lp->mutable_data<T>()[i] = static_cast<T>(logp[i]);
        }
      }
    });
    return Status::Ok();
  }

 private:
  std::string reduction_ = "mean";
  bool has_ignore_ = false;
  int64_t ignore_ = 0;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, NegativeLogLikelihoodLoss) {
  return r.Register(Def("NegativeLogLikelihoodLoss", 12,
                        {{"T", {0, 2}, {0}, FloatTypes()}, {"Tind", {1}, {}, IndexTypes()}},
                        FactoryOf<Loss<false>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, SoftmaxCrossEntropyLoss) {
  return r.Register(Def("SoftmaxCrossEntropyLoss", 12,
                        {{"T", {0, 2}, {0, 1}, FloatTypes()}, {"Tind", {1}, {}, IndexTypes()}},
                        FactoryOf<Loss<true>>()));
}

}  // namespace onnx_light::kernels
