// Einsum's batched-matrix-product lowering (einsum_contract.h).
#include "math/einsum_contract.h"

#include <algorithm>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "math/gemm.h"
#include "math/widened.h"

namespace onnx_light::kernels {
namespace {

// The labels of each role (sizes above 1 only: a label of size 1 indexes nothing), batch,
// M and N in output order, K in order of A's strides (so that A reads in place whenever
// its K labels collapse at all).
struct Roles {
  std::vector<int> batch, m, k, n;
  int64_t nb = 1, rows = 1, cols = 1, depth = 1;
};

Roles Classify(const EinsumContraction& c) {
  Roles r;
  std::vector<bool> in_out(c.size.size(), false);
  for (int l : c.out) {
    in_out[static_cast<size_t>(l)] = true;
    const auto u = static_cast<size_t>(l);
    if (c.size[u] == 1) continue;
    const bool a = c.stride_a[u] != 0, b = c.stride_b[u] != 0;
    if (a && b) {
      r.batch.push_back(l);
      r.nb *= c.size[u];
    } else if (a) {
      r.m.push_back(l);
      r.rows *= c.size[u];
    } else {
      r.n.push_back(l);
      r.cols *= c.size[u];
    }
  }
  for (size_t u = 0; u < c.size.size(); ++u) {
    if (!in_out[u] && c.size[u] > 1 && c.stride_a[u] != 0 && c.stride_b[u] != 0) {
      r.k.push_back(static_cast<int>(u));
      r.depth *= c.size[u];
    }
  }
  std::stable_sort(r.k.begin(), r.k.end(), [&](int x, int y) {
    return c.stride_a[static_cast<size_t>(x)] > c.stride_a[static_cast<size_t>(y)];
  });
  return r;
}

// Whether `labels` in this order address a block with one stride (each label's stride the
// next one's times its size); *inner is that stride (1 for no labels).
bool Collapses(const std::vector<int>& labels, const std::vector<int64_t>& size,
               const std::vector<int64_t>& stride, int64_t* inner) {
  *inner = 1;
  if (labels.empty()) return true;
  for (size_t i = 0; i + 1 < labels.size(); ++i) {
    const auto l = static_cast<size_t>(labels[i]), next = static_cast<size_t>(labels[i + 1]);
    if (stride[l] != stride[next] * size[next]) return false;
  }
  *inner = stride[static_cast<size_t>(labels.back())];
  return *inner != 0;
}

// dst[dims, strides ds] = src[dims, strides ss], the last dimension innermost.
template <typename C>
void StridedCopy(const C* src, const std::vector<int64_t>& ss, C* dst,
                 const std::vector<int64_t>& ds, const std::vector<int64_t>& dims) {
  const size_t r = dims.size();
  if (r == 0) {
    *dst = *src;
    return;
  }
  int64_t outer = 1;
  for (size_t i = 0; i + 1 < r; ++i)
    outer *= dims[i];
  std::vector<int64_t> idx(r, 0);
  const int64_t n = dims[r - 1], s_in = ss[r - 1], d_in = ds[r - 1];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t so = 0, dof = 0;
    for (size_t i = 0; i + 1 < r; ++i) {
      so += idx[i] * ss[i];
      dof += idx[i] * ds[i];
    }
    const C* sp = src + so;
    C* dp = dst + dof;
    for (int64_t j = 0; j < n; ++j)
      dp[j * d_in] = sp[j * s_in];
    for (size_t i = r - 1; i-- > 0;) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
  }
}

// An operand as the product reads it: its data and every label's stride, gathered into
// [its batch labels, rows..., cols...] order when `rows` or `cols` do not collapse in place.
template <typename C>
struct Operand {
  const C* data;
  std::vector<int64_t> stride;
  int64_t row_stride = 0, col_stride = 0;
  std::vector<C> copy;

