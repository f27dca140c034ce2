// ScatterElements (with reductions), Scatter (opset 9-10) and ScatterND.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Result<Reduction> ReadReduction(const KernelInfo& info) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::string r, info.GetString("reduction", "none"));
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  return Status(StatusCode::kInvalidModel, "unknown reduction '" + r + "'");
}

// out[off[j]] (op)= upd[j] for j < n, the type dispatched once and the reduction chosen
// outside the loop (a GNN's message sums: 258k updates a node, which a dispatch per
// element made 2.5x ORT's time). `red` is not kNone; T numeric, not bool.
// Updates are `rows` rows of `len`; this call takes columns [c0, c1) of every row, in row
// order (so duplicates combine in the order the spec gives them).
template <typename T>
void CombineAll(const T* upd, T* out, const int64_t* off, int64_t rows, int64_t len, int64_t c0,
                int64_t c1, Reduction red) {
  using C = typename ComputeType<T>::type;
  auto each = [&](auto op) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = r * len + c0; j < r * len + c1; ++j) {
        T& o = out[off[j]];
        o = static_cast<T>(op(static_cast<C>(o), static_cast<C>(upd[j])));
      }
    }
  };
  if constexpr (std::is_integral_v<C>) {  // wrap without undefined behaviour
    if (red == Reduction::kAdd)
      each([](C a, C b) {
        return static_cast<C>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
      });
    if (red == Reduction::kMul)
      each([](C a, C b) {
        return static_cast<C>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
      });
  } else {
    if (red == Reduction::kAdd) each([](C a, C b) { return a + b; });
    if (red == Reduction::kMul) each([](C a, C b) { return a * b; });
  }
  if (red == Reduction::kMax) each([](C a, C b) { return std::max(a, b); });
  if (red == Reduction::kMin) each([](C a, C b) { return std::min(a, b); });
}

// out[dst] (op)= upd[src] for any tensor type (reductions on numeric types only).
void Combine(const Tensor& upd, int64_t src, Tensor* out, int64_t dst, Reduction red) {
  if (red == Reduction::kNone) {
    CopyElement(upd, src, out, dst, ItemSize(upd.dtype()));
    return;
  }
  DispatchNumeric(upd.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      CombineAll(upd.data<T>() + src, out->mutable_data<T>(), &dst, 1, 1, 0, 1, red);
    }
  });
}

Status CopyInput(const Tensor& x, Tensor* y) {
  const size_t item = ItemSize(x.dtype());
  if (item != 0) {
    if (x.byte_size() > 0) std::memcpy(y->mutable_raw_data(), x.raw_data(), x.byte_size());
  } else {
    for (int64_t i = 0; i < x.num_elements(); ++i)
      CopyElement(x, i, y, i, item);
  }
  return Status::Ok();
}

// ScatterElements (and Scatter, opset 9-10): data with updates written at indices along
// an axis.
class ScatterElements : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ScatterElements>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->reduction_, ReadReduction(info));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& ind = *ctx.input(1);
    const Tensor& upd = *ctx.input(2);
    const std::vector<int64_t>& in = x.shape().dims();
    const auto rank = static_cast<int64_t>(in.size());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    ONNX_LIGHT_RETURN_IF(ind.shape() != upd.shape() || ind.shape().rank() != in.size(),
                         kInvalidArgument,
                         "indices " + ind.shape().ToString() + " and updates " +
                             upd.shape().ToString() + " must match and have the rank of data");
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, in));
    ONNX_LIGHT_RETURN_IF_ERROR(CopyInput(x, y));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto offsets, AxisElementOffsets(ind, in, axis));
    bool done = false;
    if (reduction_ != Reduction::kNone && ind.num_elements() > 0) {
      // Off the last axis, an update's column is its destination's column: columns split
      // between threads never meet (a GNN's messages [edges, features] into [nodes,
      // features]).
      const int64_t len = ind.shape().dims().back(), rows = ind.num_elements() / len;
      ThreadPool* pool = axis != rank - 1 && ind.num_elements() >= (int64_t{1} << 15) && len >= 32
                             ? ctx.thread_pool()
                             : nullptr;
      done = DispatchNumeric(upd.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) {
          ParallelElements(
              pool, len,
              [&](int64_t c0, int64_t c1) {
                CombineAll(upd.data<T>(), y->mutable_data<T>(), offsets.data(), rows, len, c0, c1,
                           reduction_);
              },
              int64_t{16});
        }
      });
    }
    const size_t item = ItemSize(upd.dtype());
    if (!done && reduction_ == Reduction::kNone && item != 0 && upd.dtype() != DataType::kString &&
        static_cast<size_t>(DataTypeBitWidth(upd.dtype())) == 8 * item) {
      // Plain writes of fixed-size items: typed copies in one loop (an element copy
      // dispatched per update ran 1.4x ORT's time). Later updates win, in order.
      const int64_t* off = offsets.data();
      const int64_t n = ind.num_elements();
      done = ForFixedItem(item, [&](auto tag) {
        using U = decltype(tag);
        const U* src = static_cast<const U*>(upd.raw_data());
        U* dst = static_cast<U*>(y->mutable_raw_data());
        for (int64_t j = 0; j < n; ++j)
          dst[off[j]] = src[j];
      });
    }
    if (!done) {
      for (int64_t j = 0; j < ind.num_elements(); ++j)
        Combine(upd, j, y, offsets[static_cast<size_t>(j)], reduction_);
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  Reduction reduction_ = Reduction::kNone;
};

