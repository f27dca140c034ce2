// Sequences of tensors: SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt,
// SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence. A sequence value is
// immutable and shared; ops that change one build a new sequence whose tensors share
// storage with the old one (tensors are never written in place).
#include <algorithm>
#include <cstring>

#include "common/broadcast.h"
#include "common/kernel_util.h"

namespace onnx_light::kernels {
namespace {

Status NeedSequence(const TensorSequence* s) {
  ONNX_LIGHT_RETURN_IF(s == nullptr, kInvalidArgument, "input 0 must be a sequence");
  return Status::Ok();
}

// A position input (scalar int32/int64) resolved against a length; `end_ok` allows
// position == length (insertion at the end).
Result<int64_t> Position(const Tensor* p, int64_t length, bool end_ok, int64_t fallback) {
  if (p == nullptr) return fallback;
  ONNX_LIGHT_RETURN_IF(p->num_elements() != 1, kInvalidArgument, "position must be a scalar");
  int64_t pos = IndexValues(*p)[0];
  const int64_t hi = end_ok ? length : length - 1;
  ONNX_LIGHT_RETURN_IF(pos < -length || pos > hi, kInvalidArgument,
                       "position " + std::to_string(pos) + " is out of range for a sequence of " +
                           std::to_string(length));
  return pos < 0 ? pos + length : pos;
}

class SequenceEmpty : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new SequenceEmpty());
  }
  Status Compute(KernelContext& ctx) const override { return ctx.SetOutputSequence(0, {}); }
};

class SequenceConstruct : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new SequenceConstruct());
  }
  Status Compute(KernelContext& ctx) const override {
    TensorSequence s;
    for (size_t i = 0; i < ctx.input_count(); ++i)
      s.push_back(*ctx.input(i));
    return ctx.SetOutputSequence(0, std::move(s));
  }
};

class SequenceInsert : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new SequenceInsert());
  }
  Status Compute(KernelContext& ctx) const override {
    const TensorSequence* in = ctx.input_sequence(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedSequence(in));
    const auto n = static_cast<int64_t>(in->size());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t pos, Position(ctx.input(2), n, true, n));
    TensorSequence s = *in;
    s.insert(s.begin() + pos, *ctx.input(1));
    return ctx.SetOutputSequence(0, std::move(s));
  }
};

class SequenceAt : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new SequenceAt());
  }
  Status Compute(KernelContext& ctx) const override {
    const TensorSequence* in = ctx.input_sequence(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedSequence(in));
    const auto n = static_cast<int64_t>(in->size());
    ONNX_LIGHT_RETURN_IF(ctx.input(1) == nullptr, kInvalidArgument, "position is required");
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t pos, Position(ctx.input(1), n, false, 0));
    return ctx.SetOutput(0, (*in)[static_cast<size_t>(pos)]);
  }
};

class SequenceErase : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new SequenceErase());
  }
  Status Compute(KernelContext& ctx) const override {
    const TensorSequence* in = ctx.input_sequence(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedSequence(in));
    const auto n = static_cast<int64_t>(in->size());
    ONNX_LIGHT_RETURN_IF(n == 0, kInvalidArgument, "cannot erase from an empty sequence");
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t pos, Position(ctx.input(1), n, false, n - 1));
    TensorSequence s = *in;
    s.erase(s.begin() + pos);
    return ctx.SetOutputSequence(0, std::move(s));
  }
};

class SequenceLength : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new SequenceLength());
  }
  Status Compute(KernelContext& ctx) const override {
    const TensorSequence* in = ctx.input_sequence(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedSequence(in));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {}));
    y->mutable_data<int64_t>()[0] = static_cast<int64_t>(in->size());
    return Status::Ok();
  }
};

