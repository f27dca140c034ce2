// ai.onnx.ml CastMap: a map from int64 keys to strings or floats as a [1, n] tensor of
// cast_to's type (TO_FLOAT, TO_STRING, TO_INT64), in key order. DENSE: one column per
// entry. SPARSE: max_map columns, column k holding key k's value and the rest padding (0,
// or "0.f" for strings, as ONNX Runtime pads); keys past max_map are dropped and a negative
// key is an error. The casts are ONNX Runtime's: strings parsed as a number's leading text
// (a string that does not start with one is an error), floats printed as "%f" and truncated
// toward zero to int64 (NaN and out-of-range floats give INT64_MIN, as x86 does).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

enum class CastTo { kFloat, kString, kInt64 };

Result<CastTo> CastToOf(const onnx::NodeProto& node) {
  std::string s = "TO_FLOAT";
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "cast_to") s = a.s.get();
  }
  ONNX_LIGHT_RETURN_IF_ERROR(MlCheckChoice("cast_to", s, {"TO_FLOAT", "TO_STRING", "TO_INT64"}));
  return s == "TO_STRING" ? CastTo::kString : s == "TO_INT64" ? CastTo::kInt64 : CastTo::kFloat;
}

Result<float> ParseFloat(const std::string& s) {
  errno = 0;
  char* end = nullptr;
  const float v = std::strtof(s.c_str(), &end);
  ONNX_LIGHT_RETURN_IF(end == s.c_str() || errno == ERANGE, kInvalidArgument,
                       "map value '" + s + "' is not a float");
  return v;
}

Result<int64_t> ParseInt(const std::string& s) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  ONNX_LIGHT_RETURN_IF(end == s.c_str() || errno == ERANGE, kInvalidArgument,
                       "map value '" + s + "' is not an int64");
  return static_cast<int64_t>(v);
}

int64_t TruncateToInt64(float f) {
  // [-2^63, 2^63): what converts; anything else is x86's "integer indefinite".
  if (!(f >= -9.2233720368547758e18f && f < 9.2233720368547758e18f)) return INT64_MIN;
  return static_cast<int64_t>(f);
}

std::string FloatText(float f) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%f", static_cast<double>(f));
  return buf;
}

class CastMap : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<CastMap>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->to_, CastToOf(info.node()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string form, info.GetString("map_form", "DENSE"));
    ONNX_LIGHT_RETURN_IF_ERROR(MlCheckChoice("map_form", form, {"DENSE", "SPARSE"}));
    k->sparse_ = form == "SPARSE";
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->max_map_, info.GetInt("max_map", 1));
    ONNX_LIGHT_RETURN_IF(
        k->sparse_ && k->max_map_ <= 0, kInvalidModel,
        "max_map must be positive for map_form SPARSE, got " + std::to_string(k->max_map_));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const TensorMap& m = *ctx.input_map(0);
    ONNX_LIGHT_RETURN_IF(m.keys.dtype() != DataType::kInt64, kInvalidArgument,
                         std::string("CastMap takes a map with int64 keys, got ") +
                             DataTypeName(m.keys.dtype()) + " keys");
    const int64_t n = m.keys.num_elements();
    const int64_t* keys = m.keys.data<int64_t>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
    if (sparse_ && n > 0) {
      ONNX_LIGHT_RETURN_IF(
          keys[order[0]] < 0, kInvalidArgument,
          "map_form SPARSE takes keys >= 0, got " + std::to_string(keys[order[0]]));
    }
    const int64_t cols = sparse_ ? max_map_ : n;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {1, cols}));
    // out(c, i): writes entry i's value, cast, to column c; pad(c) the padding.
    auto run = [&](auto* out, auto pad) -> Status {
      for (int64_t c = 0; c < cols; ++c)
        out[c] = pad;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t i = order[static_cast<size_t>(j)];
        const int64_t c = sparse_ ? keys[i] : j;
        if (c >= cols) break;  // sorted: every later key is past max_map too
        ONNX_LIGHT_RETURN_IF_ERROR(Cast(m.values, i, &out[c]));
      }
      return Status::Ok();
    };
    switch (to_) {
      case CastTo::kFloat:
        return run(y->mutable_data<float>(), 0.0f);
      case CastTo::kInt64:
        return run(y->mutable_data<int64_t>(), int64_t{0});
      case CastTo::kString:
        return run(y->mutable_data<std::string>(), std::string("0.f"));
    }
    return Status::Ok();
  }

 private:
  static Status Cast(const Tensor& v, int64_t i, float* out) {
    if (const float* f = v.data<float>()) {
      *out = f[i];
      return Status::Ok();
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(*out, ParseFloat(v.data<std::string>()[i]));
    return Status::Ok();
  }
  static Status Cast(const Tensor& v, int64_t i, int64_t* out) {
    if (const float* f = v.data<float>()) {
      *out = TruncateToInt64(f[i]);
      return Status::Ok();
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(*out, ParseInt(v.data<std::string>()[i]));
    return Status::Ok();
  }
  static Status Cast(const Tensor& v, int64_t i, std::string* out) {
    if (const float* f = v.data<float>()) {
      *out = FloatText(f[i]);
    } else {
      *out = v.data<std::string>()[i];
    }
    return Status::Ok();
  }

  CastTo to_ = CastTo::kFloat;
  bool sparse_ = false;
  int64_t max_map_ = 1;
};

Status CastMapType(const onnx::NodeProto& node, int, const std::vector<DataType>&,
                   std::vector<DataType>* out, const NodeSubgraphs&) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(CastTo to, CastToOf(node));
  (*out)[0] = to == CastTo::kString  ? DataType::kString
              : to == CastTo::kInt64 ? DataType::kInt64
                                     : DataType::kFloat;
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, CastMap) {
  KernelDef def =
      MlDef("CastMap", 1, kMaxOpset, {{"T1", {0}, {}, {DataType::kString, DataType::kFloat}}},
            FactoryOf<CastMap>());
  def.map_inputs = {0};
  def.output_types = &CastMapType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
