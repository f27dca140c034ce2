#include "memory_pattern.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>
#include <utility>

namespace onnx_light {
namespace {

constexpr size_t kAlign = 64;

size_t RoundUp(size_t bytes) {
  return (std::max<size_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

void MemoryPattern::BeginRun(const std::vector<int64_t>& signature) {
  ++run_;
  conflict_ = false;
  const size_t n = first_->size();
  const bool same = has_signature_ && signature == signature_;
  if (same && mode_ == Mode::kRecorded) {
    Build();
    return;
  }
  if (same && mode_ == Mode::kPlanned) {
    // Every tensor of the last run must be gone (none is handed out of a run: graph
    // outputs are never placed); one that is not means the plan missed a holder.
    bool clear = true;
    for (size_t v = 0; clear && v < n; ++v)
      clear = offset_[v] == kNotPlaced || !Occupied(v);
    if (clear) return;
  }
  if (same && mode_ == Mode::kUnused) return;
  // A new signature, an unfinished record or a plan that failed: record this run.
  signature_ = signature;
  has_signature_ = true;
  mode_ = Mode::kRecording;
  recorded_.assign(n, 0);
  alias_.assign(n, -1);
  arena_.reset();
  arena_bytes_ = 0;
  placed_ = 0;
  offset_.clear();
  size_.clear();
  before_.clear();
  tenant_.clear();
}

void MemoryPattern::EndRun(bool complete) {
  if (mode_ == Mode::kRecording && complete) mode_ = Mode::kRecorded;
  if (mode_ == Mode::kPlanned && conflict_) mode_ = Mode::kRecording;  // record anew
}

void MemoryPattern::Record(int v, size_t bytes) {
  if (v < 0 || static_cast<size_t>(v) >= recorded_.size()) return;
  size_t& r = recorded_[static_cast<size_t>(v)];
  r = std::max(r, RoundUp(bytes));
}

void MemoryPattern::RecordAlias(int v, int source) {
  if (v < 0 || static_cast<size_t>(v) >= alias_.size() || source < 0 || source == v) return;
  alias_[static_cast<size_t>(v)] = source;
}

void MemoryPattern::Build() {
  const size_t n = recorded_.size();
  const std::vector<int>& first = *first_;
  const std::vector<int>& last = *last_;
  // Views share their source's memory: a group (a source and every view of it, through
  // any chain) lives from the source's producer to its last member's last reader. A group
  // with a graph output in it outlives the run and is left to the pool.
  std::vector<int> root(n);
  for (size_t v = 0; v < n; ++v) {
    int r = static_cast<int>(v);
    for (size_t steps = 0; alias_[static_cast<size_t>(r)] >= 0 && steps < n; ++steps)
      r = alias_[static_cast<size_t>(r)];
    root[v] = r;
  }
  std::vector<int> end(n, -1);
  std::vector<char> outlives(n, 0);
  for (size_t v = 0; v < n; ++v) {
    if (recorded_[v] == 0 && alias_[v] < 0) continue;
    const auto r = static_cast<size_t>(root[v]);
    end[r] = std::max({end[r], last[v], first[v]});
    if (last[v] >= node_count_) outlives[r] = 1;
  }
  std::vector<int> groups;
  for (size_t v = 0; v < n; ++v) {
    if (root[v] == static_cast<int>(v) && recorded_[v] > 0 && first[v] >= 0 && !outlives[v]) {
      groups.push_back(static_cast<int>(v));
    }
  }
  offset_.assign(n, kNotPlaced);
  size_.assign(n, 0);
  before_.assign(n, {});
  tenant_.assign(n, {});
  placed_in_.assign(n, 0);
  cleared_in_.assign(n, 0);
  placed_ = groups.size();
  if (groups.empty()) {
    mode_ = Mode::kUnused;
    return;
  }
  auto start = [&](int v) { return first[static_cast<size_t>(v)]; };
  auto stop = [&](int v) { return end[static_cast<size_t>(v)]; };
  auto bytes = [&](int v) { return recorded_[static_cast<size_t>(v)]; };
  // Largest first, each at the lowest offset free for its whole lifetime.
  std::vector<int> order = groups;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return bytes(a) != bytes(b) ? bytes(a) > bytes(b) : start(a) < start(b);
  });
  std::vector<int> placed;
  std::vector<std::pair<size_t, size_t>> busy;  // [offset, end) of those live alongside
  for (int v : order) {
    busy.clear();
    for (int p : placed) {
      if (start(p) <= stop(v) && start(v) <= stop(p)) {
        const size_t o = offset_[static_cast<size_t>(p)];
        busy.emplace_back(o, o + bytes(p));
      }
    }
    std::sort(busy.begin(), busy.end());
    size_t at = 0;
    for (const auto& [lo, hi] : busy) {
      if (lo >= at + bytes(v)) break;
      at = std::max(at, hi);
    }
    offset_[static_cast<size_t>(v)] = at;
    size_[static_cast<size_t>(v)] = bytes(v);
    arena_bytes_ = std::max(arena_bytes_, at + bytes(v));
    placed.push_back(v);
  }
  // For each value, the last earlier tenants of its bytes (each byte's latest one): if
  // they are gone, so is everyone before them, since they checked in turn.
  for (int v : groups) {
    const size_t lo = offset_[static_cast<size_t>(v)];
    const size_t hi = lo + bytes(v);
    std::vector<int> earlier;
    for (int p : groups) {
      const size_t plo = offset_[static_cast<size_t>(p)];
      if (p != v && stop(p) < start(v) && plo < hi && lo < plo + bytes(p)) earlier.push_back(p);
    }
    std::sort(earlier.begin(), earlier.end(), [&](int a, int b) { return stop(a) > stop(b); });
    std::vector<std::pair<size_t, size_t>> covered;
    for (int p : earlier) {
      const size_t plo = std::max(lo, offset_[static_cast<size_t>(p)]);
      const size_t phi = std::min(hi, offset_[static_cast<size_t>(p)] + bytes(p));
      // Whether [plo, phi) has a byte no later tenant covers.
      std::sort(covered.begin(), covered.end());
      size_t at = plo;
      for (const auto& [clo, chi] : covered) {
        if (clo > at) break;
        at = std::max(at, chi);
      }
      if (at < phi) before_[static_cast<size_t>(v)].push_back(p);
      covered.emplace_back(plo, phi);
    }
  }
  // Whole 4 KiB pages; huge pages only for a large arena, where rounding up to 2 MiB
  // wastes little (a 2.1 MiB arena in two huge pages would take 4 MiB of memory).
  constexpr size_t kPage = size_t{4} << 10, kHuge = size_t{2} << 20;
  const bool huge = arena_bytes_ >= 8 * kHuge;
  const size_t unit = huge ? kHuge : kPage;
  const size_t capacity = (arena_bytes_ + unit - 1) / unit * unit;
  void* block = ::operator new(capacity, std::align_val_t(unit), std::nothrow);
  if (block == nullptr) {  // no arena: the pool serves as before
    mode_ = Mode::kUnused;
    return;
  }
  if (huge) ::madvise(block, capacity, MADV_HUGEPAGE);  // advice only
  arena_ = std::shared_ptr<void>(block,
                                 [unit](void* p) { ::operator delete(p, std::align_val_t(unit)); });
  mode_ = Mode::kPlanned;
}

bool MemoryPattern::BytesFree(int v) {
  const auto i = static_cast<size_t>(v);
  if (placed_in_[i] == run_ && Occupied(i)) return false;  // placed twice
  for (int p : before_[i]) {
    const auto j = static_cast<size_t>(p);
    if (placed_in_[j] == run_) {
      if (Occupied(j)) return false;
    } else if (cleared_in_[j] != run_) {
      // p did not take its place this run (its node did not run, or it fell back): the
      // tenants before it must be gone instead.
      if (!BytesFree(p)) return false;
      cleared_in_[j] = run_;
    }
  }
  return true;
}

Result<Tensor> MemoryPattern::Allocate(int v, DataType type, Shape&& shape, size_t bytes) {
  if (mode_ != Mode::kPlanned || v < 0 || static_cast<size_t>(v) >= offset_.size()) {
    return Tensor();
  }
  const auto i = static_cast<size_t>(v);
  if (offset_[i] == kNotPlaced || type == DataType::kString || bytes > size_[i]) return Tensor();
  if (!BytesFree(v)) {
    conflict_ = true;
    return Tensor();
  }
  // A handle of its own per tensor (sharing the arena), so that its lifetime can be seen.
  // (Not kept to be handed out again: a reference held here would make every placed tensor
  // look shared, and the kernels that reuse an unshared input in place would not.)
  auto handle = std::make_shared<std::shared_ptr<void>>(arena_);
  tenant_[i] = handle;
  placed_in_[i] = run_;
  return Tensor::BorrowMutable(type, std::move(shape),
                               static_cast<char*>(arena_.get()) + offset_[i], size_[i],
                               std::move(handle));
}

}  // namespace onnx_light
