// Ops whose output shape depends on the data: OneHot, Compress, NonZero, Unique, and the
// selection ops ReverseSequence and CenterCropPad. They move elements by byte copies (CopyElement),
// so every fixed-size type and string works.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// The geometry along `axis` (or along the flattened input without one): the dims seen,
// the axis, its length, and the element counts before and after it.
struct AxisGeometry {
  std::vector<int64_t> dims;
  int64_t axis = 0, len = 0, outer = 1, inner = 1;
};

Result<AxisGeometry> AlongAxis(const Tensor& x, bool has_axis, int64_t axis_attr) {
  AxisGeometry g;
  g.dims = x.shape().dims();
  if (has_axis) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(g.axis,
                                NormalizeAxis(axis_attr, static_cast<int64_t>(g.dims.size())));
  } else {
    g.dims = {x.num_elements()};
  }
  g.len = g.dims[static_cast<size_t>(g.axis)];
  for (size_t d = 0; d < g.dims.size(); ++d) {
    if (static_cast<int64_t>(d) < g.axis) g.outer *= g.dims[d];
    if (static_cast<int64_t>(d) > g.axis) g.inner *= g.dims[d];
  }
  return g;
}

// OneHot(indices, depth, values=[off, on]) with `axis`: indices in [-depth, depth) select
// (negative ones count from the end); others give an all-off row, as the spec says.
class OneHot : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<OneHot>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", -1));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& ind = *ctx.input(0);
    const Tensor& depth_t = *ctx.input(1);
    const Tensor& values = *ctx.input(2);
    if (depth_t.num_elements() != 1) {
      return Status(StatusCode::kInvalidArgument, "depth must have one element");
    }
    if (values.num_elements() != 2 || values.shape().rank() != 1) {
      return Status(StatusCode::kInvalidArgument, "values must be [off_value, on_value]");
    }
    const double depth_d = ToDoubles(&depth_t)[0];
    if (!(depth_d >= 1) || depth_d > 9.0e15) {
      return Status(StatusCode::kInvalidArgument,
                    "depth must be a positive count, got " + std::to_string(depth_d));
    }
    const auto depth = static_cast<int64_t>(depth_d);
    const auto rank = static_cast<int64_t>(ind.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank + 1));
    std::vector<int64_t> dims = ind.shape().dims();
    dims.insert(dims.begin() + axis, depth);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const std::vector<double> idx = ToDoubles(&ind);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d)
      (d < axis ? outer : inner) *= ind.shape()[static_cast<size_t>(d)];
    const size_t item = ItemSize(values.dtype());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < depth; ++c) {
        for (int64_t i = 0; i < inner; ++i) {
          double v = std::trunc(idx[static_cast<size_t>(o * inner + i)]);
          if (v < 0) v += static_cast<double>(depth);
          const bool on = v == static_cast<double>(c);
          CopyElement(values, on ? 1 : 0, y, (o * depth + c) * inner + i, item);
        }
      }
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = -1;
};

// Compress(input, condition) along `axis` (flattened without one). A condition shorter
// than the axis leaves the rest out, as the spec allows; a longer one is an error.
class Compress : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Compress>();
    k->has_axis_ = info.HasAttribute("axis");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& cond = *ctx.input(1);
    if (cond.shape().rank() != 1) {
      return Status(StatusCode::kInvalidArgument,
                    "condition must be 1-D, got " + cond.shape().ToString());
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(AxisGeometry g, AlongAxis(x, has_axis_, axis_));
    const int64_t len = g.len, outer = g.outer, inner = g.inner;
    if (cond.num_elements() > len) {
      return Status(StatusCode::kInvalidArgument,
                    "condition has " + std::to_string(cond.num_elements()) +
                        " entries, more than the " + std::to_string(len) + " along the axis");
    }
    std::vector<int64_t> keep;
    for (int64_t i = 0; i < cond.num_elements(); ++i)
      if (cond.data<bool>()[i]) keep.push_back(i);
    std::vector<int64_t> out = g.dims;
    out[static_cast<size_t>(g.axis)] = static_cast<int64_t>(keep.size());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const size_t item = ItemSize(x.dtype());
    int64_t j = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k : keep)
        for (int64_t i = 0; i < inner; ++i)
          CopyElement(x, (o * len + k) * inner + i, y, j++, item);
    return Status::Ok();
  }

 private:
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

