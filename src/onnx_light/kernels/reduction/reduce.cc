// Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceLogSum, ReduceLogSumExp, ReduceSumSquare.
//
// Floating-point reductions accumulate in double and round once; integer reductions
// accumulate in the input type with wrap-around (as numpy does for int32/int64).
// Axes come from the `axes` attribute up to ReduceSum-12 / other Reduce*-17 and from the
// optional second input afterwards, where `noop_with_empty_axes` applies.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"
#include "reduction/reduce_types.h"
#include "simd/elementwise_simd.h"
#include "simd/reduce_simd.h"

namespace onnx_light::kernels {
namespace {

enum class Red { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, bool>, uint8_t,
                               std::conditional_t<std::is_integral_v<T>, T, double>>;

// Wrapping integer arithmetic (no signed-overflow undefined behaviour).
template <typename A>
A AddWrap(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}
template <typename A>
A MulWrap(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}

template <Red kRed, typename A>
A Init() {
  if constexpr (kRed == Red::kProd) return A(1);
  if constexpr (kRed == Red::kMax || kRed == Red::kLogSumExp) {
    if constexpr (std::is_integral_v<A>) return std::numeric_limits<A>::lowest();
    return -std::numeric_limits<A>::infinity();
  }
  if constexpr (kRed == Red::kMin) {
    if constexpr (std::is_integral_v<A>) return std::numeric_limits<A>::max();
    return std::numeric_limits<A>::infinity();
  }
  return A(0);
}

// acc <- acc (op) x for one element.
template <Red kRed, typename A>
A Step(A acc, A x) {
  switch (kRed) {
    case Red::kMax:
    case Red::kLogSumExp:  // first pass: the maximum
      return (x > acc || x != x) ? x : acc;
    case Red::kMin:
      return (x < acc || x != x) ? x : acc;
    case Red::kProd:
      return MulWrap(acc, x);
    case Red::kL1:
      return AddWrap(acc, x < A(0) ? MulWrap(x, A(-1)) : x);  // |INT64_MIN| wraps to itself
    case Red::kL2:
    case Red::kSumSquare:
      return AddWrap(acc, MulWrap(x, x));
    default:
      return AddWrap(acc, x);
  }
}

// The reduced dims, keepdims applied, and the output stride of each input axis (0 on
// reduced axes).
struct ReducePlan {
  std::vector<int64_t> out_dims;
  std::vector<int64_t> out_strides;  // per input axis
  int64_t count = 1;                 // elements folded into each output
  bool identity = false;             // noop_with_empty_axes with no axes
};

Result<ReducePlan> Plan(const Shape& shape, const std::vector<int64_t>& axes_in, bool keepdims,
                        bool noop_empty) {
  const auto rank = static_cast<int64_t>(shape.rank());
  std::vector<bool> reduce(static_cast<size_t>(rank), axes_in.empty());
  ReducePlan plan;
  if (axes_in.empty() && noop_empty) {
    plan.identity = true;
    plan.out_dims = shape.dims();
    return plan;
  }
  for (int64_t a : axes_in) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank));
    reduce[static_cast<size_t>(ax)] = true;
  }
  std::vector<int64_t> kept(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) {
    const auto u = static_cast<size_t>(i);
    kept[u] = reduce[u] ? 1 : shape[u];
    if (reduce[u]) plan.count *= shape[u];
    if (!reduce[u] || keepdims) plan.out_dims.push_back(kept[u]);
  }
  plan.out_strides.assign(static_cast<size_t>(rank), 0);
  int64_t stride = 1;
  for (int64_t i = rank; i-- > 0;) {
    const auto u = static_cast<size_t>(i);
    plan.out_strides[u] = reduce[u] ? 0 : stride;
    stride *= kept[u];
  }
  return plan;
}

