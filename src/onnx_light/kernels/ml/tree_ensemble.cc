// ai.onnx.ml TreeEnsemble (version 5): the ensemble as indices — tree_roots, nodes_* per
// interior node with children that are nodes or leaves (nodes_trueleafs / falseleafs),
// leaf_targetids / leaf_weights per leaf — with thresholds (nodes_splits) and Y in X's type
// (float, double or float16), comparisons BRANCH_LEQ .. BRANCH_NEQ and BRANCH_MEMBER (x in
// the node's set from membership_values, sets separated by NaN). Read into the shared
// engine (tree_engine.h), so it runs as the legacy ops do.
#include <array>

#include "ml/tree_engine.h"
#include "onnx_light/runtime/tensor_proto.h"

namespace onnx_light::kernels {
namespace {

Result<std::vector<double>> TensorReals(const KernelInfo& info, const std::string& name,
                                        bool required, DataType* type = nullptr) {
  const onnx::AttributeProto* a = info.Find(name);
  if (a == nullptr) {
    if (!required) return std::vector<double>{};
    return Status(StatusCode::kInvalidModel, "attribute " + name + " is missing");
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(a->t.get()));
  if (type != nullptr) *type = t.dtype();
  std::vector<double> out(static_cast<size_t>(t.num_elements()));
  const bool ok = DispatchNumeric(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < out.size(); ++i) {
      if constexpr (std::is_same_v<T, double>) {
        out[i] = t.data<double>()[i];
      } else {
        out[i] = static_cast<double>(static_cast<float>(t.data<T>()[i]));
      }
    }
  });
  if (!ok) {
    return Status(StatusCode::kInvalidModel, name + " is not numeric");
  }
  return out;
}

