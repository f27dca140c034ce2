// Indexing and data movement: Gather, GatherElements, Slice, Split, Tile, Range,
// Trilu, CumSum, CumProd, Dropout (inference). Data movement works on every tensor type, strings
// included; index inputs are int32 or int64 and negative indices count from the end.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// ---- Gather / GatherElements ----------------------------------------------------------

class Gather : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Gather>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& ind = *ctx.input(1);
    const std::vector<int64_t>& in = x.shape().dims();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis,
                                NormalizeAxis(axis_, static_cast<int64_t>(in.size())));
    const auto ax = static_cast<size_t>(axis);
    std::vector<int64_t> dims(in.begin(), in.begin() + axis);
    dims.insert(dims.end(), ind.shape().dims().begin(), ind.shape().dims().end());
    dims.insert(dims.end(), in.begin() + axis + 1, in.end());
    std::vector<int64_t> idx = IndexValues(ind);
    for (int64_t& i : idx) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(i, ResolveIndex(i, in[ax]));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const int64_t outer = Product(in, 0, ax), inner = Product(in, ax + 1, in.size());
    const size_t item = ItemSize(x.dtype());
    int64_t j = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i : idx) {
        const int64_t src = (o * in[ax] + i) * inner;
        if (item != 0) {
          std::memcpy(static_cast<char*>(y->mutable_raw_data()) + j * static_cast<int64_t>(item),
                      static_cast<const char*>(x.raw_data()) + src * static_cast<int64_t>(item),
                      static_cast<size_t>(inner) * item);
          j += inner;
        } else {
          for (int64_t e = 0; e < inner; ++e)
            CopyElement(x, src + e, y, j++, item);
        }
      }
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
};

class GatherElements : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<GatherElements>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& ind = *ctx.input(1);
    const std::vector<int64_t>& in = x.shape().dims();
    const std::vector<int64_t>& id = ind.shape().dims();
    const auto rank = static_cast<int64_t>(in.size());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    if (id.size() != in.size()) {
      return Status(StatusCode::kInvalidArgument, "indices " + ind.shape().ToString() +
                                                      " must have the rank of data " +
                                                      x.shape().ToString());
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, id));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto offsets, AxisElementOffsets(ind, in, axis));
    const size_t item = ItemSize(x.dtype());
    for (int64_t j = 0; j < y->num_elements(); ++j)
      CopyElement(x, offsets[static_cast<size_t>(j)], y, j, item);
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
};

// ---- Slice ----------------------------------------------------------------------------