// ScatterND: indices [..., q] address slices of data; updates hold those slices.
class ScatterND : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ScatterND>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->reduction_, ReadReduction(info));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& ind = *ctx.input(1);
    const Tensor& upd = *ctx.input(2);
    const std::vector<int64_t>& in = x.shape().dims();
    const std::vector<int64_t>& id = ind.shape().dims();
    if (id.empty() || id.back() < 1 || id.back() > static_cast<int64_t>(in.size())) {
      return Status(
          StatusCode::kInvalidArgument,
          "indices " + ind.shape().ToString() + " must end in a dimension in [1, rank of data]");
    }
    const auto q = static_cast<size_t>(id.back());
    std::vector<int64_t> expect(id.begin(), id.end() - 1);
    expect.insert(expect.end(), in.begin() + static_cast<int64_t>(q), in.end());
    ONNX_LIGHT_RETURN_IF(upd.shape().dims() != expect, kInvalidArgument,
                         "updates " + upd.shape().ToString() + " do not match indices and data");
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, in));
    ONNX_LIGHT_RETURN_IF_ERROR(CopyInput(x, y));
    const std::vector<int64_t> idx = IndexValues(ind), st = RowMajorStrides(in);
    int64_t slice = 1;
    for (size_t d = q; d < in.size(); ++d)
      slice *= in[d];
    const int64_t n = q == 0 ? 0 : static_cast<int64_t>(idx.size() / q);
    for (int64_t i = 0; i < n; ++i) {
      int64_t base = 0;
      for (size_t d = 0; d < q; ++d) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t p,
                                    ResolveIndex(idx[static_cast<size_t>(i) * q + d], in[d]));
        base += p * st[d];
      }
      if (reduction_ == Reduction::kNone) {  // the slice in one copy (later ones win)
        CopyElements(upd, i * slice, y, base, ItemSize(x.dtype()), slice);
        continue;
      }
      for (int64_t e = 0; e < slice; ++e)
        Combine(upd, i * slice + e, y, base + e, reduction_);
    }
    return Status::Ok();
  }

 private:
  Reduction reduction_ = Reduction::kNone;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ScatterElements) {
  return r.Register(Def("ScatterElements", 11,
                        {{"T", {0, 2}, {0}, AllTensorTypes()}, {"Tind", {1}, {}, IndexTypes()}},
                        FactoryOf<ScatterElements>()));
}
// Scatter (opset 9-10, deprecated in 11) is ScatterElements without `reduction`.
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Scatter) {
  KernelDef def =
      Def("Scatter", 9, {{"T", {0, 2}, {0}, AllTensorTypes()}, {"Tind", {1}, {}, IndexTypes()}},
          FactoryOf<ScatterElements>());
  def.end_version = 10;
  return r.Register(std::move(def));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ScatterND) {
  return r.Register(Def("ScatterND", 11,
                        {{"T", {0, 2}, {0}, AllTensorTypes()}, {"I", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<ScatterND>()));
}

}  // namespace onnx_light::kernels
