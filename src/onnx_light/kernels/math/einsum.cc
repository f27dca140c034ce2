// Einsum: any number of operands, explicit or implicit output ("->" omitted: the labels
// seen once, alphabetically, after the ellipsis dims), "..." broadcasting, repeated labels
// (diagonals). Two float operands whose equation is a contraction (every attention and
// bilinear form models write) run as a batched matrix product (math/einsum_contract.cc, in
// the operands' float type, as ONNX Runtime computes); everything else is a direct sum over
// every label's range, correct for every equation: floats sum in double, integers wrap
// like numpy. The equation is parsed once, when the kernel is made;
// a run binds its labels to the operands' dimensions.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "math/einsum_contract.h"

namespace onnx_light::kernels {
namespace {

// Labels: letters 0..51, ellipsis dims kEll + k (k counted from the left of the broadcast
// ellipsis block).
constexpr int kEll = 52;

int Letter(char ch) {
  if (ch >= 'a' && ch <= 'z') return ch - 'a';
  if (ch >= 'A' && ch <= 'Z') return 26 + (ch - 'A');
  return -1;
}

// One side of the equation's terms: its letters in order, and where "..." stands among
// them (-1: none).
struct Term {
  std::string text;
  std::vector<int> letters;
  int ellipsis = -1;
};

// A run's labels bound to the operands: the label of each operand axis, every label's
// size, the output labels, the summed labels, and each operand's (label, stride) moves.
struct Bound {
  std::vector<std::vector<int>> axes;
  std::vector<int64_t> size;
  std::vector<int> out, summed;
  std::vector<std::vector<std::pair<size_t, int64_t>>> moves;
};

class Einsum : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Einsum>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->equation_, info.GetString("equation"));
    ONNX_LIGHT_RETURN_IF_ERROR(k->Parse(info.input_count()));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    Bound b;
    ONNX_LIGHT_RETURN_IF_ERROR(Bind(ctx, &b));
    std::vector<int64_t> out_dims;
    for (int l : b.out)
      out_dims.push_back(b.size[static_cast<size_t>(l)]);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out_dims));
    if (terms_.size() == 2 && !repeats_) {
      EinsumContraction c;
      c.size.assign(b.size.size(), 1);
      for (size_t l = 0; l < b.size.size(); ++l)
        if (b.size[l] >= 0) c.size[l] = b.size[l];
      c.stride_a.assign(b.size.size(), 0);
      c.stride_b.assign(b.size.size(), 0);
      for (const auto& [l, st] : b.moves[0])
        c.stride_a[l] = st;
      for (const auto& [l, st] : b.moves[1])
        c.stride_b[l] = st;
      c.out = b.out;
      if (RunGemmContraction(c, *ctx.input(0), *ctx.input(1), y, ctx.thread_pool()))
        return Status::Ok();
    }
    DispatchNumeric(ctx.input(0)->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) Sum<T>(ctx, b, y);
    });
    return Status::Ok();
  }

 private:
  Status Bad(const std::string& why) const {
    return Status(StatusCode::kInvalidArgument, "equation '" + equation_ + "': " + why);
  }

  // The terms of the equation (spaces ignored) and the explicit output, if any.
  Status Parse(size_t n_in) {
    std::string eq;
    for (char ch : equation_)
      if (ch != ' ') eq += ch;
    const size_t arrow = eq.find("->");
    std::vector<std::string> lhs(1);
    for (char ch : eq.substr(0, arrow)) {
      if (ch == ',') {
        lhs.emplace_back();
      } else {
        lhs.back() += ch;
      }
    }
    if (lhs.size() != n_in) {
      return Bad("has " + std::to_string(lhs.size()) + " operands, the node " +
                 std::to_string(n_in) + " inputs");
    }
    for (const std::string& text : lhs) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Term t, ParseTerm(text, false));
      std::vector<int> sorted = t.letters;
      std::sort(sorted.begin(), sorted.end());
      repeats_ = repeats_ || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
      terms_.push_back(std::move(t));
    }
    explicit_ = arrow != std::string::npos;
    if (!explicit_) return Status::Ok();
    ONNX_LIGHT_ASSIGN_OR_RETURN(output_, ParseTerm(eq.substr(arrow + 2), true));
    for (size_t i = 0; i < output_.letters.size(); ++i) {
      const int l = output_.letters[i];
      const bool input = std::any_of(terms_.begin(), terms_.end(), [l](const Term& t) {
        return std::find(t.letters.begin(), t.letters.end(), l) != t.letters.end();
      });
      const char ch = l < 26 ? static_cast<char>('a' + l) : static_cast<char>('A' + l - 26);
      if (!input) return Bad(std::string("output label '") + ch + "' is not an input label");
      if (std::find(output_.letters.begin(), output_.letters.begin() + static_cast<long>(i), l) !=
          output_.letters.begin() + static_cast<long>(i)) {
        return Bad(std::string("output label '") + ch + "' appears twice");
      }
    }
    return Status::Ok();
  }

  Result<Term> ParseTerm(const std::string& text, bool output) const {
    Term t;
    t.text = text;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text.compare(i, 3, "...") == 0) {
        if (t.ellipsis >= 0)
          return Bad(output ? "the output has two ellipses" : "an operand has two ellipses");
        t.ellipsis = static_cast<int>(t.letters.size());
        i += 2;
        continue;
      }
      const int l = Letter(text[i]);
      if (l < 0) {
        return Bad(std::string(output ? "output label '" : "unexpected character '") + text[i] +
                   (output ? "' is not an input label" : "'"));
      }
      t.letters.push_back(l);
    }
    return t;
  }

  // The labels of this run's operands: each axis's label (ellipsis dims numbered by the
  // widest ellipsis), each label's size (ellipsis dims broadcast; letters must agree), the
  // output and the summed labels, and how each label moves each operand.
  Status Bind(const KernelContext& ctx, Bound* b) const {
    const size_t n_in = terms_.size();
    int ell_rank = 0;
    for (size_t t = 0; t < n_in; ++t) {
      const auto rank = static_cast<int>(ctx.input(t)->shape().rank());
      const int named = static_cast<int>(terms_[t].letters.size());
      if (terms_[t].ellipsis < 0 ? rank != named : rank < named) {
        return Bad("operand " + std::to_string(t) + " has rank " + std::to_string(rank) +
                   ", its term '" + terms_[t].text + "' names " + std::to_string(named) + " axes");
      }
      if (terms_[t].ellipsis >= 0) ell_rank = std::max(ell_rank, rank - named);
    }
    b->axes.assign(n_in, {});
    for (size_t t = 0; t < n_in; ++t) {
      const std::vector<int>& letters = terms_[t].letters;
      const int e = static_cast<int>(ctx.input(t)->shape().rank() - letters.size());
      for (int i = 0; i <= static_cast<int>(letters.size()); ++i) {
        if (i == terms_[t].ellipsis)
          for (int k = 0; k < e; ++k)
            b->axes[t].push_back(kEll + ell_rank - e + k);
        if (i < static_cast<int>(letters.size()))
          b->axes[t].push_back(letters[static_cast<size_t>(i)]);
      }
    }
    const size_t nl = static_cast<size_t>(kEll + ell_rank);
    b->size.assign(nl, -1);
    std::vector<int> seen(nl, 0);
    for (size_t t = 0; t < n_in; ++t) {
      for (size_t a = 0; a < b->axes[t].size(); ++a) {
        const auto l = static_cast<size_t>(b->axes[t][a]);
        const int64_t d = ctx.input(t)->shape()[a];
        ++seen[l];
        if (b->size[l] < 0 || (l >= static_cast<size_t>(kEll) && b->size[l] == 1)) {
          b->size[l] = d;
        } else if (d != b->size[l] && !(l >= static_cast<size_t>(kEll) && d == 1)) {
          return Bad("dimension " + std::to_string(d) + " of operand " + std::to_string(t) +
                     " does not match " + std::to_string(b->size[l]) + " elsewhere");
        }
      }
    }
    OutputLabels(ell_rank, seen, &b->out);
    for (int l = 0; l < static_cast<int>(nl); ++l) {
      if (seen[static_cast<size_t>(l)] > 0 &&
          std::find(b->out.begin(), b->out.end(), l) == b->out.end())
        b->summed.push_back(l);
    }
    // Per operand and label: the element stride that label moves (0 when broadcast).
    b->moves.assign(n_in, {});
    for (size_t t = 0; t < n_in; ++t) {
      std::vector<int64_t> stride(nl, 0);
      const std::vector<int64_t> st = RowMajorStrides(ctx.input(t)->shape().dims());
      for (size_t a = 0; a < b->axes[t].size(); ++a)
        if (ctx.input(t)->shape()[a] != 1) stride[static_cast<size_t>(b->axes[t][a])] += st[a];
      for (size_t l = 0; l < nl; ++l)
        if (stride[l] != 0) b->moves[t].emplace_back(l, stride[l]);
    }
    return Status::Ok();
  }

  // The output's labels: the explicit ones ("..." standing for the ellipsis dims), or,
  // implicitly, the ellipsis dims then the letters seen once, alphabetically.
  void OutputLabels(int ell_rank, const std::vector<int>& seen, std::vector<int>* out) const {
    if (!explicit_) {
      for (int k = 0; k < ell_rank; ++k)
        out->push_back(kEll + k);
      for (int l = 0; l < kEll; ++l)
        if (seen[static_cast<size_t>(l)] == 1) out->push_back(l);
      return;
    }
    for (int i = 0; i <= static_cast<int>(output_.letters.size()); ++i) {
      if (i == output_.ellipsis)
        for (int k = 0; k < ell_rank; ++k)
          out->push_back(kEll + k);
      if (i < static_cast<int>(output_.letters.size()))
        out->push_back(output_.letters[static_cast<size_t>(i)]);
    }
  }

  // y[out labels] = sum over the summed labels of the product of the operands.
  template <typename T>
  static void Sum(const KernelContext& ctx, const Bound& b, Tensor* y) {
    using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;
    const size_t n_in = b.axes.size();
    int64_t sum_count = 1;
    for (int l : b.summed)
      sum_count *= b.size[static_cast<size_t>(l)];
    std::vector<const T*> ptr(n_in);
    for (size_t t = 0; t < n_in; ++t)
      ptr[t] = ctx.input(t)->data<T>();
    T* yp = y->mutable_data<T>();
    std::vector<int64_t> idx(b.size.size(), 0);
    const int64_t total = y->num_elements();
    for (int64_t o = 0; o < total; ++o) {
      Acc acc = 0;
      for (int l : b.summed)
        idx[static_cast<size_t>(l)] = 0;
      for (int64_t s = 0; s < sum_count; ++s) {
        Acc prod = 1;
        for (size_t t = 0; t < n_in; ++t) {
          int64_t off = 0;
          for (const auto& [l, st] : b.moves[t])
            off += idx[l] * st;
          if constexpr (std::is_integral_v<T>) {
            prod *= static_cast<Acc>(static_cast<int64_t>(ptr[t][off]));
          } else {
            prod *= static_cast<double>(ptr[t][off]);
          }
        }
        acc += prod;
        Advance(b.summed, b.size, &idx);
      }
      yp[o] = static_cast<T>(acc);
      Advance(b.out, b.size, &idx);
    }
  }

  // The next index over `labels` (the last fastest).
  static void Advance(const std::vector<int>& labels, const std::vector<int64_t>& size,
                      std::vector<int64_t>* idx) {
    for (size_t k = labels.size(); k-- > 0;) {
      const auto l = static_cast<size_t>(labels[k]);
      if (++(*idx)[l] < size[l]) break;
      (*idx)[l] = 0;
    }
  }

  std::string equation_;
  std::vector<Term> terms_;
  bool explicit_ = false;
  bool repeats_ = false;  // a label twice in one operand (a diagonal): the generic sum
  Term output_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Einsum) {
  std::vector<int> inputs;  // variadic: every operand is T
  for (int i = 0; i < 64; ++i)
    inputs.push_back(i);
  return r.Register(Def("Einsum", 12, {{"T", inputs, {0}, NumericTypes()}}, FactoryOf<Einsum>()));
}

}  // namespace onnx_light::kernels
