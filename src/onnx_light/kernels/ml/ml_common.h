// Shared by the ai.onnx.ml kernels (classical machine learning: what skl2onnx and
// onnxmltools write): their kernel definitions, reading X as rows of float features, and
// the score post-transforms (NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO, PROBIT) with ONNX
// Runtime's conventions, which converted models are checked against.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {

// The ai.onnx.ml kernel of `op` for the domain's versions [since, end]: `inputs` and
// `outputs` are {min, max} counts (the ops have no ONNX schema rows here).
inline KernelDef MlDef(const char* op, int since, int end, std::vector<TypeConstraint> c,
                       KernelFactory f, std::pair<int, int> inputs = {1, 1},
                       std::pair<int, int> outputs = {1, 1}) {
  KernelDef def = Def(op, since, std::move(c), std::move(f));
  def.domain = "ai.onnx.ml";
  def.end_version = end;
  def.arity.min_inputs = inputs.first;
  def.arity.max_inputs = inputs.second;
  def.arity.min_outputs = outputs.first;
  def.arity.max_outputs = outputs.second;
  return def;
}

// The numeric input types most ai.onnx.ml ops take (their T or T1).
inline std::vector<DataType> MlNumericTypes() {
  return {DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32};
}

// Calls fn(T{}) with T the C++ type of `type` for the types the ai.onnx.ml ops compute on
// (float, double, int64, int32, int16); false for any other.
template <typename Fn>
bool MlDispatch(DataType type, Fn&& fn) {
  switch (type) {
    case DataType::kFloat:
      fn(float{});
      return true;
    case DataType::kDouble:
      fn(double{});
      return true;
    case DataType::kInt64:
      fn(int64_t{});
      return true;
    case DataType::kInt32:
      fn(int32_t{});
      return true;
    case DataType::kInt16:
      fn(int16_t{});
      return true;
    default:
      return false;
  }
}

// X as rows of features: [C] is one row of C, [N, C] is N rows; another rank is an error.
inline Result<std::pair<int64_t, int64_t>> MlRows(const Tensor& x) {
  const std::vector<int64_t>& d = x.shape().dims();
  if (d.size() == 1) return std::pair<int64_t, int64_t>{1, d[0]};
  if (d.size() == 2) return std::pair<int64_t, int64_t>{d[0], d[1]};
  return Status(StatusCode::kInvalidArgument,
                "X must be [N, C] or [C] (rows of features), got " + x.shape().ToString());
}

// X's elements as float: a float tensor is read in place, the other numeric types are
// converted into `buf`.
inline const float* MlFloats(const Tensor& x, std::vector<float>& buf) {
  if (x.dtype() == DataType::kFloat) return x.data<float>();
  buf.resize(static_cast<size_t>(x.num_elements()));
  MlDispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.data<T>();
    for (size_t i = 0; i < buf.size(); ++i)
      buf[i] = static_cast<float>(p[i]);
  });
  return buf.data();
}

// A list attribute the node may leave out (empty then).
inline Result<std::vector<int64_t>> MlIntsOrEmpty(const KernelInfo& info, const char* attr) {
  if (!info.HasAttribute(attr)) return std::vector<int64_t>();
  return info.GetInts(attr);
}
inline Result<std::vector<std::string>> MlStringsOrEmpty(const KernelInfo& info, const char* attr) {
  if (!info.HasAttribute(attr)) return std::vector<std::string>();
  return info.GetStrings(attr);
}

// Whether `s` is one of `allowed`, else an error naming the attribute and the choices.
inline Status MlCheckChoice(const std::string& attr, const std::string& s,
                            std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (s == a) return Status::Ok();
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  return Status(StatusCode::kInvalidModel, attr + " '" + s + "' is not one of " + list);
}

enum class PostTransform { kNone, kLogistic, kSoftmax, kSoftmaxZero, kProbit };

inline Result<PostTransform> MlPostTransform(const KernelInfo& info) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::string s, info.GetString("post_transform", "NONE"));
  ONNX_LIGHT_RETURN_IF_ERROR(MlCheckChoice(
      "post_transform", s, {"NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT"}));
  if (s == "LOGISTIC") return PostTransform::kLogistic;
  if (s == "SOFTMAX") return PostTransform::kSoftmax;
  if (s == "SOFTMAX_ZERO") return PostTransform::kSoftmaxZero;
  if (s == "PROBIT") return PostTransform::kProbit;
  return PostTransform::kNone;
}

// 1 / (1 + e^-v), computed from e^-|v| so that it never overflows.
inline float MlLogistic(float v) {
  const float e = 1.0f / (1.0f + std::exp(-std::fabs(v)));
  return v < 0 ? 1.0f - e : e;
}

