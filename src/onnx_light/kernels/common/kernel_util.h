// Helpers shared by the kernel sources.
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "common/registrations.h"
#include "onnx_light/runtime/kernel.h"
#include "onnx_light/runtime/kernel_registry.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {

inline const std::vector<DataType>& FloatTypes() {
  static const std::vector<DataType> types = {DataType::kFloat16, DataType::kBFloat16,
                                              DataType::kFloat, DataType::kDouble};
  return types;
}

inline const std::vector<DataType>& NumericTypes() {
  static const std::vector<DataType> types = {
      DataType::kFloat16, DataType::kBFloat16, DataType::kFloat,  DataType::kDouble,
      DataType::kInt8,    DataType::kInt16,    DataType::kInt32,  DataType::kInt64,
      DataType::kUint8,   DataType::kUint16,   DataType::kUint32, DataType::kUint64};
  return types;
}

// int32 and int64: the index types of Gather, Slice, Scatter*, ...
inline std::vector<DataType> IndexTypes() {
  return {DataType::kInt32, DataType::kInt64};
}

inline std::vector<DataType> IntegerTypes() {
  return {DataType::kInt8,  DataType::kInt16,  DataType::kInt32,  DataType::kInt64,
          DataType::kUint8, DataType::kUint16, DataType::kUint32, DataType::kUint64};
}

// The float8, float4 and 2/4-bit integer types (element codecs in narrow_types.h).
inline const std::vector<DataType>& NarrowTypes() {
  static const std::vector<DataType> types = {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ,
                                              DataType::kFloat8E5M2,   DataType::kFloat8E5M2FNUZ,
                                              DataType::kFloat8E8M0,   DataType::kFloat4E2M1,
                                              DataType::kInt4,         DataType::kUint4,
                                              DataType::kInt2,         DataType::kUint2};
  return types;
}

inline std::vector<DataType> AllTensorTypes() {
  std::vector<DataType> types = NumericTypes();
  types.push_back(DataType::kBool);
  types.push_back(DataType::kString);
  types.push_back(DataType::kComplex64);
  types.push_back(DataType::kComplex128);
  return types;
}

// Factory for a kernel class constructed from (const KernelInfo&) after a static
// Create(const KernelInfo&) -> Result<std::unique_ptr<KernelBase>>.
template <typename K>
Result<std::unique_ptr<KernelBase>> CreateKernel(const KernelInfo& info) {
  return K::Create(info);
}
// A plain function pointer: every factory shares one std::function invoker and manager.
template <typename K>
KernelFactory FactoryOf() {
  return &CreateKernel<K>;
}

// A unary element-wise def: T binds input 0 and output 0.
inline KernelDef UnaryDef(std::string domain, std::string op, int since,
                          std::vector<DataType> types, KernelFactory factory) {
  KernelDef def;
  def.domain = std::move(domain);
  def.op_type = std::move(op);
  def.since_version = since;
  def.constraints = {{"T", {0}, {0}, std::move(types)}};
  def.create = std::move(factory);
  return def;
}

// An INT attribute used as a flag (0 false, anything else true), with a default.
inline Result<bool> GetFlag(const KernelInfo& info, const char* name, bool default_value) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t v, info.GetInt(name, default_value ? 1 : 0));
  return v != 0;
}

// Runs fn(begin, end) over [0, n), split across the pool when n is large: chunks of at
// least `min_chunk` elements (64k for memory-bound passes; expensive ones, a GELU's tanh
// or erf per element, pass less).
template <typename Fn>
void ParallelElements(ThreadPool* pool, int64_t n, Fn fn, int64_t min_chunk = int64_t{1} << 16) {
  if (pool == nullptr || pool->threads() == 1 || n < 2 * min_chunk) {
    fn(int64_t{0}, n);
    return;
  }
  pool->ParallelFor(n, min_chunk, fn);
}

// The values of an int64 tensor input (shape, axes, ...), or an error naming `what`.
inline Result<std::vector<int64_t>> Int64Values(const Tensor* t, const char* what) {
  ONNX_LIGHT_RETURN_IF(t == nullptr || t->dtype() != DataType::kInt64, kInvalidArgument,
                       std::string(what) + " must be int64");
  return std::vector<int64_t>(t->data<int64_t>(), t->data<int64_t>() + t->num_elements());
}