// The slice [begin, begin + len) of x along axis (a copy), without the axis if `drop`.
Result<Tensor> AxisSlice(const Tensor& x, int64_t axis, int64_t begin, int64_t len, bool drop) {
  std::vector<int64_t> dims = x.shape().dims();
  const int64_t full = dims[static_cast<size_t>(axis)];
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (static_cast<int64_t>(d) < axis) outer *= dims[d];
    if (static_cast<int64_t>(d) > axis) inner *= dims[d];
  }
  if (drop) {
    dims.erase(dims.begin() + axis);
  } else {
    dims[static_cast<size_t>(axis)] = len;
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims));
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(x.dtype(), std::move(shape)));
  const size_t item = ItemSize(x.dtype());
  for (int64_t o = 0; o < outer; ++o)
    CopyElements(x, (o * full + begin) * inner, &t, o * len * inner, item, len * inner);
  return t;
}

// SplitToSequence: without `split`, pieces of 1 along axis (squeezed unless keepdims=1);
// a scalar split gives pieces of that size (the last may be shorter); a 1-D split gives
// the sizes, which must add up to the axis.
class SplitToSequence : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<SplitToSequence>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->keepdims_, GetFlag(info, "keepdims", true));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor* split = ctx.input(1);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    const int64_t len = x.shape()[static_cast<size_t>(axis)];
    std::vector<int64_t> sizes;
    bool drop = false;
    if (split == nullptr) {
      sizes.assign(static_cast<size_t>(len), 1);
      drop = !keepdims_;
    } else if (split->shape().rank() == 0) {
      const int64_t step = IndexValues(*split)[0];
      ONNX_LIGHT_RETURN_IF(step < 1, kInvalidArgument, "split must be >= 1");
      for (int64_t at = 0; at < len; at += step)
        sizes.push_back(std::min(step, len - at));
    } else {
      sizes = IndexValues(*split);
      int64_t total = 0;
      for (int64_t v : sizes) {
        ONNX_LIGHT_RETURN_IF(v < 0, kInvalidArgument, "negative split size");
        ONNX_LIGHT_RETURN_IF(__builtin_add_overflow(total, v, &total), kInvalidArgument,
                             "split sizes overflow int64");
      }
      ONNX_LIGHT_RETURN_IF(total != len, kInvalidArgument,
                           "split sizes add up to " + std::to_string(total) + ", the axis has " +
                               std::to_string(len));
    }
    TensorSequence s;
    int64_t at = 0;
    for (int64_t size : sizes) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, AxisSlice(x, axis, at, size, drop));
      s.push_back(std::move(t));
      at += size;
    }
    return ctx.SetOutputSequence(0, std::move(s));
  }

 private:
  int64_t axis_ = 0;
  bool keepdims_ = true;
};

// ConcatFromSequence: the tensors joined along `axis`, or stacked on a new axis there.
class ConcatFromSequence : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ConcatFromSequence>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->new_axis_, GetFlag(info, "new_axis", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const TensorSequence* in = ctx.input_sequence(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedSequence(in));
    ONNX_LIGHT_RETURN_IF(in->empty(), kInvalidArgument, "the sequence is empty");
    const std::vector<int64_t> first = (*in)[0].shape().dims();
    const auto rank = static_cast<int64_t>(first.size()) + (new_axis_ ? 1 : 0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    // Every tensor viewed with the axis present (stacking inserts a 1 there).
    std::vector<int64_t> out;
    int64_t total = 0;
    for (const Tensor& t : *in) {
      std::vector<int64_t> d = t.shape().dims();
      if (new_axis_) d.insert(d.begin() + axis, 1);
      ONNX_LIGHT_RETURN_IF(static_cast<int64_t>(d.size()) != rank, kInvalidArgument,
                           "the tensors differ in rank");
      for (int64_t i = 0; i < rank; ++i) {
        ONNX_LIGHT_RETURN_IF(
            i != axis && !out.empty() && d[static_cast<size_t>(i)] != out[static_cast<size_t>(i)],
            kInvalidArgument, "shapes differ outside the axis (" + t.shape().ToString() + ")");
      }
      if (out.empty()) out = d;
      total += d[static_cast<size_t>(axis)];
    }
    out[static_cast<size_t>(axis)] = total;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) {
      if (i < axis) outer *= out[static_cast<size_t>(i)];
      if (i > axis) inner *= out[static_cast<size_t>(i)];
    }
    const size_t item = ItemSize(y->dtype());
    int64_t offset = 0;
    for (const Tensor& t : *in) {
      const int64_t len = new_axis_ ? 1 : t.shape()[static_cast<size_t>(axis)];
      for (int64_t o = 0; o < outer; ++o)
        CopyElements(t, o * len * inner, y, (o * total + offset) * inner, item, len * inner);
      offset += len;
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  bool new_axis_ = false;
};

// SequenceEmpty's element type: the dtype attribute (float by default).
Status DtypeAttr(const onnx::NodeProto& node, int, const std::vector<DataType>&,
                 std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = DataType::kFloat;
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "dtype") {
      ONNX_LIGHT_ASSIGN_OR_RETURN((*out)[0], DataTypeFromInt(static_cast<int32_t>(a.i.get())));
    }
  }
  return Status::Ok();
}