// True when element i of x is not zero (false for "" strings).
bool NonZeroAt(const Tensor& x, int64_t i) {
  if (x.dtype() == DataType::kString) return !x.data<std::string>()[i].empty();
  if (x.dtype() == DataType::kBool) return x.data<bool>()[i];
  bool nz = false;
  DispatchNumeric(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    nz = static_cast<double>(x.data<T>()[i]) != 0.0;
  });
  return nz;
}

// NonZero: the indices of the non-zero elements, [rank, count], in row-major order.
class NonZero : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new NonZero());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < x.num_elements(); ++i)
      if (NonZeroAt(x, i)) hits.push_back(i);
    const std::vector<int64_t>& dims = x.shape().dims();
    const auto rank = static_cast<int64_t>(dims.size());
    const auto n = static_cast<int64_t>(hits.size());
    // A scalar counts as 1-D of one element (numpy's and ORT's behaviour).
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {std::max<int64_t>(rank, 1), n}));
    int64_t* out = y->mutable_data<int64_t>();
    if (rank == 0) {
      std::fill(out, out + n, 0);
      return Status::Ok();
    }
    const std::vector<int64_t> st = RowMajorStrides(dims);
    for (int64_t j = 0; j < n; ++j) {
      int64_t rest = hits[static_cast<size_t>(j)];
      for (int64_t d = 0; d < rank; ++d) {
        out[d * n + j] = rest / st[static_cast<size_t>(d)];
        rest %= st[static_cast<size_t>(d)];
      }
    }
    return Status::Ok();
  }
};

