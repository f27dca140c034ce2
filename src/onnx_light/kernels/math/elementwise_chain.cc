// onnx_light:ElementwiseChain (opset 1, float32): a chain of element-wise ops that the
// fuse_elementwise_chain pass found, each reading the previous one's output, run as one
// node. Input 0 is the chain's first value; the other inputs are the second operands of
// its binary steps. Attributes, one entry per step:
//   ops          STRINGS  Add, Sub, Mul, Div, or the unary Relu, Sigmoid, Tanh, Exp, Erf,
//                         HardSwish
//   operands     INTS     the input that is a binary step's other operand (1 or more);
//                         -1 for a unary step
//   value_first  INTS     1 when the running value is the binary step's first operand
// When every operand is one value, has the first input's shape, or broadcasts along it
// as a per-channel or per-row operand does (Periodic below), the chain runs over blocks
// of 4096 elements that stay in the L1 cache through every step (one read and one write
// of memory instead of one of each per step); a chain whose first value is one value runs
// its steps on it up to the first operand of more than one value, then the blocks from
// that operand (the value may not broadcast it to a higher rank); otherwise step by step
// with broadcasting,
// as the separate nodes would. Each step computes what its ai.onnx op
// computes for float32 (the same vector functions), so the results are the unfused
// graph's, bit for bit.
#include <algorithm>
#include <string>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/conv_simd.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

struct Step {
  bool binary = false;
  BinaryOpF32 op = BinaryOpF32::kAdd;
  Activation act;
  int operand = -1;
  bool value_first = true;
};

bool Lookup(const std::string& name, Step* s) {
  static const struct {
    const char* name;
    BinaryOpF32 op;
  } kBinary[] = {{"Add", BinaryOpF32::kAdd},
                 {"Sub", BinaryOpF32::kSub},
                 {"Mul", BinaryOpF32::kMul},
                 {"Div", BinaryOpF32::kDiv}};
  static const struct {
    const char* name;
    ActivationKind kind;
  } kUnary[] = {{"Relu", ActivationKind::kRelu}, {"Sigmoid", ActivationKind::kSigmoid},
                {"Tanh", ActivationKind::kTanh}, {"Exp", ActivationKind::kExp},
                {"Erf", ActivationKind::kErf},   {"HardSwish", ActivationKind::kHardSwish}};
  for (const auto& b : kBinary) {
    if (name == b.name) {
      s->binary = true;
      s->op = b.op;
      return true;
    }
  }
  for (const auto& u : kUnary) {
    if (name == u.name) {
      s->act.kind = u.kind;
      return true;
    }
  }
  return false;
}

float Apply(BinaryOpF32 op, float a, float b) {
  switch (op) {
    case BinaryOpF32::kAdd:
      return a + b;
    case BinaryOpF32::kSub:
      return a - b;
    case BinaryOpF32::kMul:
      return a * b;
    case BinaryOpF32::kDiv:
      return a / b;
  }
  return a;
}

// Where a binary step's operand is read for element i of the running value: o[(i / inner)
// % period]. That covers operands of the value's shape (inner 1, period n), one value
// (period 1), and those whose dims, aligned right, are 1s, then the value's own dims, then
// 1s (a per-channel [1, C, 1, 1] on [N, C, H, W]: inner H * W, period C; a row [W]: inner
// 1, period W). Other broadcasts (or a value that would grow) run step by step.
struct Periodic {
  int64_t inner = 1, period = 1;
};
bool Describe(const Shape& x, const Shape& o, Periodic* p) {
  const size_t rx = x.rank(), ro = o.rank();
  if (ro > rx) return false;
  // Aligned right: leading 1s, then equal dims, then trailing 1s.
  size_t d = rx;
  int64_t inner = 1;
  while (d > rx - ro && o[d - 1 - (rx - ro)] == 1) {
    inner *= x[d - 1];
    --d;
  }
  int64_t period = 1;
  while (d > rx - ro && o[d - 1 - (rx - ro)] == x[d - 1]) {
    period *= x[d - 1];
    --d;
  }
  for (size_t k = rx - ro; k < d; ++k) {
    if (o[k - (rx - ro)] != 1) return false;
  }
  if (period == 1) inner = 1;  // one value: a single piece per block
  p->inner = std::max<int64_t>(inner, 1);
  p->period = std::max<int64_t>(period, 1);
  return true;
}

