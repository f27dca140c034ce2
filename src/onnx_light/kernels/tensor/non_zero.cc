// NonZero: the coordinates of the non-zero elements.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

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

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, NonZero) {
  return r.Register(Def("NonZero", 9,
                        {{"T", {0}, {}, AllTensorTypes()}, {"I", {}, {0}, {DataType::kInt64}}},
                        FactoryOf<NonZero>()));
}

}  // namespace onnx_light::kernels
