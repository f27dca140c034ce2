// Shape manipulation: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze (views, no copy),
// Transpose, Concat, Expand, ConstantOfShape. Every tensor type, strings included.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/tensor_proto.h"

namespace onnx_light::kernels {
namespace {

class ShapeOp : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ShapeOp>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->start_, info.GetInt("start", 0));
    k->has_end_ = info.HasAttribute("end");
    if (k->has_end_) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->end_, info.GetInt("end"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const auto& dims = ctx.input(0)->shape().dims();
    const auto rank = static_cast<int64_t>(dims.size());
    auto clamp = [rank](int64_t v) {
      return std::min(rank, std::max<int64_t>(0, v < 0 ? v + rank : v));
    };
    const int64_t b = clamp(start_);
    const int64_t e = has_end_ ? clamp(end_) : rank;
    const int64_t n = std::max<int64_t>(0, e - b);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {n}));
    for (int64_t i = 0; i < n; ++i)
      y->mutable_data<int64_t>()[i] = dims[static_cast<size_t>(b + i)];
    return Status::Ok();
  }

 private:
  int64_t start_ = 0, end_ = 0;
  bool has_end_ = false;
};

class SizeOp : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new SizeOp());
  }
  Status Compute(KernelContext& ctx) const override {
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {}));
    y->mutable_data<int64_t>()[0] = ctx.input(0)->num_elements();
    return Status::Ok();
  }
};

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
        if (i >= x.shape().rank()) {
          return Status(StatusCode::kInvalidArgument,
                        "dimension " + std::to_string(i) + " copies a missing input dimension");
        }
        shape[i] = x.shape()[i];
      }
      if (shape[i] == -1) {
        if (infer >= 0) {
          return Status(StatusCode::kInvalidArgument, "more than one -1");
        }
        infer = static_cast<int>(i);
      } else if (shape[i] < 0) {
        return Status(StatusCode::kInvalidArgument, "negative dimension");
      } else if (__builtin_mul_overflow(known, shape[i], &known)) {
        return Status(StatusCode::kOutOfRange, "the element count of the shape overflows int64");
      }
    }
    if (infer >= 0) {
      if (known == 0 || x.num_elements() % known != 0) {
        return Status(StatusCode::kInvalidArgument, "cannot infer -1 for " + x.shape().ToString());
      }
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
    if (axis < 0 || axis > rank) {
      return Status(StatusCode::kInvalidArgument, "axis out of range");
    }
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
        if (in[static_cast<size_t>(ax)] != 1) {
          return Status(StatusCode::kInvalidArgument, "cannot squeeze a dimension that is not 1");
        }
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
        if (insert[static_cast<size_t>(ax)]) {
          return Status(StatusCode::kInvalidArgument, "repeated axis");
        }
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

// Fixed-size elements: one output row (the last output axis) at a time, a strided gather
// with typed loads, the index carried once per row. When the last axis keeps its place
// (unit stride) the row is a contiguous copy.
// dst[b][r][c] = src[b * batch_stride + c * ld + r]: a batch of R x C transposes, in
// 16 x 16 blocks so that reads and writes both stay within a few cache lines.
template <typename U>
void TransposeBlocked(const U* src, U* dst, int64_t batch, int64_t batch_stride, int64_t rows,
                      int64_t cols, int64_t ld) {
  constexpr int64_t kBlock = 16;
  for (int64_t b = 0; b < batch; ++b) {
    const U* s = src + b * batch_stride;
    U* d = dst + b * rows * cols;
    for (int64_t r0 = 0; r0 < rows; r0 += kBlock) {
      const int64_t r1 = std::min(rows, r0 + kBlock);
      for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
        const int64_t c1 = std::min(cols, c0 + kBlock);
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c)
            d[r * cols + c] = s[c * ld + r];
        }
      }
    }
  }
}

// The same permutation with unit axes dropped and axes that stay neighbours merged: an
// NCHW -> NHWC transpose becomes [N, HW, C] from [N, C, HW], a 4-D one with unit axes a
// plain 2-D transpose.
void SimplifyPermutation(std::vector<int64_t>* dims, std::vector<int64_t>* strides) {
  std::vector<int64_t> d, st;
  for (size_t i = 0; i < dims->size(); ++i) {
    if ((*dims)[i] == 1) continue;
    if (!d.empty() && st.back() == (*strides)[i] * (*dims)[i]) {
      d.back() *= (*dims)[i];
      st.back() = (*strides)[i];
      continue;
    }
    d.push_back((*dims)[i]);
    st.push_back((*strides)[i]);
  }
  if (d.empty()) {  // a single element
    d.push_back(1);
    st.push_back(1);
  }
  *dims = std::move(d);
  *strides = std::move(st);
}

