// Einsum: any equation (explicit or implicit output, "..." broadcasting, diagonals) as a
// direct sum over every label; floats sum in double, integers wrap like numpy.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "math/gemm.h"

namespace onnx_light::kernels {
namespace {

// Einsum: any number of operands, explicit or implicit output ("->" omitted: the labels
// seen once, alphabetically, after the ellipsis dims), "..." broadcasting, repeated labels
// (diagonals). A direct sum over every label's range: correct for every equation, not a
// fast path for large contractions (MatMul is; docs/runtime.md says so). Floats sum in
// double, integers wrap like numpy.
class Einsum : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Einsum>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->equation_, info.GetString("equation"));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const std::string where = "equation '" + equation_ + "'";
    auto bad = [&](const std::string& why) {
      return Status(StatusCode::kInvalidArgument, where + ": " + why);
    };
    std::string eq;
    for (char ch : equation_)
      if (ch != ' ') eq += ch;
    const size_t arrow = eq.find("->");
    const std::string lhs = eq.substr(0, arrow);
    std::vector<std::string> terms(1);
    for (char ch : lhs) {
      if (ch == ',') {
        terms.emplace_back();
      } else {
        terms.back() += ch;
      }
    }
    const size_t n_in = ctx.input_count();
    if (terms.size() != n_in) {
      return bad("has " + std::to_string(terms.size()) + " operands, the node " +
                 std::to_string(n_in) + " inputs");
    }
    // Labels: letters 0..51, ellipsis dims kEll + k (k counted from the left of the
    // broadcast ellipsis block).
    constexpr int kEll = 52;
    auto letter = [](char ch) -> int {
      if (ch >= 'a' && ch <= 'z') return ch - 'a';
      if (ch >= 'A' && ch <= 'Z') return 26 + (ch - 'A');
      return -1;
    };
    std::vector<std::vector<int>> parsed(n_in);
    std::vector<int> ell_pos(n_in, -1);
    int ell_rank = 0;
    for (size_t t = 0; t < n_in; ++t) {
      const std::string& term = terms[t];
      for (size_t i = 0; i < term.size(); ++i) {
        if (term.compare(i, 3, "...") == 0) {
          if (ell_pos[t] >= 0) return bad("an operand has two ellipses");
          ell_pos[t] = static_cast<int>(parsed[t].size());
          i += 2;
          continue;
        }
        const int l = letter(term[i]);
        if (l < 0) return bad(std::string("unexpected character '") + term[i] + "'");
        parsed[t].push_back(l);
      }
      const auto rank = static_cast<int>(ctx.input(t)->shape().rank());
      const int named = static_cast<int>(parsed[t].size());
      if (ell_pos[t] < 0 ? rank != named : rank < named) {
        return bad("operand " + std::to_string(t) + " has rank " + std::to_string(rank) +
                   ", its term '" + term + "' names " + std::to_string(named) + " axes");
      }
      if (ell_pos[t] >= 0) ell_rank = std::max(ell_rank, rank - named);
    }
    std::vector<std::vector<int>> axes(n_in);
    for (size_t t = 0; t < n_in; ++t) {
      const auto rank = static_cast<int>(ctx.input(t)->shape().rank());
      const int e = rank - static_cast<int>(parsed[t].size());
      for (int i = 0; i < static_cast<int>(parsed[t].size()); ++i) {
        if (i == ell_pos[t])
          for (int k = 0; k < e; ++k)
            axes[t].push_back(kEll + ell_rank - e + k);
        axes[t].push_back(parsed[t][static_cast<size_t>(i)]);
      }
      if (ell_pos[t] == static_cast<int>(parsed[t].size()))
        for (int k = 0; k < e; ++k)
          axes[t].push_back(kEll + ell_rank - e + k);
    }
    // Sizes per label (ellipsis dims broadcast; letters must agree).
    std::vector<int64_t> size(static_cast<size_t>(kEll + ell_rank), -1);
    std::vector<int> seen(static_cast<size_t>(kEll + ell_rank), 0);
    for (size_t t = 0; t < n_in; ++t) {
      for (size_t a = 0; a < axes[t].size(); ++a) {
        const auto l = static_cast<size_t>(axes[t][a]);
        const int64_t d = ctx.input(t)->shape()[a];
        ++seen[l];
        if (size[l] < 0 || (l >= static_cast<size_t>(kEll) && size[l] == 1)) {
          size[l] = d;
        } else if (d != size[l] && !(l >= static_cast<size_t>(kEll) && d == 1)) {
          return bad("dimension " + std::to_string(d) + " of operand " + std::to_string(t) +
                     " does not match " + std::to_string(size[l]) + " elsewhere");
        }
      }
    }
    std::vector<int> out;
    if (arrow == std::string::npos) {
      for (int k = 0; k < ell_rank; ++k)
        out.push_back(kEll + k);
      for (int l = 0; l < kEll; ++l)
        if (seen[static_cast<size_t>(l)] == 1) out.push_back(l);
    } else {
      const std::string rhs = eq.substr(arrow + 2);
      for (size_t i = 0; i < rhs.size(); ++i) {
        if (rhs.compare(i, 3, "...") == 0) {
          for (int k = 0; k < ell_rank; ++k)
            out.push_back(kEll + k);
          i += 2;
          continue;
        }
        const int l = letter(rhs[i]);
        if (l < 0 || seen[static_cast<size_t>(l)] == 0) {
          return bad(std::string("output label '") + rhs[i] + "' is not an input label");
        }
        if (std::find(out.begin(), out.end(), l) != out.end()) {
          return bad(std::string("output label '") + rhs[i] + "' appears twice");
        }
        out.push_back(l);
      }
    }
    std::vector<int> summed;
    for (int l = 0; l < kEll + ell_rank; ++l) {
      if (seen[static_cast<size_t>(l)] > 0 && std::find(out.begin(), out.end(), l) == out.end())
        summed.push_back(l);
    }
    std::vector<int64_t> out_dims;
    for (int l : out)
      out_dims.push_back(size[static_cast<size_t>(l)]);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out_dims));
    // Per operand and label: the element stride that label moves (0 when broadcast).
    const size_t nl = size.size();
    std::vector<std::vector<int64_t>> stride(n_in, std::vector<int64_t>(nl, 0));
    for (size_t t = 0; t < n_in; ++t) {
      const std::vector<int64_t> st = RowMajorStrides(ctx.input(t)->shape().dims());
      for (size_t a = 0; a < axes[t].size(); ++a)
        if (ctx.input(t)->shape()[a] != 1) stride[t][static_cast<size_t>(axes[t][a])] += st[a];
    }
    // The (label, stride) pairs that move each operand.
    std::vector<std::vector<std::pair<size_t, int64_t>>> moves(n_in);
    for (size_t t = 0; t < n_in; ++t)
      for (size_t l = 0; l < nl; ++l)
        if (stride[t][l] != 0) moves[t].emplace_back(l, stride[t][l]);
    int64_t sum_count = 1;
    for (int l : summed)
      sum_count *= size[static_cast<size_t>(l)];
    DispatchNumeric(ctx.input(0)->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;
        std::vector<const T*> ptr(n_in);
        for (size_t t = 0; t < n_in; ++t)
          ptr[t] = ctx.input(t)->data<T>();
        T* yp = y->mutable_data<T>();
        std::vector<int64_t> idx(nl, 0);
        const int64_t total = y->num_elements();
        for (int64_t o = 0; o < total; ++o) {
          Acc acc = 0;
          for (int l : summed)
            idx[static_cast<size_t>(l)] = 0;
          for (int64_t s = 0; s < sum_count; ++s) {
            Acc prod = 1;
            for (size_t t = 0; t < n_in; ++t) {
              int64_t off = 0;
              for (const auto& [l, st] : moves[t])
                off += idx[l] * st;
              if constexpr (std::is_integral_v<T>) {
                prod *= static_cast<Acc>(static_cast<int64_t>(ptr[t][off]));
              } else {
                prod *= static_cast<double>(ptr[t][off]);
              }
            }
            acc += prod;
            for (size_t k = summed.size(); k-- > 0;) {
              const auto l = static_cast<size_t>(summed[k]);
              if (++idx[l] < size[l]) break;
              idx[l] = 0;
            }
          }
          yp[o] = static_cast<T>(acc);
          for (size_t k = out.size(); k-- > 0;) {
            const auto l = static_cast<size_t>(out[k]);
            if (++idx[l] < size[l]) break;
            idx[l] = 0;
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  std::string equation_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Einsum) {
  std::vector<int> inputs;  // variadic: every operand is T
  for (int i = 0; i < 64; ++i)
    inputs.push_back(i);
  return r.Register(Def("Einsum", 12, {{"T", inputs, {0}, NumericTypes()}}, FactoryOf<Einsum>()));
}

}  // namespace onnx_light::kernels