class ElementwiseChain : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ElementwiseChain>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<std::string> ops, info.GetStrings("ops"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> operands, info.GetInts("operands"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> first, info.GetInts("value_first"));
    const auto bad = [&](const std::string& why) { return Status(StatusCode::kInvalidModel, why); };
    if (ops.empty() || operands.size() != ops.size() || first.size() != ops.size()) {
      return bad("ops, operands and value_first must be non-empty and of one length, got " +
                 std::to_string(ops.size()) + ", " + std::to_string(operands.size()) + " and " +
                 std::to_string(first.size()));
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      Step s;
      if (!Lookup(ops[i], &s)) {
        return bad("step " + std::to_string(i) + ": unknown op '" + ops[i] +
                   "' (Add, Sub, Mul, Div, Relu, Sigmoid, Tanh, Exp, Erf or HardSwish)");
      }
      if (s.binary ? operands[i] < 1 || operands[i] >= 64 : operands[i] != -1) {
        return bad("step " + std::to_string(i) + " (" + ops[i] + "): operand " +
                   std::to_string(operands[i]) +
                   (s.binary ? " must name an input from 1 on" : " must be -1 for a unary op"));
      }
      if (first[i] != 0 && first[i] != 1) {
        return bad("step " + std::to_string(i) + ": value_first must be 0 or 1");
      }
      s.operand = static_cast<int>(operands[i]);
      s.value_first = first[i] == 1;
      k->steps_.push_back(s);
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    std::vector<const Tensor*> in(steps_.size(), nullptr);
    for (size_t i = 0; i < steps_.size(); ++i) {
      if (!steps_[i].binary) continue;
      const auto k = static_cast<size_t>(steps_[i].operand);
      in[i] = k < ctx.input_count() ? ctx.input(k) : nullptr;
      ONNX_LIGHT_RETURN_IF(
          in[i] == nullptr, kInvalidArgument,
          "step " + std::to_string(i) + " reads input " + std::to_string(k) + ", which is absent");
    }
    // A chain that starts from one value and meets the tensor later (a dynamically
    // quantized product's scales, x_scale * w_scale, then times its sums): the steps up to
    // the first operand of more than one value are computed on that one value, and the
    // blocks start from that operand (as step by step, every step broadcast into a fresh
    // temporary, those chains had run on one thread at 0.5 ns a value a step).
    size_t from = 0;
    float value = 0.0f;
    const Tensor* start = &x;
    if (x.num_elements() == 1) {
      const float* xv = x.data<float>();
      value = xv[0];
      for (; from < steps_.size(); ++from) {
        const Step& s = steps_[from];
        if (!s.binary) {
          ActivationF32(&value, &value, 1, s.act);
          continue;
        }
        if (in[from]->num_elements() != 1) break;
        const float o = in[from]->data<float>()[0];
        value = s.value_first ? Apply(s.op, value, o) : Apply(s.op, o, value);
      }
      size_t rank = x.shape().rank();  // the one value's rank so far: it must not grow
      for (size_t i = 0; i < from; ++i) {
        if (in[i] != nullptr) rank = std::max(rank, in[i]->shape().rank());
      }
      if (from == steps_.size() || rank > in[from]->shape().rank()) {
        from = 0;  // no such operand, or the one value's shape would broaden it
      } else {
        start = in[from];
      }
    }
    std::vector<Periodic> at(steps_.size());
    bool blocked = true;
    for (size_t i = from; i < steps_.size(); ++i) {
      if (steps_[i].binary) blocked = blocked && Describe(start->shape(), in[i]->shape(), &at[i]);
    }
    if (!blocked) return StepByStep(ctx, x, in);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, start->shape().dims()));
    const float* xp = start->data<float>();
    float* yp = y->mutable_data<float>();
    constexpr int64_t kBlock = 4096;
    ParallelElements(
        ctx.thread_pool(), start->num_elements(),
        [&](int64_t i0, int64_t i1) {
          for (int64_t b = i0; b < i1; b += kBlock) {
            const int64_t e = std::min(i1, b + kBlock);
            const float* src = xp + b;
            float* dst = yp + b;
            for (size_t i = from; i < steps_.size(); ++i) {
              const Step& s = steps_[i];
              if (i == from && start != &x) {  // the one value against the operand's block
                // (src is the operand here: the value's side of the op is the other one)
                BinaryF32(src, &value, dst, static_cast<size_t>(e - b), s.op, true, s.value_first);
              } else if (!s.binary) {
                ActivationF32(src, dst, static_cast<size_t>(e - b), s.act);
              } else {
                const float* o = in[i]->data<float>();
                const Periodic& p = at[i];
                const bool swap = !s.value_first;
                if (p.period == 1) {  // one value
                  BinaryF32(src, o, dst, static_cast<size_t>(e - b), s.op, true, swap);
                } else if (p.inner == 1) {  // runs of the operand, repeating every period
                  for (int64_t q = b; q < e;) {
                    const int64_t end = std::min(e, q + p.period - q % p.period);
                    BinaryF32(src + (q - b), o + q % p.period, dst + (q - b),
                              static_cast<size_t>(end - q), s.op, false, swap);
                    q = end;
                  }
                } else {  // runs of `inner` elements against one operand value each
                  for (int64_t q = b; q < e;) {
                    const int64_t u = q / p.inner;
                    const int64_t end = std::min(e, (u + 1) * p.inner);
                    BinaryF32(src + (q - b), o + u % p.period, dst + (q - b),
                              static_cast<size_t>(end - q), s.op, true, swap);
                    q = end;
                  }
                }
              }
              src = dst;
            }
          }
        },
        int64_t{1} << 14);
    return Status::Ok();
  }

 private:
  // Operands of other shapes: each step over the broadcast of its operands, into a
  // temporary (the last one into Y), as the unfused nodes run.
  Status StepByStep(KernelContext& ctx, const Tensor& x,
                    const std::vector<const Tensor*>& in) const {
    Tensor held[2];
    const Tensor* cur = &x;
    for (size_t i = 0; i < steps_.size(); ++i) {
      const Step& s = steps_[i];
      std::vector<int64_t> dims = cur->shape().dims();
      if (s.binary) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(dims, BroadcastDims(cur->shape(), in[i]->shape()));
      }
      Tensor* out = nullptr;
      if (i + 1 == steps_.size()) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(out, ctx.AllocateOutput(0, dims));
      } else {
        Tensor& next = held[i % 2];
        ONNX_LIGHT_ASSIGN_OR_RETURN(next, ctx.AllocateTemporary(DataType::kFloat, dims));
        out = &next;
      }
      float* op = out->mutable_data<float>();
      if (s.binary) {
        const Tensor& a = s.value_first ? *cur : *in[i];
        const Tensor& b = s.value_first ? *in[i] : *cur;
        BroadcastApply(a.data<float>(), a.shape(), b.data<float>(), b.shape(), op, dims,
                       ctx.thread_pool(), [&s](float u, float v) { return Apply(s.op, u, v); });
      } else {
        ActivationF32(cur->data<float>(), op, static_cast<size_t>(out->num_elements()), s.act);
      }
      cur = out;
    }
    return Status::Ok();
  }

  std::vector<Step> steps_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(onnx_light, ElementwiseChain) {
  return r.Register(OnnxLightDef("ElementwiseChain", {{"T", UpTo(64), {0}, {DataType::kFloat}}},
                                 FactoryOf<ElementwiseChain>(), 1, 64));
}

}  // namespace onnx_light::kernels
