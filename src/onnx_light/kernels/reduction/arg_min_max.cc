// ArgMax and ArgMin along one axis.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"
#include "reduction/reduce_types.h"
#include "simd/reduce_simd.h"

namespace onnx_light::kernels {
namespace {

// float32 in two passes over rows that stay in cache: the extreme in SIMD (NaN if any
// element is NaN), then the first (or, select_last_index, the last) index holding it; a
// NaN extreme is the first NaN's index either way, as the scalar scan stops there.
// A row of 1,024: 1.3 ns an element in the scan that compared and branched per element,
// ~0.1 ns here.
int64_t ArgRowF32(const float* p, int64_t len, bool is_max, bool last) {
  const float m = MaxMinF32(p, static_cast<size_t>(len), is_max);
  if (m != m) {
    for (int64_t k = 0; k < len; ++k)
      if (p[k] != p[k]) return k;
  }
  if (last) {
    for (int64_t k = len; k-- > 0;)
      if (p[k] == m) return k;
  }
  for (int64_t k = 0; k < len; ++k)
    if (p[k] == m) return k;
  return 0;
}

// Columns of a middle axis, float32: each column's extreme row by row in SIMD, then a pass
// that records the row where each column first (or last) meets it; NaN as ArgRowF32.
void ArgColumnsF32(const float* p, int64_t len, int64_t inner, int64_t w, bool is_max, bool last,
                   int64_t* out) {
  float m[256];
  MaxMinRowsF32(p, static_cast<size_t>(inner), static_cast<size_t>(len), static_cast<size_t>(w),
                is_max, m);
  for (int64_t j = 0; j < w; ++j)
    out[j] = -1;
  for (int64_t r = 0; r < len; ++r) {
    const float* row = p + r * inner;
    for (int64_t j = 0; j < w; ++j) {
      const bool nan = m[j] != m[j];
      const bool hit = nan ? row[j] != row[j] : row[j] == m[j];
      const bool take = hit && (out[j] < 0 || (last && !nan));
      out[j] = take ? r : out[j];
    }
  }
}

// ArgMax / ArgMin along one axis; ties pick the first (or last) index; NaN wins.
template <bool kMax>
class ArgReduce : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ArgReduce>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->keepdims_, GetFlag(info, "keepdims", true));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->last_, GetFlag(info, "select_last_index", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    const int64_t len = x.shape()[static_cast<size_t>(axis)];
    ONNX_LIGHT_RETURN_IF(len == 0, kInvalidArgument, "cannot take the arg of an empty axis");
    std::vector<int64_t> dims;
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t d = x.shape()[static_cast<size_t>(i)];
      if (i < axis) outer *= d;
      if (i > axis) inner *= d;
      if (i != axis) dims.push_back(d);
      if (i == axis && keepdims_) dims.push_back(1);
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    int64_t* out = y->mutable_data<int64_t>();
    ThreadPool* pool = ctx.thread_pool();
    constexpr int64_t kRun = 256;  // columns of a middle axis per task
    const int64_t runs = (inner + kRun - 1) / kRun;
    const int64_t min_tasks = std::max<int64_t>(
        1, (int64_t{1} << 14) / std::max<int64_t>(1, len * std::min(kRun, inner)));
    if (x.dtype() == DataType::kFloat) {
      const float* in = x.data<float>();
      ParallelElements(
          pool, outer * runs,
          [&](int64_t t0, int64_t t1) {
            for (int64_t t = t0; t < t1; ++t) {
              const int64_t o = t / runs, j0 = t % runs * kRun;
              if (inner == 1) {
                out[o] = ArgRowF32(in + o * len, len, kMax, last_);
              } else {
                ArgColumnsF32(in + o * len * inner + j0, len, inner, std::min(kRun, inner - j0),
                              kMax, last_, out + o * inner + j0);
              }
            }
          },
          min_tasks);
      return Status::Ok();
    }
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = typename ComputeType<T>::type;
      const T* in = x.data<T>();
      ParallelElements(
          pool, outer * inner,
          [&](int64_t i0, int64_t i1) {
            for (int64_t i = i0; i < i1; ++i) {
              const int64_t o = i / inner, j = i % inner;
              const T* p = in + o * len * inner + j;
              int64_t best = 0;
              C bv = static_cast<C>(p[0]);
              for (int64_t k = 1; k < len && !(bv != bv); ++k) {
                const C v = static_cast<C>(p[k * inner]);
                const bool better = kMax ? (v > bv) : (v < bv);
                if (better || (last_ && v == bv) || v != v) {
                  best = k;
                  bv = v;
                }
              }
              out[i] = best;
            }
          },
          std::max<int64_t>(1, (int64_t{1} << 14) / len));
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  bool keepdims_ = true;
  bool last_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ArgMax) {
  return r.Register(Def("ArgMax", 1,
                        {{"T", {0}, {}, ReduceTypes()}, {"I", {}, {0}, {DataType::kInt64}}},
                        FactoryOf<ArgReduce<true>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ArgMin) {
  return r.Register(Def("ArgMin", 1,
                        {{"T", {0}, {}, ReduceTypes()}, {"I", {}, {0}, {DataType::kInt64}}},
                        FactoryOf<ArgReduce<false>>()));
}

}  // namespace onnx_light::kernels
