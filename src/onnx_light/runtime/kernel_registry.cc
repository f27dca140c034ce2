#include "onnx_light/runtime/kernel_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

namespace onnx_light {
namespace {

std::string RangeText(const KernelDef& def) {
  std::string s = std::to_string(def.since_version);
  if (def.end_version == def.since_version) return s;
  return s + (def.end_version == kMaxOpset ? "+" : "-" + std::to_string(def.end_version));
}

std::string DomainText(const std::string& domain) {
  return domain.empty() ? "ai.onnx" : domain;
}

// The constraint binding input 0 (or, failing that, output 0): the overload key.
const TypeConstraint* Primary(const KernelDef& def) {
  for (const TypeConstraint& c : def.constraints) {
    if (std::find(c.inputs.begin(), c.inputs.end(), 0) != c.inputs.end()) return &c;
  }
  for (const TypeConstraint& c : def.constraints) {
    if (std::find(c.outputs.begin(), c.outputs.end(), 0) != c.outputs.end()) return &c;
  }
  return def.constraints.empty() ? nullptr : &def.constraints.front();
}

bool Intersects(const std::vector<DataType>& a, const std::vector<DataType>& b) {
  for (DataType t : a) {
    if (std::find(b.begin(), b.end(), t) != b.end()) return true;
  }
  return false;
}

}  // namespace

std::string TypeList(const std::vector<DataType>& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) s += ", ";
    s += DataTypeName(types[i]);
  }
  return s;
}

bool KernelMatches(const KernelDef& def, const KernelQuery& query) {
  if (NormalizeDomain(def.domain) != NormalizeDomain(query.domain) ||
      def.op_type != query.op_type || query.opset < def.since_version ||
      query.opset > def.end_version) {
    return false;
  }
  for (const TypeConstraint& c : def.constraints) {
    DataType bound = DataType::kUndefined;
    for (int pos : c.inputs) {
      if (pos < 0 || static_cast<size_t>(pos) >= query.input_types.size()) continue;
      const DataType t = query.input_types[static_cast<size_t>(pos)];
      if (t == DataType::kUndefined) continue;
      if (bound != DataType::kUndefined && bound != t) return false;
      bound = t;
    }
    if (bound != DataType::kUndefined &&
        std::find(c.types.begin(), c.types.end(), bound) == c.types.end()) {
      return false;
    }
  }
  return true;
}

Status KernelRegistry::Register(KernelDef def) {
  const std::string what = "kernel " + DomainText(def.domain) + "::" + def.op_type;
  if (def.op_type.empty()) return Status(StatusCode::kInvalidArgument, "kernel without op type");
  if (def.since_version < 1 || def.end_version < def.since_version) {
    return Status(StatusCode::kInvalidArgument, what + ": invalid opset range " +
                                                    std::to_string(def.since_version) + ".." +
                                                    std::to_string(def.end_version));
  }
  if (!def.create) return Status(StatusCode::kInvalidArgument, what + ": no factory");
  for (const TypeConstraint& c : def.constraints) {
    if (c.types.empty()) {
      return Status(StatusCode::kInvalidArgument,
                    what + ": constraint " + c.name + " has no types");
    }
    std::set<int> in(c.inputs.begin(), c.inputs.end()), out(c.outputs.begin(), c.outputs.end());
    if (in.size() != c.inputs.size() || out.size() != c.outputs.size()) {
      return Status(StatusCode::kInvalidArgument,
                    what + ": constraint " + c.name + " names a position twice");
    }
  }
  def.domain = NormalizeDomain(def.domain);
  std::vector<const KernelDef*>& same_op = by_op_[def.domain + '\n' + def.op_type];
  for (const KernelDef* other : same_op) {
    if (other->end_version < def.since_version || def.end_version < other->since_version) continue;
    const TypeConstraint* a = Primary(*other);
    const TypeConstraint* b = Primary(def);
    if (a == nullptr || b == nullptr || Intersects(a->types, b->types)) {
      return Status(StatusCode::kInvalidArgument, what + " opset " + RangeText(def) +
                                                      " overlaps one already registered (opset " +
                                                      RangeText(*other) + ")");
    }
  }
  defs_.push_back(std::make_unique<KernelDef>(std::move(def)));
  same_op.push_back(defs_.back().get());
  return Status::Ok();
}