// Copies the strided box (start, step per axis, out dims) of x into y.
void CopyBox(const Tensor& x, const std::vector<int64_t>& start, const std::vector<int64_t>& step,
             Tensor* y) {
  const std::vector<int64_t>& in = x.shape().dims();
  const std::vector<int64_t>& out = y->shape().dims();
  const size_t rank = in.size();
  const std::vector<int64_t> strides = RowMajorStrides(in);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d)
    base += start[d] * strides[d];
  std::vector<int64_t> pos(rank, 0);
  const size_t item = ItemSize(x.dtype());
  int64_t off = base;
  if (rank > 0 && step[rank - 1] == 1 && DataTypeBitWidth(x.dtype()) % 8 == 0) {
    // Unit step along the last axis: whole runs at a time (memcpy for numbers). Trailing
    // axes copied whole (all of the input, unit step) join the run with the axis before
    // them, so a slice of [N, C, H, 1] along H copies H elements at a time, not one.
    size_t first = rank - 1;  // the run covers axes first .. rank - 1
    int64_t run = out[rank - 1];
    while (first > 0 && out[first] == in[first] && step[first - 1] == 1) {
      --first;
      run *= out[first];
    }
    if (run == 0) return;
    for (int64_t j = 0; j < y->num_elements(); j += run) {
      CopyElements(x, off, y, j, item, run);
      for (size_t d = first; d-- > 0;) {
        off += step[d] * strides[d];
        if (++pos[d] < out[d]) break;
        off -= step[d] * strides[d] * out[d];
        pos[d] = 0;
      }
    }
    return;
  }
  if (rank > 0 && (item == 1 || item == 2 || item == 4 || item == 8) &&
      static_cast<size_t>(DataTypeBitWidth(x.dtype())) == 8 * item) {
    // A strided last axis (e.g. x[..., ::2] in YOLO's Focus layer): one output row at a
    // time with typed loads, the position carried once per row.
    auto rows = [&](auto* src, auto* dst) {
      const int64_t run = out[rank - 1], st = step[rank - 1];
      for (int64_t j = 0; j < y->num_elements(); j += run) {
        for (int64_t k = 0; k < run; ++k)
          dst[j + k] = src[off + k * st];
        for (size_t d = rank - 1; d-- > 0;) {
          off += step[d] * strides[d];
          if (++pos[d] < out[d]) break;
          off -= step[d] * strides[d] * out[d];
          pos[d] = 0;
        }
      }
    };
    switch (item) {
      case 1:
        rows(static_cast<const uint8_t*>(x.raw_data()),
             static_cast<uint8_t*>(y->mutable_raw_data()));
        break;
      case 2:
        rows(static_cast<const uint16_t*>(x.raw_data()),
             static_cast<uint16_t*>(y->mutable_raw_data()));
        break;
      case 4:
        rows(static_cast<const uint32_t*>(x.raw_data()),
             static_cast<uint32_t*>(y->mutable_raw_data()));
        break;
      default:
        rows(static_cast<const uint64_t*>(x.raw_data()),
             static_cast<uint64_t*>(y->mutable_raw_data()));
    }
    return;
  }
  for (int64_t j = 0; j < y->num_elements(); ++j) {
    CopyElement(x, off, y, j, item);
    for (size_t d = rank; d-- > 0;) {
      off += step[d] * strides[d];
      if (++pos[d] < out[d]) break;
      off -= step[d] * strides[d] * out[d];
      pos[d] = 0;
    }
  }
}

class Slice : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Slice>();
    k->legacy_ = info.opset() < 10;
    if (k->legacy_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->starts_, info.GetInts("starts"));
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->ends_, info.GetInts("ends"));
      if (info.HasAttribute("axes")) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(k->axes_, info.GetInts("axes"));
      }
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    std::vector<int64_t> starts = starts_, ends = ends_, axes = axes_, steps;
    if (!legacy_) {
      starts = IndexValues(*ctx.input(1));
      ends = IndexValues(*ctx.input(2));
      axes.clear();
      if (const Tensor* a = ctx.input(3)) axes = IndexValues(*a);
      if (const Tensor* s = ctx.input(4)) steps = IndexValues(*s);
    }
    const std::vector<int64_t>& in = x.shape().dims();
    const auto rank = static_cast<int64_t>(in.size());
    if (axes.empty()) {
      for (size_t i = 0; i < starts.size(); ++i)
        axes.push_back(static_cast<int64_t>(i));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size()) {
      return Status(StatusCode::kInvalidArgument, "starts, ends, axes and steps differ in length");
    }
    std::vector<int64_t> out = in, start(in.size(), 0), step(in.size(), 1);
    std::vector<bool> seen(in.size(), false);
    for (size_t i = 0; i < starts.size(); ++i) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axes[i], rank));
      const auto u = static_cast<size_t>(ax);
      if (seen[u]) {
        return Status(StatusCode::kInvalidArgument, "repeated axis");
      }
      seen[u] = true;
      const int64_t len = in[u], st = steps[i];
      if (st == 0) {
        return Status(StatusCode::kInvalidArgument, "step is 0");
      }
      int64_t b = starts[i], e = ends[i];
      if (b < 0) b += len;
      if (e < 0) e += len;
      // The count is 1 + (span - 1) / |step|, in unsigned arithmetic: a step near the
      // int64 extremes made (span + step - 1) and -step overflow.
      const uint64_t magnitude =
          st > 0 ? static_cast<uint64_t>(st) : static_cast<uint64_t>(-(st + 1)) + 1;
      if (st > 0) {
        b = std::clamp<int64_t>(b, 0, len);
        e = std::clamp<int64_t>(e, 0, len);
        out[u] = e > b ? static_cast<int64_t>(1 + static_cast<uint64_t>(e - b - 1) / magnitude) : 0;
      } else {
        b = std::clamp<int64_t>(b, -1, len - 1);
        e = std::clamp<int64_t>(e, -1, len - 1);
        out[u] = b > e ? static_cast<int64_t>(1 + static_cast<uint64_t>(b - e - 1) / magnitude) : 0;
      }
      start[u] = out[u] > 0 ? b : 0;
      // With one element along the axis the step is never taken (and a huge one would
      // overflow the copy's offsets); with more, |step| * (count - 1) < len.
      step[u] = out[u] > 1 ? st : 1;
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    if (y->num_elements() > 0) CopyBox(x, start, step, y);
    return Status::Ok();
  }

 private:
  bool legacy_ = false;
  std::vector<int64_t> starts_, ends_, axes_;
};