// Folds every input element into its output slot.
template <Red kRed, typename T, typename A>
void Fold(const T* x, const Shape& shape, const ReducePlan& plan, std::vector<A>& acc,
          const std::vector<A>* shift) {
  const size_t rank = shape.rank();
  const int64_t n = shape.num_elements();
  std::vector<int64_t> idx(rank, 0);
  int64_t o = 0;
  for (int64_t i = 0; i < n; ++i) {
    const A v = static_cast<A>(x[i]);
    if constexpr (!std::is_integral_v<A>) {
      if (shift != nullptr) {  // LogSumExp second pass: sum of exp(x - max)
        const A m = (*shift)[static_cast<size_t>(o)];
        acc[static_cast<size_t>(o)] += std::isinf(m) ? A(0) : std::exp(v - m);
      } else {
        acc[static_cast<size_t>(o)] = Step<kRed>(acc[static_cast<size_t>(o)], v);
      }
    } else {
      acc[static_cast<size_t>(o)] = Step<kRed>(acc[static_cast<size_t>(o)], v);
    }
    for (size_t d = rank; d-- > 0;) {
      o += plan.out_strides[d];
      if (++idx[d] < shape[d]) break;
      o -= plan.out_strides[d] * shape[d];
      idx[d] = 0;
    }
  }
}

// The input as [outer, len, inner] when the reduced axes (size-1 axes aside) are one
// contiguous block: len elements fold into each output, inner apart.
bool Block(const Shape& shape, const ReducePlan& plan, int64_t* outer, int64_t* len,
           int64_t* inner) {
  *outer = *len = *inner = 1;
  int part = 0;  // 0: before the reduced block, 1: in it, 2: after it
  for (size_t d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 1) continue;
    if (plan.out_strides[d] == 0) {
      if (part == 2) return false;
      part = 1;
      *len *= shape[d];
    } else if (part == 0) {
      *outer *= shape[d];
    } else {
      part = 2;
      *inner *= shape[d];
    }
  }
  return true;
}

// float32 Sum / Mean / SumSquare / L2 / LogSum over a block of axes, in double, rounded once. The
// last axes (inner == 1: a transformer's norms) sum each contiguous row in SIMD doubles; a middle
// block (a channel axis) adds whole rows of `inner` into a run of double sums, every pass
// contiguous, instead of the element-by-element index walk (ReduceSum over 512 of [1, 512, 256]:
// 115 -> 8 us). Outputs split between threads.
template <Red kRed>
void SumBlock(const float* x, int64_t outer, int64_t len, int64_t inner, float* y,
              ThreadPool* pool) {
  constexpr bool kSquares = kRed == Red::kSumSquare || kRed == Red::kL2;
  const auto finish = [&](double v) {
    if constexpr (kRed == Red::kMean) v /= static_cast<double>(len);
    if constexpr (kRed == Red::kL2) v = std::sqrt(v);
    if constexpr (kRed == Red::kLogSum) v = std::log(v);
    return static_cast<float>(v);
  };
  if (inner == 1) {
    ParallelElements(
        pool, outer,
        [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) {
            const float* row = x + i * len;
            y[i] = finish(SumF32InF64(row, static_cast<size_t>(len), kSquares));
          }
        },
        std::max<int64_t>(1, (int64_t{1} << 15) / len));
    return;
  }
  // Columns in runs of 256 (a stack buffer of sums), narrower when that gives every
  // thread one.
  const int64_t threads = pool != nullptr ? pool->threads() : 1;
  const int64_t run =
      outer >= threads ? 256 : std::clamp<int64_t>((inner / threads + 31) / 32 * 32, 32, 256);
  const int64_t runs = (inner + run - 1) / run;
  ParallelElements(
      pool, outer * runs,
      [&](int64_t t0, int64_t t1) {
        double sums[256];
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t o = t / runs, j0 = t % runs * run, w = std::min(run, inner - j0);
          SumRowsF32InF64(x + o * len * inner + j0, static_cast<size_t>(inner),
                          static_cast<size_t>(len), static_cast<size_t>(w), kSquares, sums);
          for (int64_t j = 0; j < w; ++j)
            y[o * inner + j0 + j] = finish(sums[j]);
        }
      },
      std::max<int64_t>(1, (int64_t{1} << 15) / (len * run)));
}