// An axis in [-rank, rank) made non-negative, or an error.
inline Result<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    return Status(
        StatusCode::kInvalidArgument,
        "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

// Copies `count` consecutive elements from element i of src to element j of dst (any
// type, strings included). The common sizes are fixed-size copies the compiler inlines.
inline void CopyElements(const Tensor& src, int64_t i, Tensor* dst, int64_t j, size_t item,
                         int64_t count = 1) {
  if (item == 0) {
    for (int64_t k = 0; k < count; ++k)
      dst->mutable_data<std::string>()[j + k] = src.data<std::string>()[i + k];
    return;
  }
  char* d = static_cast<char*>(dst->mutable_raw_data()) + j * static_cast<int64_t>(item);
  const char* s = static_cast<const char*>(src.raw_data()) + i * static_cast<int64_t>(item);
  if (count == 1) {
    switch (item) {
      case 1:
        *d = *s;
        return;
      case 2:
        std::memcpy(d, s, 2);
        return;
      case 4:
        std::memcpy(d, s, 4);
        return;
      case 8:
        std::memcpy(d, s, 8);
        return;
      default:
        break;
    }
  }
  std::memcpy(d, s, static_cast<size_t>(count) * item);
}

// fn(tag) with tag an unsigned integer of `item` bytes (1, 2, 4 or 8), returning true; false
// for other sizes (strings: 0, 4-bit types). For kernels that move whole elements.
template <typename Fn>
bool ForFixedItem(size_t item, Fn&& fn) {
  switch (item) {
    case 1:
      fn(uint8_t{});
      return true;
    case 2:
      fn(uint16_t{});
      return true;
    case 4:
      fn(uint32_t{});
      return true;
    case 8:
      fn(uint64_t{});
      return true;
    default:
      return false;
  }
}

// Copies element i of src to element j of dst.
inline void CopyElement(const Tensor& src, int64_t i, Tensor* dst, int64_t j, size_t item) {
  CopyElements(src, i, dst, j, item);
}

// Bytes per element; 0 for strings (copied as objects).
inline size_t ItemSize(DataType t) {
  return t == DataType::kString ? 0 : static_cast<size_t>(DataTypeBitWidth(t) / 8);
}

// An ai.onnx kernel def from `since` on.
inline KernelDef Def(const char* op, int since, std::vector<TypeConstraint> c, KernelFactory f) {
  KernelDef def;
  def.op_type = op;
  def.since_version = since;
  def.constraints = std::move(c);
  def.create = std::move(f);
  return def;
}

// A kernel of an onnx_light op (no ONNX schema gives its arity): `min_inputs` to
// `max_inputs` inputs (bit i of `optional_inputs`: input i may be empty) and one output.
inline KernelDef OnnxLightDef(const char* op, std::vector<TypeConstraint> c, KernelFactory f,
                              int min_inputs, int max_inputs, uint32_t optional_inputs = 0) {
  KernelDef def = Def(op, 1, std::move(c), std::move(f));
  def.domain = "onnx_light";
  def.arity.min_inputs = min_inputs;
  def.arity.max_inputs = max_inputs;
  def.arity.min_outputs = 1;
  def.arity.max_outputs = 1;
  def.arity.optional_inputs = optional_inputs;
  return def;
}

// Positions 0..n-1 (the inputs of a variadic op).
inline std::vector<int> UpTo(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// Index tensor values (int32 or int64) as int64.
inline std::vector<int64_t> IndexValues(const Tensor& t) {
  // The type tested once, not per element (the per-element test and accessor kept the loop
  // scalar: a third of MaxUnpool's time).
  if (t.dtype() == DataType::kInt32) {
    const int32_t* p = t.data<int32_t>();
    return std::vector<int64_t>(p, p + t.num_elements());
  }
  const int64_t* p = t.data<int64_t>();
  return std::vector<int64_t>(p, p + t.num_elements());
}

// An index along a dimension of length `len`, negative counting from the end.
inline Result<int64_t> ResolveIndex(int64_t i, int64_t len) {
  ONNX_LIGHT_RETURN_IF(
      i < -len || i >= len, kInvalidArgument,
      "index " + std::to_string(i) + " is out of range for a dimension of " + std::to_string(len));
  return i < 0 ? i + len : i;
}

// The sum of f(x[i]) over n elements in double, over 8 independent partial sums (one
// serial chain of double additions would be latency-bound); the tail is added first, then
// the partial sums in order.
template <typename T, typename F>
double SumF64(const T* x, int64_t n, F f) {
  double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j)
      part[j] += f(static_cast<double>(x[i + j]));
  }
  double acc = 0;
  for (; i < n; ++i)
    acc += f(static_cast<double>(x[i]));
  for (double v : part)
    acc += v;
  return acc;
}
template <typename T>
double SumF64(const T* x, int64_t n) {
  return SumF64(x, n, [](double v) { return v; });
}

