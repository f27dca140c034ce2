// ai.onnx.ml LabelEncoder (versions 1, 2 and 4): maps each element of X through a table of
// keys to values, with a default for keys not in it. Version 1: classes_strings (a string
// maps to its index, an index to its string); 2: keys_* / values_* of string, int64 or
// float; 4: also keys_tensor / values_tensor / default_tensor of string, int64, int32,
// int16, float or double. NaN keys match NaN inputs; 0.0 and -0.0 are one key. A key listed
// twice maps to its first value.
#include <cstring>
#include <unordered_map>

#include "ml/ml_common.h"
#include "onnx_light/runtime/tensor_proto.h"

namespace onnx_light::kernels {
namespace {

bool IsInt(DataType t) {
  return t == DataType::kInt64 || t == DataType::kInt32 || t == DataType::kInt16;
}
bool IsReal(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble;
}

// One column of the table (keys or values), whatever the attribute's type.
struct Column {
  DataType type = DataType::kUndefined;
  std::vector<int64_t> ints;
  std::vector<double> reals;
  std::vector<std::string> strings;
  size_t size() const {
    return IsInt(type) ? ints.size() : IsReal(type) ? reals.size() : strings.size();
  }
};

Result<Column> FromTensor(const onnx::TensorProto& proto) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(proto));
  Column c;
  c.type = t.dtype();
  const int64_t n = t.num_elements();
  if (c.type == DataType::kString) {
    c.strings.assign(t.data<std::string>(), t.data<std::string>() + n);
    return c;
  }
  if (!IsInt(c.type) && !IsReal(c.type)) {
    return Status(StatusCode::kInvalidModel,
                  std::string("a tensor attribute of type ") + DataTypeName(c.type) +
                      "; LabelEncoder takes string, int64, int32, int16, float or double");
  }
  MlDispatch(c.type, [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (IsInt(c.type)) {
        c.ints.push_back(static_cast<int64_t>(p[i]));
      } else {
        c.reals.push_back(static_cast<double>(p[i]));
      }
    }
  });
  return c;
}

// The column given by `prefix`_strings, _int64s, _floats or _tensor (exactly one).
Result<Column> ReadColumn(const KernelInfo& info, const std::string& prefix) {
  Column c;
  int found = 0;
  if (info.HasAttribute(prefix + "_strings")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(c.strings, info.GetStrings(prefix + "_strings"));
    c.type = DataType::kString;
    ++found;
  }
  if (info.HasAttribute(prefix + "_int64s")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(c.ints, info.GetInts(prefix + "_int64s"));
    c.type = DataType::kInt64;
    ++found;
  }
  if (info.HasAttribute(prefix + "_floats")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<float> v, info.GetFloats(prefix + "_floats"));
    c.reals.assign(v.begin(), v.end());
    c.type = DataType::kFloat;
    ++found;
  }
  if (const onnx::AttributeProto* a = info.Find(prefix + "_tensor")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(c, FromTensor(a->t.get()));
    ++found;
  }
  if (found != 1) {
    return Status(StatusCode::kInvalidModel,
                  "give exactly one of " + prefix + "_strings, " + prefix + "_int64s, " + prefix +
                      "_floats, " + prefix + "_tensor (" + std::to_string(found) + " given)");
  }
  return c;
}

