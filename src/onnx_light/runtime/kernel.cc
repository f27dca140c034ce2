#include "onnx_light/runtime/kernel.h"

#include <atomic>
#include <cstdint>
#include <exception>
#include <new>
#include <string>

#include "compute.h"
#include "memory_pattern.h"
#include "node_frame.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light {

const char* AttributeTypeName(int32_t type) {
  switch (static_cast<onnx::AttributeType>(type)) {
    case onnx::AttributeType::kFloat:
      return "FLOAT";
    case onnx::AttributeType::kInt:
      return "INT";
    case onnx::AttributeType::kString:
      return "STRING";
    case onnx::AttributeType::kTensor:
      return "TENSOR";
    case onnx::AttributeType::kGraph:
      return "GRAPH";
    case onnx::AttributeType::kFloats:
      return "FLOATS";
    case onnx::AttributeType::kInts:
      return "INTS";
    case onnx::AttributeType::kStrings:
      return "STRINGS";
    case onnx::AttributeType::kTensors:
      return "TENSORS";
    case onnx::AttributeType::kGraphs:
      return "GRAPHS";
    case onnx::AttributeType::kSparseTensor:
      return "SPARSE_TENSOR";
    case onnx::AttributeType::kSparseTensors:
      return "SPARSE_TENSORS";
    case onnx::AttributeType::kTypeProto:
      return "TYPE_PROTO";
    case onnx::AttributeType::kTypeProtos:
      return "TYPE_PROTOS";
    case onnx::AttributeType::kUndefined:
      return "UNDEFINED";
  }
  return "UNKNOWN";
}

std::string NormalizeDomain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

std::string KernelInfo::Describe() const {
  std::string s = "node '" + name() + "' (" + op_type();
  if (!domain().empty()) s += ", domain " + domain();
  return s + ")";
}

const onnx::AttributeProto* KernelInfo::Find(const std::string& attr) const {
  for (const onnx::AttributeProto& a : node_->attribute) {
    if (a.name.get() == attr) return &a;
  }
  return nullptr;
}

Result<const onnx::AttributeProto*> KernelInfo::Typed(const std::string& attr,
                                                      onnx::AttributeType type) const {
  const onnx::AttributeProto* a = Find(attr);
  if (a == nullptr) {
    return Status(StatusCode::kInvalidModel, "required attribute '" + attr + "' is missing");
  }
  if (a->type.get() != static_cast<int32_t>(type)) {
    return Status(StatusCode::kInvalidModel, "attribute '" + attr + "' has type " +
                                                 AttributeTypeName(a->type.get()) + ", expected " +
                                                 AttributeTypeName(static_cast<int32_t>(type)));
  }
  return a;
}

Result<float> KernelInfo::GetFloat(const std::string& attr) const {
  ONNX_LIGHT_ASSIGN_OR_RETURN(const onnx::AttributeProto* a,
                              Typed(attr, onnx::AttributeType::kFloat));
  return a->f.get();
}
Result<int64_t> KernelInfo::GetInt(const std::string& attr) const {
  ONNX_LIGHT_ASSIGN_OR_RETURN(const onnx::AttributeProto* a,
                              Typed(attr, onnx::AttributeType::kInt));
  return a->i.get();
}
Result<std::string> KernelInfo::GetString(const std::string& attr) const {
  ONNX_LIGHT_ASSIGN_OR_RETURN(const onnx::AttributeProto* a,
                              Typed(attr, onnx::AttributeType::kString));
  return a->s.get();
}
Result<std::vector<int64_t>> KernelInfo::GetInts(const std::string& attr) const {
  ONNX_LIGHT_ASSIGN_OR_RETURN(const onnx::AttributeProto* a,
                              Typed(attr, onnx::AttributeType::kInts));
  return a->ints;
}
Result<std::vector<float>> KernelInfo::GetFloats(const std::string& attr) const {
  ONNX_LIGHT_ASSIGN_OR_RETURN(const onnx::AttributeProto* a,
                              Typed(attr, onnx::AttributeType::kFloats));
  return a->floats;
}
Result<std::vector<std::string>> KernelInfo::GetStrings(const std::string& attr) const {
  ONNX_LIGHT_ASSIGN_OR_RETURN(const onnx::AttributeProto* a,
                              Typed(attr, onnx::AttributeType::kStrings));
  return a->strings;
}
Result<float> KernelInfo::GetFloat(const std::string& attr, float default_value) const {
  return HasAttribute(attr) ? GetFloat(attr) : Result<float>(default_value);
}
Result<int64_t> KernelInfo::GetInt(const std::string& attr, int64_t default_value) const {
  return HasAttribute(attr) ? GetInt(attr) : Result<int64_t>(default_value);
}
Result<std::string> KernelInfo::GetString(const std::string& attr,
                                          std::string default_value) const {
  return HasAttribute(attr) ? GetString(attr) : Result<std::string>(std::move(default_value));
}