// ---- Split ----------------------------------------------------------------------------

class Split : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Split>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    if (info.HasAttribute("split")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->split_, info.GetInts("split"));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->num_outputs_, info.GetInt("num_outputs", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis,
                                NormalizeAxis(axis_, static_cast<int64_t>(in.size())));
    const auto ax = static_cast<size_t>(axis);
    const auto n = static_cast<int64_t>(ctx.output_count());
    std::vector<int64_t> split = split_;
    if (const Tensor* s = ctx.input(1)) split = IndexValues(*s);
    if (split.empty()) {
      // Equal parts; with num_outputs (opset 18) the last part may be smaller.
      const int64_t chunk = (in[ax] + n - 1) / n;
      if (num_outputs_ == 0 && in[ax] % n != 0) {
        return Status(StatusCode::kInvalidArgument, "dimension " + std::to_string(in[ax]) +
                                                        " does not split into " +
                                                        std::to_string(n) + " equal parts");
      }
      for (int64_t i = 0, left = in[ax]; i < n; ++i, left -= chunk)
        split.push_back(std::max<int64_t>(0, std::min(chunk, left)));
    }
    int64_t total = 0;
    for (int64_t s : split) {
      if (s < 0) {
        return Status(StatusCode::kInvalidArgument, "negative split");
      }
      if (__builtin_add_overflow(total, s, &total)) {
        return Status(StatusCode::kInvalidArgument, "split sizes overflow int64");
      }
    }
    if (static_cast<int64_t>(split.size()) != n || total != in[ax]) {
      return Status(StatusCode::kInvalidArgument, "split sizes do not match " + std::to_string(n) +
                                                      " outputs summing to " +
                                                      std::to_string(in[ax]));
    }
    std::vector<int64_t> start(in.size(), 0), step(in.size(), 1);
    for (size_t k = 0; k < split.size(); ++k) {
      std::vector<int64_t> dims = in;
      dims[ax] = split[k];
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(k, dims));
      if (y->num_elements() > 0) CopyBox(x, start, step, y);
      start[ax] += split[k];
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  int64_t num_outputs_ = 0;
  std::vector<int64_t> split_;
};

// ---- Tile, Range ----------------------------------------------------------------------

class Tile : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Tile());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto reps, Int64Values(ctx.input(1), "repeats"));
    const std::vector<int64_t>& in = x.shape().dims();
    if (reps.size() != in.size()) {
      return Status(StatusCode::kInvalidArgument, "repeats has " + std::to_string(reps.size()) +
                                                      " values for rank " +
                                                      std::to_string(in.size()));
    }
    std::vector<int64_t> out(in.size());
    for (size_t d = 0; d < in.size(); ++d) {
      if (reps[d] < 0) {
        return Status(StatusCode::kInvalidArgument, "negative repeat");
      }
      if (__builtin_mul_overflow(in[d], reps[d], &out[d])) {
        return Status(StatusCode::kOutOfRange, "dimension " + std::to_string(d) + " (" +
                                                   std::to_string(in[d]) + ") repeated " +
                                                   std::to_string(reps[d]) + " times overflows");
      }
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const std::vector<int64_t> strides = RowMajorStrides(in);
    std::vector<int64_t> pos(in.size(), 0);
    const size_t item = ItemSize(x.dtype());
    for (int64_t j = 0; j < y->num_elements(); ++j) {
      int64_t src = 0;
      for (size_t d = 0; d < in.size(); ++d)
        src += (pos[d] % in[d]) * strides[d];
      CopyElement(x, src, y, j, item);
      for (size_t d = out.size(); d-- > 0;) {
        if (++pos[d] < out[d]) break;
        pos[d] = 0;
      }
    }
    return Status::Ok();
  }
};

