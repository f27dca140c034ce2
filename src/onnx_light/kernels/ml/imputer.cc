// ai.onnx.ml Imputer: every element of X equal to the replaced value (NaN matches NaN) is
// replaced by the imputed value of its feature (the last dimension), or by the one value
// given for all. float and double use the float attributes, int64 and int32 the int64 ones.
#include <vector>

#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

class Imputer : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Imputer>();
    k->floating_ =
        info.input_type(0) == DataType::kFloat || info.input_type(0) == DataType::kDouble;
    if (k->floating_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(float replaced, info.GetFloat("replaced_value_float", 0.0f));
      k->replaced_ = replaced;
      if (info.HasAttribute("imputed_value_floats")) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<float> v, info.GetFloats("imputed_value_floats"));
        k->imputed_.assign(v.begin(), v.end());
      }
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t replaced, info.GetInt("replaced_value_int64", 0));
      k->replaced_int_ = replaced;
      if (info.HasAttribute("imputed_value_int64s")) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(k->imputed_int_, info.GetInts("imputed_value_int64s"));
      }
    }
    const size_t n = k->floating_ ? k->imputed_.size() : k->imputed_int_.size();
    if (n == 0) {
      return Status(StatusCode::kInvalidModel, std::string("no imputed values (imputed_value_") +
                                                   (k->floating_ ? "floats" : "int64s") + ") for " +
                                                   DataTypeName(info.input_type(0)) + " input");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF(x.shape().rank() == 0, kInvalidArgument,
                         "X must have a feature dimension");
    const int64_t c = x.shape()[x.shape().rank() - 1];
    const size_t given = floating_ ? imputed_.size() : imputed_int_.size();
    ONNX_LIGHT_RETURN_IF(given != 1 && static_cast<int64_t>(given) != c, kInvalidArgument,
                         std::to_string(given) + " imputed values for " + std::to_string(c) +
                             " features (give 1 or " + std::to_string(c) + ")");
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t n = x.num_elements();
    // Row by row with the imputed values converted once (an i % c and a conversion per
    // element ran 2.5x ORT's time on [10000, 50]).
    const int64_t width = given == 1 || c == 0 ? 1 : c;
    MlDispatch(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<T>();
      T* out = y->mutable_data<T>();
      std::vector<T> fill(static_cast<size_t>(width));
      for (size_t j = 0; j < fill.size(); ++j)
        fill[j] = floating_ ? static_cast<T>(imputed_[j]) : static_cast<T>(imputed_int_[j]);
      auto run = [&](auto hit) {
        for (int64_t i = 0; i < n; i += width)  // n is a whole number of rows
          for (int64_t j = 0; j < width; ++j)
            out[i + j] = hit(in[i + j]) ? fill[static_cast<size_t>(j)] : in[i + j];
      };
      if constexpr (std::is_floating_point_v<T>) {
        const T replaced = static_cast<T>(replaced_);
        if (std::isnan(replaced_)) {
          run([](T v) { return std::isnan(v); });
        } else {
          run([replaced](T v) { return v == replaced; });
        }
      } else {
        run([r = replaced_int_](T v) { return static_cast<int64_t>(v) == r; });
      }
    });
    return Status::Ok();
  }

 private:
  bool floating_ = true;
  double replaced_ = 0.0;
  int64_t replaced_int_ = 0;
  std::vector<double> imputed_;
  std::vector<int64_t> imputed_int_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, Imputer) {
  return r.Register(
      MlDef("Imputer", 1, kMaxOpset, {{"T", {0}, {0}, MlNumericTypes()}}, FactoryOf<Imputer>()));
}

}  // namespace onnx_light::kernels
