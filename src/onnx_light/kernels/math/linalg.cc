// MatMul (numpy semantics: 1-D promotion and batch broadcasting) and Gemm.
//
// The products go through Gemm2D (gemm.h): OpenBLAS for float/double, a vectorized loop
// for integers; 16-bit floats are widened to float once per operand. The choice was made
// by bench/linalg_vs_ort.py against ONNX Runtime (docs/performance.md).
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

// The type products accumulate in: float for 16-bit floats, the unsigned counterpart for
// integers (wrap-around without undefined behaviour, as numpy's result).
template <typename T>
using MatAcc =
    typename std::conditional_t<std::is_integral_v<T>, std::make_unsigned<T>, ComputeType<T>>::type;

// Operands as the accumulation type: a view where that is T, else a widened copy.
template <typename T>
struct Widened {
  using C = MatAcc<T>;
  std::vector<C> copy;
  const C* data = nullptr;
  Widened(const T* p, int64_t n) {
    if constexpr (std::is_same_v<C, T>) {
      data = p;
      (void)n;
    } else {
      copy.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        copy[static_cast<size_t>(i)] = static_cast<C>(p[i]);
      data = copy.data();
    }
  }
};

class MatMul : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new MatMul());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(1);
    std::vector<int64_t> ad = a.shape().dims(), bd = b.shape().dims();
    if (ad.empty() || bd.empty()) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": MatMul needs inputs of rank >= 1");
    }
    const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
    if (a_vec) ad.insert(ad.begin(), 1);
    if (b_vec) bd.push_back(1);
    const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
    if (bd[bd.size() - 2] != k) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": shapes " + a.shape().ToString() + " and " +
                        b.shape().ToString() + " do not align for a matrix product");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape abatch,
                                Shape::Create(std::vector<int64_t>(ad.begin(), ad.end() - 2)));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape bbatch,
                                Shape::Create(std::vector<int64_t>(bd.begin(), bd.end() - 2)));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto batch, BroadcastDims(abatch, bbatch, ctx.info()));
    std::vector<int64_t> out = batch;
    if (!a_vec) out.push_back(m);
    if (!b_vec) out.push_back(n);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    int64_t nbatch = 1;
    for (int64_t d : batch)
      nbatch *= d;
    int64_t rows = m;  // rows of A per product
    if (b.num_elements() == k * n && abatch.dims() == batch) {
      // One B for every batch of A: a single (nbatch * m) x k product.
      rows = nbatch * m;
      nbatch = 1;
    }
    const std::vector<int64_t> sa = BroadcastStrides(abatch, batch);
    const std::vector<int64_t> sb = BroadcastStrides(bbatch, batch);
    ThreadPool* pool = ctx.thread_pool();
    DispatchNumeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using C = MatAcc<T>;
        Widened<T> wa(a.data<T>(), a.num_elements()), wb(b.data<T>(), b.num_elements());
        std::vector<C> acc(std::is_same_v<C, T> ? 0 : static_cast<size_t>(rows * n));
        T* yp = y->mutable_data<T>();
        std::vector<int64_t> pos(batch.size(), 0);
        for (int64_t t = 0; t < nbatch; ++t) {
          int64_t oa = 0, ob = 0;
          for (size_t d = 0; d < batch.size() && nbatch > 1; ++d) {
            oa += pos[d] * sa[d];
            ob += pos[d] * sb[d];
          }
          C* dst;
          if constexpr (std::is_same_v<C, T>) {
            dst = yp + t * rows * n;
          } else {
            dst = acc.data();
          }
          std::fill(dst, dst + rows * n, C(0));
          Gemm2D<C>(wa.data + oa * m * k, k, 1, wb.data + ob * k * n, n, 1, dst, rows, n, k, pool);
          if constexpr (!std::is_same_v<C, T>) {
            for (int64_t i = 0; i < rows * n; ++i)
              yp[t * rows * n + i] = static_cast<T>(acc[static_cast<size_t>(i)]);
          }
          for (size_t d = batch.size(); d-- > 0;) {
            if (++pos[d] < batch[d]) break;
            pos[d] = 0;
          }
        }
      }
    });
    return Status::Ok();
  }
};