// float32 Max / Min over a block of axes in SIMD: each row's extreme (inner == 1, the last
// axes) or columns folded row by row (a middle block); outputs split between threads.
void MaxMinBlock(bool is_max, const float* x, int64_t outer, int64_t len, int64_t inner, float* y,
                 ThreadPool* pool) {
  if (inner == 1 && len < 8) {
    // Rows shorter than any vector (the maximum over 3 stacked maps): inline, as the
    // vector kernel's own tail does (the first NaN returned as it is), not a dispatched
    // call per row (238 us against ORT's 92 over 25,600 rows of 3).
    const float start =
        is_max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
    ParallelElements(
        pool, outer,
        [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) {
            const float* row = x + i * len;
            float r = start;
            for (int64_t j = 0; j < len; ++j) {
              const float v = row[j];
              if (std::isnan(v)) {
                r = v;
                break;
              }
              r = is_max ? (v > r ? v : r) : (v < r ? v : r);
            }
            y[i] = r;
          }
        },
        int64_t{4096});
    return;
  }
  if (inner == 1) {
    ParallelElements(
        pool, outer,
        [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i)
            y[i] = MaxMinF32(x + i * len, static_cast<size_t>(len), is_max);
        },
        std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(len, 1)));
    return;
  }
  ParallelElements(
      pool, outer,
      [&](int64_t o0, int64_t o1) {
        for (int64_t o = o0; o < o1; ++o)
          MaxMinRowsF32(x + o * len * inner, static_cast<size_t>(inner), static_cast<size_t>(len),
                        static_cast<size_t>(inner), is_max, y + o * inner);
      },
      std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(len * inner, 1)));
}

// float32 LogSumExp of each row of len: m + log(sum exp(x - m)), m the row's maximum (an
// infinite or NaN maximum is the answer itself), the exponentials summed in float as ONNX
// Runtime sums them.
void LogSumExpRows(const float* x, int64_t outer, int64_t len, float* y, ThreadPool* pool) {
  ParallelElements(
      pool, outer,
      [&](int64_t i0, int64_t i1) {
        std::vector<float> e(static_cast<size_t>(len));
        for (int64_t i = i0; i < i1; ++i) {
          const float* row = x + i * len;
          const float m = MaxMinF32(row, static_cast<size_t>(len), true);
          if (std::isinf(m) || std::isnan(m)) {
            y[i] = m;
            continue;
          }
          y[i] = m + std::log(ExpShiftedF32(row, e.data(), static_cast<size_t>(len), m));
        }
      },
      std::max<int64_t>(1, (int64_t{1} << 13) / std::max<int64_t>(len, 1)));
}

// One contiguous row folded in four interleaved accumulators: independent chains the core
// overlaps (one chain made every element wait for the previous multiply: ReduceProd over
// rows of 1024, 3.6 ns an element). Each fold here is associative: wrapping integers, the
// NaN-propagating extremes, and float sums and products kept in double.
template <Red kRed, typename T, typename A>
A FoldRow(const T* x, int64_t len, A init) {
  A a[4] = {init, init, init, init};
  int64_t r = 0;
  for (; r + 4 <= len; r += 4) {
    for (int k = 0; k < 4; ++k)
      a[k] = Step<kRed>(a[k], static_cast<A>(x[r + k]));
  }
  for (; r < len; ++r)
    a[0] = Step<kRed>(a[0], static_cast<A>(x[r]));
  if constexpr (kRed == Red::kMax || kRed == Red::kMin || kRed == Red::kLogSumExp) {
    return Step<kRed>(Step<kRed>(a[0], a[1]), Step<kRed>(a[2], a[3]));
  } else if constexpr (kRed == Red::kProd) {
    return MulWrap(MulWrap(a[0], a[1]), MulWrap(a[2], a[3]));
  } else {  // sums: the partial sums added (their squares or magnitudes already taken)
    return AddWrap(AddWrap(a[0], a[1]), AddWrap(a[2], a[3]));
  }
}

