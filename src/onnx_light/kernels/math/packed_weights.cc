#include "math/packed_weights.h"

#include <map>
#include <mutex>

#include "onnx_light/platform/mapped_file.h"
#include "simd/gemm_simd.h"

namespace onnx_light::kernels {

struct PackedWeights::Packed {
  Tensor storage;  // the packed floats (owning tensors are 64-byte aligned)
  const float* data() const { return storage.data<float>(); }
  int64_t k = 0, n = 0;
  bool view = false;  // registered by the address of its own data (a session constant)
};

namespace {

constexpr int64_t kMinValues = int64_t{1} << 14;  // smaller ones pack cheaply on every run

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}
// The packed copies alive, by the address of the matrix they pack (or, for views, of
// their own data).
std::map<const void*, std::weak_ptr<const PackedWeights::Packed>>& Registry() {
  static std::map<const void*, std::weak_ptr<const PackedWeights::Packed>> live;
  return live;
}
void ForgetExpired() {
  auto& live = Registry();
  for (auto it = live.begin(); it != live.end();)
    it = it->second.expired() ? live.erase(it) : std::next(it);
}

bool Packable(const Tensor& b) {
  return b.dtype() == DataType::kFloat && b.shape().rank() == 2 && b.num_elements() >= kMinValues;
}

// b packed, or null when the memory for it cannot be had.
std::shared_ptr<PackedWeights::Packed> Pack(const Tensor& b) {
  auto p = std::make_shared<PackedWeights::Packed>();
  p->k = b.shape()[0];
  p->n = b.shape()[1];
  Result<Shape> shape = Shape::Create({static_cast<int64_t>(SgemmPackedBFloats(p->k, p->n))});
  if (!shape.ok()) return nullptr;
  Result<Tensor> storage = Tensor::Allocate(DataType::kFloat, std::move(*shape));
  if (!storage.ok()) return nullptr;
  p->storage = std::move(*storage);
  SgemmPackB(p->k, p->n, b.data<float>(), p->n, p->storage.mutable_data<float>());
  ReleaseMappedPages(b.raw_data(), b.byte_size());  // the model file's pages, if they are
  return p;
}

}  // namespace

PackedWeights PackedWeights::Of(const KernelInfo& info, size_t input) {
  PackedWeights w;
  const Tensor* b = info.constant_input(input);
  if (b == nullptr || !Packable(*b)) return w;
  std::lock_guard<std::mutex> lock(RegistryMutex());
  std::weak_ptr<const Packed>& entry = Registry()[b->raw_data()];
  std::shared_ptr<const Packed> p = entry.lock();
  const int64_t k = b->shape()[0], n = b->shape()[1];
  if (p == nullptr || p->k != k || p->n != n) {
    p = nullptr;
    if (InMappedFile(b->raw_data(), b->byte_size())) {
      p = Pack(*b);
      if (p != nullptr) entry = p;
    }
  }
  ForgetExpired();
  if (p == nullptr) return w;
  w.packed_ = p;
  w.k_ = k;
  w.n_ = n;
  w.view_ = p->view;
  return w;
}

const float* PackedWeights::For(int64_t k, int64_t n) const {
  return packed_ != nullptr && k == k_ && n == n_ ? packed_->data() : nullptr;
}

bool PackWeightsInPlace(Tensor* b) {
  if (!Packable(*b)) return false;
  std::shared_ptr<PackedWeights::Packed> p = Pack(*b);
  if (p == nullptr) return false;
  p->view = true;
  Result<Shape> shape = Shape::Create({p->k, p->n});
  if (!shape.ok()) return false;
  // The view covers the first k * n packed floats (the packed form holds at least that
  // many); its owner keeps the packed storage alive.
  Result<Tensor> view = Tensor::Borrow(DataType::kFloat, std::move(*shape), p->data(),
                                       static_cast<size_t>(p->k * p->n) * sizeof(float), p);
  if (!view.ok()) return false;
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    Registry()[p->data()] = p;
    ForgetExpired();
  }
  *b = std::move(*view);
  return true;
}

}  // namespace onnx_light::kernels