// Y = alpha * op(A) * op(B) + beta * C, C broadcast to (M, N).
class Gemm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto g = std::make_unique<Gemm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(g->alpha_, info.GetFloat("alpha", 1.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(g->beta_, info.GetFloat("beta", 1.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(g->trans_a_, GetFlag(info, "transA", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(g->trans_b_, GetFlag(info, "transB", false));
    if (info.opset() < 7) {  // opset 1-6: C broadcasts only with broadcast=1
      ONNX_LIGHT_ASSIGN_OR_RETURN(bool broadcast, GetFlag(info, "broadcast", false));
      g->exact_c_ = !broadcast;
    }
    return std::unique_ptr<KernelBase>(std::move(g));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(1);
    const Tensor* c = ctx.input(2);
    if (a.shape().rank() != 2 || b.shape().rank() != 2) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": A and B must be 2-D, got " + a.shape().ToString() +
                        " and " + b.shape().ToString());
    }
    const int64_t m = trans_a_ ? a.shape()[1] : a.shape()[0];
    const int64_t k = trans_a_ ? a.shape()[0] : a.shape()[1];
    const int64_t kb = trans_b_ ? b.shape()[1] : b.shape()[0];
    const int64_t n = trans_b_ ? b.shape()[0] : b.shape()[1];
    if (k != kb) {
      return Status(StatusCode::kInvalidArgument, ctx.info().Describe() + ": inner dimensions " +
                                                      std::to_string(k) + " and " +
                                                      std::to_string(kb) + " differ");
    }
    std::vector<int64_t> cs;
    if (c != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Shape mn, Shape::Create({m, n}));
      ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(c->shape(), mn, ctx.info()));
      if (dims != std::vector<int64_t>{m, n}) {
        return Status(StatusCode::kInvalidArgument,
                      ctx.info().Describe() + ": C " + c->shape().ToString() +
                          " does not broadcast to [" + std::to_string(m) + ", " +
                          std::to_string(n) + "]");
      }
      if (exact_c_ && c->shape().dims() != std::vector<int64_t>{m, n}) {
        return Status(StatusCode::kInvalidArgument,
                      ctx.info().Describe() + ": C " + c->shape().ToString() + " must be [" +
                          std::to_string(m) + ", " + std::to_string(n) + "] when broadcast is 0");
      }
      cs = BroadcastStrides(c->shape(), dims);
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {m, n}));
    DispatchNumeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_integral_v<T>) {
        using C = MatAcc<T>;
        Widened<T> wa(a.data<T>(), a.num_elements()), wb(b.data<T>(), b.num_elements());
        std::vector<C> acc(static_cast<size_t>(m * n), C(0));
        Gemm2D<C>(wa.data, trans_a_ ? 1 : k, trans_a_ ? m : 1, wb.data, trans_b_ ? 1 : n,
                  trans_b_ ? k : 1, acc.data(), m, n, k, ctx.thread_pool());
        T* yp = y->mutable_data<T>();
        const C alpha = static_cast<C>(alpha_), beta = static_cast<C>(beta_);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            C v = alpha * acc[static_cast<size_t>(i * n + j)];
            if (c != nullptr) {
              v += beta * static_cast<C>(c->data<T>()[i * cs[0] + j * cs[1]]);
            }
            yp[i * n + j] = static_cast<T>(v);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  float alpha_ = 1, beta_ = 1;
  bool trans_a_ = false, trans_b_ = false;
  bool exact_c_ = false;
};

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
    const std::string where = ctx.info().Describe() + ": equation '" + equation_ + "'";
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