KernelDef SeqDef(const char* op, int since, std::vector<TypeConstraint> c, KernelFactory f,
                 std::vector<int> seq_in, std::vector<int> seq_out) {
  KernelDef def = Def(op, since, std::move(c), std::move(f));
  def.sequence_inputs = std::move(seq_in);
  def.sequence_outputs = std::move(seq_out);
  return def;
}

std::vector<int> AllPositions() {
  std::vector<int> v;
  for (int i = 0; i < 64; ++i)
    v.push_back(i);
  return v;
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, SequenceEmpty) {
  KernelDef def = SeqDef("SequenceEmpty", 11, {}, FactoryOf<SequenceEmpty>(), {}, {0});
  def.output_types = &DtypeAttr;
  return r.Register(std::move(def));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, SequenceConstruct) {
  return r.Register(SeqDef("SequenceConstruct", 11, {{"T", AllPositions(), {0}, AllTensorTypes()}},
                           FactoryOf<SequenceConstruct>(), {}, {0}));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, SequenceInsert) {
  return r.Register(SeqDef("SequenceInsert", 11,
                           {{"T", {0, 1}, {0}, AllTensorTypes()}, {"I", {2}, {}, IndexTypes()}},
                           FactoryOf<SequenceInsert>(), {0}, {0}));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, SequenceAt) {
  return r.Register(SeqDef("SequenceAt", 11,
                           {{"T", {0}, {0}, AllTensorTypes()}, {"I", {1}, {}, IndexTypes()}},
                           FactoryOf<SequenceAt>(), {0}, {}));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, SequenceErase) {
  return r.Register(SeqDef("SequenceErase", 11,
                           {{"T", {0}, {0}, AllTensorTypes()}, {"I", {1}, {}, IndexTypes()}},
                           FactoryOf<SequenceErase>(), {0}, {0}));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, SequenceLength) {
  return r.Register(SeqDef("SequenceLength", 11,
                           {{"S", {0}, {}, AllTensorTypes()}, {"I", {}, {0}, {DataType::kInt64}}},
                           FactoryOf<SequenceLength>(), {0}, {}));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, SplitToSequence) {
  return r.Register(SeqDef("SplitToSequence", 11,
                           {{"T", {0}, {0}, AllTensorTypes()}, {"I", {1}, {}, IndexTypes()}},
                           FactoryOf<SplitToSequence>(), {}, {0}));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ConcatFromSequence) {
  return r.Register(SeqDef("ConcatFromSequence", 11, {{"T", {0}, {0}, AllTensorTypes()}},
                           FactoryOf<ConcatFromSequence>(), {0}, {}));
}

}  // namespace onnx_light::kernels
