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

// Whether each element is not zero, as one byte each (false for "" strings); a typed
// loop per dtype (NaN counts as non-zero, -0.0 as zero).
std::vector<uint8_t> NonZeroFlags(const Tensor& x) {
  const auto count = static_cast<size_t>(x.num_elements());
  std::vector<uint8_t> flags(count);
  if (x.dtype() == DataType::kString) {
    const std::string* v = x.data<std::string>();
    for (size_t i = 0; i < count; ++i)
      flags[i] = !v[i].empty();
  } else if (x.dtype() == DataType::kBool) {
    const auto* v = static_cast<const uint8_t*>(x.raw_data());
    for (size_t i = 0; i < count; ++i)
      flags[i] = v[i] != 0;
  } else {
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* v = x.data<T>();
      for (size_t i = 0; i < count; ++i) {
        if constexpr (std::is_arithmetic_v<T>) {
          flags[i] = v[i] != T(0);
        } else {
          flags[i] = static_cast<double>(v[i]) != 0.0;
        }
      }
    });
  }
  return flags;
}

// NonZero: the indices of the non-zero elements, [rank, count], in row-major order.
class NonZero : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new NonZero());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<uint8_t> flags = NonZeroFlags(x);
    int64_t n = 0;
    for (uint8_t f : flags)
      n += f;
    const std::vector<int64_t>& dims = x.shape().dims();
    const auto rank = static_cast<int64_t>(dims.size());
    // A scalar counts as 1-D of one element (numpy's and ORT's behaviour).
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {std::max<int64_t>(rank, 1), n}));
    int64_t* out = y->mutable_data<int64_t>();
    if (rank == 0 || n == 0) {
      std::fill(out, out + n, 0);
      return Status::Ok();
    }
    // Row by row along the last axis, the outer coordinates counted up like an odometer
    // (no division per hit); every element's coordinates are stored and the write
    // position advances only past non-zeros (no branch on the data). The slot past the
    // last hit is written and then overwritten or left: each coordinate row gets one
    // spare entry of scratch.
    const int64_t inner = dims.back();
    const int64_t rows = inner == 0 ? 0 : x.num_elements() / inner;
    std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
    std::vector<int64_t> scratch(static_cast<size_t>(rank) * static_cast<size_t>(n + 1));
    int64_t j = 0;
    const uint8_t* f = flags.data();
    for (int64_t r = 0; r < rows; ++r, f += inner) {
      for (int64_t i = 0; i < inner; ++i) {
        for (int64_t d = 0; d + 1 < rank; ++d)
          scratch[static_cast<size_t>(d * (n + 1) + j)] = coord[static_cast<size_t>(d)];
        scratch[static_cast<size_t>((rank - 1) * (n + 1) + j)] = i;
        j += f[i];
      }
      for (int64_t d = rank - 2; d >= 0; --d) {  // the next row's outer coordinates
        if (++coord[static_cast<size_t>(d)] < dims[static_cast<size_t>(d)]) break;
        coord[static_cast<size_t>(d)] = 0;
      }
    }
    for (int64_t d = 0; d < rank; ++d)
      std::copy_n(scratch.data() + d * (n + 1), n, out + d * n);
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