// PROBIT: sqrt(2) erfinv(2p - 1), with erfinv by Winitzki's closed form (a = 0.147), the
// approximation ONNX Runtime uses (relative error about 2e-3), so that converted models give
// ORT's scores.
inline float MlProbit(float p) {
  float x = 2.0f * p - 1.0f;
  const float sign = x < 0 ? -1.0f : 1.0f;
  const float ln = std::log((1.0f - x) * (1.0f + x));
  const float a = 2.0f / (3.14159f * 0.147f) + 0.5f * ln;
  const float b = ln / 0.147f;
  x = sign * std::sqrt(-a + std::sqrt(a * a - b));
  return 1.41421356f * x;
}

// Softmax of n scores in place (SOFTMAX_ZERO: scores of exactly zero stay zero, the others
// share the mass).
inline void MlSoftmax(float* v, int64_t n, bool zero) {
  float mx = -std::numeric_limits<float>::max();
  for (int64_t i = 0; i < n; ++i)
    mx = std::max(mx, v[i]);
  float sum = 0.0f;
  const float zero_scale = std::exp(-mx);
  for (int64_t i = 0; i < n; ++i) {
    if (zero && std::fabs(v[i]) <= 1e-7f) {
      v[i] *= zero_scale;
    } else {
      v[i] = std::exp(v[i] - mx);
      sum += v[i];
    }
  }
  for (int64_t i = 0; i < n; ++i)
    v[i] /= sum;
}

// Applies `t` to `rows` rows of `cols` scores in place (cols >= 2), as ORT does.
inline void MlTransformRows(float* s, int64_t rows, int64_t cols, PostTransform t) {
  for (int64_t r = 0; r < rows; ++r, s += cols) {
    switch (t) {
      case PostTransform::kLogistic:
        for (int64_t c = 0; c < cols; ++c)
          s[c] = MlLogistic(s[c]);
        break;
      case PostTransform::kProbit:
        for (int64_t c = 0; c < cols; ++c)
          s[c] = MlProbit(s[c]);
        break;
      case PostTransform::kSoftmax:
      case PostTransform::kSoftmaxZero:
        MlSoftmax(s, cols, t == PostTransform::kSoftmaxZero);
        break;
      case PostTransform::kNone:
        break;
    }
  }
}

// How a classifier with one score per row reports two (ORT's convention): kComplement
// gives (1 - s, s); kSigned gives (-s, s), or (logistic(-s), logistic(s)) under LOGISTIC.
enum class SecondClass { kComplement, kSigned };

// The two-column scores of a binary classifier from one score per row: `s` holds `rows`
// scores at its start and room for 2 * rows.
inline void MlExpandBinary(float* s, int64_t rows, PostTransform t, SecondClass mode) {
  for (int64_t r = rows - 1; r >= 0; --r) {
    const float v = s[r];
    float* out = s + 2 * r;
    if (mode == SecondClass::kComplement) {
      out[0] = 1.0f - v;
      out[1] = v;
    } else if (t == PostTransform::kLogistic) {
      out[0] = MlLogistic(-v);
      out[1] = MlLogistic(v);
    } else {
      out[0] = -v;
      out[1] = v;
    }
  }
}

// fn(begin, end) over [0, n): split across `pool` in chunks of at least `min_chunk`, or
// inline without a pool.
template <typename Fn>
void ParallelOrInline(ThreadPool* pool, int64_t n, int64_t min_chunk, Fn&& fn) {
  if (pool != nullptr && pool->threads() > 1 && n >= 2 * min_chunk) {
    pool->ParallelFor(n, min_chunk, fn);
  } else if (n > 0) {
    fn(0, n);
  }
}

// Integer keys to indices (LabelEncoder's and OneHotEncoder's tables): a dense table over
// [smallest key, largest key] when that range is small (at most 4 entries per key, plus
// 1024), else a hash map. A key added twice keeps its first index.
class MlIntIndex {
 public:
  void Add(int64_t key, int64_t index) { map_.emplace(key, index); }
  void Finish() {
    if (map_.empty()) return;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto& [k, v] : map_) {
      lo = std::min(lo, k);
      hi = std::max(hi, k);
    }
    const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (range >= 4 * map_.size() + 1024) return;
    lo_ = lo;
    dense_.assign(range + 1, -1);
    for (const auto& [k, v] : map_)
      dense_[static_cast<uint64_t>(k) - static_cast<uint64_t>(lo)] = v;
  }
  // The key's index, or -1.
  int64_t Find(int64_t key) const {
    if (!dense_.empty()) {
      const uint64_t at = static_cast<uint64_t>(key) - static_cast<uint64_t>(lo_);
      return at < dense_.size() ? dense_[at] : -1;
    }
    auto it = map_.find(key);
    return it == map_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<int64_t, int64_t> map_;
  std::vector<int64_t> dense_;
  int64_t lo_ = 0;
};

// A classifier's label output (Y, output 0): string when the node has classlabels_strings,
// else int64.
inline Status MlClassifierLabelType(const onnx::NodeProto& node, int, const std::vector<DataType>&,
                                    std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = DataType::kInt64;
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "classlabels_strings") (*out)[0] = DataType::kString;
  }
  return Status::Ok();
}

}  // namespace onnx_light::kernels