void KernelRegistry::LoadLocked(const std::string& domain, const char* op_type) const {
  for (size_t i = 0; i < lazy_count_; ++i) {
    if (lazy_loaded_[i]) continue;
    if (op_type != nullptr &&
        (std::strcmp(lazy_[i].op_type, op_type) != 0 || domain != lazy_[i].domain)) {
      continue;
    }
    // Registering fills this registry's tables: logically const (the same kernels a full
    // registration would have), done once per op under the lock.
    Status s = lazy_[i].register_op(const_cast<KernelRegistry&>(*this));
    if (!s.ok()) {
      // A duplicate in the built-in list is a build defect; fail loudly at first use.
      std::fprintf(stderr, "onnx-light: built-in kernel registration failed: %s\n",
                   s.ToString().c_str());
      std::abort();
    }
    lazy_loaded_[i] = true;
  }
}

const KernelDef* KernelRegistry::FindOwn(const KernelQuery& query) const {
  const std::string domain = NormalizeDomain(query.domain);
  // A lazy registry loads the op and reads its tables under one lock: another session
  // being created may be adding an op meanwhile.
  std::unique_lock<std::mutex> lock(lazy_mu_, std::defer_lock);
  const std::string key = domain + '\n' + query.op_type;
  if (lazy_ != nullptr) {
    lock.lock();
    // An op's kernels are all registered at once: one already in the tables is loaded.
    if (by_op_.find(key) == by_op_.end()) LoadLocked(domain, query.op_type.c_str());
  }
  auto it = by_op_.find(key);
  if (it == by_op_.end()) return nullptr;
  for (const KernelDef* def : it->second) {
    if (KernelMatches(*def, query)) return def;
  }
  return nullptr;
}

void KernelRegistry::MarkExcluded(const std::string& domain, const std::string& op_type) {
  excluded_.emplace_back(NormalizeDomain(domain), op_type);
}

bool KernelRegistry::IsExcluded(const std::string& domain, const std::string& op_type) const {
  for (const auto& e : excluded_) {
    if (e.first == domain && e.second == op_type) return true;
  }
  return parent_ && parent_->IsExcluded(domain, op_type);
}

Result<const KernelDef*> KernelRegistry::Find(const KernelQuery& query) const {
  for (const KernelRegistry* r = this; r != nullptr; r = r->parent_.get()) {
    if (const KernelDef* def = r->FindOwn(query)) return def;
  }
  const std::string domain = NormalizeDomain(query.domain);
  std::string types;
  for (size_t i = 0; i < query.input_types.size(); ++i) {
    if (i) types += ", ";
    types += query.input_types[i] == DataType::kUndefined ? "(absent)"
                                                          : DataTypeName(query.input_types[i]);
  }
  std::string msg = "no kernel for node '" + query.node_name + "': op " + query.op_type +
                    ", domain " + DomainText(domain) + ", opset " + std::to_string(query.opset) +
                    ", input types (" + types + ")";
  std::string supported;
  for (const KernelDef* def : All()) {
    if (def->domain != domain || def->op_type != query.op_type) continue;
    supported += "\n  opset " + RangeText(*def);
    for (const TypeConstraint& c : def->constraints) {
      supported += "; " + c.name + ": " + TypeList(c.types);
    }
  }
  if (!supported.empty()) {
    msg += ". Supported:" + supported;
  } else if (IsExcluded(domain, query.op_type)) {
    msg +=
        ". The op was excluded from this build (reduced-operator build); rebuild with a "
        "config that lists it";
  } else {
    msg += ". No kernel is registered for this op";
  }
  return Status(StatusCode::kNotImplemented, msg);
}

std::vector<const KernelDef*> KernelRegistry::All() const {
  if (lazy_ != nullptr) {
    std::lock_guard<std::mutex> lock(lazy_mu_);
    LoadLocked("", nullptr);
  }
  std::vector<const KernelDef*> out;
  for (const auto& def : defs_)
    out.push_back(def.get());
  if (parent_) {
    for (const KernelDef* def : parent_->All())
      out.push_back(def);
  }
  return out;
}

std::shared_ptr<const KernelRegistry> KernelRegistry::BuiltinCpu() {
  static const std::shared_ptr<const KernelRegistry> builtin = [] {
    auto r = std::make_shared<KernelRegistry>();
    BuiltinLazyOps(&r->lazy_, &r->lazy_count_);
    r->lazy_loaded_.assign(r->lazy_count_, false);
    MarkBuiltinExclusions(*r);
    return r;
  }();
  return builtin;
}

}  // namespace onnx_light
