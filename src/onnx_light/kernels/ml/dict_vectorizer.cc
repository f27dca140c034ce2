// ai.onnx.ml DictVectorizer: a map's values laid out along the vocabulary (string_vocabulary
// or int64_vocabulary): Y[0, i] is the map's value for vocabulary[i], or 0 ("" for strings)
// where the map has no such key; keys outside the vocabulary are ignored. Y is [1, V], as
// ONNX Runtime makes it. A vocabulary may repeat a key (ORT accepts such models): every
// position of it gets the value.
#include <unordered_map>

#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

class DictVectorizer : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<DictVectorizer>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<std::string> strings,
                                MlStringsOrEmpty(info, "string_vocabulary"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> ints, MlIntsOrEmpty(info, "int64_vocabulary"));
    if (strings.empty() == ints.empty()) {
      return Status(StatusCode::kInvalidModel,
                    "exactly one of string_vocabulary and int64_vocabulary must be given");
    }
    k->string_keys_ = !strings.empty();
    k->size_ = static_cast<int64_t>(k->string_keys_ ? strings.size() : ints.size());
    for (size_t i = 0; i < strings.size(); ++i)
      k->by_string_[strings[i]].push_back(static_cast<int64_t>(i));
    for (size_t i = 0; i < ints.size(); ++i)
      k->by_int_[ints[i]].push_back(static_cast<int64_t>(i));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const TensorMap& m = *ctx.input_map(0);
    const DataType want = string_keys_ ? DataType::kString : DataType::kInt64;
    ONNX_LIGHT_RETURN_IF(m.keys.dtype() != want, kInvalidArgument,
                         std::string("the map's keys are ") + DataTypeName(m.keys.dtype()) +
                             " but the vocabulary is " + DataTypeName(want));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {1, size_}));
    const int64_t n = m.keys.num_elements();
    auto fill = [&](auto tag) {
      using T = decltype(tag);
      T* out = y->mutable_data<T>();
      std::fill(out, out + size_, T());
      const T* values = m.values.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        const std::vector<int64_t>* at = Positions(m.keys, i);
        if (at == nullptr) continue;
        for (int64_t p : *at)
          out[p] = values[i];
      }
    };
    switch (m.values.dtype()) {
      case DataType::kFloat:
        fill(float{});
        break;
      case DataType::kDouble:
        fill(double{});
        break;
      case DataType::kInt64:
        fill(int64_t{});
        break;
      case DataType::kString:
        fill(std::string{});
        break;
      default:
        return Status(
            StatusCode::kInvalidArgument,
            std::string("map values of ") + DataTypeName(m.values.dtype()) + " are not supported");
    }
    return Status::Ok();
  }

 private:
  // The vocabulary positions of the map's key i, or null when it has none.
  const std::vector<int64_t>* Positions(const Tensor& keys, int64_t i) const {
    if (string_keys_) {
      auto it = by_string_.find(keys.data<std::string>()[i]);
      return it == by_string_.end() ? nullptr : &it->second;
    }
    auto it = by_int_.find(keys.data<int64_t>()[i]);
    return it == by_int_.end() ? nullptr : &it->second;
  }

  bool string_keys_ = false;
  int64_t size_ = 0;
  std::unordered_map<std::string, std::vector<int64_t>> by_string_;
  std::unordered_map<int64_t, std::vector<int64_t>> by_int_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, DictVectorizer) {
  KernelDef def = MlDef(
      "DictVectorizer", 1, kMaxOpset,
      {{"T", {0}, {0}, {DataType::kInt64, DataType::kFloat, DataType::kDouble, DataType::kString}}},
      FactoryOf<DictVectorizer>());
  def.map_inputs = {0};
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
