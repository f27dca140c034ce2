// Pad, TopK, ScatterElements, ScatterND, and the integer bit ops (BitwiseAnd/Or/Xor/Not,
// BitShift).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// ---- Bit ops --------------------------------------------------------------------------

enum class Bit { kAnd, kOr, kXor, kLeft, kRight };

template <Bit kBit>
class BitBinary : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<BitBinary>();
    if constexpr (kBit == Bit::kLeft || kBit == Bit::kRight) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::string dir, info.GetString("direction"));
      if (dir != "LEFT" && dir != "RIGHT") {
        return Status(StatusCode::kInvalidModel,
                      info.Describe() + ": direction must be LEFT or RIGHT, got '" + dir + "'");
      }
      k->left_ = dir == "LEFT";
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(1);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(a.shape(), b.shape(), ctx.info()));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const bool left = left_;
    DispatchNumeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        BroadcastApply(a.data<T>(), a.shape(), b.data<T>(), b.shape(), y->mutable_data<T>(), dims,
                       ctx.thread_pool(), [left](T u, T v) -> T {
                         if constexpr (kBit == Bit::kAnd) return static_cast<T>(u & v);
                         if constexpr (kBit == Bit::kOr) return static_cast<T>(u | v);
                         if constexpr (kBit == Bit::kXor) return static_cast<T>(u ^ v);
                         // BitShift (unsigned types): shifting by the width or more gives 0.
                         const auto shift = static_cast<uint64_t>(v);
                         if (shift >= sizeof(T) * 8) return T(0);
                         const auto w = static_cast<uint64_t>(u);
                         return static_cast<T>(left ? w << shift : w >> shift);
                       });
      }
    });
    return Status::Ok();
  }

 private:
  bool left_ = true;
};

class BitwiseNot : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new BitwiseNot());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        for (int64_t i = 0; i < x.num_elements(); ++i)
          y->mutable_data<T>()[i] = static_cast<T>(~x.data<T>()[i]);
      }
    });
    return Status::Ok();
  }
};

// ---- Pad ------------------------------------------------------------------------------

