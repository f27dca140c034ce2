// Unary element-wise kernels: LeakyRelu, Log, Relu (ai.onnx and the custom domains
// onnx_light / onnx_light_cpu).
#include <cmath>

#include "common/kernel_util.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

// Applies a SIMD routine per element type over the whole input.
class Unary : public KernelBase {
 public:
  using F32 = void (*)(const float*, float*, size_t, float);
  using F64 = void (*)(const double*, double*, size_t, double);
  using F16 = void (*)(const uint16_t*, uint16_t*, size_t, float);

  Unary(F32 f32, F64 f64, F16 f16, F16 bf16, float param)
      : f32_(f32), f64_(f64), f16_(f16), bf16_(bf16), param_(param) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t n = x.num_elements();
    const DataType type = x.dtype();
    ParallelElements(ctx.thread_pool(), n, [&](int64_t b, int64_t e) {
      const auto count = static_cast<size_t>(e - b);
      switch (type) {
        case DataType::kFloat:
          f32_(x.data<float>() + b, y->mutable_data<float>() + b, count, param_);
          break;
        case DataType::kDouble:
          f64_(x.data<double>() + b, y->mutable_data<double>() + b, count, param_);
          break;
        case DataType::kFloat16:
          f16_(reinterpret_cast<const uint16_t*>(x.data<float16>() + b),
               reinterpret_cast<uint16_t*>(y->mutable_data<float16>() + b), count, param_);
          break;
        case DataType::kBFloat16:
          bf16_(reinterpret_cast<const uint16_t*>(x.data<bfloat16>() + b),
                reinterpret_cast<uint16_t*>(y->mutable_data<bfloat16>() + b), count, param_);
          break;
        default:
          break;
      }
    });
    return Status::Ok();
  }

 private:
  F32 f32_;
  F64 f64_;
  F16 f16_;
  F16 bf16_;
  float param_;
};

struct LeakyRelu {
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(float alpha, info.GetFloat("alpha", 0.01f));
    return std::unique_ptr<KernelBase>(
        new Unary(&LeakyReluF32, &LeakyReluF64, &LeakyReluF16, &LeakyReluBF16, alpha));
  }
};

struct Log {
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(
        new Unary([](const float* x, float* y, size_t n, float) { LogF32(x, y, n); },
                  [](const double* x, double* y, size_t n, double) { LogF64(x, y, n); },
                  [](const uint16_t* x, uint16_t* y, size_t n, float) { LogF16(x, y, n); },
                  [](const uint16_t* x, uint16_t* y, size_t n, float) { LogBF16(x, y, n); }, 0.0f));
  }
};

// Relu for every type it is defined on (floats through SIMD, integers with a plain loop).
class Relu : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Relu());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape().dims()));
    const int64_t n = x.num_elements();
    switch (x.dtype()) {
      case DataType::kFloat:
        ParallelElements(ctx.thread_pool(), n, [&](int64_t b, int64_t e) {
          ReluF32(x.data<float>() + b, y->mutable_data<float>() + b, static_cast<size_t>(e - b));
        });
        return Status::Ok();
      case DataType::kDouble:
        return Loop<double>(x, y);
      case DataType::kFloat16:
        return Loop16<float16>(x, y);
      case DataType::kBFloat16:
        return Loop16<bfloat16>(x, y);
      case DataType::kInt8:
        return Loop<int8_t>(x, y);
      case DataType::kInt16:
        return Loop<int16_t>(x, y);
      case DataType::kInt32:
        return Loop<int32_t>(x, y);
      case DataType::kInt64:
        return Loop<int64_t>(x, y);
      default:
        return Status(StatusCode::kInternal, "Relu: unexpected type");
    }
  }

 private:
  template <typename T>
  static Status Loop(const Tensor& x, Tensor* y) {
    const T* in = x.data<T>();
    T* out = y->mutable_data<T>();
    for (int64_t i = 0; i < x.num_elements(); ++i)
      out[i] = in[i] < T(0) ? T(0) : in[i];
    return Status::Ok();
  }
  template <typename H>
  static Status Loop16(const Tensor& x, Tensor* y) {
    const H* in = x.data<H>();
    H* out = y->mutable_data<H>();
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      out[i] = static_cast<float>(in[i]) < 0.0f ? H::FromBits(0) : in[i];
    }
    return Status::Ok();
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(onnx_light, LeakyRelu) {
  return r.Register(UnaryDef("onnx_light", "LeakyRelu", 1, FloatTypes(), FactoryOf<LeakyRelu>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LeakyRelu) {
  return r.Register(UnaryDef("", "LeakyRelu", 6, FloatTypes(), FactoryOf<LeakyRelu>()));
}
ONNX_LIGHT_REGISTER_KERNEL(onnx_light_cpu, Log) {
  return r.Register(UnaryDef("onnx_light_cpu", "Log", 1, FloatTypes(), FactoryOf<Log>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Log) {
  return r.Register(UnaryDef("", "Log", 6, FloatTypes(), FactoryOf<Log>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Relu) {
  std::vector<DataType> types = FloatTypes();
  for (DataType t : {DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64}) {
    types.push_back(t);
  }
  return r.Register(UnaryDef("", "Relu", 6, std::move(types), FactoryOf<Relu>()));
}

}  // namespace onnx_light::kernels