namespace {
std::atomic<uint64_t> g_kernel_exceptions{0};

// A caught exception: counted, and told as `code` with `what` (the caller names the node).
Status Caught(StatusCode code, const std::string& what) {
  g_kernel_exceptions.fetch_add(1, std::memory_order_relaxed);
  return Status(code, what);
}

}  // namespace

Status ComputeNode(const KernelBase& kernel, KernelContext& ctx) {
  try {
    return kernel.Compute(ctx);
  } catch (const std::bad_alloc&) {
    return Caught(StatusCode::kResourceExhausted, "out of memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    return Caught(StatusCode::kInternal,
                  std::string("the kernel threw an exception (a bug): ") + e.what());
  } catch (...) {
    return Caught(StatusCode::kInternal, "the kernel threw an exception (a bug)");
  }
}

uint64_t KernelExceptionsCaught() {
  return g_kernel_exceptions.load(std::memory_order_relaxed);
}

Result<Tensor> KernelContext::AllocateTemporary(DataType type,
                                                const std::vector<int64_t>& dims) const {
  Result<Shape> shape = Shape::Create(dims, *limits_);
  if (!shape.ok()) return shape.status().WithContext("a partial result");
  ONNX_LIGHT_ASSIGN_OR_RETURN(size_t bytes, StorageBytes(type, shape->num_elements()));
  if (bytes > max_tensor_bytes_) {
    return Status(StatusCode::kOutOfRange, "a partial result of shape " + shape->ToString() +
                                               " needs " + std::to_string(bytes) +
                                               " bytes, over the limit of " +
                                               std::to_string(max_tensor_bytes_));
  }
  const RunControl* control = run_control();
  if (control != nullptr && control->budget != nullptr) {
    const RunBudget& b = *control->budget;
    uint64_t held = 0;
    if (!b.Fits(bytes, &held)) {
      return Status(StatusCode::kResourceExhausted,
                    "a partial result of shape " + shape->ToString() + " needs " +
                        std::to_string(bytes) + " bytes; the run holds " + std::to_string(held) +
                        " and its memory budget is " + std::to_string(b.limit) + " bytes");
    }
  }
  return Tensor::Allocate(type, std::move(*shape));
}

Result<Tensor*> KernelContext::AllocateOutput(size_t i, const std::vector<int64_t>& dims) {
  if (i >= outputs_->size()) {
    return Status(StatusCode::kInternal, "output " + std::to_string(i) + " does not exist");
  }
  return AllocateOutput(i, info_->output_type(i), dims);
}