// The int32 products of MatMulInteger and QLinearMatMul: (a - a_zp) @ (b - b_zp) with
// numpy batch broadcasting; a's zero point is a scalar or one per row ([M]), b's a
// scalar or one per column ([N]). Products wrap in 32 bits (exact for 8-bit inputs).
struct IntProduct {
  std::vector<int32_t> values;
  std::vector<int64_t> dims;
};

Result<IntProduct> IntegerMatMul(const Tensor& a, const Tensor* a_zp, const Tensor& b,
                                 const Tensor* b_zp, const KernelInfo& info) {
  std::vector<int64_t> ad = a.shape().dims(), bd = b.shape().dims();
  if (ad.empty() || bd.empty()) {
    return Status(StatusCode::kInvalidArgument, info.Describe() + ": inputs need rank >= 1");
  }
  const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  if (a_vec) ad.insert(ad.begin(), 1);
  if (b_vec) bd.push_back(1);
  const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  if (bd[bd.size() - 2] != k) {
    return Status(StatusCode::kInvalidArgument, info.Describe() + ": shapes " +
                                                    a.shape().ToString() + " and " +
                                                    b.shape().ToString() + " do not align");
  }
  const std::vector<double> za = ToDoubles(a_zp), zb = ToDoubles(b_zp);
  if ((za.size() > 1 && static_cast<int64_t>(za.size()) != m) ||
      (zb.size() > 1 && static_cast<int64_t>(zb.size()) != n)) {
    return Status(StatusCode::kInvalidArgument,
                  info.Describe() + ": zero points must be scalars, [M] for A or [N] for B");
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape abatch,
                              Shape::Create(std::vector<int64_t>(ad.begin(), ad.end() - 2)));
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape bbatch,
                              Shape::Create(std::vector<int64_t>(bd.begin(), bd.end() - 2)));
  ONNX_LIGHT_ASSIGN_OR_RETURN(auto batch, BroadcastDims(abatch, bbatch, info));
  IntProduct r;
  r.dims = batch;
  if (!a_vec) r.dims.push_back(m);
  if (!b_vec) r.dims.push_back(n);
  const std::vector<double> av = ToDoubles(&a), bv = ToDoubles(&b);
  std::vector<uint32_t> ac(av.size()), bc(bv.size());
  for (size_t i = 0; i < av.size(); ++i) {
    const auto row = static_cast<size_t>((static_cast<int64_t>(i) / k) % m);
    ac[i] = static_cast<uint32_t>(
        static_cast<int32_t>(av[i] - (za.empty() ? 0 : za[za.size() == 1 ? 0 : row])));
  }
  for (size_t i = 0; i < bv.size(); ++i) {
    const auto col = static_cast<size_t>(static_cast<int64_t>(i) % n);
    bc[i] = static_cast<uint32_t>(
        static_cast<int32_t>(bv[i] - (zb.empty() ? 0 : zb[zb.size() == 1 ? 0 : col])));
  }
  int64_t nbatch = 1;
  for (int64_t d : batch)
    nbatch *= d;
  const std::vector<int64_t> sa = BroadcastStrides(abatch, batch),
                             sb = BroadcastStrides(bbatch, batch);
  r.values.resize(static_cast<size_t>(nbatch * m * n));
  std::vector<uint32_t> acc(static_cast<size_t>(m * n));
  std::vector<int64_t> pos(batch.size(), 0);
  for (int64_t t = 0; t < nbatch; ++t) {
    int64_t oa = 0, ob = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      oa += pos[d] * sa[d];
      ob += pos[d] * sb[d];
    }
    std::fill(acc.begin(), acc.end(), 0u);
    Gemm2DLoop<uint32_t>(ac.data() + oa * m * k, k, 1, bc.data() + ob * k * n, n, 1, acc.data(), m,
                         n, k);
    for (size_t i = 0; i < acc.size(); ++i)
      r.values[static_cast<size_t>(t * m * n) + i] = static_cast<int32_t>(acc[i]);
    for (size_t d = batch.size(); d-- > 0;) {
      if (++pos[d] < batch[d]) break;
      pos[d] = 0;
    }
  }
  return r;
}