template <typename U>
void TransposeRows(const Tensor& x, Tensor* y, std::vector<int64_t> out_dims,
                   std::vector<int64_t> strides) {
  SimplifyPermutation(&out_dims, &strides);
  const size_t rank = out_dims.size();
  // A batch of 2-D transposes: the input's unit-stride axis is the output's next-to-last.
  if (rank >= 2 && rank <= 3 && strides[rank - 2] == 1 && strides[rank - 1] != 1) {
    TransposeBlocked(static_cast<const U*>(x.raw_data()), static_cast<U*>(y->mutable_raw_data()),
                     rank == 3 ? out_dims[0] : 1, rank == 3 ? strides[0] : 0, out_dims[rank - 2],
                     out_dims[rank - 1], strides[rank - 1]);
    return;
  }
  const U* src = static_cast<const U*>(x.raw_data());
  U* dst = static_cast<U*>(y->mutable_raw_data());
  const int64_t row = out_dims[rank - 1], step = strides[rank - 1];
  std::vector<int64_t> idx(rank, 0);
  int64_t off = 0;
  for (int64_t j = 0; j < y->num_elements(); j += row) {
    if (step == 1) {
      std::memcpy(dst + j, src + off, static_cast<size_t>(row) * sizeof(U));
    } else {
      for (int64_t k = 0; k < row; ++k)
        dst[j + k] = src[off + k * step];
    }
    for (size_t d = rank - 1; d-- > 0;) {
      off += strides[d];
      if (++idx[d] < out_dims[d]) break;
      off -= strides[d] * out_dims[d];
      idx[d] = 0;
    }
  }
}

class Transpose : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Transpose>();
    if (info.HasAttribute("perm")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->perm_, info.GetInts("perm"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const auto& in = x.shape().dims();
    const size_t rank = in.size();
    std::vector<int64_t> perm = perm_;
    if (perm.empty()) {
      for (size_t i = 0; i < rank; ++i)
        perm.push_back(static_cast<int64_t>(rank - 1 - i));
    }
    if (perm.size() != rank) {
      return Status(StatusCode::kInvalidArgument, "perm has the wrong length");
    }
    const std::vector<int64_t> in_strides = RowMajorStrides(in);
    std::vector<int64_t> out_dims(rank), strides(rank);
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t p = perm[i];
      if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)]) {
        return Status(StatusCode::kInvalidArgument, "invalid perm");
      }
      seen[static_cast<size_t>(p)] = true;
      out_dims[i] = in[static_cast<size_t>(p)];
      strides[i] = in_strides[static_cast<size_t>(p)];
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out_dims));
    const size_t item = ItemSize(x.dtype());
    if (rank > 0 && y->num_elements() > 0 && (item == 1 || item == 2 || item == 4 || item == 8) &&
        static_cast<size_t>(DataTypeBitWidth(x.dtype())) == 8 * item) {
      switch (item) {
        case 1:
          TransposeRows<uint8_t>(x, y, out_dims, strides);
          break;
        case 2:
          TransposeRows<uint16_t>(x, y, out_dims, strides);
          break;
        case 4:
          TransposeRows<uint32_t>(x, y, out_dims, strides);
          break;
        default:
          TransposeRows<uint64_t>(x, y, out_dims, strides);
      }
      return Status::Ok();
    }
    std::vector<int64_t> idx(rank, 0);
    int64_t off = 0;
    for (int64_t j = 0; j < y->num_elements(); ++j) {
      CopyElement(x, off, y, j, item);
      for (size_t d = rank; d-- > 0;) {
        off += strides[d];
        if (++idx[d] < out_dims[d]) break;
        off -= strides[d] * out_dims[d];
        idx[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  std::vector<int64_t> perm_;
};

class Concat : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Concat>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis"));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& first = *ctx.input(0);
    const auto rank = static_cast<int64_t>(first.shape().rank());
    ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, rank));
    std::vector<int64_t> dims = first.shape().dims();
    dims[static_cast<size_t>(axis)] = 0;
    for (size_t k = 0; k < ctx.input_count(); ++k) {
      const auto& d = ctx.input(k)->shape().dims();
      for (int64_t i = 0; i < rank; ++i) {
        if (static_cast<int64_t>(d.size()) != rank ||
            (i != axis && d[static_cast<size_t>(i)] != dims[static_cast<size_t>(i)])) {
          return Status(StatusCode::kInvalidArgument, "input " + std::to_string(k) + " has shape " +
                                                          ctx.input(k)->shape().ToString());
        }
      }
      dims[static_cast<size_t>(axis)] += d[static_cast<size_t>(axis)];
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i)
      outer *= dims[static_cast<size_t>(i)];
    for (int64_t i = axis + 1; i < rank; ++i)
      inner *= dims[static_cast<size_t>(i)];
    const size_t item = ItemSize(first.dtype());
    int64_t offset = 0;  // along the axis
    for (size_t k = 0; k < ctx.input_count(); ++k) {
      const Tensor& x = *ctx.input(k);
      const int64_t len = x.shape()[static_cast<size_t>(axis)];
      for (int64_t o = 0; o < outer; ++o) {
        CopyElements(x, o * len * inner, y, (o * dims[static_cast<size_t>(axis)] + offset) * inner,
                     item, len * inner);
      }
      offset += len;
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
};

