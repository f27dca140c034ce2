// The tree-ensemble engine (tree_engine.h): reading the legacy attributes, checking and
// compiling the trees, evaluating rows.
#include "ml/tree_engine.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

#include "onnx_light/runtime/tensor_proto.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

Result<TreeMode> ModeOf(const std::string& s) {
  static const std::pair<const char*, TreeMode> kModes[] = {
      {"BRANCH_LEQ", TreeMode::kLeq}, {"BRANCH_LT", TreeMode::kLt}, {"BRANCH_GTE", TreeMode::kGte},
      {"BRANCH_GT", TreeMode::kGt},   {"BRANCH_EQ", TreeMode::kEq}, {"BRANCH_NEQ", TreeMode::kNeq},
      {"LEAF", TreeMode::kLeaf}};
  for (const auto& [name, mode] : kModes) {
    if (s == name) return mode;
  }
  return Status(StatusCode::kInvalidModel,
                "node mode '" + s +
                    "' is not one of BRANCH_LEQ, BRANCH_LT, "
                    "BRANCH_GTE, BRANCH_GT, BRANCH_EQ, BRANCH_NEQ, LEAF");
}

// A FLOATS attribute or its *_as_tensor twin (float or double) as doubles; `is_double` tells
// which the model used. Absent: empty.
Result<std::vector<double>> Reals(const KernelInfo& info, const std::string& name,
                                  bool* is_double = nullptr) {
  std::vector<double> out;
  if (info.HasAttribute(name)) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<float> v, info.GetFloats(name));
    out.assign(v.begin(), v.end());
  }
  if (const onnx::AttributeProto* a = info.Find(name + "_as_tensor")) {
    if (!out.empty()) {
      return Status(StatusCode::kInvalidModel,
                    "both " + name + " and " + name + "_as_tensor are given");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(a->t.get()));
    if (t.dtype() == DataType::kFloat) {
      out.assign(t.data<float>(), t.data<float>() + t.num_elements());
    } else if (t.dtype() == DataType::kDouble) {
      out.assign(t.data<double>(), t.data<double>() + t.num_elements());
      if (is_double != nullptr) *is_double = true;
    } else {
      return Status(StatusCode::kInvalidModel, name + "_as_tensor must be float or double");
    }
  }
  return out;
}

Result<std::vector<int64_t>> Ints(const KernelInfo& info, const std::string& name) {
  if (!info.HasAttribute(name)) return std::vector<int64_t>{};
  return info.GetInts(name);
}

bool Holds(TreeMode m, double x, double t) {
  switch (m) {
    case TreeMode::kLeq:
      return x <= t;
    case TreeMode::kLt:
      return x < t;
    case TreeMode::kGte:
      return x >= t;
    case TreeMode::kGt:
      return x > t;
    case TreeMode::kEq:
      return x == t;
    case TreeMode::kNeq:
      return x != t;
    default:
      return false;
  }
}

template <TreeMode M, typename T>
inline bool HoldsFixed(T x, T t) {
  if constexpr (M == TreeMode::kLeq) return x <= t;
  if constexpr (M == TreeMode::kLt) return x < t;
  if constexpr (M == TreeMode::kGte) return x >= t;
  if constexpr (M == TreeMode::kGt) return x > t;
  if constexpr (M == TreeMode::kEq) return x == t;
  if constexpr (M == TreeMode::kNeq) return x != t;
  return false;
}

}  // namespace

