#include "onnx_light_ort/hosting/plugin_host.h"

#include <climits>

#include "ort_structs.h"

namespace onnx_light_ort::hosting {
namespace {

using onnx_light::KernelBase;
using onnx_light::KernelContext;
using onnx_light::KernelInfo;
using onnx_light::Result;
using onnx_light::Status;
using onnx_light::StatusCode;

using RegisterFn = OrtStatus*(ORT_API_CALL*)(OrtSessionOptions*, const OrtApiBase*);

// A runtime kernel that runs one plugin kernel instance.
class HostKernel : public KernelBase {
 public:
  // Errors are the bare reason: the session's executor names the node.
  HostKernel(const OrtCustomOp* op, void* kernel) : op_(op), kernel_(kernel) {}
  HostKernel(const HostKernel&) = delete;
  HostKernel& operator=(const HostKernel&) = delete;
  ~HostKernel() override { op_->KernelDestroy(kernel_); }

  Status Compute(KernelContext& ctx) const override {
    OrtKernelContext oc{&ctx, {}, {}};
    oc.inputs.reserve(ctx.input_count());
    for (size_t i = 0; i < ctx.input_count(); ++i)
      oc.inputs.push_back(OrtValue{ctx.input(i)});
    oc.outputs.resize(ctx.output_count());
    OrtStatus* status = nullptr;
    try {
      status = op_->KernelComputeV2(kernel_, &oc);
    } catch (...) {
      return Status(StatusCode::kInternal, "KernelComputeV2 threw a C++ exception");
    }
    ONNX_LIGHT_RETURN_IF_ERROR(ConsumePluginStatus(status, "KernelComputeV2"));
    for (size_t i = 0; i < oc.outputs.size(); ++i) {
      if (!oc.outputs[i]) {
        return Status(StatusCode::kInternal,
                      "the plugin did not produce output " + std::to_string(i));
      }
    }
    return Status::Ok();
  }

 private:
  const OrtCustomOp* op_;
  void* kernel_;
};

}  // namespace

Result<std::unique_ptr<PluginHost>> PluginHost::Load(const std::string& path) {
  std::unique_ptr<PluginHost> host(new PluginHost());
  ONNX_LIGHT_ASSIGN_OR_RETURN(host->library_, onnx_light::DynamicLibrary::Load(path));
  ONNX_LIGHT_ASSIGN_OR_RETURN(void* sym, host->library_->Symbol("RegisterCustomOps"));
  auto register_ops = reinterpret_cast<RegisterFn>(sym);

  OrtSessionOptions context;
  TakeRefusedApiVersion();
  OrtStatus* status = nullptr;
  try {
    status = register_ops(&context, HostApiBase());
  } catch (...) {
    return Status(StatusCode::kInternal, "RegisterCustomOps of '" + host->path() +
                                             "' threw a C++ exception across the C ABI");
  }
  const uint32_t refused = TakeRefusedApiVersion();
  const std::string where = "RegisterCustomOps of '" + host->path() + "'";
  if (refused != 0) {
    Status s = ConsumePluginStatus(status, where);
    return Status(StatusCode::kNotImplemented,
                  "API negotiation failed: the plugin asked for OrtApi version " +
                      std::to_string(refused) + "; this host offers version " +
                      std::to_string(kHostApiVersion) + " only" +
                      (s.ok() ? std::string() : " (" + s.message() + ")"));
  }
  if (!context.first_error.empty()) {
    (void)ConsumePluginStatus(status, where);
    return Status(StatusCode::kInvalidArgument,
                  "plugin registration refused: " + context.first_error);
  }
  ONNX_LIGHT_RETURN_IF_ERROR(ConsumePluginStatus(status, where));

  for (const OrtCustomOpDomain& domain : context.domains) {
    for (const OrtCustomOp* op : domain.ops) {
      HostedOp h;
      h.op = op;
      h.domain = domain.domain;
      h.name = op->GetName(op);
      h.type = op->GetInputType(op, 0);
      h.start_version = op->GetStartVersion ? op->GetStartVersion(op) : 1;
      h.end_version = op->GetEndVersion ? op->GetEndVersion(op) : INT_MAX;
      host->ops_.push_back(std::move(h));
    }
  }
  if (host->ops_.empty()) {
    return Status(StatusCode::kInvalidArgument,
                  "plugin registration refused: '" + host->path() + "' registered no custom ops");
  }
  return host;
}

PluginHost::~PluginHost() = default;

Result<std::shared_ptr<onnx_light::KernelRegistry>> PluginHost::MakeRegistry() const {
  auto registry = std::make_shared<onnx_light::KernelRegistry>();
  for (const HostedOp& h : ops_) {
    onnx_light::KernelDef def;
    def.domain = h.domain;
    def.op_type = h.name;
    def.since_version = h.start_version;
    def.end_version = h.end_version;
    def.constraints = {{"T", {0}, {0}, {static_cast<onnx_light::DataType>(h.type)}}};
    const OrtCustomOp* op = h.op;
    def.create = [op](const KernelInfo& info) -> Result<std::unique_ptr<KernelBase>> {
      OrtKernelInfo ki{&info};
      void* kernel = nullptr;
      OrtStatus* s = nullptr;
      try {
        s = op->CreateKernelV2(op, HostApi(), &ki, &kernel);
      } catch (...) {
        return Status(StatusCode::kInternal, "CreateKernelV2 threw a C++ exception");
      }
      Status st = ConsumePluginStatus(s, "CreateKernelV2");
      if (!st.ok()) {
        if (kernel != nullptr) op->KernelDestroy(kernel);
        return st;
      }
      return std::unique_ptr<KernelBase>(new HostKernel(op, kernel));
    };
    ONNX_LIGHT_RETURN_IF_ERROR(registry->Register(std::move(def)));
  }
  return registry;
}

}  // namespace onnx_light_ort::hosting
