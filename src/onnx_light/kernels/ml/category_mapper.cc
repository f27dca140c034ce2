// ai.onnx.ml CategoryMapper: strings to int64 and back through the pairs
// (cats_strings[i], cats_int64s[i]); an unknown string gives default_int64 (-1), an unknown
// integer default_string ("_Unused"). The output type is the other one of the input's.
#include <unordered_map>

#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

class CategoryMapper : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<CategoryMapper>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<std::string> strings, info.GetStrings("cats_strings"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> ints, info.GetInts("cats_int64s"));
    if (strings.size() != ints.size()) {
      return Status(StatusCode::kInvalidModel,
                    "cats_strings has " + std::to_string(strings.size()) + " values, cats_int64s " +
                        std::to_string(ints.size()));
    }
    for (size_t i = 0; i < strings.size(); ++i) {
      k->to_int_.emplace(strings[i], ints[i]);
      k->to_string_.emplace(ints[i], strings[i]);
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->default_int_, info.GetInt("default_int64", -1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->default_string_, info.GetString("default_string", "_Unused"));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t n = x.num_elements();
    if (x.dtype() == DataType::kString) {
      const std::string* in = x.data<std::string>();
      int64_t* out = y->mutable_data<int64_t>();
      for (int64_t i = 0; i < n; ++i) {
        auto it = to_int_.find(in[i]);
        out[i] = it == to_int_.end() ? default_int_ : it->second;
      }
    } else {
      const int64_t* in = x.data<int64_t>();
      std::string* out = y->mutable_data<std::string>();
      for (int64_t i = 0; i < n; ++i) {
        auto it = to_string_.find(in[i]);
        out[i] = it == to_string_.end() ? default_string_ : it->second;
      }
    }
    return Status::Ok();
  }

 private:
  std::unordered_map<std::string, int64_t> to_int_;
  std::unordered_map<int64_t, std::string> to_string_;
  int64_t default_int_ = -1;
  std::string default_string_;
};

Status CategoryMapperType(const onnx::NodeProto&, int, const std::vector<DataType>& in,
                          std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = in[0] == DataType::kString ? DataType::kInt64 : DataType::kString;
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, CategoryMapper) {
  KernelDef def =
      MlDef("CategoryMapper", 1, kMaxOpset,
            {{"T1", {0}, {}, {DataType::kString, DataType::kInt64}}}, FactoryOf<CategoryMapper>());
  def.output_types = &CategoryMapperType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