Result<TreeSpec> ReadLegacyTreeSpec(const KernelInfo& info, const std::string& weights) {
  TreeSpec s;
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.tree, Ints(info, "nodes_treeids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.id, Ints(info, "nodes_nodeids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.feature, Ints(info, "nodes_featureids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.true_id, Ints(info, "nodes_truenodeids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.false_id, Ints(info, "nodes_falsenodeids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.threshold, Reals(info, "nodes_values", &s.double_thresholds));
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> missing,
                              Ints(info, "nodes_missing_value_tracks_true"));
  std::vector<std::string> modes;
  if (info.HasAttribute("nodes_modes")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(modes, info.GetStrings("nodes_modes"));
  }
  const size_t n = s.id.size();
  for (const auto& [name, size] : {std::pair<const char*, size_t>{"nodes_treeids", s.tree.size()},
                                   {"nodes_featureids", s.feature.size()},
                                   {"nodes_truenodeids", s.true_id.size()},
                                   {"nodes_falsenodeids", s.false_id.size()},
                                   {"nodes_values", s.threshold.size()},
                                   {"nodes_modes", modes.size()}}) {
    if (size != n) {
      return Status(StatusCode::kInvalidModel, std::string(name) + " has " + std::to_string(size) +
                                                   " values, nodes_nodeids " + std::to_string(n));
    }
  }
  if (!missing.empty() && missing.size() != n) {
    return Status(StatusCode::kInvalidModel, "nodes_missing_value_tracks_true has " +
                                                 std::to_string(missing.size()) + " values for " +
                                                 std::to_string(n) + " nodes");
  }
  for (size_t i = 0; i < n; ++i) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(TreeMode m, ModeOf(modes[i]));
    s.mode.push_back(m);
    s.missing_true.push_back(missing.empty() ? 0 : static_cast<uint8_t>(missing[i] != 0));
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.w_tree, Ints(info, weights + "_treeids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.w_node, Ints(info, weights + "_nodeids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.w_target, Ints(info, weights + "_ids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.w_value, Reals(info, weights + "_weights"));
  const size_t w = s.w_tree.size();
  if (s.w_node.size() != w || s.w_target.size() != w || s.w_value.size() != w) {
    return Status(StatusCode::kInvalidModel, weights +
                                                 "_treeids, _nodeids, _ids and _weights differ "
                                                 "in length");
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.base_values, Reals(info, "base_values"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.post, MlPostTransform(info));
  return s;
}

Result<TreeEnsembleEngine> TreeEnsembleEngine::Compile(TreeSpec spec) {
  TreeEnsembleEngine e;
  auto bad = [&](const std::string& what) { return Status(StatusCode::kInvalidModel, what); };
  auto where = [&](size_t i) {
    return "tree " + std::to_string(spec.tree[i]) + ", node " + std::to_string(spec.id[i]);
  };
  const size_t n = spec.id.size();
  if (n == 0) return bad("the ensemble has no node");
  if (n >= static_cast<size_t>(INT32_MAX / 2)) return bad("too many nodes");
  if (spec.targets < 1 || spec.targets > (int64_t{1} << 20)) {
    return bad("n_targets (or the class count) must be in [1, 2^20], got " +
               std::to_string(spec.targets));
  }
  e.targets_ = spec.targets;
  struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const noexcept {
      return std::hash<int64_t>()(p.first * 1000003 ^ p.second);
    }
  };
  std::unordered_map<std::pair<int64_t, int64_t>, int32_t, PairHash> index;  // (tree, node) -> i
  index.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!index.emplace(std::make_pair(spec.tree[i], spec.id[i]), static_cast<int32_t>(i)).second) {
      return bad(where(i) + " is defined twice");
    }
  }
  // Leaves in node order; each leaf's weights.
  std::vector<int32_t> leaf_of(n, -1);
  int32_t leaves = 0;
  for (size_t i = 0; i < n; ++i) {
    if (spec.mode[i] == TreeMode::kLeaf) leaf_of[i] = leaves++;
  }
  std::vector<std::vector<std::pair<int32_t, double>>> weights(static_cast<size_t>(leaves));
  for (size_t k = 0; k < spec.w_tree.size(); ++k) {
    auto it = index.find({spec.w_tree[k], spec.w_node[k]});
    const std::string w = "a weight of tree " + std::to_string(spec.w_tree[k]) + ", node " +
                          std::to_string(spec.w_node[k]);
    if (it == index.end()) return bad(w + " names no node");
    if (leaf_of[static_cast<size_t>(it->second)] < 0) return bad(w + " is on a branch node");
    if (spec.w_target[k] < 0 || spec.w_target[k] >= spec.targets) {
      return bad(w + " is for target (or class) " + std::to_string(spec.w_target[k]) +
                 ", outside [0, " + std::to_string(spec.targets) + ")");
    }
    weights[static_cast<size_t>(leaf_of[static_cast<size_t>(it->second)])].push_back(
        {static_cast<int32_t>(spec.w_target[k]), spec.w_value[k]});
  }
  e.leaf_begin_.push_back(0);
  for (const auto& lw : weights) {
    for (const auto& [t, v] : lw) {
      e.leaf_target_.push_back(t);
      e.leaf_value_.push_back(v);
    }
    e.leaf_begin_.push_back(static_cast<int32_t>(e.leaf_value_.size()));
  }
  // Branch nodes: children inside the tree, features >= 0. Compiled arrays in node order.
  std::vector<int32_t> parents(n, 0);
  e.threshold_d_.resize(n);
  e.threshold_f_.resize(n);
  e.feature_.assign(n, 0);
  e.child_false_.assign(n, 0);
  e.child_true_.assign(n, 0);
  e.mode_ = spec.mode;
  e.missing_true_ = spec.missing_true;
  e.members_ = spec.members;
  e.members_.resize(n);
  auto child = [&](size_t i, int64_t id, int32_t* out) -> Status {
    auto it = index.find({spec.tree[i], id});
    if (it == index.end()) {
      return bad(where(i) + " points to node " + std::to_string(id) + ", which tree " +
                 std::to_string(spec.tree[i]) + " does not have");
    }
    const auto c = static_cast<size_t>(it->second);
    if (id != spec.true_id[i] || spec.true_id[i] != spec.false_id[i]) ++parents[c];
    *out = leaf_of[c] >= 0 ? ~leaf_of[c] : it->second;
    return Status::Ok();
  };
  bool first_branch = true;
  e.single_mode_ = true;
  for (size_t i = 0; i < n; ++i) {
    e.threshold_d_[i] = spec.threshold[i];
    e.threshold_f_[i] = static_cast<float>(spec.threshold[i]);
    if (spec.mode[i] == TreeMode::kLeaf) continue;
    if (spec.feature[i] < 0 || spec.feature[i] > INT32_MAX) {
      return bad(where(i) + " reads feature " + std::to_string(spec.feature[i]));
    }
    e.feature_[i] = static_cast<int32_t>(spec.feature[i]);
    e.max_feature_ = std::max<int64_t>(e.max_feature_, spec.feature[i]);
    ONNX_LIGHT_RETURN_IF_ERROR(child(i, spec.true_id[i], &e.child_true_[i]));
    ONNX_LIGHT_RETURN_IF_ERROR(child(i, spec.false_id[i], &e.child_false_[i]));
    if (first_branch) {
      e.the_mode_ = spec.mode[i];
      first_branch = false;
    } else if (spec.mode[i] != e.the_mode_) {
      e.single_mode_ = false;
    }
  }
  if (e.the_mode_ == TreeMode::kMember) e.single_mode_ = false;
  // Roots: the nodes no node points to, one per tree, in order of appearance.
  std::map<int64_t, int> roots_per_tree;
  for (size_t i = 0; i < n; ++i) {
    if (parents[i] > 1) return bad(where(i) + " has more than one parent");
    if (parents[i] == 0) {
      if (++roots_per_tree[spec.tree[i]] > 1) {
        return bad("tree " + std::to_string(spec.tree[i]) + " has more than one root (" + where(i) +
                   " is reached from no node)");
      }
      e.roots_.push_back(leaf_of[i] >= 0 ? ~leaf_of[i] : static_cast<int32_t>(i));
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (roots_per_tree.count(spec.tree[i]) == 0) {
      return bad("tree " + std::to_string(spec.tree[i]) + " has no root: its nodes form a cycle");
    }
  }
  // Every node has at most one parent and each tree one root: a walk from the root visits
  // each node once unless a cycle hangs off the tree, which leaves nodes unvisited.
  std::vector<uint8_t> seen(n, 0);
  size_t visited = 0;
  std::vector<int32_t> stack;
  for (int32_t r : e.roots_) {
    if (r < 0) {
      ++visited;
      continue;
    }
    stack.push_back(r);
    while (!stack.empty()) {
      const int32_t i = stack.back();
      stack.pop_back();
      if (seen[static_cast<size_t>(i)]++)
        return bad(where(static_cast<size_t>(i)) + " is in a cycle");
      ++visited;
      const int32_t ct = e.child_true_[static_cast<size_t>(i)];
      const int32_t cf = e.child_false_[static_cast<size_t>(i)];
      auto push = [&](int32_t c) {
        if (c >= 0) {
          stack.push_back(c);
        } else {
          ++visited;
        }
      };
      push(ct);
      if (cf != ct) push(cf);  // one child on both sides counts once
    }
  }
  if (visited != n) return bad("some nodes are in a cycle, reached from no root");
  e.spec_ = std::move(spec);
  e.Pack();
  return e;
}

void TreeEnsembleEngine::Pack() {
  packed_ = single_mode_ && the_mode_ != TreeMode::kMember;
  if (!packed_) return;
  const size_t n = mode_.size();
  std::vector<int32_t> node_of_leaf(leaf_begin_.size() - 1, -1);
  int32_t leaf = 0;
  packed_leaf_.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (mode_[i] == TreeMode::kLeaf) {
      node_of_leaf[static_cast<size_t>(leaf)] = static_cast<int32_t>(i);
      packed_leaf_[i] = leaf++;
    }
  }
  auto entry = [&](int32_t c) { return c >= 0 ? c : node_of_leaf[static_cast<size_t>(~c)]; };
  packed_f_.resize(n);
  packed_d_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const bool is_leaf = mode_[i] == TreeMode::kLeaf;
    const int32_t self = static_cast<int32_t>(i);
    const int32_t f = is_leaf ? 0 : feature_[i];
    const int32_t flag = !is_leaf && missing_true_[i] ? INT32_MIN : 0;
    const int32_t cf = is_leaf ? self : entry(child_false_[i]);
    const int32_t ct = is_leaf ? self : entry(child_true_[i]);
    packed_f_[i] = {threshold_f_[i], f | flag, {cf, ct}};
    packed_d_[i] = {threshold_d_[i], f | flag, {cf, ct}};
  }
  // Roots and depths (edges on the longest path from the root).
  for (int32_t r : roots_) {
    const int32_t root = entry(r);
    int32_t depth = 0;
    std::vector<std::pair<int32_t, int32_t>> stack = {{root, 0}};
    while (!stack.empty()) {
      const auto [i, d] = stack.back();
      stack.pop_back();
      depth = std::max(depth, d);
      if (mode_[static_cast<size_t>(i)] == TreeMode::kLeaf) continue;
      const Packed<float>& p = packed_f_[static_cast<size_t>(i)];
      stack.push_back({p.child[0], d + 1});
      if (p.child[1] != p.child[0]) stack.push_back({p.child[1], d + 1});
    }
    packed_root_.push_back(root);
    packed_depth_.push_back(depth);
  }
  // The compact copy: branch nodes of each tree in depth-first order, false child first.
  std::vector<int32_t> compact_of(n, -1);
  for (int32_t root : packed_root_) {
    std::vector<int32_t> stack = {root};
    while (!stack.empty()) {
      const int32_t i = stack.back();
      stack.pop_back();
      if (mode_[static_cast<size_t>(i)] == TreeMode::kLeaf) continue;
      compact_of[static_cast<size_t>(i)] = static_cast<int32_t>(compact_f_.size());
      compact_f_.push_back(packed_f_[static_cast<size_t>(i)]);
      compact_d_.push_back(packed_d_[static_cast<size_t>(i)]);
      const Packed<float>& p = packed_f_[static_cast<size_t>(i)];
      if (p.child[1] != p.child[0]) stack.push_back(p.child[1]);
      stack.push_back(p.child[0]);
    }
  }
  auto compact = [&](int32_t i) {
    return mode_[static_cast<size_t>(i)] == TreeMode::kLeaf ? ~i
                                                            : compact_of[static_cast<size_t>(i)];
  };
  for (size_t c = 0; c < compact_f_.size(); ++c) {
    for (int k = 0; k < 2; ++k) {
      compact_f_[c].child[k] = compact(compact_f_[c].child[k]);
      compact_d_[c].child[k] = compact_f_[c].child[k];
    }
  }
  for (int32_t root : packed_root_)
    compact_root_.push_back(compact(root));
  single_weight_ =
      spec_.aggregate == TreeAggregate::kSum || spec_.aggregate == TreeAggregate::kAverage;
  packed_single_.assign(n, 0.0);
  packed_target_.assign(n, 0);
  for (size_t i = 0; i < n && single_weight_; ++i) {
    const int32_t l = packed_leaf_[i];
    if (l < 0) continue;
    const int32_t b = leaf_begin_[static_cast<size_t>(l)],
                  e = leaf_begin_[static_cast<size_t>(l) + 1];
    if (e - b != 1) {
      single_weight_ = false;  // a leaf without a weight (or with several) leaves "has" unset
      break;
    }
    packed_single_[i] = leaf_value_[static_cast<size_t>(b)];
    packed_target_[i] = leaf_target_[static_cast<size_t>(b)];
  }
}

// One step of a packed walk (a leaf steps to itself).
template <TreeMode M, typename Node, typename T>
inline int32_t Step(const Node& nd, const T* row) {
  const T v = row[nd.feature & INT32_MAX];
  const bool go = HoldsFixed<M>(v, nd.threshold) | ((nd.feature < 0) & (v != v));
  return nd.child[go];
}

// The packed walk: rows in blocks that stay in L1 while every tree of the range walks them,
// eight rows at a time in lock step for exactly the tree's depth.
template <TreeMode M, typename T, typename Node>
void TreeEnsembleEngine::PackedRows(const std::vector<Node>& nodes, const T* x, int64_t cols,
                                    int64_t row_begin, int64_t row_end, int64_t tree_begin,
                                    int64_t tree_end, double* scores, uint8_t* has) const {
  constexpr int64_t kBlock = 256, kLanes = 8;
  const Node* node = nodes.data();
  if (row_end - row_begin < kLanes && single_weight_) {
    // A few rows (one request): eight trees walk each row in lock step (eight independent
    // chains of loads instead of one), for the deepest of the eight's depth.
    const double* value = packed_single_.data();
    const int32_t* target = packed_target_.data();
    const bool one_target = targets_ == 1;
    for (int64_t r = row_begin; r < row_end; ++r) {
      const T* row = x + r * cols;
      double sum = 0.0;  // one target: summed here, added once
      double* out = scores + r * targets_;
      uint8_t* seen = has + r * targets_;
      auto add = [&](int32_t leaf_entry) {
        if (one_target) {
          sum += value[leaf_entry];
        } else {
          out[target[leaf_entry]] += value[leaf_entry];
          seen[target[leaf_entry]] = 1;
        }
      };
      int64_t t = tree_begin;
      for (; t + kLanes <= tree_end; t += kLanes) {
        int32_t idx[kLanes];
        int32_t depth = 0;
        for (int64_t j = 0; j < kLanes; ++j) {
          idx[j] = packed_root_[static_cast<size_t>(t + j)];
          depth = std::max(depth, packed_depth_[static_cast<size_t>(t + j)]);
        }
        for (int32_t d = 0; d < depth; ++d) {
          for (int64_t j = 0; j < kLanes; ++j)
            idx[j] = Step<M>(node[idx[j]], row);
        }
        for (int64_t j = 0; j < kLanes; ++j)
          add(idx[j]);
      }
      const Node* cnode = CompactOf<Node>();
      for (; t < tree_end; ++t) {
        int32_t i = compact_root_[static_cast<size_t>(t)];
        while (i >= 0)
          i = Step<M>(cnode[i], row);
        add(~i);
      }
      if (one_target) {
        out[0] += sum;
        seen[0] = 1;
      }
    }
    return;
  }
  for (int64_t rb = row_begin; rb < row_end; rb += kBlock) {
    const int64_t re = std::min(rb + kBlock, row_end);
    for (int64_t t = tree_begin; t < tree_end; ++t) {
      const int32_t root = packed_root_[static_cast<size_t>(t)];
      const int32_t depth = packed_depth_[static_cast<size_t>(t)];
      for (int64_t r0 = rb; r0 < re; r0 += kLanes) {
        const int64_t nr = std::min(kLanes, re - r0);
        const T* row[kLanes];
        int32_t idx[kLanes];
        for (int64_t j = 0; j < kLanes; ++j) {
          row[j] = x + (r0 + std::min(j, nr - 1)) * cols;
          idx[j] = root;
        }
        if (nr == kLanes) {
          for (int32_t d = 0; d < depth; ++d) {
            for (int64_t j = 0; j < kLanes; ++j)
              idx[j] = Step<M>(node[idx[j]], row[j]);
          }
        } else {
          // A short batch: each row walks the compact copy and stops at its leaf.
          const Node* cnode = CompactOf<Node>();
          const int32_t croot = compact_root_[static_cast<size_t>(t)];
          for (int64_t j = 0; j < nr; ++j) {
            int32_t i = croot;
            while (i >= 0)
              i = Step<M>(cnode[i], row[j]);
            idx[j] = ~i;
          }
        }
        if (single_weight_) {
          for (int64_t j = 0; j < nr; ++j) {
            const auto e = static_cast<size_t>(idx[j]);
            const auto at = static_cast<size_t>((r0 + j) * targets_ + packed_target_[e]);
            scores[at] += packed_single_[e];
            has[at] = 1;
          }
          continue;
        }
        for (int64_t j = 0; j < nr; ++j) {
          const int32_t leaf = packed_leaf_[static_cast<size_t>(idx[j])];
          for (int32_t k = leaf_begin_[static_cast<size_t>(leaf)];
               k < leaf_begin_[static_cast<size_t>(leaf) + 1]; ++k) {
            const size_t at =
                static_cast<size_t>((r0 + j) * targets_ + leaf_target_[static_cast<size_t>(k)]);
            const double v = leaf_value_[static_cast<size_t>(k)];
            if (spec_.aggregate == TreeAggregate::kMin) {
              scores[at] = has[at] && scores[at] < v ? scores[at] : v;
            } else if (spec_.aggregate == TreeAggregate::kMax) {
              scores[at] = has[at] && scores[at] > v ? scores[at] : v;
            } else {
              scores[at] += v;
            }
            has[at] = 1;
          }
        }
      }
    }
  }
}

// Walks trees [tree_begin, tree_end) for rows [row_begin, row_end), adding into scores/has.
template <typename T>
void TreeEnsembleEngine::Rows(const T* x, int64_t cols, int64_t row_begin, int64_t row_end,
                              int64_t tree_begin, int64_t tree_end, double* scores,
                              uint8_t* has) const {
  const T* thr = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    thr = threshold_f_.data();
  } else {
    thr = threshold_d_.data();
  }
  if (packed_) {
    auto go = [&](auto fixed) {
      constexpr TreeMode M = decltype(fixed)::value;
      if constexpr (std::is_same_v<T, float>) {
        PackedRows<M>(packed_f_, x, cols, row_begin, row_end, tree_begin, tree_end, scores, has);
      } else {
        PackedRows<M>(packed_d_, x, cols, row_begin, row_end, tree_begin, tree_end, scores, has);
      }
    };
    switch (the_mode_) {
      case TreeMode::kLt:
        return go(std::integral_constant<TreeMode, TreeMode::kLt>{});
      case TreeMode::kGte:
        return go(std::integral_constant<TreeMode, TreeMode::kGte>{});
      case TreeMode::kGt:
        return go(std::integral_constant<TreeMode, TreeMode::kGt>{});
      case TreeMode::kEq:
        return go(std::integral_constant<TreeMode, TreeMode::kEq>{});
      case TreeMode::kNeq:
        return go(std::integral_constant<TreeMode, TreeMode::kNeq>{});
      default:
        return go(std::integral_constant<TreeMode, TreeMode::kLeq>{});
    }
  }
  const int32_t* feat = feature_.data();
  const int32_t* cf = child_false_.data();
  const int32_t* ct = child_true_.data();
  const uint8_t* miss = missing_true_.data();
  const TreeAggregate agg = spec_.aggregate;
  auto take = [&](int64_t r, int32_t leaf) {
    for (int32_t k = leaf_begin_[static_cast<size_t>(leaf)];
         k < leaf_begin_[static_cast<size_t>(leaf) + 1]; ++k) {
      const size_t at = static_cast<size_t>(r * targets_ + leaf_target_[static_cast<size_t>(k)]);
      const double v = leaf_value_[static_cast<size_t>(k)];
      if (agg == TreeAggregate::kMin) {
        scores[at] = has[at] && scores[at] < v ? scores[at] : v;
      } else if (agg == TreeAggregate::kMax) {
        scores[at] = has[at] && scores[at] > v ? scores[at] : v;
      } else {
        scores[at] += v;
      }
      has[at] = 1;
    }
  };
  auto walk_any = [&](const T* row, int32_t i) {
    while (i >= 0) {
      const T v = row[feat[i]];
      bool go;
      const TreeMode m = mode_[static_cast<size_t>(i)];
      if (m == TreeMode::kMember) {
        const auto& set = members_[static_cast<size_t>(i)];
        go = std::find(set.begin(), set.end(), static_cast<double>(v)) != set.end();
      } else {
        go = Holds(m, static_cast<double>(v), static_cast<double>(thr[i]));
      }
      go = go || (miss[i] && std::isnan(v));
      i = go ? ct[i] : cf[i];
    }
    return ~i;
  };
  // Four rows walk each tree together: four independent chains of loads.
  auto run = [&](auto fixed) {
    constexpr TreeMode M = decltype(fixed)::value;
    for (int64_t r0 = row_begin; r0 < row_end; r0 += 4) {
      const int64_t nr = std::min<int64_t>(4, row_end - r0);
      for (int64_t t = tree_begin; t < tree_end; ++t) {
        const int32_t root = roots_[static_cast<size_t>(t)];
        int32_t node[4] = {root, root, root, root};
        if constexpr (M == TreeMode::kMember) {
          for (int64_t j = 0; j < nr; ++j)
            node[j] = ~walk_any(x + (r0 + j) * cols, root);
        } else {
          bool active = root >= 0;
          while (active) {
            active = false;
            for (int64_t j = 0; j < nr; ++j) {
              const int32_t i = node[j];
              if (i < 0) continue;
              const T v = x[(r0 + j) * cols + feat[i]];
              const bool go = HoldsFixed<M>(v, thr[i]) || (miss[i] && std::isnan(v));
              node[j] = go ? ct[i] : cf[i];
              active |= node[j] >= 0;
            }
          }
        }
        for (int64_t j = 0; j < nr; ++j)
          take(r0 + j, ~node[j]);
      }
    }
  };
  if (!single_mode_) {
    run(std::integral_constant<TreeMode, TreeMode::kMember>{});
    return;
  }
  switch (the_mode_) {
    case TreeMode::kLeq:
      run(std::integral_constant<TreeMode, TreeMode::kLeq>{});
      break;
    case TreeMode::kLt:
      run(std::integral_constant<TreeMode, TreeMode::kLt>{});
      break;
    case TreeMode::kGte:
      run(std::integral_constant<TreeMode, TreeMode::kGte>{});
      break;
    case TreeMode::kGt:
      run(std::integral_constant<TreeMode, TreeMode::kGt>{});
      break;
    case TreeMode::kEq:
      run(std::integral_constant<TreeMode, TreeMode::kEq>{});
      break;
    case TreeMode::kNeq:
      run(std::integral_constant<TreeMode, TreeMode::kNeq>{});
      break;
    default:
      run(std::integral_constant<TreeMode, TreeMode::kMember>{});
  }
}