class MatMulInteger : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new MatMulInteger());
  }
  Status Compute(KernelContext& ctx) const override {
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        IntProduct p,
        IntegerMatMul(*ctx.input(0), ctx.input(2), *ctx.input(1), ctx.input(3), ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, p.dims));
    if (!p.values.empty())
      std::memcpy(y->mutable_data<int32_t>(), p.values.data(), p.values.size() * 4);
    return Status::Ok();
  }
};

// QLinearMatMul: the integer product scaled by a_scale * b_scale / y_scale (computed in
// the scales' type, float or float16, as the ONNX reference does; per-row a_scale and
// per-column b_scale allowed), plus y_zero_point, rounded half to even, saturated.
class QLinearMatMul : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new QLinearMatMul());
  }
  Status Compute(KernelContext& ctx) const override {
    const std::string where = ctx.info().Describe();
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        IntProduct p,
        IntegerMatMul(*ctx.input(0), ctx.input(2), *ctx.input(3), ctx.input(5), ctx.info()));
    const Tensor& as_t = *ctx.input(1);
    const std::vector<double> as = ToDoubles(&as_t), bs = ToDoubles(ctx.input(4)),
                              ys = ToDoubles(ctx.input(6)), yz = ToDoubles(ctx.input(7));
    const int64_t n = p.dims.empty() ? 1 : p.dims.back();
    const int64_t m = p.dims.size() < 2 ? 1 : p.dims[p.dims.size() - 2];
    if (ys.size() != 1 || yz.size() > 1 ||
        (as.size() != 1 && static_cast<int64_t>(as.size()) != m) ||
        (bs.size() != 1 && static_cast<int64_t>(bs.size()) != n)) {
      return Status(StatusCode::kInvalidArgument,
                    where +
                        ": y_scale and y_zero_point must be scalars, a_scale a scalar or [M], "
                        "b_scale a scalar or [N]");
    }
    const DataType out_type = ctx.input(7)->dtype();
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out_type, p.dims));
    const bool half = as_t.dtype() == DataType::kFloat16;
    auto round_scale = [&](double v) {
      return half ? static_cast<double>(static_cast<float>(float16(v)))
                  : static_cast<double>(static_cast<float>(v));
    };
    const double lo = out_type == DataType::kInt8 ? -128.0 : 0.0;
    const double hi = out_type == DataType::kInt8 ? 127.0 : 255.0;
    for (size_t i = 0; i < p.values.size(); ++i) {
      const auto row = static_cast<size_t>((static_cast<int64_t>(i) / n) % m);
      const auto col = static_cast<size_t>(static_cast<int64_t>(i) % n);
      const double scale = round_scale(
          round_scale(as[as.size() == 1 ? 0 : row] * bs[bs.size() == 1 ? 0 : col]) / ys[0]);
      double v = static_cast<double>(p.values[i]) * scale + (yz.empty() ? 0.0 : yz[0]);
      v = std::fmin(std::fmax(std::nearbyint(v), lo), hi);
      if (out_type == DataType::kInt8) {
        y->mutable_data<int8_t>()[i] = static_cast<int8_t>(v);
      } else {
        y->mutable_data<uint8_t>()[i] = static_cast<uint8_t>(v);
      }
    }
    return Status::Ok();
  }
};

