// Det: determinants of the trailing [M, M] matrices, LU with partial pivoting in double.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "math/gemm.h"

namespace onnx_light::kernels {
namespace {

// Det: determinants of the trailing [M, M] matrices, by LU with partial pivoting in
// double.
class Det : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Det());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const std::vector<int64_t>& d = x.shape().dims();
    ONNX_LIGHT_RETURN_IF(d.size() < 2 || d[d.size() - 1] != d[d.size() - 2], kInvalidArgument,
                         "input must be [..., M, M], got " + x.shape().ToString());
    const int64_t m = d.back();
    ONNX_LIGHT_ASSIGN_OR_RETURN(
        Tensor * y, ctx.AllocateOutput(0, std::vector<int64_t>(d.begin(), d.end() - 2)));
    const std::vector<double> v = ToDoubles(&x);
    std::vector<double> a(static_cast<size_t>(m * m));
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* out = y->mutable_data<T>();
      for (int64_t b = 0; b < y->num_elements(); ++b) {
        std::copy(v.begin() + b * m * m, v.begin() + (b + 1) * m * m, a.begin());
        double det = 1;
        for (int64_t c = 0; c < m && det != 0; ++c) {
          int64_t piv = c;
          for (int64_t r = c + 1; r < m; ++r)
            if (std::fabs(a[static_cast<size_t>(r * m + c)]) >
                std::fabs(a[static_cast<size_t>(piv * m + c)]))
              piv = r;
          const double p = a[static_cast<size_t>(piv * m + c)];
          if (p == 0) {
            det = 0;
            break;
          }
          if (piv != c) {
            for (int64_t k = 0; k < m; ++k)
              std::swap(a[static_cast<size_t>(piv * m + k)], a[static_cast<size_t>(c * m + k)]);
            det = -det;
          }
          det *= p;
          for (int64_t r = c + 1; r < m; ++r) {
            const double f = a[static_cast<size_t>(r * m + c)] / p;
            for (int64_t k = c; k < m; ++k)
              a[static_cast<size_t>(r * m + k)] -= f * a[static_cast<size_t>(c * m + k)];
          }
        }
        out[b] = static_cast<T>(det);
      }
    });
    return Status::Ok();
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Det) {
  return r.Register(UnaryDef("", "Det", 11, FloatTypes(), FactoryOf<Det>()));
}

}  // namespace onnx_light::kernels