// Pad (constant, reflect, edge, wrap). Before opset 11 pads/value are attributes; from 11
// on inputs (pads, optional constant_value, optional axes from 18). Negative pads crop.
class Pad : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Pad>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->mode_, info.GetString("mode", "constant"));
    if (k->mode_ != "constant" && k->mode_ != "reflect" && k->mode_ != "edge" &&
        k->mode_ != "wrap") {
      return Status(StatusCode::kInvalidModel,
                    info.Describe() + ": unknown mode '" + k->mode_ + "'");
    }
    k->legacy_ = info.opset() < 11;
    if (k->legacy_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->pads_, info.GetInts(info.opset() < 2 ? "paddings" : "pads"));
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->value_, info.GetFloat("value", 0.0f));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    const auto rank = static_cast<int64_t>(in.size());
    std::vector<int64_t> pads = pads_;
    std::vector<int64_t> axes;
    if (!legacy_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(pads, Int64Values(ctx.input(1), ctx.info(), "pads"));
      if (const Tensor* a = ctx.input(3)) axes = IndexValues(*a);
    }
    if (axes.empty()) {
      axes.resize(static_cast<size_t>(rank));
      std::iota(axes.begin(), axes.end(), int64_t{0});
    }
    if (pads.size() != 2 * axes.size()) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": pads has " + std::to_string(pads.size()) +
                        " values, expected " + std::to_string(2 * axes.size()));
    }
    std::vector<int64_t> begin(in.size(), 0), out = in;
    for (size_t i = 0; i < axes.size(); ++i) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axes[i], rank, ctx.info()));
      const auto u = static_cast<size_t>(ax);
      begin[u] = pads[i];
      out[u] = in[u] + pads[i] + pads[i + axes.size()];
      if (out[u] < 0) {
        return Status(StatusCode::kInvalidArgument, ctx.info().Describe() + ": pads crop axis " +
                                                        std::to_string(ax) + " below zero");
      }
      if (mode_ != "constant" && in[u] == 0 && out[u] > 0) {
        return Status(StatusCode::kInvalidArgument,
                      ctx.info().Describe() + ": mode " + mode_ + " cannot pad an empty axis");
      }
      if (mode_ == "reflect" && in[u] == 1 && out[u] > 1) {
        return Status(StatusCode::kInvalidArgument,
                      ctx.info().Describe() + ": reflect needs at least 2 elements on axis " +
                          std::to_string(ax));
      }
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const std::vector<int64_t> st = RowMajorStrides(in);
    const size_t item = ItemSize(x.dtype());
    // The fill value for constant mode, as one element of x's type.
    Tensor fill;
    if (mode_ == "constant") {
      ONNX_LIGHT_ASSIGN_OR_RETURN(fill, Tensor::Allocate(x.dtype(), Shape()));
      const Tensor* cv = legacy_ ? nullptr : ctx.input(2);
      if (cv != nullptr && cv->num_elements() == 1) {
        CopyElement(*cv, 0, &fill, 0, item);
      } else {
        DispatchNumeric(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          fill.mutable_data<T>()[0] = static_cast<T>(legacy_ ? value_ : 0.0f);
        });
      }
    }
    std::vector<int64_t> pos(out.size(), 0);
    for (int64_t j = 0; j < y->num_elements(); ++j) {
      int64_t src = 0;
      bool inside = true;
      for (size_t d = 0; d < out.size() && inside; ++d) {
        int64_t p = pos[d] - begin[d];
        const int64_t n = in[d];
        if (p < 0 || p >= n) {
          if (mode_ == "constant") {
            inside = false;
          } else if (mode_ == "edge") {
            p = p < 0 ? 0 : n - 1;
          } else if (mode_ == "wrap") {
            p = ((p % n) + n) % n;
          } else {  // reflect, period 2n - 2
            const int64_t period = 2 * n - 2;
            p = ((p % period) + period) % period;
            if (p >= n) p = period - p;
          }
        }
        src += p * st[d];
      }
      if (inside) {
        CopyElement(x, src, y, j, item);
      } else {
        CopyElement(fill, 0, y, j, item);
      }
      for (size_t d = out.size(); d-- > 0;) {
        if (++pos[d] < out[d]) break;
        pos[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  std::string mode_ = "constant";
  bool legacy_ = false;
  std::vector<int64_t> pads_;
  float value_ = 0;
};

// ---- TopK -----------------------------------------------------------------------------

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
      ONNX_LIGHT_ASSIGN_OR_RETURN(auto kv, Int64Values(kt, ctx.info(), "K"));
      if (kv.size() != 1) {
        return Status(StatusCode::kInvalidArgument,
                      ctx.info().Describe() + ": K must hold one value");
      }
      k = kv[0];
    }
    const std::vector<int64_t>& in = x.shape().dims();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis,
                                NormalizeAxis(axis_, static_cast<int64_t>(in.size()), ctx.info()));
    const auto ax = static_cast<size_t>(axis);
    if (k < 0 || k > in[ax]) {
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": K=" + std::to_string(k) + " is outside [0, " +
                        std::to_string(in[ax]) + "]");
    }
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
    const bool largest = largest_;
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using C = typename ComputeType<T>::type;
        const T* xp = x.data<T>();
        std::vector<int64_t> order(static_cast<size_t>(len));
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t j = 0; j < inner; ++j) {
            auto at = [&](int64_t i) { return static_cast<C>(xp[(o * len + i) * inner + j]); };
            std::iota(order.begin(), order.end(), int64_t{0});
            // NaN sorts as the largest value, as ORT does.
            auto before = [&](int64_t p, int64_t q) {
              const C a = at(p), b = at(q);
              const bool an = a != a, bn = b != b;
              if (an || bn) return largest ? (an && !bn) : (!an && bn);
              if (a != b) return largest ? a > b : a < b;
              return p < q;
            };
            std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
            for (int64_t r = 0; r < k; ++r) {
              const int64_t dst = (o * k + r) * inner + j;
              values->mutable_data<T>()[dst] =
                  xp[(o * len + order[static_cast<size_t>(r)]) * inner + j];
              if (indices != nullptr) {
                indices->mutable_data<int64_t>()[dst] = order[static_cast<size_t>(r)];
              }
            }
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = -1;
  int64_t k_ = 0;
  bool largest_ = true;
};

