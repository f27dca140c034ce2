// Dropout (inference): the output is the input; the optional mask is all true.
#include <cmath>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

// Inference: the output is the input; the optional mask is all true. training_mode
// (opset 12+) set to true is accepted only with ratio 0 (the same result); with a ratio
// above 0 it needs a random mask and is refused rather than silently ignored.
class Dropout : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Dropout());
  }
  Status Compute(KernelContext& ctx) const override {
    if (const Tensor* training = ctx.input(2)) {
      const Tensor* ratio = ctx.input(1);
      double r = 0.5;  // the default ratio
      if (ratio != nullptr && ratio->num_elements() == 1) {
        DispatchNumeric(ratio->dtype(), [&](auto tag) {
          using R = decltype(tag);
          r = static_cast<double>(ratio->data<R>()[0]);
        });
      }
      ONNX_LIGHT_RETURN_IF(training->dtype() == DataType::kBool && training->num_elements() == 1 &&
                               training->data<bool>()[0] && r != 0.0,
                           kNotImplemented,
                           "training_mode=true with a ratio above 0 is not supported");
    }
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(ctx.SetOutput(0, x));
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * mask, ctx.AllocateOutput(1, x.shape().dims()));
      if (mask->dtype() == DataType::kBool) {
        std::fill(mask->mutable_data<bool>(), mask->mutable_data<bool>() + mask->num_elements(),
                  true);
      } else {
        return Status(StatusCode::kNotImplemented, "a mask output of a type other than bool");
      }
    }
    return Status::Ok();
  }
};

Status BoolMask(const onnx::NodeProto&, int, const std::vector<DataType>& in,
                std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = in[0];
  if (out->size() > 1) (*out)[1] = DataType::kBool;
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Dropout) {
  KernelDef def = Def("Dropout", 7, {{"T", {0}, {0}, FloatTypes()}}, FactoryOf<Dropout>());
  def.output_types = &BoolMask;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