Result<Tensor*> KernelContext::AllocateOutput(size_t i, DataType type,
                                              const std::vector<int64_t>& dims) {
  if (i >= outputs_->size()) {
    return Status(StatusCode::kInternal, "output " + std::to_string(i) + " does not exist");
  }
  Result<Shape> shape = Shape::Create(dims, *limits_);
  if (!shape.ok()) return shape.status().WithContext("output " + std::to_string(i));
  ONNX_LIGHT_ASSIGN_OR_RETURN(size_t bytes, StorageBytes(type, shape->num_elements()));
  if (bytes > max_tensor_bytes_) {
    return Status(StatusCode::kOutOfRange,
                  "output " + std::to_string(i) + " of shape " + shape->ToString() + " needs " +
                      std::to_string(bytes) + " bytes, over the limit of " +
                      std::to_string(max_tensor_bytes_));
  }
  std::vector<uint64_t>* charged = frame_ != nullptr ? frame_->charged : nullptr;
  const RunControl* control = run_control();
  if (control != nullptr && control->budget != nullptr && charged != nullptr &&
      i < charged->size()) {
    RunBudget& b = *control->budget;
    uint64_t held = 0;
    if (!b.Fits(bytes, &held)) {
      return Status(StatusCode::kResourceExhausted,
                    "output " + std::to_string(i) + " of shape " + shape->ToString() + " needs " +
                        std::to_string(bytes) + " bytes; the run holds " + std::to_string(held) +
                        " and its memory budget is " + std::to_string(b.limit) + " bytes");
    }
    b.used.fetch_add(bytes, std::memory_order_relaxed);
    (*charged)[i] += bytes;
  }
  MemoryPattern* pattern = frame_ != nullptr ? frame_->pattern : nullptr;
  if (pattern != nullptr && frame_->output_values != nullptr && i < frame_->output_values->size() &&
      type != DataType::kString) {
    const int v = (*frame_->output_values)[i];
    if (pattern->planned()) {
      // (The shape moves into the tensor only when it is placed.)
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor placed,
                                  pattern->Allocate(v, type, std::move(*shape), bytes));
      if (placed.is_defined()) {
        (*outputs_)[i] = Value{std::move(placed), nullptr};
        return &(*outputs_)[i].tensor;
      }
    } else if (pattern->recording()) {
      pattern->Record(v, bytes);
    }
  }
  static const std::shared_ptr<BufferPool> kNoPool;
  const std::shared_ptr<BufferPool>* buffers = frame_ != nullptr ? frame_->buffers : nullptr;
  ONNX_LIGHT_ASSIGN_OR_RETURN(
      Tensor t, Tensor::Allocate(type, std::move(*shape), buffers ? *buffers : kNoPool));
  (*outputs_)[i] = Value{std::move(t), nullptr};
  return &(*outputs_)[i].tensor;
}

std::unique_ptr<KernelState>& KernelContext::StateSlot() {
  return frame_ != nullptr && frame_->state != nullptr ? *frame_->state : own_state_;
}

std::vector<float>& KernelContext::ScratchSlot() {
  return frame_ != nullptr && frame_->scratch != nullptr ? *frame_->scratch : own_scratch_;
}

const RunControl* KernelContext::run_control() const noexcept {
  return frame_ != nullptr ? frame_->control : nullptr;
}

Status KernelContext::CheckRun() const {
  const RunControl* control = run_control();
  return control != nullptr ? control->Check() : Status::Ok();
}

float* KernelContext::Scratch(size_t floats) {
  constexpr size_t kAlign = 64 / sizeof(float);
  std::vector<float>& scratch = ScratchSlot();
  if (scratch.size() < floats + kAlign) {
    // Contents need not survive: free the old block before allocating the larger one, so
    // growing never holds both (a copy would raise the peak by the old size).
    std::vector<float>().swap(scratch);
    scratch.resize(floats + kAlign);
  }
  float* p = scratch.data();
  const size_t mis = reinterpret_cast<uintptr_t>(p) % 64;
  return mis == 0 ? p : p + (64 - mis) / sizeof(float);
}

Status KernelContext::SetOutput(size_t i, Tensor tensor) {
  if (i >= outputs_->size()) {
    return Status(StatusCode::kInternal, "output " + std::to_string(i) + " does not exist");
  }
  (*outputs_)[i] = Value{std::move(tensor), nullptr};
  return Status::Ok();
}

Status KernelContext::SetOutputSequence(size_t i, TensorSequence sequence) {
  return SetOutputValue(
      i, Value{Tensor(), std::make_shared<const TensorSequence>(std::move(sequence))});
}

Status KernelContext::SetOutputValue(size_t i, Value value) {
  if (i >= outputs_->size()) {
    return Status(StatusCode::kInternal, "output " + std::to_string(i) + " does not exist");
  }
  (*outputs_)[i] = std::move(value);
  return Status::Ok();
}

}  // namespace onnx_light
