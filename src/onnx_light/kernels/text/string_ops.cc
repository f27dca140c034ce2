// String kernels: StringNormalizer, StringConcat, StringSplit (RegexFullMatch is in
// regex_full_match.cc).
//
// Case changes work on ASCII letters (other bytes, UTF-8 sequences included, are kept).
#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_set>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

std::string AsciiCase(std::string s, bool upper) {
  for (char& ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 128) ch = static_cast<char>(upper ? std::toupper(u) : std::tolower(u));
  }
  return s;
}

// StringNormalizer: drops the elements equal to a stopword (ignoring ASCII case unless
// is_case_sensitive), then lower- or upper-cases the rest. [C] or [1, C]; when nothing
// is left the output is one empty string ([1] or [1, 1]), as the spec says.
class StringNormalizer : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<StringNormalizer>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->action_, info.GetString("case_change_action", "NONE"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->case_sensitive_, GetFlag(info, "is_case_sensitive", false));
    ONNX_LIGHT_RETURN_IF(k->action_ != "NONE" && k->action_ != "LOWER" && k->action_ != "UPPER",
                         kInvalidModel, "case_change_action must be NONE, LOWER or UPPER");
    if (info.HasAttribute("stopwords")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<std::string> words, info.GetStrings("stopwords"));
      for (const std::string& w : words)
        k->stops_.insert(k->case_sensitive_ ? w : AsciiCase(w, false));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Shape& s = x.shape();
    ONNX_LIGHT_RETURN_IF(!(s.rank() == 1 || (s.rank() == 2 && s[0] == 1)), kInvalidArgument,
                         "input must be [C] or [1, C], got " + s.ToString());
    std::vector<std::string> kept;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const std::string& w = x.data<std::string>()[i];
      if (stops_.count(case_sensitive_ ? w : AsciiCase(w, false)) != 0) continue;
      kept.push_back(action_ == "NONE" ? w : AsciiCase(w, action_ == "UPPER"));
    }
    if (kept.empty()) kept.emplace_back();
    const auto n = static_cast<int64_t>(kept.size());
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        Tensor * y, ctx.AllocateOutput(
                        0, s.rank() == 1 ? std::vector<int64_t>{n} : std::vector<int64_t>{1, n}));
    std::move(kept.begin(), kept.end(), y->mutable_data<std::string>());
    return Status::Ok();
  }

 private:
  std::string action_;
  bool case_sensitive_ = false;
  std::unordered_set<std::string> stops_;
};

// StringConcat: elementwise a + b with numpy broadcasting.
class StringConcat : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new StringConcat());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(1);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(a.shape(), b.shape()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    BroadcastApply(a.data<std::string>(), a.shape(), b.data<std::string>(), b.shape(),
                   y->mutable_data<std::string>(), dims, nullptr,
                   [](const std::string& u, const std::string& v) {
                     // One allocation (u + v copies u, then grows it for v: two).
                     std::string r;
                     r.reserve(u.size() + v.size());
                     r.append(u).append(v);
                     return r;
                   });
    return Status::Ok();
  }
};

// StringSplit: each string split on `delimiter` (empty or absent: runs of whitespace,
// as Python's str.split(): leading and trailing runs ignored, the unsplit rest kept as
// it is), at most maxsplit times. Y has a
// last axis as long as the most pieces, padded with ""; Z counts the pieces.
class StringSplit : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<StringSplit>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->delimiter_, info.GetString("delimiter", ""));
    k->has_max_ = info.HasAttribute("maxsplit");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->maxsplit_, info.GetInt("maxsplit", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  // The pieces as spans of the input strings, all in one list (a vector of new strings per
  // element, moved into the output after, ran 1.9x ORT's time on 10,000 short lines); the
  // output's strings made once from them.
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::string* in = x.data<std::string>();
    const auto n = static_cast<size_t>(x.num_elements());
    std::vector<Span> spans;
    std::vector<int64_t> counts(n);
    size_t widest = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t before = spans.size();
      Split(in[i], &spans);
      counts[i] = static_cast<int64_t>(spans.size() - before);
      widest = std::max(widest, spans.size() - before);
    }
    std::vector<int64_t> dims = x.shape().dims();
    dims.push_back(static_cast<int64_t>(widest));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    std::string* out = y->mutable_data<std::string>();
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < counts[i]; ++j, ++k)
        out[i * widest + static_cast<size_t>(j)].assign(in[i], spans[k].begin, spans[k].size);
    }
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * z, ctx.AllocateOutput(1, x.shape().dims()));
      std::copy(counts.begin(), counts.end(), z->mutable_data<int64_t>());
    }
    return Status::Ok();
  }

 private:
  struct Span {
    size_t begin, size;
  };

  // Appends the pieces of s (Python's str.split rules) to `out`.
  void Split(const std::string& s, std::vector<Span>* out) const {
    const bool limited = has_max_ && maxsplit_ >= 0;
    int64_t pieces = 0;
    if (delimiter_.empty()) {
      size_t i = 0;
      auto space = [](char ch) { return std::isspace(static_cast<unsigned char>(ch)) != 0; };
      while (i < s.size()) {
        while (i < s.size() && space(s[i]))
          ++i;
        if (i == s.size()) break;
        if (limited && pieces == maxsplit_) {
          out->push_back({i, s.size() - i});  // the rest as it is, trailing space included
          break;
        }
        size_t j = i;
        while (j < s.size() && !space(s[j]))
          ++j;
        out->push_back({i, j - i});
        ++pieces;
        i = j;
      }
      return;
    }
    size_t start = 0;
    for (;;) {
      if (limited && pieces == maxsplit_) break;
      const size_t at = s.find(delimiter_, start);
      if (at == std::string::npos) break;
      out->push_back({start, at - start});
      ++pieces;
      start = at + delimiter_.size();
    }
    out->push_back({start, s.size() - start});
  }

  std::string delimiter_;
  bool has_max_ = false;
  int64_t maxsplit_ = 0;
};

const std::vector<DataType>& Str() {
  static const std::vector<DataType> t = {DataType::kString};
  return t;
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, StringNormalizer) {
  return r.Register(UnaryDef("", "StringNormalizer", 10, Str(), FactoryOf<StringNormalizer>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, StringConcat) {
  return r.Register(
      Def("StringConcat", 20, {{"T", {0, 1}, {0}, Str()}}, FactoryOf<StringConcat>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, StringSplit) {
  return r.Register(Def("StringSplit", 20,
                        {{"T1", {0}, {0}, Str()}, {"T3", {}, {1}, {DataType::kInt64}}},
                        FactoryOf<StringSplit>()));
}

}  // namespace onnx_light::kernels