// The largest of n floats over 16 running maxima (element-wise, a loop the compiler
// vectorizes; a max reduction does not vectorize without fast-math). NaN is passed over;
// -inf when there is no number.
inline float MaxF32(const float* x, int64_t n) {
  float part[16];
  std::fill(part, part + 16, -std::numeric_limits<float>::infinity());
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int j = 0; j < 16; ++j)
      part[j] = x[i + j] > part[j] ? x[i + j] : part[j];
  }
  float m = -std::numeric_limits<float>::infinity();
  for (; i < n; ++i)
    m = x[i] > m ? x[i] : m;
  for (float v : part)
    m = v > m ? v : m;
  return m;
}

// Product of dims[begin, end).
inline int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i)
    p *= dims[i];
  return p;
}

// Row-major element strides of dims.
inline std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;)
    s[d - 1] = s[d] * dims[d];
  return s;
}

// GatherElements' and ScatterElements' indices: off the axis, an index's position is its
// position in data, so the indices may not be longer there than data is (they were read
// past data's end).
inline Status CheckAxisIndicesShape(const Tensor& indices, const std::vector<int64_t>& in,
                                    int64_t axis) {
  const std::vector<int64_t>& id = indices.shape().dims();
  for (size_t d = 0; d < id.size() && d < in.size(); ++d) {
    ONNX_LIGHT_RETURN_IF(static_cast<int64_t>(d) != axis && id[d] > in[d], kInvalidArgument,
                         "indices " + indices.shape().ToString() +
                             " are longer than data on axis " + std::to_string(d) + " (" +
                             std::to_string(id[d]) + " > " + std::to_string(in[d]) + ")");
  }
  return Status::Ok();
}

// For GatherElements/ScatterElements: the flat offset into data (dims `in`) of every
// element of `indices` (same rank), whose values replace the coordinate along `axis`.
// Row by row along the last axis (a row's base offset once, then one multiply-add an
// element, the index read in its own type): a GNN's 258k-element message scatter spent
// more in the per-element coordinate walk than in the scatter.
inline Result<std::vector<int64_t>> AxisElementOffsets(const Tensor& indices,
                                                       const std::vector<int64_t>& in,
                                                       int64_t axis) {
  const std::vector<int64_t>& id = indices.shape().dims();
  ONNX_LIGHT_RETURN_IF_ERROR(CheckAxisIndicesShape(indices, in, axis));
  const std::vector<int64_t> st = RowMajorStrides(in);
  const auto n = static_cast<size_t>(indices.num_elements());
  std::vector<int64_t> offsets(n);
  if (n == 0 || id.empty()) return offsets;  // (rank 0: the one element at offset 0)
  const bool i32 = indices.dtype() == DataType::kInt32;
  const int32_t* i32s = i32 ? indices.data<int32_t>() : nullptr;
  const int64_t* i64s = i32 ? nullptr : indices.data<int64_t>();
  const size_t r = id.size(), last = r - 1;
  const int64_t len = id[last], dim = in[static_cast<size_t>(axis)];
  const int64_t step = static_cast<int64_t>(last) == axis ? 0 : st[last];
  const int64_t ast = st[static_cast<size_t>(axis)];
  std::vector<int64_t> pos(r, 0);
  for (size_t row = 0; row * static_cast<size_t>(len) < n; ++row) {
    int64_t base = 0;
    for (size_t d = 0; d < last; ++d)
      base += static_cast<int64_t>(d) == axis ? 0 : pos[d] * st[d];
    const size_t j0 = row * static_cast<size_t>(len);
    for (int64_t c = 0; c < len; ++c) {
      const size_t j = j0 + static_cast<size_t>(c);
      int64_t v = i32 ? i32s[j] : i64s[j];
      if (v < -dim || v >= dim) return ResolveIndex(v, dim).status();
      if (v < 0) v += dim;
      offsets[j] = base + c * step + v * ast;
    }
    for (size_t d = last; d-- > 0;) {
      if (++pos[d] < id[d]) break;
      pos[d] = 0;
    }
  }
  return offsets;
}

}  // namespace onnx_light::kernels