  Operand(const C* p, const std::vector<int64_t>& s, const std::vector<int64_t>& size,
          const std::vector<int>& batch, const std::vector<int>& rows, const std::vector<int>& cols)
      : data(p), stride(s) {
    if (Collapses(rows, size, stride, &row_stride) && Collapses(cols, size, stride, &col_stride))
      return;
    std::vector<int> order;
    for (int l : batch)
      if (stride[static_cast<size_t>(l)] != 0) order.push_back(l);
    order.insert(order.end(), rows.begin(), rows.end());
    order.insert(order.end(), cols.begin(), cols.end());
    std::vector<int64_t> dims, src, dst(order.size());
    int64_t total = 1;
    for (size_t i = order.size(); i-- > 0;) {
      const auto l = static_cast<size_t>(order[i]);
      dst[i] = total;
      total *= size[l];
    }
    for (int l : order) {
      dims.push_back(size[static_cast<size_t>(l)]);
      src.push_back(stride[static_cast<size_t>(l)]);
    }
    copy.resize(static_cast<size_t>(total));
    StridedCopy(p, src, copy.data(), dst, dims);
    data = copy.data();
    for (size_t i = 0; i < order.size(); ++i)
      stride[static_cast<size_t>(order[i])] = dst[i];
    Collapses(rows, size, stride, &row_stride);
    Collapses(cols, size, stride, &col_stride);
  }
};

template <typename C>
void Contract(const EinsumContraction& c, const Roles& r, const C* a_data, const C* b_data, C* y,
              int64_t y_count, ThreadPool* pool) {
  std::fill(y, y + y_count, C(0));
  if (y_count == 0 || std::count(c.size.begin(), c.size.end(), 0) > 0) return;  // empty sums
  // Output strides, dense row-major in the output's label order.
  std::vector<int64_t> so(c.size.size(), 0);
  int64_t step = 1;
  for (size_t i = c.out.size(); i-- > 0;) {
    const auto l = static_cast<size_t>(c.out[i]);
    so[l] = step;
    step *= c.size[l];
  }
  const Operand<C> a(a_data, c.stride_a, c.size, r.batch, r.m, r.k);
  const Operand<C> b(b_data, c.stride_b, c.size, r.batch, r.k, r.n);
  const int64_t m = r.rows, n = r.cols, k = r.depth;
  int64_t out_row, out_col;
  const bool m_ok = Collapses(r.m, c.size, so, &out_row),
             n_ok = Collapses(r.n, c.size, so, &out_col);
  const bool direct = m_ok && n_ok && out_col == 1 && (r.m.empty() || out_row == n);
  const bool transposed = !direct && m_ok && n_ok && out_row == 1 && (r.n.empty() || out_col == m);
  const bool gathered = !direct && !transposed;  // every [m x n] block in a scratch first
  std::vector<C> scratch(gathered ? static_cast<size_t>(r.nb * m * n) : 0, C(0));
  auto product = [&](int64_t t, ThreadPool* inner) {
    int64_t oa = 0, ob = 0, oc = gathered ? t * m * n : 0;
    for (size_t i = r.batch.size(); i-- > 0;) {
      const auto l = static_cast<size_t>(r.batch[i]);
      const int64_t p = t % c.size[l];
      t /= c.size[l];
      oa += p * a.stride[l];
      ob += p * b.stride[l];
      if (!gathered) oc += p * so[l];
    }
    if (transposed) {  // y^T [n x m] = b^T a^T
      Gemm2D<C>(b.data + ob, b.col_stride, b.row_stride, a.data + oa, a.col_stride, a.row_stride,
                y + oc, n, m, k, inner);
    } else {
      Gemm2D<C>(a.data + oa, a.row_stride, a.col_stride, b.data + ob, b.row_stride, b.col_stride,
                (gathered ? scratch.data() : y) + oc, m, n, k, inner);
    }
  };
  // Many small products (attention heads): whole products split between the threads.
  const int64_t work = m * n * k;
  if (r.nb > 1 && pool != nullptr && pool->threads() > 1 && work < (int64_t{1} << 21) &&
      r.nb * work >= (int64_t{1} << 18)) {
    pool->ParallelFor(r.nb, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t)
        product(t, nullptr);
    });
  } else {
    for (int64_t t = 0; t < r.nb; ++t)
      product(t, pool);
  }
  if (!gathered) return;
  std::vector<int> order = r.batch;
  order.insert(order.end(), r.m.begin(), r.m.end());
  order.insert(order.end(), r.n.begin(), r.n.end());
  std::vector<int64_t> dims, src(order.size()), dst;
  int64_t dense = 1;
  for (size_t i = order.size(); i-- > 0;) {
    src[i] = dense;
    dense *= c.size[static_cast<size_t>(order[i])];
  }
  for (int l : order) {
    dims.push_back(c.size[static_cast<size_t>(l)]);
    dst.push_back(so[static_cast<size_t>(l)]);
  }
  StridedCopy(scratch.data(), src, y, dst, dims);
}

}  // namespace

bool IsGemmContraction(const EinsumContraction& c) {
  std::vector<bool> in_out(c.size.size(), false);
  for (int l : c.out)
    in_out[static_cast<size_t>(l)] = true;
  for (size_t u = 0; u < c.size.size(); ++u) {
    const bool a = c.stride_a[u] != 0, b = c.stride_b[u] != 0;
    if (c.size[u] > 1 && !in_out[u] && a != b) return false;
  }
  return true;
}

bool RunGemmContraction(const EinsumContraction& c, const Tensor& a, const Tensor& b, Tensor* y,
                        ThreadPool* pool) {
  if (!IsGemmContraction(c) || a.dtype() != b.dtype()) return false;
  const Roles roles = Classify(c);
  bool done = false;
  DispatchNumeric(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      Contract<T>(c, roles, a.data<T>(), b.data<T>(), y->mutable_data<T>(), y->num_elements(),
                  pool);
      done = true;
    } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
      const Widened<T> wa(a.data<T>(), a.num_elements()), wb(b.data<T>(), b.num_elements());
      std::vector<float> out(static_cast<size_t>(y->num_elements()));
      Contract<float>(c, roles, wa.data, wb.data, out.data(), y->num_elements(), pool);
      T* yp = y->mutable_data<T>();
      for (size_t i = 0; i < out.size(); ++i)
        yp[i] = static_cast<T>(out[i]);
      done = true;
    }
  });
  return done;
}

}  // namespace onnx_light::kernels
