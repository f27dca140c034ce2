// The tree-ensemble engine behind TreeEnsembleRegressor, TreeEnsembleClassifier (versions 1
// and 3, `*_as_tensor` attributes included) and TreeEnsemble (version 5): the three
// attribute layouts become one TreeSpec, checked (every node of a tree reachable from one
// root, children inside their tree, no cycles, leaf weights on leaves, targets in range) and
// compiled into flat arrays, then evaluated row by row:
//   - one node is 24 bytes or less: threshold, feature, the two children (a negative child
//     is a leaf), the comparison and the missing-value rule;
//   - when every branch uses one comparison (BRANCH_LEQ for scikit-learn and LightGBM,
//     BRANCH_LT for XGBoost) the walk is specialised to it;
//   - several rows walk the same tree together, so that their independent loads overlap
//     (a walk is a chain of dependent loads);
//   - large batches split their rows over the thread pool; a small batch of a large
//     ensemble splits the trees instead and adds the partial sums.
// Scores are summed in the thresholds' type (float, or double when the model's thresholds
// or X are double), as ONNX Runtime sums them.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ml/ml_common.h"

namespace onnx_light::kernels {

// Node comparisons: the true branch is taken when x <op> threshold holds (kMember: x is in
// the node's set). kLeaf marks a leaf in the legacy layout.
enum class TreeMode : uint8_t { kLeq, kLt, kGte, kGt, kEq, kNeq, kMember, kLeaf };

enum class TreeAggregate { kSum, kAverage, kMin, kMax };

// The ensemble as the attributes give it, in node order.
struct TreeSpec {
  // Nodes: tree id, node id, feature, threshold, comparison, missing-value rule, and the
  // true / false children by node id (ignored for leaves).
  std::vector<int64_t> tree, id, feature, true_id, false_id;
  std::vector<double> threshold;
  std::vector<TreeMode> mode;
  std::vector<uint8_t> missing_true;
  std::vector<std::vector<double>> members;  // per node; kMember nodes only
  // Leaf weights: (tree, node) of the leaf, the target or class, the value.
  std::vector<int64_t> w_tree, w_node, w_target;
  std::vector<double> w_value;
  int64_t targets = 1;
  bool double_thresholds = false;
  TreeAggregate aggregate = TreeAggregate::kSum;
  PostTransform post = PostTransform::kNone;
  std::vector<double> base_values;
};

// Reads the legacy layout (TreeEnsembleRegressor / TreeEnsembleClassifier): the nodes_*
// attributes and `weights` ("target" or "class") for the leaf weights.
Result<TreeSpec> ReadLegacyTreeSpec(const KernelInfo& info, const std::string& weights);

// The compiled ensemble: per-row scores (one per target or class) with a "has a score" flag
// each, as ONNX Runtime's aggregation needs them.
class TreeEnsembleEngine {
 public:
  // Checks and compiles `spec`; errors name the node ("tree 3, node 7").
  static Result<TreeEnsembleEngine> Compile(TreeSpec spec);

  int64_t targets() const noexcept { return targets_; }
  int64_t trees() const noexcept { return static_cast<int64_t>(roots_.size()); }
  const TreeSpec& spec() const noexcept { return spec_; }

  // Aggregated scores of every row of X ([N, C] or [C]): scores[r * targets + t] and
  // has[r * targets + t] (1 when some leaf of the row wrote target t). SUM and AVERAGE add
  // (AVERAGE divides later, in the finalisers), MIN / MAX keep the extreme.
  Status Evaluate(const Tensor& x, ThreadPool* pool, std::vector<double>* scores,
                  std::vector<uint8_t>* has) const;

 private:
  template <typename T>
  Status EvaluateAs(const Tensor& x, ThreadPool* pool, std::vector<double>* scores,
                    std::vector<uint8_t>* has) const;
  template <typename T>
  void Rows(const T* x, int64_t cols, int64_t row_begin, int64_t row_end, int64_t tree_begin,
            int64_t tree_end, double* scores, uint8_t* has) const;
  template <TreeMode M, typename T, typename Node>
  void PackedRows(const std::vector<Node>& nodes, const T* x, int64_t cols, int64_t row_begin,
                  int64_t row_end, int64_t tree_begin, int64_t tree_end, double* scores,
                  uint8_t* has) const;
  void Pack();
  template <typename Node>
  const Node* CompactOf() const {
    if constexpr (std::is_same_v<Node, Packed<float>>) {
      return compact_f_.data();
    } else {
      return compact_d_.data();
    }
  }

  // The packed form the common case runs on (every branch one comparison, not MEMBER): one
  // node per entry (threshold, feature with bit 31 set when NaN takes the true branch,
  // children [false, true] as entries), a leaf's children being itself, so that a walk of
  // exactly the tree's depth ends on the leaf for every row without a branch.
  template <typename T>
  struct Packed {
    T threshold;
    int32_t feature;
    int32_t child[2];
  };
  // The same trees without their leaves, in depth-first order (a node's false child mostly
  // next to it), a leaf child as ~(its entry above): short batches walk these, stopping at
  // the leaf without loading it.
  std::vector<Packed<float>> compact_f_;
  std::vector<Packed<double>> compact_d_;
  std::vector<int32_t> compact_root_;
  bool packed_ = false;
  std::vector<Packed<float>> packed_f_;
  std::vector<Packed<double>> packed_d_;
  std::vector<int32_t> packed_root_, packed_depth_;  // per tree
  std::vector<int32_t> packed_leaf_;                 // per entry: its leaf, or -1
  // Per entry: the weight of a leaf, when every leaf holds exactly one (sum fast path).
  std::vector<double> packed_single_;
  std::vector<int32_t> packed_target_;  // and its target
  bool single_weight_ = false;

  TreeSpec spec_;
  int64_t targets_ = 1;
  int64_t max_feature_ = -1;
  // Flat nodes (children: index into these arrays, or ~leaf for a leaf).
  std::vector<double> threshold_d_;
  std::vector<float> threshold_f_;
  std::vector<int32_t> feature_, child_false_, child_true_;
  std::vector<TreeMode> mode_;
  std::vector<uint8_t> missing_true_;
  std::vector<std::vector<double>> members_;
  std::vector<int32_t> roots_;  // a root that is itself a leaf is stored as ~leaf
  // Leaves: their weights in [leaf_begin_[l], leaf_begin_[l + 1]).
  std::vector<int32_t> leaf_begin_, leaf_target_;
  std::vector<double> leaf_value_;
  bool single_mode_ = false;  // every branch node has mode_[0]'s comparison
  TreeMode the_mode_ = TreeMode::kLeq;
};

// A regression's outputs for X: evaluated, then finalized (below) into [rows, targets].
Result<std::vector<float>> Regress(const TreeEnsembleEngine& e, const Tensor& x, ThreadPool* pool,
                                   int64_t* rows);

// Regression outputs from the aggregated scores (ORT's finalisation): base values, AVERAGE's
// division, the post-transform. `out` is [rows, targets].
void FinalizeRegression(const TreeEnsembleEngine& e, int64_t rows, const std::vector<double>& s,
                        const std::vector<uint8_t>& has, float* out);

}  // namespace onnx_light::kernels
