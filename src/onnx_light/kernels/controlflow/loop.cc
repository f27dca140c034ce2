// Loop: runs the body while the trip count (M) and the condition allow; carried values
// pass from one iteration to the next, scan outputs are stacked along a new first axis.
// With neither M nor cond the loop would never end, so that form is refused. The body is
// compiled with the session (runtime/subgraph.h); it takes (iteration, cond, carried...)
// and returns (cond, carried..., scans...). Limit: its outputs are tensors.
#include <cstdint>

#include "common/kernel_util.h"
#include "controlflow/subgraph_outputs.h"
#include "onnx_light/runtime/subgraph.h"

namespace onnx_light::kernels {
namespace {

// Scan output: the per-iteration tensors (all of one shape) stacked on a new axis 0.
Status Stack(KernelContext& ctx, size_t out, const std::vector<Tensor>& parts) {
  std::vector<int64_t> dims = {static_cast<int64_t>(parts.size())};
  if (!parts.empty()) {
    const Shape& first = parts[0].shape();
    for (const Tensor& t : parts) {
      ONNX_LIGHT_RETURN_IF(
          t.shape() != first, kInvalidArgument,
          "scan output " + std::to_string(out) + " changes shape between iterations");
    }
    dims.insert(dims.end(), first.dims().begin(), first.dims().end());
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(out, dims));
  const size_t item = ItemSize(y->dtype());
  int64_t j = 0;
  for (const Tensor& t : parts) {  // each iteration's value is one contiguous run
    CopyElements(t, 0, y, j, item, t.num_elements());
    j += t.num_elements();
  }
  return Status::Ok();
}

Result<Tensor> Scalar(DataType type, const void* value) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(type, Shape()));
  std::memcpy(t.mutable_raw_data(), value, ItemSize(type));
  return t;
}

class Loop : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Loop>();
    k->body_ = info.subgraph("body");
    ONNX_LIGHT_RETURN_IF(k->body_ == nullptr, kInvalidModel, "the body graph is required");
    k->carried_ = info.node().input.size() - 2;  // the body's shape was checked at build
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor* m = ctx.input(0);
    const Tensor* c = ctx.input(1);
    ONNX_LIGHT_RETURN_IF(m == nullptr && c == nullptr, kInvalidArgument,
                         "neither M nor cond is given: the loop would not end");
    ONNX_LIGHT_RETURN_IF(
        (m != nullptr && (m->dtype() != DataType::kInt64 || m->num_elements() != 1)) ||
            (c != nullptr && (c->dtype() != DataType::kBool || c->num_elements() != 1)),
        kInvalidArgument, "M must be one int64 and cond one bool");
    const int64_t trips = m != nullptr ? m->data<int64_t>()[0] : INT64_MAX;
    bool cond = c != nullptr ? c->data<bool>()[0] : true;
    std::vector<Tensor> carried;
    for (size_t i = 0; i < carried_; ++i)
      carried.push_back(*ctx.input(2 + i));
    const size_t n_scan = ctx.output_count() - carried_;
    std::vector<std::vector<Tensor>> scans(n_scan);
    // The iterations' scan outputs, held until they are stacked, count against the budget.
    BudgetHold held(ctx.run_control() != nullptr ? ctx.run_control()->budget : nullptr);
    for (int64_t it = 0; it < trips && cond; ++it) {
      // A body of no nodes never checks: a Loop of INT64_MAX trips stops here when asked.
      ONNX_LIGHT_RETURN_IF_ERROR(ctx.CheckRun());
      // The carried values move into the body (replaced by its outputs below): no copy of
      // their shapes is made.
      std::vector<Value> feeds;
      feeds.reserve(2 + carried_);
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor iter, Scalar(DataType::kInt64, &it));
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor cin, Scalar(DataType::kBool, &cond));
      feeds.push_back(Value{std::move(iter), nullptr});
      feeds.push_back(Value{std::move(cin), nullptr});
      for (size_t i = 0; i < carried_; ++i)
        feeds.push_back(Value{std::move(carried[i]), nullptr});
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Value> values, body_->Run(ctx, std::move(feeds)));
      ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<Tensor> outs, TensorOutputs(std::move(values)));
      ONNX_LIGHT_RETURN_IF(outs.size() != 1 + carried_ + n_scan, kInvalidModel,
                           "the body returned " + std::to_string(outs.size()) +
                               " outputs, expected " + std::to_string(1 + carried_ + n_scan));
      ONNX_LIGHT_RETURN_IF(outs[0].dtype() != DataType::kBool || outs[0].num_elements() != 1,
                           kInvalidArgument,
                           "the body's condition is " + std::string(DataTypeName(outs[0].dtype())) +
                               " " + outs[0].shape().ToString() + ", expected one bool");
      cond = outs[0].data<bool>()[0];
      for (size_t i = 0; i < carried_; ++i)
        carried[i] = std::move(outs[1 + i]);
      for (size_t k = 0; k < n_scan; ++k) {
        ONNX_LIGHT_RETURN_IF_ERROR(held.AddNamed(outs[1 + carried_ + k].byte_size(), [&] {
          return "scan output " + std::to_string(k) + " of iteration " + std::to_string(it);
        }));
        scans[k].push_back(std::move(outs[1 + carried_ + k]));
      }
    }
    for (size_t i = 0; i < carried_; ++i)
      ONNX_LIGHT_RETURN_IF_ERROR(ctx.SetOutput(i, std::move(carried[i])));
    for (size_t k = 0; k < n_scan; ++k)
      ONNX_LIGHT_RETURN_IF_ERROR(Stack(ctx, carried_ + k, scans[k]));
    return Status::Ok();
  }

 private:
  const Subgraph* body_ = nullptr;
  size_t carried_ = 0;
};