// A real as a hash key: every NaN one key, -0.0 the same as 0.0.
constexpr uint64_t kNanKey = 0x7ff8000000000000ull;
uint64_t RealKey(double v) {
  if (std::isnan(v)) return kNanKey;
  if (v == 0.0) v = 0.0;
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

class LabelEncoder : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<LabelEncoder>();
    const DataType in = info.input_type(0);
    if (info.opset() < 2) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<std::string> classes,
                                  info.GetStrings("classes_strings"));
      Column index, names;
      index.type = DataType::kInt64;
      names.type = DataType::kString;
      names.strings = classes;
      for (size_t i = 0; i < classes.size(); ++i)
        index.ints.push_back(static_cast<int64_t>(i));
      k->keys_ = in == DataType::kString ? names : index;
      k->values_ = in == DataType::kString ? index : names;
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->keys_, ReadColumn(info, "keys"));
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->values_, ReadColumn(info, "values"));
    }
    if (k->keys_.type != in) {
      return Status(StatusCode::kInvalidModel, std::string("the keys are ") +
                                                   DataTypeName(k->keys_.type) + ", X is " +
                                                   DataTypeName(in));
    }
    if (k->keys_.size() != k->values_.size()) {
      return Status(StatusCode::kInvalidModel, std::to_string(k->keys_.size()) + " keys and " +
                                                   std::to_string(k->values_.size()) + " values");
    }
    ONNX_LIGHT_RETURN_IF_ERROR(k->ReadDefault(info));
    k->nan_matches_ = info.opset() >= 4;          // version 4 made NaN a key like any other
    for (size_t i = k->keys_.size(); i-- > 0;) {  // backwards: the first of equal keys wins
      if (IsInt(in)) {
        continue;
      } else if (IsReal(in)) {
        k->real_index_[RealKey(k->keys_.reals[i])] = i;
      } else {
        k->string_index_[k->keys_.strings[i]] = i;
      }
    }
    if (IsInt(in)) {
      for (size_t i = 0; i < k->keys_.size(); ++i)  // forwards: Add keeps the first
        k->int_index_.Add(k->keys_.ints[i], static_cast<int64_t>(i));
      k->int_index_.Finish();
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t n = x.num_elements();
    std::vector<int64_t> found(static_cast<size_t>(n));  // value index, or -1: the default
    auto find = [](const auto& index, const auto& key) -> int64_t {
      auto it = index.find(key);
      return it == index.end() ? -1 : static_cast<int64_t>(it->second);
    };
    if (x.dtype() == DataType::kString) {
      const std::string* p = x.data<std::string>();
      for (int64_t i = 0; i < n; ++i)
        found[static_cast<size_t>(i)] = find(string_index_, p[i]);
    } else {
      MlDispatch(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* p = x.data<T>();
        for (int64_t i = 0; i < n; ++i) {
          found[static_cast<size_t>(i)] = IsInt(x.dtype())
                                              ? int_index_.Find(static_cast<int64_t>(p[i]))
                                              : Real(static_cast<double>(p[i]));
        }
      });
    }
    const DataType out = values_.type;
    if (out == DataType::kString) {
      std::string* o = y->mutable_data<std::string>();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = found[static_cast<size_t>(i)];
        o[i] = j < 0 ? default_.strings[0] : values_.strings[static_cast<size_t>(j)];
      }
      return Status::Ok();
    }
    MlDispatch(out, [&](auto tag) {
      using T = decltype(tag);
      T* o = y->mutable_data<T>();
      const Column& d = default_;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = found[static_cast<size_t>(i)];
        const Column& c = j < 0 ? d : values_;
        const size_t at = j < 0 ? 0 : static_cast<size_t>(j);
        o[i] = IsInt(out) ? static_cast<T>(c.ints[at]) : static_cast<T>(c.reals[at]);
      }
    });
    return Status::Ok();
  }

 private:
  // default_tensor (one element of the values' type), else default_string / default_int64 /
  // default_float by that type (defaults "_Unused", -1, -0.0).
  Status ReadDefault(const KernelInfo& info) {
    const DataType out = values_.type;
    if (const onnx::AttributeProto* a = info.Find("default_tensor")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(default_, FromTensor(a->t.get()));
      if (default_.type != out || default_.size() != 1) {
        return Status(StatusCode::kInvalidModel,
                      std::string("default_tensor must hold one ") + DataTypeName(out) + " value");
      }
      return Status::Ok();
    }
    default_.type = out;
    if (out == DataType::kString) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::string s, info.GetString("default_string", "_Unused"));
      default_.strings = {s};
    } else if (IsInt(out)) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t v, info.GetInt("default_int64", -1));
      default_.ints = {v};
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(float v, info.GetFloat("default_float", -0.0f));
      default_.reals = {v};
    }
    return Status::Ok();
  }

  int64_t Real(double v) const {
    if (std::isnan(v) && !nan_matches_) return -1;
    auto it = real_index_.find(RealKey(v));
    return it == real_index_.end() ? -1 : static_cast<int64_t>(it->second);
  }

  bool nan_matches_ = true;
  Column keys_, values_, default_;
  MlIntIndex int_index_;
  std::unordered_map<uint64_t, size_t> real_index_;
  std::unordered_map<std::string, size_t> string_index_;
};

// The output type: the values' type (version 1: string for int64 input, int64 for string).
Status LabelEncoderType(const onnx::NodeProto& node, int opset, const std::vector<DataType>& in,
                        std::vector<DataType>* out, const NodeSubgraphs&) {
  if (opset < 2) {
    (*out)[0] = in[0] == DataType::kString ? DataType::kInt64 : DataType::kString;
    return Status::Ok();
  }
  for (const onnx::AttributeProto& a : node.attribute) {
    const std::string& name = a.name.get();
    if (name == "values_strings") (*out)[0] = DataType::kString;
    if (name == "values_int64s") (*out)[0] = DataType::kInt64;
    if (name == "values_floats") (*out)[0] = DataType::kFloat;
    if (name == "values_tensor") {
      ONNX_LIGHT_ASSIGN_OR_RETURN((*out)[0], DataTypeFromInt(a.t->data_type.get()));
    }
  }
  if ((*out)[0] == DataType::kUndefined) {
    return Status(StatusCode::kInvalidModel,
                  "LabelEncoder node '" + node.name.get() + "' has no values_* attribute");
  }
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, LabelEncoder) {
  KernelDef def = MlDef("LabelEncoder", 1, kMaxOpset,
                        {{"T1",
                          {0},
                          {},
                          {DataType::kString, DataType::kInt64, DataType::kFloat, DataType::kInt32,
                           DataType::kInt16, DataType::kDouble}}},
                        FactoryOf<LabelEncoder>());
  def.output_types = &LabelEncoderType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
