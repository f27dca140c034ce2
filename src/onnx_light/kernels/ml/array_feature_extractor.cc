// ai.onnx.ml ArrayFeatureExtractor: the features of X (its last dimension) at the indices Y,
// in Y's order: Z has X's shape with the last dimension replaced by Y's element count (X of
// rank 1 gives [1, count], as ONNX Runtime). An index outside [0, C) is an error.
#include "ml/ml_common.h"

namespace onnx_light::kernels {
namespace {

class ArrayFeatureExtractor : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(std::make_unique<ArrayFeatureExtractor>());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& y = *ctx.input(1);
    ONNX_LIGHT_RETURN_IF(x.shape().rank() == 0, kInvalidArgument,
                         "X must have a feature dimension");
    const std::vector<int64_t>& xd = x.shape().dims();
    const int64_t c = xd.back();
    const int64_t k = y.num_elements();
    ONNX_LIGHT_RETURN_IF(k == 0, kInvalidArgument, "Y holds no index");
    const int64_t* idx = y.data<int64_t>();
    for (int64_t j = 0; j < k; ++j) {
      ONNX_LIGHT_RETURN_IF(idx[j] < 0 || idx[j] >= c, kInvalidArgument,
                           "index " + std::to_string(idx[j]) + " (Y[" + std::to_string(j) +
                               "]) is outside the " + std::to_string(c) + " features of X");
    }
    std::vector<int64_t> zd = xd;
    zd.back() = k;
    if (xd.size() == 1) zd = {1, k};
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * z, ctx.AllocateOutput(0, zd));
    const int64_t rows = c == 0 ? 0 : x.num_elements() / c;
    const size_t item = ItemSize(x.dtype());
    auto gather = [&](auto tag) {
      using T = decltype(tag);
      const T* in = static_cast<const T*>(x.raw_data());
      T* out = static_cast<T*>(z->mutable_raw_data());
      for (int64_t r = 0; r < rows; ++r, in += c, out += k) {
        for (int64_t j = 0; j < k; ++j)
          out[j] = in[idx[j]];
      }
    };
    if (item == 4) {
      gather(uint32_t{});
    } else if (item == 8) {
      gather(uint64_t{});
    } else {
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < k; ++j)
          CopyElement(x, r * c + idx[j], z, r * k + j, item);
      }
    }
    return Status::Ok();
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, ArrayFeatureExtractor) {
  std::vector<DataType> types = MlNumericTypes();
  types.push_back(DataType::kString);
  return r.Register(MlDef("ArrayFeatureExtractor", 1, kMaxOpset,
                          {{"T", {0}, {0}, types}, {"I", {1}, {}, {DataType::kInt64}}},
                          FactoryOf<ArrayFeatureExtractor>(), {2, 2}));
}

}  // namespace onnx_light::kernels
