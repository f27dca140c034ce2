#include "onnx_light/core/tensor.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

namespace onnx_light {
namespace {

size_t ElementAlignment(DataType type) {
  switch (type) {
    case DataType::kString:
      return alignof(std::string);
    case DataType::kComplex64:
      return alignof(float);
    case DataType::kComplex128:
      return alignof(double);
    default: {
      const int bits = DataTypeBitWidth(type);
      return bits >= 8 ? static_cast<size_t>(bits / 8) : 1;
    }
  }
}

// Owns one block; for STRING it also owns the std::string objects in it. Large blocks go
// back to their pool when it is still alive.
struct AlignedBlock {
  void* ptr = nullptr;
  size_t capacity = 0;
  size_t strings = 0;
  std::weak_ptr<BufferPool> pool;

  AlignedBlock() = default;
  AlignedBlock(const AlignedBlock&) = delete;
  AlignedBlock& operator=(const AlignedBlock&) = delete;
  ~AlignedBlock() {
    auto* s = static_cast<std::string*>(ptr);
    for (size_t i = 0; i < strings; ++i)
      s[i].~basic_string();
    if (auto p = pool.lock()) {
      p->Release(ptr, capacity);
    } else {
      BufferPool::FreeBlock(ptr, capacity);
    }
  }
};

}  // namespace

Result<Tensor> Tensor::Allocate(DataType type, Shape shape) {
  return Allocate(type, std::move(shape), nullptr);
}

Result<Tensor> Tensor::Allocate(DataType type, Shape shape,
                                const std::shared_ptr<BufferPool>& pool) {
  if (type == DataType::kUndefined) {
    return Status(StatusCode::kInvalidArgument, "cannot allocate a tensor of type UNDEFINED");
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(size_t bytes, StorageBytes(type, shape.num_elements()));
  // Whole 64-byte blocks at least, so SIMD kernels may load a full vector at the end.
  const size_t capacity = BufferPool::Capacity(bytes);
  if (capacity < bytes) {
    return Status(StatusCode::kOutOfRange,
                  "tensor of " + std::to_string(bytes) + " bytes overflows the address space");
  }
  auto block = std::make_shared<AlignedBlock>();
  const bool pooled = pool && type != DataType::kString;
  size_t got = capacity;
  block->ptr = pooled ? pool->Acquire(bytes, &got) : BufferPool::AllocateBlock(capacity);
  if (block->ptr == nullptr) {
    return Status(StatusCode::kResourceExhausted,
                  "out of memory allocating " + std::to_string(bytes) + " bytes for a " +
                      DataTypeName(type) + " tensor of shape " + shape.ToString());
  }
  block->capacity = got;
  if (pooled) block->pool = pool;
  if (type == DataType::kString) {
    auto* s = static_cast<std::string*>(block->ptr);
    const auto n = static_cast<size_t>(shape.num_elements());
    for (; block->strings < n; ++block->strings)
      new (s + block->strings) std::string();
  }
  Tensor t;
  t.dtype_ = type;
  t.shape_ = std::move(shape);
  t.data_ = block->ptr;
  t.byte_size_ = bytes;
  t.owning_ = true;
  t.storage_ = std::move(block);
  return t;
}

Result<Tensor> Tensor::MakeView(DataType type, Shape shape, void* data, size_t byte_size,
                                std::shared_ptr<const void> keep_alive, bool read_only) {
  if (type == DataType::kUndefined) {
    return Status(StatusCode::kInvalidArgument, "cannot view memory as type UNDEFINED");
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(size_t needed, StorageBytes(type, shape.num_elements()));
  if (byte_size < needed) {
    return Status(StatusCode::kInvalidArgument,
                  std::string(DataTypeName(type)) + " tensor of shape " + shape.ToString() +
                      " needs " + std::to_string(needed) + " bytes, buffer has " +
                      std::to_string(byte_size));
  }
  if (data == nullptr && needed > 0) {
    return Status(StatusCode::kInvalidArgument, "null data pointer for a non-empty tensor");
  }
  // An empty tensor never dereferences its pointer (numpy hands out odd ones for them).
  const size_t align = ElementAlignment(type);
  if (needed > 0 && reinterpret_cast<uintptr_t>(data) % align != 0) {
    return Status(StatusCode::kInvalidArgument, std::string("data pointer is not aligned to ") +
                                                    std::to_string(align) + " bytes as " +
                                                    DataTypeName(type) + " requires");
  }
  Tensor t;
  t.dtype_ = type;
  t.shape_ = std::move(shape);
  t.data_ = data;
  t.byte_size_ = needed;
  t.read_only_ = read_only;
  t.storage_ = std::move(keep_alive);
  return t;
}

Result<Tensor> Tensor::Borrow(DataType type, Shape shape, const void* data, size_t byte_size,
                              std::shared_ptr<const void> keep_alive) {
  // The view never writes through data_: mutable_raw_data() returns null for it.
  return MakeView(type, std::move(shape), const_cast<void*>(data), byte_size, std::move(keep_alive),
                  /*read_only=*/true);
}

Result<Tensor> Tensor::BorrowMutable(DataType type, Shape shape, void* data, size_t byte_size,
                                     std::shared_ptr<const void> keep_alive) {
  return MakeView(type, std::move(shape), data, byte_size, std::move(keep_alive),
                  /*read_only=*/false);
}

Result<Tensor> Tensor::Reshaped(Shape shape) const {
  if (shape.num_elements() != num_elements()) {
    return Status(StatusCode::kInvalidArgument, "cannot reshape " + shape_.ToString() + " (" +
                                                    std::to_string(num_elements()) +
                                                    " elements) to " + shape.ToString());
  }
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Result<Tensor> Tensor::Clone() const {
  if (!is_defined()) return Tensor();
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor copy, Allocate(dtype_, shape_));
  if (dtype_ == DataType::kString) {
    std::copy_n(static_cast<const std::string*>(data_), num_elements(),
                static_cast<std::string*>(copy.data_));
  } else if (byte_size_ > 0) {
    std::memcpy(copy.data_, data_, byte_size_);
  }
  return copy;
}

}  // namespace onnx_light