template <typename T>
Status TreeEnsembleEngine::EvaluateAs(const Tensor& x, ThreadPool* pool,
                                      std::vector<double>* scores,
                                      std::vector<uint8_t>* has) const {
  ONNX_LIGHT_ASSIGN_OR_RETURN(auto rc, MlRows(x));
  const int64_t rows = rc.first, cols = rc.second;
  if (max_feature_ >= cols) {
    return Status(StatusCode::kInvalidArgument, "the trees read feature " +
                                                    std::to_string(max_feature_) + "; X has " +
                                                    std::to_string(cols) + " features");
  }
  std::vector<T> converted;
  const T* in = nullptr;
  if (x.dtype() == (std::is_same_v<T, float> ? DataType::kFloat : DataType::kDouble)) {
    in = x.data<T>();
  } else {
    converted.resize(static_cast<size_t>(x.num_elements()));
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using S = decltype(tag);
      const S* p = x.data<S>();
      for (size_t i = 0; i < converted.size(); ++i) {
        if constexpr (std::is_same_v<S, float16> || std::is_same_v<S, bfloat16>) {
          converted[i] = static_cast<T>(static_cast<float>(p[i]));
        } else {
          converted[i] = static_cast<T>(p[i]);
        }
      }
    });
    in = converted.data();
  }
  if (targets_ > 1 && rows > (int64_t{1} << 31) / targets_) {
    return Status(StatusCode::kOutOfRange, std::to_string(rows) + " rows of " +
                                               std::to_string(targets_) +
                                               " targets exceed 2^31 scores");
  }
  const size_t cells = static_cast<size_t>(rows * targets_);
  scores->assign(cells, 0.0);
  has->assign(cells, 0);
  const int64_t trees = static_cast<int64_t>(roots_.size());
  const int threads = pool != nullptr ? pool->threads() : 1;
  if (threads > 1 && rows >= 2 * threads) {
    // Rows split across the pool: each part writes only its own rows.
    pool->ParallelFor(rows, 16, [&](int64_t begin, int64_t end) {
      Rows(in, cols, begin, end, 0, trees, scores->data(), has->data());
    });
  } else if (threads > 1 && trees >= 64) {
    // Few rows, many trees: each part sums its trees, then the parts are merged in order.
    const int parts = std::min<int>(threads, static_cast<int>(trees / 32));
    std::vector<std::vector<double>> ps(static_cast<size_t>(parts), std::vector<double>(cells));
    std::vector<std::vector<uint8_t>> ph(static_cast<size_t>(parts), std::vector<uint8_t>(cells));
    pool->ParallelFor(parts, 1, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        Rows(in, cols, 0, rows, trees * p / parts, trees * (p + 1) / parts,
             ps[static_cast<size_t>(p)].data(), ph[static_cast<size_t>(p)].data());
      }
    });
    for (int p = 0; p < parts; ++p) {
      for (size_t c = 0; c < cells; ++c) {
        if (!ph[static_cast<size_t>(p)][c]) continue;
        const double v = ps[static_cast<size_t>(p)][c];
        double& s = (*scores)[c];
        const bool seen = (*has)[c] != 0;
        switch (spec_.aggregate) {
          case TreeAggregate::kMin:
            s = seen && s < v ? s : v;
            break;
          case TreeAggregate::kMax:
            s = seen && s > v ? s : v;
            break;
          default:
            s += v;
        }
        (*has)[c] = 1;
      }
    }
  } else {
    Rows(in, cols, 0, rows, 0, trees, scores->data(), has->data());
  }
  return Status::Ok();
}