class Range : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Range());
  }
  Status Compute(KernelContext& ctx) const override {
    for (size_t i = 0; i < 3; ++i) {
      if (ctx.input(i)->num_elements() != 1) {
        return Status(StatusCode::kInvalidArgument,
                      "input " + std::to_string(i) + " must be a scalar");
      }
    }
    Status status = Status::Ok();
    DispatchNumeric(ctx.input(0)->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const auto start = static_cast<double>(Widen(ctx.input(0)->data<T>()[0]));
        const auto limit = static_cast<double>(Widen(ctx.input(1)->data<T>()[0]));
        const auto delta = static_cast<double>(Widen(ctx.input(2)->data<T>()[0]));
        if (delta == 0) {
          status = Status(StatusCode::kInvalidArgument, "delta is 0");
          return;
        }
        const double count = std::max(0.0, std::ceil((limit - start) / delta));
        if (!(count < 1e15)) {
          status = Status(StatusCode::kOutOfRange, "too many elements");
          return;
        }
        Result<Tensor*> y = ctx.AllocateOutput(0, {static_cast<int64_t>(count)});
        if (!y.ok()) {
          status = y.status();
          return;
        }
        T* out = (*y)->template mutable_data<T>();
        const T t_start = ctx.input(0)->data<T>()[0], t_delta = ctx.input(2)->data<T>()[0];
        T v = t_start;  // accumulated in T, as the reference implementation does
        const auto n = static_cast<int64_t>(count);
        for (int64_t i = 0; i < n; ++i) {
          out[i] = v;
          // Every value written lies between start and limit; the one after the last may
          // not fit the type (int64 from INT64_MAX down by INT64_MIN), so it is not made.
          if (i + 1 < n) v = static_cast<T>(Widen(v) + Widen(t_delta));
        }
      }
    });
    return status;
  }
};

// ---- Trilu, CumSum, Dropout -----------------------------------------------------------

class Trilu : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Trilu>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t upper, info.GetInt("upper", 1));
    k->upper_ = upper != 0;
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    if (in.size() < 2) {
      return Status(StatusCode::kInvalidArgument, "rank must be >= 2");
    }
    int64_t k = 0;
    if (const Tensor* kt = ctx.input(1)) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(auto kv, Int64Values(kt, "k"));
      if (kv.size() != 1) {
        return Status(StatusCode::kInvalidArgument, "k must be a scalar");
      }
      k = kv[0];
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, in));
    const int64_t rows = in[in.size() - 2], cols = in[in.size() - 1];
    const size_t item = ItemSize(x.dtype());
    for (int64_t j = 0; j < y->num_elements(); ++j) {
      const int64_t c = j % cols, r = (j / cols) % rows;
      const bool keep = upper_ ? (c - r >= k) : (c - r <= k);
      if (keep) {
        CopyElement(x, j, y, j, item);
      } else {
        std::memset(static_cast<char*>(y->mutable_raw_data()) + j * static_cast<int64_t>(item), 0,
                    item);
      }
    }
    return Status::Ok();
  }

 private:
  bool upper_ = true;
};

