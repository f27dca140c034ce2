// ai.onnx.ml OneHotEncoder: Y (float) has X's shape plus one dimension of the categories,
// 1 where the element is that category: cats_strings for string input, cats_int64s for
// numbers (float and double inputs are truncated to int64 first, as ONNX Runtime does). A
// value in no category gives a row of zeros when zeros = 1 (the default), else an error.
#include <unordered_map>

#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

class OneHotEncoder : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<OneHotEncoder>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->zeros_, GetFlag(info, "zeros", true));
    if (info.input_type(0) == DataType::kString) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<std::string> cats, info.GetStrings("cats_strings"));
      for (size_t i = 0; i < cats.size(); ++i)
        k->strings_.emplace(cats[i], static_cast<int64_t>(i));
      k->count_ = static_cast<int64_t>(cats.size());
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> cats, info.GetInts("cats_int64s"));
      for (size_t i = 0; i < cats.size(); ++i)
        k->ints_.Add(cats[i], static_cast<int64_t>(i));
      k->ints_.Finish();
      k->count_ = static_cast<int64_t>(cats.size());
    }
    if (k->count_ == 0) {
      return Status(StatusCode::kInvalidModel, "no categories");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    std::vector<int64_t> dims = x.shape().dims();
    dims.push_back(count_);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const int64_t n = x.num_elements();
    float* out = y->mutable_data<float>();
    std::fill(out, out + n * count_, 0.0f);
    std::vector<int64_t> cat(static_cast<size_t>(n), -1);
    if (x.dtype() == DataType::kString) {
      const std::string* in = x.data<std::string>();
      for (int64_t i = 0; i < n; ++i) {
        auto it = strings_.find(in[i]);
        if (it != strings_.end()) cat[static_cast<size_t>(i)] = it->second;
      }
    } else {
      MlDispatch(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* in = x.data<T>();
        for (int64_t i = 0; i < n; ++i) {
          const double v = static_cast<double>(in[i]);
          if (!(std::fabs(v) < 9.2e18)) continue;  // NaN or no int64: in no category
          cat[static_cast<size_t>(i)] = ints_.Find(static_cast<int64_t>(v));
        }
      });
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = cat[static_cast<size_t>(i)];
      if (c >= 0) {
        out[i * count_ + c] = 1.0f;
      } else if (!zeros_) {
        return Status(StatusCode::kInvalidArgument,
                      "element " + std::to_string(i) + " of X is in no category (zeros = 0)");
      }
    }
    return Status::Ok();
  }

 private:
  bool zeros_ = true;
  int64_t count_ = 0;
  std::unordered_map<std::string, int64_t> strings_;
  MlIntIndex ints_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, OneHotEncoder) {
  std::vector<DataType> types = MlNumericTypes();
  types.push_back(DataType::kString);
  return r.Register(MlDef("OneHotEncoder", 1, kMaxOpset,
                          {{"T", {0}, {}, types}, {"Y", {}, {0}, {DataType::kFloat}}},
                          FactoryOf<OneHotEncoder>()));
}

}  // namespace onnx_light::kernels