Status TreeEnsembleEngine::Evaluate(const Tensor& x, ThreadPool* pool, std::vector<double>* scores,
                                    std::vector<uint8_t>* has) const {
  if (spec_.double_thresholds || x.dtype() == DataType::kDouble) {
    return EvaluateAs<double>(x, pool, scores, has);
  }
  return EvaluateAs<float>(x, pool, scores, has);
}

Result<std::vector<float>> Regress(const TreeEnsembleEngine& e, const Tensor& x, ThreadPool* pool,
                                   int64_t* rows) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(auto rc, MlRows(x));
  *rows = rc.first;
  std::vector<double> scores;
  std::vector<uint8_t> has;
  ONNX_LIGHT_RETURN_IF_ERROR(e.Evaluate(x, pool, &scores, &has));
  std::vector<float> out(static_cast<size_t>(rc.first * e.targets()));
  FinalizeRegression(e, rc.first, scores, has, out.data());
  return out;
}

void FinalizeRegression(const TreeEnsembleEngine& e, int64_t rows, const std::vector<double>& s,
                        const std::vector<uint8_t>& has, float* out) {
  const TreeSpec& spec = e.spec();
  const int64_t t = e.targets();
  const double trees = static_cast<double>(e.trees());
  const std::vector<double>& base = spec.base_values;
  const bool per_target = static_cast<int64_t>(base.size()) == t;
  // One target: ORT adds base_values[0] when there is exactly one.
  const double origin = base.size() == 1 ? base[0] : 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < t; ++j) {
      const size_t at = static_cast<size_t>(r * t + j);
      double v = has[at] ? s[at] : 0.0;
      if (spec.aggregate == TreeAggregate::kAverage) v /= trees;
      v += t == 1 ? origin : per_target ? base[static_cast<size_t>(j)] : 0.0;
      out[at] = static_cast<float>(v);
    }
    if (t == 1) {
      if (spec.post == PostTransform::kProbit) out[r] = MlProbit(out[r]);
    } else {
      MlTransformRows(out + r * t, 1, t, spec.post);
    }
  }
}

}  // namespace onnx_light::kernels