// ---- Scatter --------------------------------------------------------------------------

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Result<Reduction> ReadReduction(const KernelInfo& info) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::string r, info.GetString("reduction", "none"));
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  return Status(StatusCode::kInvalidModel, info.Describe() + ": unknown reduction '" + r + "'");
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
      using C = typename ComputeType<T>::type;
      const C a = static_cast<C>(out->data<T>()[dst]), b = static_cast<C>(upd.data<T>()[src]);
      C r = a;
      if constexpr (std::is_integral_v<C>) {  // wrap without undefined behaviour
        const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
        if (red == Reduction::kAdd) r = static_cast<C>(ua + ub);
        if (red == Reduction::kMul) r = static_cast<C>(ua * ub);
      } else {
        if (red == Reduction::kAdd) r = a + b;
        if (red == Reduction::kMul) r = a * b;
      }
      if (red == Reduction::kMax) r = std::max(a, b);
      if (red == Reduction::kMin) r = std::min(a, b);
      out->mutable_data<T>()[dst] = static_cast<T>(r);
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
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank, ctx.info()));
    if (ind.shape() != upd.shape() || ind.shape().rank() != in.size()) {
      return Status(StatusCode::kInvalidArgument, ctx.info().Describe() + ": indices " +
                                                      ind.shape().ToString() + " and updates " +
                                                      upd.shape().ToString() +
                                                      " must match and have the rank of data");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, in));
    ONNX_LIGHT_RETURN_IF_ERROR(CopyInput(x, y));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto offsets, AxisElementOffsets(ind, in, axis, ctx.info()));
    for (int64_t j = 0; j < ind.num_elements(); ++j)
      Combine(upd, j, y, offsets[static_cast<size_t>(j)], reduction_);
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
      return Status(StatusCode::kInvalidArgument,
                    ctx.info().Describe() + ": indices " + ind.shape().ToString() +
                        " must end in a dimension in [1, rank of data]");
    }
    const auto q = static_cast<size_t>(id.back());
    std::vector<int64_t> expect(id.begin(), id.end() - 1);
    expect.insert(expect.end(), in.begin() + static_cast<int64_t>(q), in.end());
    if (upd.shape().dims() != expect) {
      return Status(StatusCode::kInvalidArgument, ctx.info().Describe() + ": updates " +
                                                      upd.shape().ToString() +
                                                      " do not match indices and data");
    }
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
        ONNX_LIGHT_ASSIGN_OR_RETURN(
            int64_t p, ResolveIndex(idx[static_cast<size_t>(i) * q + d], in[d], ctx.info()));
        base += p * st[d];
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

#define ONNX_LIGHT_BIT(Op, since, kind, types)                                                     \
  Status RegisterKernel_ai_onnx_##Op(KernelRegistry& r) {                                          \
    return r.Register(Def(#Op, since, {{"T", {0, 1}, {0}, types}}, FactoryOf<BitBinary<kind>>())); \
  }
ONNX_LIGHT_BIT(BitwiseAnd, 18, Bit::kAnd, IntegerTypes())
ONNX_LIGHT_BIT(BitwiseOr, 18, Bit::kOr, IntegerTypes())
ONNX_LIGHT_BIT(BitwiseXor, 18, Bit::kXor, IntegerTypes())
ONNX_LIGHT_BIT(BitShift, 11, Bit::kLeft,
               (std::vector<DataType>{DataType::kUint8, DataType::kUint16, DataType::kUint32,
                                      DataType::kUint64}))
#undef ONNX_LIGHT_BIT

Status RegisterKernel_ai_onnx_BitwiseNot(KernelRegistry& r) {
  return r.Register(UnaryDef("", "BitwiseNot", 18, IntegerTypes(), FactoryOf<BitwiseNot>()));
}
Status RegisterKernel_ai_onnx_Pad(KernelRegistry& r) {
  return r.Register(Def("Pad", 2, {{"T", {0, 2}, {0}, AllTensorTypes()}}, FactoryOf<Pad>()));
}
Status RegisterKernel_ai_onnx_TopK(KernelRegistry& r) {
  return r.Register(Def("TopK", 1,
                        {{"T", {0}, {0}, NumericTypes()}, {"I", {}, {1}, {DataType::kInt64}}},
                        FactoryOf<TopK>()));
}
Status RegisterKernel_ai_onnx_ScatterElements(KernelRegistry& r) {
  return r.Register(Def("ScatterElements", 11,
                        {{"T", {0, 2}, {0}, AllTensorTypes()}, {"Tind", {1}, {}, IndexTypes()}},
                        FactoryOf<ScatterElements>()));
}
// Scatter (opset 9-10, deprecated in 11) is ScatterElements without `reduction`.
Status RegisterKernel_ai_onnx_Scatter(KernelRegistry& r) {
  KernelDef def =
      Def("Scatter", 9, {{"T", {0, 2}, {0}, AllTensorTypes()}, {"Tind", {1}, {}, IndexTypes()}},
          FactoryOf<ScatterElements>());
  def.end_version = 10;
  return r.Register(std::move(def));
}
Status RegisterKernel_ai_onnx_ScatterND(KernelRegistry& r) {
  return r.Register(Def("ScatterND", 11,
                        {{"T", {0, 2}, {0}, AllTensorTypes()}, {"I", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<ScatterND>()));
}

}  // namespace onnx_light::kernels