// Any reduction of any type over a block of axes: each output folds its len elements,
// inner apart (the index walk of Fold without its per-element bookkeeping). Outputs split
// between threads: whole rows when inner == 1, else runs of columns.
template <Red kRed, typename T, typename A>
void FoldBlock(const T* x, int64_t outer, int64_t len, int64_t inner, std::vector<A>& acc,
               const std::vector<A>* shift, ThreadPool* pool) {
  if (inner == 1 && shift == nullptr) {
    ParallelElements(
        pool, outer,
        [&](int64_t o0, int64_t o1) {
          for (int64_t o = o0; o < o1; ++o)
            acc[static_cast<size_t>(o)] =
                FoldRow<kRed, T, A>(x + o * len, len, acc[static_cast<size_t>(o)]);
        },
        std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(len, 1)));
    return;
  }
  constexpr int64_t kRun = 256;
  const int64_t runs = (inner + kRun - 1) / kRun;
  ParallelElements(
      pool, outer * runs,
      [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t o = t / runs, j0 = t % runs * kRun, w = std::min(kRun, inner - j0);
          A* a = acc.data() + o * inner + j0;
          for (int64_t r = 0; r < len; ++r) {
            const T* row = x + (o * len + r) * inner + j0;
            for (int64_t j = 0; j < w; ++j) {
              const A v = static_cast<A>(row[j]);
              if constexpr (!std::is_integral_v<A>) {
                if (shift != nullptr) {
                  const A m = (*shift)[static_cast<size_t>(o * inner + j0 + j)];
                  a[j] += std::isinf(m) ? A(0) : std::exp(v - m);
                  continue;
                }
              }
              a[j] = Step<kRed>(a[j], v);
            }
          }
        }
      },
      std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(len * std::min(kRun, inner), 1)));
}

template <Red kRed>
class Reduce : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Reduce>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->keepdims_, GetFlag(info, "keepdims", true));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->noop_empty_, GetFlag(info, "noop_with_empty_axes", false));
    if (info.HasAttribute("axes")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->axes_, info.GetInts("axes"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    std::vector<int64_t> axes = axes_;
    if (const Tensor* a = ctx.input(1)) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(axes, Int64Values(a, "axes"));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(ReducePlan plan, Plan(x.shape(), axes, keepdims_, noop_empty_));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, plan.out_dims));
    if (plan.identity) {
      std::memcpy(y->mutable_raw_data(), x.raw_data(), x.byte_size());
      return Status::Ok();
    }
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      // bool: ReduceMax is "any", ReduceMin "all" (opset 20).
      constexpr bool kBoolOk = kRed == Red::kMax || kRed == Red::kMin;
      if constexpr (!std::is_same_v<T, bool> || kBoolOk) Run<T>(x, plan, y, ctx.thread_pool());
    });
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(const Tensor& x, const ReducePlan& plan, Tensor* y, ThreadPool* pool) {
    using A = Acc<T>;
    const auto out_n = static_cast<size_t>(y->num_elements());
    if constexpr (std::is_same_v<T, float> &&
                  (kRed == Red::kSum || kRed == Red::kMean || kRed == Red::kSumSquare ||
                   kRed == Red::kL2 || kRed == Red::kLogSum)) {
      int64_t outer, len, inner;
      if (x.num_elements() > 0 && Block(x.shape(), plan, &outer, &len, &inner)) {
        SumBlock<kRed>(x.data<float>(), outer, len, inner, y->mutable_data<float>(), pool);
        return;
      }
    }
    int64_t outer = 1, len = 1, inner = 1;
    const bool block = x.num_elements() > 0 && Block(x.shape(), plan, &outer, &len, &inner);
    if constexpr (std::is_same_v<T, float> && (kRed == Red::kMax || kRed == Red::kMin)) {
      if (block) {
        MaxMinBlock(kRed == Red::kMax, x.data<float>(), outer, len, inner, y->mutable_data<float>(),
                    pool);
        return;
      }
    }
    if constexpr (std::is_same_v<T, float> && kRed == Red::kLogSumExp) {
      if (block && inner == 1) {  // the last axes: max, then sum exp(x - max), in SIMD
        LogSumExpRows(x.data<float>(), outer, len, y->mutable_data<float>(), pool);
        return;
      }
    }
    const auto fold = [&](std::vector<A>& into, const std::vector<A>* shift) {
      if (block) {
        FoldBlock<kRed, T, A>(x.data<T>(), outer, len, inner, into, shift, pool);
      } else {
        Fold<kRed, T, A>(x.data<T>(), x.shape(), plan, into, shift);
      }
    };
    std::vector<A> acc(out_n, Init<kRed, A>());
    fold(acc, nullptr);
    if constexpr (kRed == Red::kLogSumExp && !std::is_integral_v<A>) {
      std::vector<A> sums(out_n, A(0));
      fold(sums, &acc);
      for (size_t i = 0; i < out_n; ++i) {
        acc[i] = std::isinf(acc[i]) ? acc[i] : acc[i] + std::log(sums[i]);
      }
    }
    T* out = y->mutable_data<T>();
    for (size_t i = 0; i < out_n; ++i) {
      A v = acc[i];
      if constexpr (!std::is_integral_v<A>) {
        if constexpr (kRed == Red::kMean) v /= static_cast<A>(plan.count);
        if constexpr (kRed == Red::kL2) v = std::sqrt(v);
        if constexpr (kRed == Red::kLogSum) v = std::log(v);
      } else {
        if constexpr (kRed == Red::kMean) v = plan.count == 0 ? A(0) : A(v / plan.count);
        if constexpr (kRed == Red::kL2) {
          // The sum of squares wraps when it overflows: read it as unsigned (it cannot
          // be negative) and saturate the root, which never reaches a float-to-int
          // conversion out of range.
          using U = std::make_unsigned_t<A>;
          const double r = std::sqrt(static_cast<double>(static_cast<U>(v)));
          const auto top = static_cast<double>(std::numeric_limits<A>::max());
          v = r >= top ? std::numeric_limits<A>::max() : static_cast<A>(r);
        }
      }
      out[i] = static_cast<T>(v);
    }
  }

  std::vector<int64_t> axes_;
  bool keepdims_ = true;
  bool noop_empty_ = false;
};

