// Tensor: a dense array of one DataType with a Shape, owning or borrowing its storage.
#pragma once

#include <cstddef>
#include <memory>

#include "onnx_light/core/buffer_pool.h"
#include "onnx_light/core/data_type.h"
#include "onnx_light/core/shape.h"
#include "onnx_light/core/status.h"

namespace onnx_light {

// Copies of a Tensor share storage (like a numpy view); Clone() makes a deep copy.
// Owning tensors are 64-byte aligned. Borrowed tensors point at memory someone else owns;
// an optional keep-alive handle is held for as long as any copy of the tensor lives.
// STRING tensors hold std::string objects (constructed empty on allocation).
// Sub-byte types (INT4, UINT2, ...) are stored packed, low bits first, as in ONNX.
class Tensor {
 public:
  static constexpr size_t kAlignment = 64;

  Tensor() = default;  // holds nothing: dtype() is UNDEFINED

  // New uninitialized storage (numbers) or empty strings. An empty tensor still gets a
  // valid, aligned, non-null data pointer.
  static Result<Tensor> Allocate(DataType type, Shape shape);
  // The same, with large buffers recycled through `pool` (kept alive by a weak reference:
  // a tensor may outlive its pool).
  static Result<Tensor> Allocate(DataType type, Shape shape,
                                 const std::shared_ptr<BufferPool>& pool);

  // A read-only view of `data`, which must be aligned for the element type and hold at
  // least StorageBytes(type, shape.num_elements()) bytes.
  static Result<Tensor> Borrow(DataType type, Shape shape, const void* data, size_t byte_size,
                               std::shared_ptr<const void> keep_alive = nullptr);
  // A writable view; same checks.
  static Result<Tensor> BorrowMutable(DataType type, Shape shape, void* data, size_t byte_size,
                                      std::shared_ptr<const void> keep_alive = nullptr);

  // A deep copy with owning storage.
  Result<Tensor> Clone() const;
  // The same storage seen with another shape of the same element count (no copy).
  Result<Tensor> Reshaped(Shape shape) const;

  DataType dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return shape_; }
  int64_t num_elements() const noexcept { return shape_.num_elements(); }
  size_t byte_size() const noexcept { return byte_size_; }
  bool is_defined() const noexcept { return dtype_ != DataType::kUndefined; }
  bool is_owning() const noexcept { return owning_; }
  bool is_read_only() const noexcept { return read_only_; }
  // True when another Tensor (a copy) refers to the same storage.
  bool shares_storage() const noexcept { return storage_.use_count() > 1; }
  // The storage's identity (equal for every Tensor sharing it) and its holders.
  const void* storage_key() const noexcept { return storage_.get(); }
  long storage_holders() const noexcept { return storage_.use_count(); }

  const void* raw_data() const noexcept { return data_; }
  // Null for a read-only view.
  void* mutable_raw_data() noexcept { return read_only_ ? nullptr : data_; }

  // Typed access; null when T does not match dtype() (or, for mutable_data, when the
  // tensor is a read-only view).
  template <typename T>
  const T* data() const noexcept {
    return DataTypeOf<T>::value == dtype_ ? static_cast<const T*>(data_) : nullptr;
  }
  template <typename T>
  T* mutable_data() noexcept {
    return DataTypeOf<T>::value == dtype_ && !read_only_ ? static_cast<T*>(data_) : nullptr;
  }

 private:
  static Result<Tensor> MakeView(DataType type, Shape shape, void* data, size_t byte_size,
                                 std::shared_ptr<const void> keep_alive, bool read_only);

  DataType dtype_ = DataType::kUndefined;
  Shape shape_;
  void* data_ = nullptr;
  size_t byte_size_ = 0;  // StorageBytes(dtype_, num_elements())
  bool owning_ = false;
  bool read_only_ = false;
  std::shared_ptr<const void> storage_;  // owner of the memory, or the keep-alive handle
};

}  // namespace onnx_light
