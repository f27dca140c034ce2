// TopK: the k largest or smallest values along an axis, with their indices.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/reduce_simd.h"

namespace onnx_light::kernels {
namespace {

// TopK: the k largest (or smallest) along an axis, sorted (ties: lower index first), and
// their int64 indices. K is an attribute before opset 10, an input after.
class TopK : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<TopK>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", -1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t largest, info.GetInt("largest", 1));
    k->largest_ = largest != 0;
    if (info.opset() < 10) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->k_, info.GetInt("k"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    int64_t k = k_;
    if (const Tensor* kt = ctx.input(1)) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(auto kv, Int64Values(kt, "K"));
      ONNX_LIGHT_RETURN_IF(kv.size() != 1, kInvalidArgument, "K must hold one value");
      k = kv[0];
    }
    const std::vector<int64_t>& in = x.shape().dims();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis,
                                NormalizeAxis(axis_, static_cast<int64_t>(in.size())));
    const auto ax = static_cast<size_t>(axis);
    ONNX_LIGHT_RETURN_IF(
        k < 0 || k > in[ax], kInvalidArgument,
        "K=" + std::to_string(k) + " is outside [0, " + std::to_string(in[ax]) + "]");
    std::vector<int64_t> dims = in;
    dims[ax] = k;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * values, ctx.AllocateOutput(0, dims));
    Tensor* indices = nullptr;  // the Indices output may be left out
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(indices, ctx.AllocateOutput(1, DataType::kInt64, dims));
    }
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < ax; ++d)
      outer *= in[d];
    for (size_t d = ax + 1; d < in.size(); ++d)
      inner *= in[d];
    const int64_t len = in[ax];
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        // Slices split between threads, each chunk with its own scratch.
        ParallelElements(
            ctx.thread_pool(), outer * inner,
            [&](int64_t s0, int64_t s1) {
              std::vector<int64_t> order(static_cast<size_t>(len));
              std::vector<typename ComputeType<T>::type> best(static_cast<size_t>(k));
              for (int64_t s = s0; s < s1; ++s)
                Slice<T>(x.data<T>(), s / inner, s % inner, len, inner, k, order, best, values,
                         indices);
            },
            std::max<int64_t>(1, (int64_t{1} << 13) / std::max<int64_t>(len, 1)));
      }
    });
    return Status::Ok();
  }

  // One slice (outer o, column j): its k best values and their indices.
  template <typename T, typename C>
  void Slice(const T* xp, int64_t o, int64_t j, int64_t len, int64_t inner, int64_t k,
             std::vector<int64_t>& order, std::vector<C>& best, Tensor* values,
             Tensor* indices) const {
    const bool largest = largest_;
    const T* base = xp + o * len * inner + j;
    auto at = [&](int64_t i) { return static_cast<C>(base[i * inner]); };
    if (k >= 1 && k <= 64 && k * 8 <= len) {
      ScanBest<T, C>(base, len, inner, k, order, best);
    } else {
      // NaN sorts as the largest value, as ORT does.
      auto before = [&](int64_t p, int64_t q) {
        const C a = at(p), b = at(q);
        const bool an = a != a, bn = b != b;
        if (an && bn) return p < q;  // NaNs tie: lower index first
        if (an || bn) return largest ? an : bn;
        if (a != b) return largest ? a > b : a < b;
        return p < q;
      };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    }
    for (int64_t r = 0; r < k; ++r) {
      const int64_t dst = (o * k + r) * inner + j;
      values->mutable_data<T>()[dst] = base[order[static_cast<size_t>(r)] * inner];
      if (indices != nullptr) indices->mutable_data<int64_t>()[dst] = order[static_cast<size_t>(r)];
    }
  }

  // A few of many (a classifier's top 5, a detector's candidates): one scan with the best k
  // kept sorted; an element enters only when it beats the k-th, rare after the first ones
  // (partial_sort's heap paid log k per element). Once k are kept, blocks of 8 contiguous
  // elements are first tested together against the k-th (`!(v <= kth)` also lets a NaN
  // through, to the exact test), so most blocks cost one vector compare. Indices ascend,
  // so an equal value goes after the ones kept: lower first.
  template <typename T, typename C>
  void ScanBest(const T* base, int64_t len, int64_t inner, int64_t k, std::vector<int64_t>& order,
                std::vector<C>& best) const {
    const bool largest = largest_;
    auto better = [largest](C a, C b) {
      const bool an = a != a, bn = b != b;
      if (an || bn) return largest ? (an && !bn) : (!an && bn);
      return largest ? a > b : a < b;
    };
    int64_t size = 0;
    if constexpr (std::is_same_v<T, float>) {
      if (inner == 1) {  // float rows: the vector scan finds each candidate
        for (int64_t i = 0; i < len; ++i) {
          if (size == k) {
            i += static_cast<int64_t>(FindBeyondF32(base + i, static_cast<size_t>(len - i),
                                                    best[static_cast<size_t>(k - 1)], largest));
            if (i >= len) break;
          }
          Insert(base[i], i, k, better, &size, order, best);
        }
        return;
      }
    }
    for (int64_t i0 = 0; i0 < len; i0 += 8) {
      const int64_t i1 = std::min(len, i0 + 8);
      if (size == k && inner == 1) {
        const C kth = best[static_cast<size_t>(k - 1)];
        unsigned any = 0;  // (unsigned, one loop per direction: GCC vectorizes these)
        if (largest) {
          for (int64_t i = i0; i < i1; ++i)
            any |= static_cast<unsigned>(!(static_cast<C>(base[i]) <= kth));
        } else {
          for (int64_t i = i0; i < i1; ++i)
            any |= static_cast<unsigned>(!(static_cast<C>(base[i]) >= kth));
        }
        if (!any) continue;
      }
      for (int64_t i = i0; i < i1; ++i) {
        const auto v = static_cast<C>(base[i * inner]);
        if (size == k) {
          const C kth = best[static_cast<size_t>(k - 1)];
          if (largest ? v <= kth : v >= kth) continue;  // the common case, no NaN tests
        }
        Insert(v, i, k, better, &size, order, best);
      }
    }
  }

  // v (at index i) into the sorted best, unless it is full and v does not beat its last.
  template <typename C, typename Better>
  static void Insert(C v, int64_t i, int64_t k, const Better& better, int64_t* size,
                     std::vector<int64_t>& order, std::vector<C>& best) {
    if (*size == k && !better(v, best[static_cast<size_t>(k - 1)])) return;
    int64_t pos = *size < k ? *size : k - 1;
    while (pos > 0 && better(v, best[static_cast<size_t>(pos - 1)])) {
      best[static_cast<size_t>(pos)] = best[static_cast<size_t>(pos - 1)];
      order[static_cast<size_t>(pos)] = order[static_cast<size_t>(pos - 1)];
      --pos;
    }
    best[static_cast<size_t>(pos)] = v;
    order[static_cast<size_t>(pos)] = i;
    *size = std::min(*size + 1, k);
  }

 private:
  int64_t axis_ = -1;
  int64_t k_ = 0;
  bool largest_ = true;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, TopK) {
  return r.Register(Def("TopK", 1,
                        {{"T", {0}, {0}, NumericTypes()}, {"I", {}, {1}, {DataType::kInt64}}},
                        FactoryOf<TopK>()));
}

}  // namespace onnx_light::kernels