// The attribute form up to `last_attr_opset`, the input form after it.
template <Red kRed>
Status RegisterReduce(KernelRegistry& r, const char* op, int last_attr_opset) {
  std::vector<DataType> types = ReduceTypes();
  if (kRed == Red::kMax || kRed == Red::kMin) types.push_back(DataType::kBool);
  KernelDef attr_form = Def(op, 1, {{"T", {0}, {0}, types}}, FactoryOf<Reduce<kRed>>());
  attr_form.end_version = last_attr_opset;
  ONNX_LIGHT_RETURN_IF_ERROR(r.Register(std::move(attr_form)));
  return r.Register(Def(op, last_attr_opset + 1,
                        {{"T", {0}, {0}, types}, {"A", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<Reduce<kRed>>()));
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReduceSum) {
  return RegisterReduce<Red::kSum>(r, "ReduceSum", 12);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReduceMean) {
  return RegisterReduce<Red::kMean>(r, "ReduceMean", 17);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReduceMax) {
  return RegisterReduce<Red::kMax>(r, "ReduceMax", 17);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReduceMin) {
  return RegisterReduce<Red::kMin>(r, "ReduceMin", 17);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReduceProd) {
  return RegisterReduce<Red::kProd>(r, "ReduceProd", 17);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReduceL1) {
  return RegisterReduce<Red::kL1>(r, "ReduceL1", 17);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReduceL2) {
  return RegisterReduce<Red::kL2>(r, "ReduceL2", 17);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReduceLogSum) {
  return RegisterReduce<Red::kLogSum>(r, "ReduceLogSum", 17);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReduceLogSumExp) {
  return RegisterReduce<Red::kLogSumExp>(r, "ReduceLogSumExp", 17);
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReduceSumSquare) {
  return RegisterReduce<Red::kSumSquare>(r, "ReduceSumSquare", 17);
}

}  // namespace onnx_light::kernels