// Det: determinants of the trailing [M, M] matrices, by LU with partial pivoting in
// double.
class Det : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Det());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t>& d = x.shape().dims();
    if (d.size() < 2 || d[d.size() - 1] != d[d.size() - 2]) {
      return Status(
          StatusCode::kInvalidArgument,
          ctx.info().Describe() + ": input must be [..., M, M], got " + x.shape().ToString());
    }
    const int64_t m = d.back();
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        Tensor * y, ctx.AllocateOutput(0, std::vector<int64_t>(d.begin(), d.end() - 2)));
    const std::vector<double> v = ToDoubles(&x);
    std::vector<double> a(static_cast<size_t>(m * m));
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* out = y->mutable_data<T>();
      for (int64_t b = 0; b < y->num_elements(); ++b) {
        std::copy(v.begin() + b * m * m, v.begin() + (b + 1) * m * m, a.begin());
        double det = 1;
        for (int64_t c = 0; c < m && det != 0; ++c) {
          int64_t piv = c;
          for (int64_t r = c + 1; r < m; ++r)
            if (std::fabs(a[static_cast<size_t>(r * m + c)]) >
                std::fabs(a[static_cast<size_t>(piv * m + c)]))
              piv = r;
          const double p = a[static_cast<size_t>(piv * m + c)];
          if (p == 0) {
            det = 0;
            break;
          }
          if (piv != c) {
            for (int64_t k = 0; k < m; ++k)
              std::swap(a[static_cast<size_t>(piv * m + k)], a[static_cast<size_t>(c * m + k)]);
            det = -det;
          }
          det *= p;
          for (int64_t r = c + 1; r < m; ++r) {
            const double f = a[static_cast<size_t>(r * m + c)] / p;
            for (int64_t k = c; k < m; ++k)
              a[static_cast<size_t>(r * m + k)] -= f * a[static_cast<size_t>(c * m + k)];
          }
        }
        out[b] = static_cast<T>(det);
      }
    });
    return Status::Ok();
  }
};

std::vector<DataType> MatMulTypes() {
  return {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat,  DataType::kDouble,
          DataType::kInt32,   DataType::kInt64,    DataType::kUint32, DataType::kUint64};
}

}  // namespace

Status RegisterKernel_ai_onnx_MatMul(KernelRegistry& r) {
  return r.Register(Def("MatMul", 1, {{"T", {0, 1}, {0}, MatMulTypes()}}, FactoryOf<MatMul>()));
}
Status RegisterKernel_ai_onnx_MatMulInteger(KernelRegistry& r) {
  const std::vector<DataType> q = {DataType::kInt8, DataType::kUint8};
  return r.Register(
      Def("MatMulInteger", 10,
          {{"T1", {0, 2}, {}, q}, {"T2", {1, 3}, {}, q}, {"T3", {}, {0}, {DataType::kInt32}}},
          FactoryOf<MatMulInteger>()));
}
Status RegisterKernel_ai_onnx_QLinearMatMul(KernelRegistry& r) {
  const std::vector<DataType> q = {DataType::kInt8, DataType::kUint8};
  return r.Register(Def("QLinearMatMul", 10,
                        {{"T1", {0, 2}, {}, q},
                         {"T2", {3, 5}, {}, q},
                         {"T3", {7}, {0}, q},
                         {"S", {1, 4, 6}, {}, {DataType::kFloat, DataType::kFloat16}}},
                        FactoryOf<QLinearMatMul>()));
}
Status RegisterKernel_ai_onnx_Det(KernelRegistry& r) {
  return r.Register(UnaryDef("", "Det", 11, FloatTypes(), FactoryOf<Det>()));
}
Status RegisterKernel_ai_onnx_Einsum(KernelRegistry& r) {
  std::vector<int> inputs;  // variadic: every operand is T
  for (int i = 0; i < 64; ++i)
    inputs.push_back(i);
  return r.Register(Def("Einsum", 12, {{"T", inputs, {0}, NumericTypes()}}, FactoryOf<Einsum>()));
}
Status RegisterKernel_ai_onnx_Gemm(KernelRegistry& r) {
  // Opset 1-6 differ only by the `broadcast` attribute for C (read in Create).
  return r.Register(Def("Gemm", 1, {{"T", {0, 1, 2}, {0}, FloatTypes()}}, FactoryOf<Gemm>()));
}

}  // namespace onnx_light::kernels