class Expand : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new Expand());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto target, Int64Values(ctx.input(1), "shape"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape ts, Shape::Create(target));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(x.shape(), ts));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const std::vector<int64_t> st = BroadcastStrides(x.shape(), dims);
    const size_t item = ItemSize(x.dtype());
    std::vector<int64_t> idx(dims.size(), 0);
    int64_t off = 0;
    for (int64_t j = 0; j < y->num_elements(); ++j) {
      CopyElement(x, off, y, j, item);
      for (size_t d = dims.size(); d-- > 0;) {
        off += st[d];
        if (++idx[d] < dims[d]) break;
        off -= st[d] * dims[d];
        idx[d] = 0;
      }
    }
    return Status::Ok();
  }
};

class ConstantOfShape : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<ConstantOfShape>();
    if (const onnx::AttributeProto* a = info.Find("value")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->value_, TensorFromProto(a->t.get()));
    } else {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->value_, Tensor::Allocate(DataType::kFloat, Shape()));
      k->value_.mutable_data<float>()[0] = 0.0f;
    }
    if (k->value_.num_elements() != 1) {
      return Status(StatusCode::kInvalidModel, "value must hold one element");
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, Int64Values(ctx.input(0), "input"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, value_.dtype(), dims));
    const size_t item = ItemSize(value_.dtype());
    const int64_t n = y->num_elements();
    if (item == 0 || n == 0) {  // strings one by one
      for (int64_t j = 0; j < n; ++j)
        CopyElement(value_, 0, y, j, item);
      return Status::Ok();
    }
    // One element, then doubling copies: log2(n) memcpy calls.
    auto* out = static_cast<char*>(y->mutable_raw_data());
    std::memcpy(out, value_.raw_data(), item);
    for (int64_t done = 1; done < n;) {
      const int64_t step = std::min(done, n - done);
      std::memcpy(out + done * static_cast<int64_t>(item), out, static_cast<size_t>(step) * item);
      done += step;
    }
    return Status::Ok();
  }

 private:
  Tensor value_;
};

Status ConstantOfShapeType(const onnx::NodeProto& node, int, const std::vector<DataType>&,
                           std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = DataType::kFloat;
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "value") {
      ONNX_LIGHT_ASSIGN_OR_RETURN((*out)[0], DataTypeFromInt(a.t->data_type.get()));
    }
  }
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Shape) {
  return r.Register(Def("Shape", 1,
                        {{"T", {0}, {}, AllTensorTypes()}, {"T1", {}, {0}, {DataType::kInt64}}},
                        FactoryOf<ShapeOp>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Size) {
  return r.Register(Def("Size", 1,
                        {{"T", {0}, {}, AllTensorTypes()}, {"T1", {}, {0}, {DataType::kInt64}}},
                        FactoryOf<SizeOp>()));
}
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
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Transpose) {
  return r.Register(
      Def("Transpose", 1, {{"T", {0}, {0}, AllTensorTypes()}}, FactoryOf<Transpose>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Concat) {
  return r.Register(
      Def("Concat", 4, {{"T", UpTo(64), {0}, AllTensorTypes()}}, FactoryOf<Concat>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Expand) {
  return r.Register(Def("Expand", 8,
                        {{"T", {0}, {0}, AllTensorTypes()}, {"S", {1}, {}, {DataType::kInt64}}},
                        FactoryOf<Expand>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, ConstantOfShape) {
  KernelDef def = Def("ConstantOfShape", 9, {{"T1", {0}, {}, {DataType::kInt64}}},
                      FactoryOf<ConstantOfShape>());
  def.output_types = &ConstantOfShapeType;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
