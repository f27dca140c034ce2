// Trilu: the upper or lower triangle (with a diagonal offset) of the last two axes.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

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

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Trilu) {
  return r.Register(Def("Trilu", 14, {{"T", {0}, {0}, NumericTypes()}}, FactoryOf<Trilu>()));
}

}  // namespace onnx_light::kernels