// CumSum and CumProd (kProd): running sum/product along an axis; integers wrap.
template <bool kProd>
class Cumulative : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Cumulative>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->exclusive_, GetFlag(info, "exclusive", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->reverse_, GetFlag(info, "reverse", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t> av = IndexValues(*ctx.input(1));
    if (av.size() != 1) {
      return Status(StatusCode::kInvalidArgument, "axis must be a scalar");
    }
    const std::vector<int64_t>& in = x.shape().dims();
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis,
                                NormalizeAxis(av[0], static_cast<int64_t>(in.size())));
    const auto ax = static_cast<size_t>(axis);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, in));
    const int64_t outer = Product(in, 0, ax), len = in[ax], inner = Product(in, ax + 1, in.size());
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using C = std::conditional_t<std::is_integral_v<T>, T, double>;
        auto Fold = [](C a, C b) -> C {
          if constexpr (std::is_integral_v<C>) {  // wrap without undefined behaviour
            const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
            return static_cast<C>(kProd ? ua * ub : ua + ub);
          } else {
            return kProd ? a * b : a + b;
          }
        };
        const T* p = x.data<T>();
        T* q = y->mutable_data<T>();
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t j = 0; j < inner; ++j) {
            C acc = kProd ? C(1) : C(0);
            for (int64_t s = 0; s < len; ++s) {
              const int64_t k = reverse_ ? len - 1 - s : s;
              const int64_t at = (o * len + k) * inner + j;
              const C v = static_cast<C>(p[at]);
              if (!exclusive_) acc = Fold(acc, v);
              q[at] = static_cast<T>(acc);
              if (exclusive_) acc = Fold(acc, v);
            }
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

// Inference: the output is the input; the optional mask is all true. training_mode
// (opset 12+) set to true is accepted only with ratio 0 (the same result); with a ratio
// above 0 it needs a random mask and is refused rather than silently ignored.
class Dropout : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Dropout());
  }
  Status Compute(KernelContext& ctx) const override {
    if (const Tensor* training = ctx.input(2)) {
      const Tensor* ratio = ctx.input(1);
      double r = 0.5;  // the default ratio
      if (ratio != nullptr && ratio->num_elements() == 1) {
        DispatchNumeric(ratio->dtype(), [&](auto tag) {
          using R = decltype(tag);
          r = static_cast<double>(ratio->data<R>()[0]);
        });
      }
      if (training->dtype() == DataType::kBool && training->num_elements() == 1 &&
          training->data<bool>()[0] && r != 0.0) {
        return Status(StatusCode::kNotImplemented,
                      "training_mode=true with a ratio above 0 is not supported");
      }
    }
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(ctx.SetOutput(0, x));
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * mask, ctx.AllocateOutput(1, x.shape().dims()));
      if (mask->dtype() == DataType::kBool) {
        std::fill(mask->mutable_data<bool>(), mask->mutable_data<bool>() + mask->num_elements(),
                  true);
      } else {
        return Status(StatusCode::kNotImplemented, "a mask output of a type other than bool");
      }
    }
    return Status::Ok();
  }
};

Status BoolMask(const onnx::NodeProto&, int, const std::vector<DataType>& in,
                std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = in[0];
  if (out->size() > 1) (*out)[1] = DataType::kBool;
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Gather) {
  return r.Register(Def("Gather", 1,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"Tind", {1}, {}, IndexTypes()}},
                        FactoryOf<Gather>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GatherElements) {
  return r.Register(Def("GatherElements", 11,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"Tind", {1}, {}, IndexTypes()}},
                        FactoryOf<GatherElements>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Slice) {
  return r.Register(
      Def("Slice", 1, {{"T", {0}, {0}, AllTensorTypes()}, {"Tind", {1, 2, 3, 4}, {}, IndexTypes()}},
          FactoryOf<Slice>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Split) {
  return r.Register(
      Def("Split", 2, {{"T", {0}, UpTo(64), AllTensorTypes()}, {"S", {1}, {}, {DataType::kInt64}}},
          FactoryOf<Split>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Tile) {
  return r.Register(Def("Tile", 6,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"T1", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<Tile>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Range) {
  return r.Register(
      Def("Range", 11,
          {{"T",
            {0, 1, 2},
            {0},
            {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16,
             DataType::kInt16, DataType::kInt32, DataType::kInt64}}},
          FactoryOf<Range>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Trilu) {
  return r.Register(Def("Trilu", 14, {{"T", {0}, {0}, NumericTypes()}}, FactoryOf<Trilu>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, CumSum) {
  return r.Register(Def("CumSum", 11,
                        {{"T", {0}, {0}, NumericTypes()}, {"T2", {1}, {}, IndexTypes()}},
                        FactoryOf<Cumulative<false>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, CumProd) {
  return r.Register(Def("CumProd", 26,
                        {{"T", {0}, {0}, NumericTypes()}, {"T2", {1}, {}, IndexTypes()}},
                        FactoryOf<Cumulative<true>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Dropout) {
  KernelDef def = Def("Dropout", 7, {{"T", {0}, {0}, FloatTypes()}}, FactoryOf<Dropout>());
  def.output_types = &BoolMask;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
