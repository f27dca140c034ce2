// The context-local kernel factory: a registry object that a session is given.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "onnx_light/runtime/kernel.h"

namespace onnx_light {

// What matching needs to know about a node.
struct KernelQuery {
  std::string domain;
  std::string op_type;
  int opset = 0;                      // the model's import for the domain
  std::vector<DataType> input_types;  // UNDEFINED for an absent optional input
  std::string node_name;
};

// Registries layer: a registry created over a parent is searched first, then the parent.
// This is how a caller (the ORT host, a test) adds kernels for one session without
// touching process-wide state. A registry is immutable once handed to a session.
class KernelRegistry {
 public:
  explicit KernelRegistry(std::shared_ptr<const KernelRegistry> parent = nullptr)
      : parent_(std::move(parent)) {}

  // Adds a kernel. Refused: an empty op type, an empty or inverted opset range, a type
  // constraint without types or naming a position twice, no factory, or a kernel whose
  // domain, op, opset range and types overlap one already in this registry.
  Status Register(KernelDef def);

  // The kernel for a node, or an error that names the node, op, domain, opset and types
  // seen, and lists what is registered for that op.
  Result<const KernelDef*> Find(const KernelQuery& query) const;

  // Own kernels, then the parent's (for listings).
  std::vector<const KernelDef*> All() const;
  const std::shared_ptr<const KernelRegistry>& parent() const noexcept { return parent_; }

  // Ops that a reduced build compiled out: matching a node with one of them says so.
  void MarkExcluded(const std::string& domain, const std::string& op_type);

  // The built-in CPU kernels (shared, immutable). An op's kernels are registered the
  // first time a node asks for that op (or a listing asks for all), so the first session
  // of a process pays for the ops its model uses, not for all 250 definitions.
  static std::shared_ptr<const KernelRegistry> BuiltinCpu();

  // A registration function per op, loaded on first use by Find and All.
  struct LazyOp {
    const char* domain;  // "" for ai.onnx
    const char* op_type;
    Status (*register_op)(KernelRegistry&);
  };

 private:
  const KernelDef* FindOwn(const KernelQuery& query) const;
  // Registers the lazy op's kernels if not done yet (all of them for op_type null); the
  // caller holds lazy_mu_.
  void LoadLocked(const std::string& domain, const char* op_type) const;
  bool IsExcluded(const std::string& domain, const std::string& op_type) const;

  std::shared_ptr<const KernelRegistry> parent_;
  std::vector<std::unique_ptr<KernelDef>> defs_;
  // defs_ by "domain\nop_type", in registration order: Register's overlap check and
  // FindOwn look at one op's kernels only.
  std::unordered_map<std::string, std::vector<const KernelDef*>> by_op_;
  std::vector<std::pair<std::string, std::string>> excluded_;
  // Lazily registered ops (the built-in registry): which are in, under a lock taken only
  // while a session is being created.
  const LazyOp* lazy_ = nullptr;
  size_t lazy_count_ = 0;
  mutable std::vector<bool> lazy_loaded_;
  mutable std::mutex lazy_mu_;
};

// Whether `def` accepts a node with these input types, and the types it binds.
bool KernelMatches(const KernelDef& def, const KernelQuery& query);

// "float16, bfloat16" style list of a constraint's types.
std::string TypeList(const std::vector<DataType>& types);

// Registers every built-in kernel (the generated or full kernel list) into `registry`.
Status RegisterBuiltinKernels(KernelRegistry& registry);
// The built-in kernel list as lazily registered ops, and the ops a reduced build left out.
void BuiltinLazyOps(const KernelRegistry::LazyOp** ops, size_t* count);
void MarkBuiltinExclusions(KernelRegistry& registry);

}  // namespace onnx_light
