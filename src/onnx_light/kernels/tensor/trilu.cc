// Trilu: the upper (or lower) triangle of the last two axes, from the diagonal shifted by
// k (input 1, default 0); the rest zero. Every numeric type; each row's kept span is
// copied and the rest cleared.
#include <algorithm>
#include <cstring>

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
    ONNX_LIGHT_RETURN_IF(in.size() < 2, kInvalidArgument, "rank must be >= 2");
    int64_t k = 0;
    if (const Tensor* kt = ctx.input(1)) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> kv, Int64Values(kt, "k"));
      ONNX_LIGHT_RETURN_IF(kv.size() != 1, kInvalidArgument, "k must be a scalar");
      k = kv[0];
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, in));
    const int64_t rows = in[in.size() - 2], cols = in[in.size() - 1];
    if (rows == 0 || cols == 0) return Status::Ok();
    const auto item = static_cast<int64_t>(ItemSize(x.dtype()));
    const auto* src = static_cast<const char*>(x.raw_data());
    auto* dst = static_cast<char*>(y->mutable_raw_data());
    for (int64_t row = 0; row < y->num_elements() / cols; ++row) {
      // The kept columns [begin, end): c - r >= k (upper) or c - r <= k (lower). c - r lies
      // in [-rows, cols]: k clamped to that range keeps r + k from overflowing.
      const int64_t r = row % rows;
      const int64_t edge = std::clamp<int64_t>(k, -rows, cols);
      const int64_t begin = upper_ ? std::clamp<int64_t>(r + edge, 0, cols) : 0;
      const int64_t end = upper_ ? cols : std::clamp<int64_t>(r + edge + 1, 0, cols);
      const int64_t at = row * cols;
      std::memset(dst + at * item, 0, static_cast<size_t>(begin * item));
      std::memcpy(dst + (at + begin) * item, src + (at + begin) * item,
                  static_cast<size_t>((end - begin) * item));
      std::memset(dst + (at + end) * item, 0, static_cast<size_t>((cols - end) * item));
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
