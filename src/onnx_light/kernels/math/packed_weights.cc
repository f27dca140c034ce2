#include "math/packed_weights.h"

#include <algorithm>
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

// b packed (with `transposed`, b is [n, k] and its transpose is packed), or null when the
// memory for it cannot be had.
std::shared_ptr<PackedWeights::Packed> Pack(const Tensor& b, bool transposed = false) {
  auto p = std::make_shared<PackedWeights::Packed>();
  p->k = b.shape()[transposed ? 1 : 0];
  p->n = b.shape()[transposed ? 0 : 1];
  Result<Shape> shape = Shape::Create({static_cast<int64_t>(SgemmPackedBFloats(p->k, p->n))});
  if (!shape.ok()) return nullptr;
  Result<Tensor> storage = Tensor::Allocate(DataType::kFloat, std::move(*shape));
  if (!storage.ok()) return nullptr;
  p->storage = std::move(*storage);
  const float* src = b.data<float>();
  float* out = p->storage.mutable_data<float>();
  if (transposed) {
    // Panels of the transposed matrix are whole rows of b: packed a few at a time, each
    // slice of the model file's pages given back as soon as it is packed, so the file's
    // copy and the packed one are never both resident (a 32 MiB Gemm weight read in
    // place from the file: the session's peak RSS 65 -> 35 MiB). A misaligned
    // initializer was copied to the heap when the model loaded: that copy and the packed
    // one coexist until packing ends (ddddocr's head: 80.8 MiB either way).
    const auto nr = static_cast<int64_t>(SgemmPackedTileColumns());
    const int64_t step = nr * std::max<int64_t>(1, (int64_t{1} << 20) / (p->k * nr * 4));
    for (int64_t j0 = 0; j0 < p->n; j0 += step) {
      const int64_t cols = std::min(step, p->n - j0);
      SgemmPackB(p->k, cols, src + j0 * p->k, p->k, out + j0 * p->k, /*b_trans=*/true);
      ReleaseMappedPages(src + j0 * p->k, static_cast<size_t>(cols * p->k) * sizeof(float));
    }
  } else {
    SgemmPackB(p->k, p->n, src, p->n, out);
  }
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

namespace {

bool IsPackedView(const Tensor& b) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Registry().find(b.raw_data());
  if (it == Registry().end()) return false;
  std::shared_ptr<const PackedWeights::Packed> p = it->second.lock();
  return p != nullptr && p->view && p->data() == b.raw_data();
}

bool ReplaceByPackedView(Tensor* b, bool transposed) {
  if (!Packable(*b)) return false;
  if (IsPackedView(*b)) return !transposed;  // packed already (a shared constant)
  std::shared_ptr<PackedWeights::Packed> p = Pack(*b, transposed);
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

}  // namespace

bool PackWeightsInPlace(Tensor* b) {
  return ReplaceByPackedView(b, false);
}

bool PackTransposedWeightsInPlace(Tensor* bt) {
  return ReplaceByPackedView(bt, true);
}

}  // namespace onnx_light::kernels