// Unique along `axis` (flattened without one): Y, the index of each unique slice's first
// occurrence, the inverse indices, and the counts. sorted=1 orders the unique slices
// ascending (lexicographically for slices; NaN last, as numpy), sorted=0 by first
// occurrence.
class Unique : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Unique>();
    k->has_axis_ = info.HasAttribute("axis");
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->sorted_, GetFlag(info, "sorted", true));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(AxisGeometry geo, AlongAxis(x, has_axis_, axis_));
    const std::vector<int64_t>& dims = geo.dims;
    const int64_t axis = geo.axis, len = geo.len, outer = geo.outer, inner = geo.inner;
    // Three-way comparison of slices a and b along the axis.
    auto element_less = [&](int64_t i, int64_t j) -> int {
      if (x.dtype() == DataType::kString) {
        const std::string& u = x.data<std::string>()[i];
        const std::string& v = x.data<std::string>()[j];
        return u < v ? -1 : (v < u ? 1 : 0);
      }
      int r = 0;
      auto cmp = [&](auto u, auto v) {
        const bool un = u != u, vn = v != v;  // NaN sorts last and equals NaN
        if (un || vn) {
          r = un == vn ? 0 : (un ? 1 : -1);
        } else {
          r = u < v ? -1 : (v < u ? 1 : 0);
        }
      };
      if (x.dtype() == DataType::kBool) {
        cmp(x.data<bool>()[i], x.data<bool>()[j]);
      } else {
        DispatchNumeric(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          cmp(Widen(x.data<T>()[i]), Widen(x.data<T>()[j]));
        });
      }
      return r;
    };
    auto slice_cmp = [&](int64_t a, int64_t b) -> int {
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const int r = element_less((o * len + a) * inner + i, (o * len + b) * inner + i);
          if (r != 0) return r;
        }
      }
      return 0;
    };
    // Sort slice positions (stable: equal slices keep their order), then group.
    std::vector<int64_t> order(static_cast<size_t>(len));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return slice_cmp(a, b) < 0; });
    std::vector<int64_t> group_of(static_cast<size_t>(len));
    std::vector<int64_t> first, counts;  // per group, in sorted order
    for (size_t r = 0; r < order.size(); ++r) {
      if (r == 0 || slice_cmp(order[r - 1], order[r]) != 0) {
        first.push_back(order[r]);
        counts.push_back(0);
      }
      group_of[static_cast<size_t>(order[r])] = static_cast<int64_t>(first.size()) - 1;
      ++counts.back();
    }
    const auto groups = static_cast<int64_t>(first.size());
    // Output order of the groups: sorted, or by first occurrence.
    std::vector<int64_t> rank_of(static_cast<size_t>(groups));
    std::iota(rank_of.begin(), rank_of.end(), 0);
    if (!sorted_) {
      std::vector<int64_t> by_first(static_cast<size_t>(groups));
      std::iota(by_first.begin(), by_first.end(), 0);
      std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) {
        return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)];
      });
      for (int64_t r = 0; r < groups; ++r)
        rank_of[static_cast<size_t>(by_first[static_cast<size_t>(r)])] = r;
    }
    std::vector<int64_t> ydims = dims;
    ydims[static_cast<size_t>(axis)] = groups;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, ydims));
    const size_t item = ItemSize(x.dtype());
    std::vector<int64_t> idx_out(static_cast<size_t>(groups)), cnt_out(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t r = rank_of[static_cast<size_t>(g)];
      idx_out[static_cast<size_t>(r)] = first[static_cast<size_t>(g)];
      cnt_out[static_cast<size_t>(r)] = counts[static_cast<size_t>(g)];
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i)
          CopyElement(x, (o * len + first[static_cast<size_t>(g)]) * inner + i, y,
                      (o * groups + r) * inner + i, item);
    }
    auto write = [&](size_t k, const std::vector<int64_t>& v) -> Status {
      if (ctx.output_count() <= k) return Status::Ok();
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * t,
                                  ctx.AllocateOutput(k, {static_cast<int64_t>(v.size())}));
      if (!v.empty()) std::memcpy(t->mutable_data<int64_t>(), v.data(), v.size() * 8);
      return Status::Ok();
    };
    std::vector<int64_t> inverse(static_cast<size_t>(len));
    for (int64_t p = 0; p < len; ++p)
      inverse[static_cast<size_t>(p)] =
          rank_of[static_cast<size_t>(group_of[static_cast<size_t>(p)])];
    ONNX_LIGHT_RETURN_IF_ERROR(write(1, idx_out));
    ONNX_LIGHT_RETURN_IF_ERROR(write(2, inverse));
    return write(3, cnt_out);
  }

 private:
  bool has_axis_ = false, sorted_ = true;
  int64_t axis_ = 0;
};

// ReverseSequence: for each batch entry b, the first sequence_lens[b] steps along
// time_axis are reversed; the rest are copied.
class ReverseSequence : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ReverseSequence>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->batch_axis_, info.GetInt("batch_axis", 1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->time_axis_, info.GetInt("time_axis", 0));
    if (!((k->batch_axis_ == 0 && k->time_axis_ == 1) ||
          (k->batch_axis_ == 1 && k->time_axis_ == 0))) {
      return Status(StatusCode::kInvalidModel,
                    "batch_axis and time_axis must be 0 and 1 in some order");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& lens = *ctx.input(1);
    if (x.shape().rank() < 2) {
      return Status(StatusCode::kInvalidArgument, "input must have rank >= 2");
    }
    const int64_t batch = x.shape()[static_cast<size_t>(batch_axis_)];
    const int64_t steps = x.shape()[static_cast<size_t>(time_axis_)];
    if (lens.shape().rank() != 1 || lens.num_elements() != batch) {
      return Status(StatusCode::kInvalidArgument,
                    "sequence_lens must be [" + std::to_string(batch) + "]");
    }
    const std::vector<int64_t> len = IndexValues(lens);
    for (int64_t l : len) {
      if (l < 0 || l > steps) {
        return Status(StatusCode::kInvalidArgument, "sequence length " + std::to_string(l) +
                                                        " is outside [0, " + std::to_string(steps) +
                                                        "]");
      }
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t inner = x.num_elements() / std::max<int64_t>(1, batch * steps);
    const size_t item = ItemSize(x.dtype());
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t src_t =
            t < len[static_cast<size_t>(b)] ? len[static_cast<size_t>(b)] - 1 - t : t;
        auto at = [&](int64_t tt) {
          return (time_axis_ == 0 ? tt * batch + b : b * steps + tt) * inner;
        };
        for (int64_t i = 0; i < inner; ++i)
          CopyElement(x, at(src_t) + i, y, at(t) + i, item);
      }
    }
    return Status::Ok();
  }

 private:
  int64_t batch_axis_ = 1, time_axis_ = 0;
};

