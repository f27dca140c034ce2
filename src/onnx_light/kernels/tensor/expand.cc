// Expand: a tensor broadcast to a shape, every tensor type: the output in rows (runs of the
// input copied whole or one value repeated), strings element by element.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/broadcast.h"
#include "common/broadcast_rows.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/tensor_proto.h"

namespace onnx_light::kernels {
namespace {

// dst[0, n) = n copies of the item at src (item bytes each).
void Repeat(const char* src, size_t item, char* dst, int64_t n) {
  auto fill = [&](auto tag) {
    using U = decltype(tag);
    U v;
    std::memcpy(&v, src, sizeof(U));
    std::fill(reinterpret_cast<U*>(dst), reinterpret_cast<U*>(dst) + n, v);
  };
  switch (item) {
    case 1:
      std::memset(dst, static_cast<unsigned char>(*src), static_cast<size_t>(n));
      return;
    case 2:
      return fill(uint16_t{});
    case 4:
      return fill(uint32_t{});
    case 8:
      return fill(uint64_t{});
    default:
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + i * static_cast<int64_t>(item), src, item);
  }
}

class Expand : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Expand());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto target, Int64Values(ctx.input(1), "shape"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape ts, Shape::Create(target));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(x.shape(), ts));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const std::vector<int64_t> st = BroadcastStrides(x.shape(), dims);
    const size_t item = ItemSize(x.dtype());
    if (item > 0 && y->num_elements() > 0) {  // whole bytes (not strings, not 4-bit)
      // Rows of the merged output: a run of x copied whole, or one value repeated.
      const auto* src = static_cast<const char*>(x.raw_data());
      auto* dst = static_cast<char*>(y->mutable_raw_data());
      const auto b = static_cast<int64_t>(item);
      ForEachBroadcastRow<1>(
          dims, {st}, ctx.thread_pool(), [&](int64_t o, auto off, auto step, int64_t len) {
            if (step[0] == 1) {
              std::memcpy(dst + o * b, src + off[0] * b, static_cast<size_t>(len * b));
            } else {
              Repeat(src + off[0] * b, item, dst + o * b, len);
            }
          });
      return Status::Ok();
    }
    std::vector<int64_t> idx(dims.size(), 0);
    int64_t off = 0;
    for (int64_t j = 0; j < y->num_elements(); ++j) {
      CopyElement(x, off, y, j, item);
      for (size_t d = dims.size(); d-- > 0;) {
        off += st[d];
        if (++idx[d] < dims[d]) break;
        off -= st[d] * dims[d];
        idx[d] = 0;
      }
    }
    return Status::Ok();
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Expand) {
  return r.Register(Def("Expand", 8,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"S", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<Expand>()));
}

}  // namespace onnx_light::kernels