Result<TreeSpec> ReadV5(const KernelInfo& info) {
  auto bad = [&](const std::string& what) { return Status(StatusCode::kInvalidModel, what); };
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> roots, info.GetInts("tree_roots"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> feature, info.GetInts("nodes_featureids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> t_id, info.GetInts("nodes_truenodeids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> f_id, info.GetInts("nodes_falsenodeids"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> t_leaf, info.GetInts("nodes_trueleafs"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> f_leaf, info.GetInts("nodes_falseleafs"));
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> leaf_target, info.GetInts("leaf_targetids"));
  std::vector<int64_t> missing;
  if (info.HasAttribute("nodes_missing_value_tracks_true")) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(missing, info.GetInts("nodes_missing_value_tracks_true"));
  }
  DataType split_type = DataType::kUndefined;
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<double> splits,
                              TensorReals(info, "nodes_splits", true, &split_type));
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<double> modes, TensorReals(info, "nodes_modes", true));
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<double> leaf_weights,
                              TensorReals(info, "leaf_weights", true));
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<double> members,
                              TensorReals(info, "membership_values", false));
  const size_t n = feature.size();
  for (size_t size :
       {t_id.size(), f_id.size(), t_leaf.size(), f_leaf.size(), splits.size(), modes.size()}) {
    if (size != n) return bad("the nodes_* attributes differ in length");
  }
  if (!missing.empty() && missing.size() != n) {
    return bad("nodes_missing_value_tracks_true has " + std::to_string(missing.size()) +
               " values for " + std::to_string(n) + " nodes");
  }
  if (leaf_target.size() != leaf_weights.size()) {
    return bad("leaf_targetids and leaf_weights differ in length");
  }
  const size_t leaves = leaf_weights.size();
  TreeSpec s;
  s.double_thresholds = split_type == DataType::kDouble;
  ONNX_LIGHT_ASSIGN_OR_RETURN(s.targets, info.GetInt("n_targets", 1));
  ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t agg, info.GetInt("aggregate_function", 1));
  ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t post, info.GetInt("post_transform", 0));
  if (agg < 0 || agg > 3) return bad("aggregate_function must be 0..3, got " + std::to_string(agg));
  if (post < 0 || post > 4) return bad("post_transform must be 0..4, got " + std::to_string(post));
  s.aggregate = std::array<TreeAggregate, 4>{TreeAggregate::kAverage, TreeAggregate::kSum,
                                             TreeAggregate::kMin, TreeAggregate::kMax}[agg];
  s.post = std::array<PostTransform, 5>{PostTransform::kNone, PostTransform::kSoftmax,
                                        PostTransform::kLogistic, PostTransform::kSoftmaxZero,
                                        PostTransform::kProbit}[post];
  // Node ids: interior node i is i, leaf j is n + j; the tree of each from its root's walk.
  std::vector<int64_t> tree_of(n + leaves, -1);
  size_t member_at = 0;
  std::vector<std::vector<double>> member_sets(n);
  for (size_t i = 0; i < n; ++i) {
    if (modes[i] != 6) continue;
    while (member_at < members.size() && !std::isnan(members[member_at]))
      member_sets[i].push_back(members[member_at++]);
    if (member_at >= members.size() && member_sets[i].empty()) {
      return bad("node " + std::to_string(i) +
                 " is BRANCH_MEMBER but membership_values has no set left");
    }
    ++member_at;  // the NaN closing the set
  }
  for (size_t t = 0; t < roots.size(); ++t) {
    if (roots[t] < 0 || static_cast<size_t>(roots[t]) >= n) {
      return bad("tree_roots[" + std::to_string(t) + "] = " + std::to_string(roots[t]) +
                 " is no node index");
    }
    std::vector<int64_t> stack = {roots[t]};
    while (!stack.empty()) {
      const auto i = static_cast<size_t>(stack.back());
      stack.pop_back();
      if (tree_of[i] >= 0) return bad("node " + std::to_string(i) + " is reached twice");
      tree_of[i] = static_cast<int64_t>(t);
      for (const auto& [id, is_leaf] : {std::pair<int64_t, int64_t>{t_id[i], t_leaf[i]},
                                        std::pair<int64_t, int64_t>{f_id[i], f_leaf[i]}}) {
        const size_t limit = is_leaf ? leaves : n;
        if (id < 0 || static_cast<size_t>(id) >= limit) {
          return bad("node " + std::to_string(i) + " points to " + (is_leaf ? "leaf " : "node ") +
                     std::to_string(id) + ", outside [0, " + std::to_string(limit) + ")");
        }
        if (is_leaf) {
          tree_of[n + static_cast<size_t>(id)] = static_cast<int64_t>(t);
        } else {
          stack.push_back(id);
        }
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (tree_of[i] < 0) return bad("node " + std::to_string(i) + " is in no tree");
    if (modes[i] < 0 || modes[i] > 6)
      return bad("node " + std::to_string(i) + " has mode " + std::to_string(modes[i]));
    s.tree.push_back(tree_of[i]);
    s.id.push_back(static_cast<int64_t>(i));
    s.feature.push_back(feature[i]);
    s.threshold.push_back(splits[i]);
    s.mode.push_back(static_cast<TreeMode>(static_cast<int>(modes[i])));
    s.missing_true.push_back(missing.empty() ? 0 : static_cast<uint8_t>(missing[i] != 0));
    s.true_id.push_back(t_leaf[i] ? static_cast<int64_t>(n) + t_id[i] : t_id[i]);
    s.false_id.push_back(f_leaf[i] ? static_cast<int64_t>(n) + f_id[i] : f_id[i]);
  }
  s.members = std::move(member_sets);
  for (size_t j = 0; j < leaves; ++j) {
    if (tree_of[n + j] < 0) continue;  // a leaf no tree reaches
    s.tree.push_back(tree_of[n + j]);
    s.id.push_back(static_cast<int64_t>(n + j));
    s.feature.push_back(0);
    s.threshold.push_back(0);
    s.mode.push_back(TreeMode::kLeaf);
    s.missing_true.push_back(0);
    s.true_id.push_back(0);
    s.false_id.push_back(0);
    s.w_tree.push_back(tree_of[n + j]);
    s.w_node.push_back(static_cast<int64_t>(n + j));
    s.w_target.push_back(leaf_target[j]);
    s.w_value.push_back(leaf_weights[j]);
  }
  s.members.resize(s.id.size());
  return s;
}

class TreeEnsemble : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(TreeSpec spec, ReadV5(info));
    auto k = std::make_unique<TreeEnsemble>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->engine_, TreeEnsembleEngine::Compile(std::move(spec)));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    int64_t rows = 0;
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<float> out,
                                Regress(engine_, *ctx.input(0), ctx.thread_pool(), &rows));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {rows, engine_.targets()}));
    DispatchNumeric(y->dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* o = y->mutable_data<T>();
      for (size_t i = 0; i < out.size(); ++i)
        o[i] = static_cast<T>(out[i]);
    });
    return Status::Ok();
  }

 private:
  TreeEnsembleEngine engine_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx_ml, TreeEnsemble) {
  return r.Register(
      MlDef("TreeEnsemble", 5, kMaxOpset,
            {{"T", {0}, {0}, {DataType::kFloat, DataType::kDouble, DataType::kFloat16}}},
            FactoryOf<TreeEnsemble>()));
}

}  // namespace onnx_light::kernels