// CenterCropPad: each listed axis is cropped (centered, the extra element at the end) or
// zero-padded (centered likewise) to the requested size.
class CenterCropPad : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<CenterCropPad>();
    if (info.HasAttribute("axes")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->axes_, info.GetInts("axes"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> shape, Int64Values(ctx.input(1), "shape"));
    const auto rank = static_cast<int64_t>(x.shape().rank());
    std::vector<int64_t> axes = axes_;
    if (axes.empty())
      for (int64_t d = 0; d < rank; ++d)
        axes.push_back(d);
    if (axes.size() != shape.size()) {
      return Status(StatusCode::kInvalidArgument, "shape has " + std::to_string(shape.size()) +
                                                      " entries for " +
                                                      std::to_string(axes.size()) + " axes");
    }
    std::vector<int64_t> out = x.shape().dims();
    std::vector<int64_t> src0(static_cast<size_t>(rank), 0), dst0(static_cast<size_t>(rank), 0);
    std::vector<int64_t> count = out;
    for (size_t i = 0; i < axes.size(); ++i) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axes[i], rank));
      const auto d = static_cast<size_t>(a);
      if (shape[i] < 0) {
        return Status(StatusCode::kInvalidArgument, "negative size " + std::to_string(shape[i]));
      }
      const int64_t dim = out[d], want = shape[i];
      src0[d] = dim > want ? (dim - want) / 2 : 0;
      dst0[d] = want > dim ? (want - dim) / 2 : 0;
      count[d] = std::min(dim, want);
      out[d] = want;
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const size_t item = ItemSize(x.dtype());
    if (item != 0 && y->byte_size() != 0) std::memset(y->mutable_raw_data(), 0, y->byte_size());
    int64_t n = 1;
    for (int64_t c : count)
      n *= c;
    const std::vector<int64_t> sst = RowMajorStrides(x.shape().dims()), dst = RowMajorStrides(out);
    std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t si = 0, di = 0;
      for (size_t d = 0; d < pos.size(); ++d) {
        si += (src0[d] + pos[d]) * sst[d];
        di += (dst0[d] + pos[d]) * dst[d];
      }
      CopyElement(x, si, y, di, item);
      for (size_t d = pos.size(); d-- > 0;) {
        if (++pos[d] < count[d]) break;
        pos[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, OneHot) {
  std::vector<DataType> num = NumericTypes();
  return r.Register(Def(
      "OneHot", 9, {{"T1", {0}, {}, num}, {"T2", {1}, {}, num}, {"T3", {2}, {0}, AllTensorTypes()}},
      FactoryOf<OneHot>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, CenterCropPad) {
  return r.Register(Def("CenterCropPad", 18,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"I", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<CenterCropPad>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Compress) {
  return r.Register(Def("Compress", 9,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"T1", {1}, {}, {DataType::kBool}}},
                        FactoryOf<Compress>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, NonZero) {
  return r.Register(Def("NonZero", 9,
                        {{"T", {0}, {}, AllTensorTypes()}, {"I", {}, {0}, {DataType::kInt64}}},
                        FactoryOf<NonZero>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Unique) {
  std::vector<DataType> types = NumericTypes();
  types.push_back(DataType::kBool);
  types.push_back(DataType::kString);
  return r.Register(Def("Unique", 11,
                        {{"T", {0}, {0}, types}, {"I", {}, {1, 2, 3}, {DataType::kInt64}}},
                        FactoryOf<Unique>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ReverseSequence) {
  return r.Register(Def("ReverseSequence", 10,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"I", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<ReverseSequence>()));
}

}  // namespace onnx_light::kernels
