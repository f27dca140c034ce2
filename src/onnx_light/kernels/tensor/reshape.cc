// The view ops: Reshape, Flatten, Squeeze, Unsqueeze. The output is the input with new
// dimensions (no copy). Every tensor type, strings included.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/tensor_proto.h"

namespace onnx_light::kernels {
namespace {

// Shared by the view ops: the output is the input with new dimensions.
Status SetView(KernelContext& ctx, std::vector<int64_t> dims) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims));
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor view, ctx.input(0)->Reshaped(std::move(shape)));
  return ctx.SetOutput(0, std::move(view));
}

class Reshape : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Reshape>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->allow_zero_, GetFlag(info, "allowzero", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto shape, Int64Values(ctx.input(1), "shape"));
    int64_t known = 1;
    int infer = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0 && !allow_zero_) {
        ONNX_LIGHT_RETURN_IF(
            i >= x.shape().rank(), kInvalidArgument,
            "dimension " + std::to_string(i) + " copies a missing input dimension");
        shape[i] = x.shape()[i];
      }
      if (shape[i] == -1) {
        ONNX_LIGHT_RETURN_IF(infer >= 0, kInvalidArgument, "more than one -1");
        infer = static_cast<int>(i);
      } else if (shape[i] < 0) {
        return Status(StatusCode::kInvalidArgument, "negative dimension");
      } else if (__builtin_mul_overflow(known, shape[i], &known)) {
        return Status(StatusCode::kOutOfRange, "the element count of the shape overflows int64");
      }
    }
    if (infer >= 0) {
      ONNX_LIGHT_RETURN_IF(known == 0 || x.num_elements() % known != 0, kInvalidArgument,
                           "cannot infer -1 for " + x.shape().ToString());
      shape[static_cast<size_t>(infer)] = x.num_elements() / known;
    }
    return SetView(ctx, shape);
  }

 private:
  bool allow_zero_ = false;
};

class Flatten : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Flatten>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 1));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const auto& dims = ctx.input(0)->shape().dims();
    const auto rank = static_cast<int64_t>(dims.size());
    int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    ONNX_LIGHT_RETURN_IF(axis < 0 || axis > rank, kInvalidArgument, "axis out of range");
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i)
      (i < axis ? outer : inner) *= dims[static_cast<size_t>(i)];
    return SetView(ctx, {outer, inner});
  }

 private:
  int64_t axis_ = 1;
};

// Squeeze and Unsqueeze: axes from an attribute (opset < 13) or the second input.
template <bool kSqueeze>
class AxesView : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<AxesView>();
    if (info.opset() < 13 && info.HasAttribute("axes")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->axes_, info.GetInts("axes"));
      k->has_axes_ = true;
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    std::vector<int64_t> axes = axes_;
    bool has_axes = has_axes_;
    if (ctx.input(1) != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(axes, Int64Values(ctx.input(1), "axes"));
      has_axes = true;
    }
    const auto& in = ctx.input(0)->shape().dims();
    std::vector<int64_t> out;
    if (kSqueeze) {
      const auto rank = static_cast<int64_t>(in.size());
      std::vector<bool> drop(in.size(), false);
      for (int64_t a : axes) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank));
        ONNX_LIGHT_RETURN_IF(in[static_cast<size_t>(ax)] != 1, kInvalidArgument,
                             "cannot squeeze a dimension that is not 1");
        drop[static_cast<size_t>(ax)] = true;
      }
      for (size_t i = 0; i < in.size(); ++i) {
        if (has_axes ? !drop[i] : in[i] != 1) out.push_back(in[i]);
      }
    } else {
      const auto rank = static_cast<int64_t>(in.size() + axes.size());
      std::vector<bool> insert(static_cast<size_t>(rank), false);
      for (int64_t a : axes) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank));
        ONNX_LIGHT_RETURN_IF(insert[static_cast<size_t>(ax)], kInvalidArgument, "repeated axis");
        insert[static_cast<size_t>(ax)] = true;
      }
      size_t k = 0;
      for (int64_t i = 0; i < rank; ++i)
        out.push_back(insert[static_cast<size_t>(i)] ? 1 : in[k++]);
    }
    return SetView(ctx, out);
  }

 private:
  std::vector<int64_t> axes_;
  bool has_axes_ = false;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Reshape) {
  return r.Register(Def("Reshape", 5,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"S", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<Reshape>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Flatten) {
  return r.Register(Def("Flatten", 1, {{"T", {0}, {0}, AllTensorTypes()}}, FactoryOf<Flatten>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Squeeze) {
  return r.Register(Def("Squeeze", 1,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"A", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<AxesView<true>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Unsqueeze) {
  return r.Register(Def("Unsqueeze", 1,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"A", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<AxesView<false>>()));
}

}  // namespace onnx_light::kernels