// The body takes (iteration number: int64, condition: bool, carried values: their
// inputs' types) and returns (condition, carried..., scans...).
Status LoopBodyInputTypes(const onnx::NodeProto& node, int, const std::string& attribute,
                          const std::vector<DataType>& in, std::vector<DataType>* own) {
  if (attribute != "body") return Status::Ok();
  const size_t n = node.input.size();
  ONNX_LIGHT_RETURN_IF(n < 2 || own->size() != n, kInvalidModel,
                       "the body must take (iteration, cond, carried...) and return (cond, "
                       "carried..., scans...)");
  (*own)[0] = DataType::kInt64;
  (*own)[1] = DataType::kBool;
  for (size_t i = 2; i < n; ++i)
    (*own)[i] = in[i];
  return Status::Ok();
}

// Carried outputs have their inputs' types; scan outputs what the body computes.
Status LoopOutputTypes(const onnx::NodeProto& node, int, const std::vector<DataType>& in,
                       std::vector<DataType>* out, const NodeSubgraphs& subgraphs) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(const Subgraph* body, RequiredSubgraph(subgraphs, "body"));
  const size_t n = node.input.size();
  const std::vector<ValueMeta>& outs = body->outputs();
  ONNX_LIGHT_RETURN_IF(outs.size() < n - 1, kInvalidModel,
                       "the body must take (iteration, cond, carried...) and return (cond, "
                       "carried..., scans...)");
  ONNX_LIGHT_RETURN_IF_ERROR(NoSequenceOutputs(*body));
  for (size_t i = 0; i < out->size() && 1 + i < outs.size(); ++i)
    (*out)[i] = i < n - 2 ? in[2 + i] : outs[1 + i].type;
  return Status::Ok();
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Loop) {
  KernelDef def =
      Def("Loop", 1, {{"I", {0}, {}, {DataType::kInt64}}, {"B", {1}, {}, {DataType::kBool}}},
          FactoryOf<Loop>());
  def.output_types = &LoopOutputTypes;
  def.subgraph_input_types = &LoopBodyInputTypes;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
