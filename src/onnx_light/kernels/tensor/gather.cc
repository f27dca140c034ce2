// Gather and GatherElements: elements of data picked by int32/int64 indices along an axis,
// negative indices counting from the end. Every tensor type, strings included.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

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

// GatherElements of whole-byte items: y[j] = x at j's position with the axis coordinate
// replaced by idx[j], row by row along the last axis (a row's base offset once, the index
// checked inline) instead of an offset table and a copy call per element.
template <typename U, typename I>
Status GatherAlongAxis(const U* x, const I* idx, U* y, const std::vector<int64_t>& in,
                       const std::vector<int64_t>& id, size_t axis) {
  const size_t rank = in.size();
  const std::vector<int64_t> st = RowMajorStrides(in);
  const int64_t last = id[rank - 1], len = in[axis], axis_stride = st[axis];
  const int64_t step = axis + 1 == rank ? 0 : 1;  // along the last axis, off the gathered one
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d)
    rows *= id[d];
  std::vector<int64_t> pos(rank, 0);
  int64_t j = 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = 0;
    for (size_t d = 0; d + 1 < rank; ++d)
      if (d != axis) base += pos[d] * st[d];
    for (int64_t k = 0; k < last; ++k, ++j) {
      int64_t p = static_cast<int64_t>(idx[j]);
      if (p < -len || p >= len) return ResolveIndex(p, len).status();
      p += p < 0 ? len : 0;
      y[j] = x[base + k * step + p * axis_stride];
    }
    for (size_t d = rank - 1; d-- > 0;) {
      if (++pos[d] < id[d]) break;
      pos[d] = 0;
    }
  }
  return Status::Ok();
}

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
    ONNX_LIGHT_RETURN_IF(id.size() != in.size(), kInvalidArgument,
                         "indices " + ind.shape().ToString() + " must have the rank of data " +
                             x.shape().ToString());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, id));
    const size_t item = ItemSize(x.dtype());
    if (y->num_elements() > 0 && item > 0) {
      ONNX_LIGHT_RETURN_IF_ERROR(CheckAxisIndicesShape(ind, in, axis));
      Status st = Status::Ok();
      const bool fixed = ForFixedItem(item, [&](auto tag) {
        using U = decltype(tag);
        const auto* xp = static_cast<const U*>(x.raw_data());
        auto* yp = static_cast<U*>(y->mutable_raw_data());
        st = ind.dtype() == DataType::kInt32
                 ? GatherAlongAxis(xp, ind.data<int32_t>(), yp, in, id, static_cast<size_t>(axis))
                 : GatherAlongAxis(xp, ind.data<int64_t>(), yp, in, id, static_cast<size_t>(axis));
      });
      if (fixed) return st;
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto offsets, AxisElementOffsets(ind, in, axis));
    for (int64_t j = 0; j < y->num_elements(); ++j)
      CopyElement(x, offsets[static_cast<size_t>(j)], y, j, item);
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
};

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

}  // namespace onnx_light::kernels
