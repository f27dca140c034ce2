// RegexFullMatch (opset 20): whether each string matches the pattern as a whole, in RE2's
// syntax, as the ONNX spec names it and ONNX Runtime computes it.
//
// RE2 (Debian's libre2-dev) rather than std::regex: RE2 is the grammar the spec names
// ((?i), \pL, (?P<name>...) are RE2's), and it matches in time linear in the string where
// std::regex backtracks (9.4x ORT's time on bench/ops' row). The pattern is compiled once
// when the kernel is made; a compiled RE2 is safe to use from several threads at once.
#include <re2/re2.h>

#include <memory>
#include <string>

#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

class RegexFullMatch : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string pattern, info.GetString("pattern"));
    RE2::Options options;
    options.set_log_errors(false);  // the error is the status, not a line on stderr
    auto k = std::make_unique<RegexFullMatch>();
    k->re_ = std::make_unique<RE2>(pattern, options);
    if (!k->re_->ok())
      return Status(StatusCode::kInvalidModel,
                    "invalid pattern '" + pattern + "': " + k->re_->error());
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const std::string* in = x.data<std::string>();
    bool* out = y->mutable_data<bool>();
    for (int64_t i = 0; i < x.num_elements(); ++i)
      out[i] = RE2::FullMatch(in[i], *re_);
    return Status::Ok();
  }

 private:
  std::unique_ptr<RE2> re_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, RegexFullMatch) {
  return r.Register(Def("RegexFullMatch", 20,
                        {{"T1", {0}, {}, {DataType::kString}}, {"T2", {}, {0}, {DataType::kBool}}},
                        FactoryOf<RegexFullMatch>()));
}

}  // namespace onnx_light::kernels
