#include "onnx_light_ort/hosting/plugin_host.h"

#include <climits>
#include <exception>
#include <mutex>
#include <utility>

#include "ort_structs.h"

namespace onnx_light_ort::hosting {
namespace {

using onnx_light::DataType;
using onnx_light::KernelBase;
using onnx_light::KernelContext;
using onnx_light::KernelInfo;
using onnx_light::Result;
using onnx_light::Status;
using onnx_light::StatusCode;

using RegisterFn = OrtStatus*(ORT_API_CALL*)(OrtSessionOptions*, const OrtApiBase*);

// The most inputs or outputs an extensions-profile descriptor may declare (the runtime's
// optional-position masks are 32 bits).
constexpr size_t kMaxArguments = 32;

// What escaped a plugin callback as a C++ exception, as a status.
Status Thrown(const char* callback) {
  try {
    throw;
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal,
                  std::string(callback) + " threw a C++ exception: " + e.what());
  } catch (...) {
    return Status(StatusCode::kInternal, std::string(callback) + " threw a C++ exception");
  }
}

// A runtime kernel that runs one plugin kernel instance (V2, or V1 in the extensions
// profile). It holds the host (when given) so the plugin outlives it.
class HostKernel : public KernelBase {
 public:
  // Errors are the bare reason: the session's executor names the node.
  HostKernel(const OrtCustomOp* op, void* kernel, bool v2, std::vector<bool> named_outputs,
             std::shared_ptr<const PluginHost> host)
      : host_(std::move(host)),
        op_(op),
        kernel_(kernel),
        v2_(v2),
        named_outputs_(std::move(named_outputs)) {}
  HostKernel(const HostKernel&) = delete;
  HostKernel& operator=(const HostKernel&) = delete;
  ~HostKernel() override {
    try {
      op_->KernelDestroy(kernel_);
    } catch (...) {  // nothing to report to: the kernel is gone either way
    }
  }

  Status Compute(KernelContext& ctx) const override {
    OrtKernelContext oc{&ctx, {}, {}, host_ != nullptr};
    oc.inputs.reserve(ctx.input_count());
    for (size_t i = 0; i < ctx.input_count(); ++i)
      oc.inputs.push_back(OrtValue{ctx.input(i)});
    oc.outputs.resize(ctx.output_count());
    if (v2_) {
      OrtStatus* status = nullptr;
      try {
        status = op_->KernelComputeV2(kernel_, &oc);
      } catch (...) {
        return Thrown("KernelComputeV2");
      }
      ONNX_LIGHT_RETURN_IF_ERROR(ConsumePluginStatus(status, "KernelComputeV2"));
    } else {
      try {
        op_->KernelCompute(kernel_, &oc);  // V1: errors are C++ exceptions
      } catch (...) {
        return Thrown("KernelCompute");
      }
    }
    for (size_t i = 0; i < oc.outputs.size(); ++i) {
      const bool named = named_outputs_.empty() || (i < named_outputs_.size() && named_outputs_[i]);
      if (!oc.outputs[i] && named) {
        return Status(StatusCode::kInternal,
                      "the plugin did not produce output " + std::to_string(i));
      }
    }
    return Status::Ok();
  }

 private:
  std::shared_ptr<const PluginHost> host_;  // released after KernelDestroy
  const OrtCustomOp* op_;
  void* kernel_;
  bool v2_;
  std::vector<bool> named_outputs_;  // empty: every output must be produced
};

bool KnownType(ONNXTensorElementDataType t) {
  return t == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED ||
         (static_cast<int>(t) > 0 && static_cast<int>(t) < onnx_light::kDataTypeCount);
}

// An extensions-profile descriptor read field by field as far as its version has them
// (ORT's gates: optional arguments from 8, variadic 14, V2 kernels 16, opset range 17,
// in-place and alias maps 18). Sets h->refusal to why it cannot run, if it cannot.
void DescribeForExtensions(const OrtCustomOp* op, HostedOp* h) {
  const uint32_t v = op->version;
  auto refuse = [h](const std::string& why) {
    if (h->refusal.empty()) h->refusal = why;
  };
  if (op->GetExecutionProviderType != nullptr) {
    const char* ep = op->GetExecutionProviderType(op);
    if (ep != nullptr && *ep != '\0' && std::string(ep) != "CPUExecutionProvider") {
      refuse(std::string("execution provider '") + ep + "' is not supported (CPU only)");
    }
  }
  if (op->GetInputTypeCount == nullptr || op->GetOutputTypeCount == nullptr ||
      op->GetInputType == nullptr || op->GetOutputType == nullptr) {
    refuse("the descriptor lacks input/output type callbacks");
    return;
  }
  const size_t n_in = op->GetInputTypeCount(op), n_out = op->GetOutputTypeCount(op);
  if (n_in > kMaxArguments || n_out > kMaxArguments) {
    refuse("has " + std::to_string(n_in) + " inputs and " + std::to_string(n_out) +
           " outputs; at most " + std::to_string(kMaxArguments) + " of each are supported");
    return;
  }
  auto kind = [&](bool input, size_t i) {
    if (v < 8) return INPUT_OUTPUT_REQUIRED;
    auto fn = input ? op->GetInputCharacteristic : op->GetOutputCharacteristic;
    return fn != nullptr ? fn(op, i) : INPUT_OUTPUT_REQUIRED;
  };
  size_t undefined_inputs = 0;
  auto read = [&](bool input, size_t count) {
    std::vector<ONNXTensorElementDataType>& types = input ? h->input_types : h->output_types;
    std::vector<bool>& optional = input ? h->optional_inputs : h->optional_outputs;
    const std::string what = input ? "input" : "output";
    for (size_t i = 0; i < count; ++i) {
      types.push_back(input ? op->GetInputType(op, i) : op->GetOutputType(op, i));
      optional.push_back(kind(input, i) == INPUT_OUTPUT_OPTIONAL);
      if (kind(input, i) == INPUT_OUTPUT_VARIADIC)
        refuse("variadic " + what + "s are not supported");
      if (!KnownType(types.back())) {
        refuse(what + " " + std::to_string(i) + " has an unknown element type " +
               std::to_string(static_cast<int>(types.back())));
      }
      if (types.back() != ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) continue;
      if (input) {
        ++undefined_inputs;
      } else if (undefined_inputs != 1) {
        refuse("output " + std::to_string(i) +
               " has no declared type and there is not exactly one input of any type to take "
               "it from");
      }
    }
  };
  read(true, n_in);
  read(false, n_out);
  h->v2 = v >= 16 && op->CreateKernelV2 != nullptr && op->KernelComputeV2 != nullptr;
  if (!h->v2 && (op->CreateKernel == nullptr || op->KernelCompute == nullptr)) {
    refuse(
        "neither V2 (CreateKernelV2, KernelComputeV2) nor V1 (CreateKernel, KernelCompute) "
        "kernel callbacks are set");
  }
  if (op->KernelDestroy == nullptr) refuse("KernelDestroy is required");
  // GetMayInplace is accepted and never called: nothing is computed in place here.
  if (v >= 18 && (op->GetAliasMap != nullptr || op->ReleaseAliasMap != nullptr)) {
    refuse("alias callbacks are not supported");
  }
  h->start_version = v >= 17 && op->GetStartVersion ? op->GetStartVersion(op) : 1;
  h->end_version = v >= 17 && op->GetEndVersion ? op->GetEndVersion(op) : INT_MAX;
  if (h->start_version < 1 || h->end_version < h->start_version) {
    refuse("invalid opset range " + std::to_string(h->start_version) + ".." +
           std::to_string(h->end_version));
    h->start_version = 1;
    h->end_version = INT_MAX;
  }
}

// A V2 kernel instance for `info`, the plugin handed the profile's table; a refused
// creation destroys what the plugin may have made.
Result<void*> CreateKernelV2(const OrtCustomOp* op, Profile profile, const KernelInfo& info) {
  OrtKernelInfo ki{&info};
  void* kernel = nullptr;
  OrtStatus* s = nullptr;
  try {
    s = op->CreateKernelV2(op, HostApi(profile), &ki, &kernel);
  } catch (...) {
    return Thrown("CreateKernelV2");
  }
  Status st = ConsumePluginStatus(s, "CreateKernelV2");
  if (!st.ok()) {
    if (kernel != nullptr) op->KernelDestroy(kernel);
    return st;
  }
  return kernel;
}

// Every tensor element type the runtime has (an UNDEFINED declaration: any of them).
std::vector<DataType> AllTypes() {
  std::vector<DataType> all;
  for (int t = 1; t < onnx_light::kDataTypeCount; ++t)
    all.push_back(static_cast<DataType>(t));
  return all;
}

// Plugins are loaded, registered and unloaded one at a time in the process: a plugin's
// RegisterCustomOps and its static destructors commonly keep process-wide state (the
// example plugin's list of domains, released at unload; onnxruntime-extensions' API
// table), which two sessions loading or releasing the same library from two threads would
// otherwise touch at once. (The dynamic loader's own lock orders dlopen and dlclose, not
// the plugin's code around them.) Recursive: a failed Load destroys its host while holding
// it.
std::recursive_mutex& LoadMutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

}  // namespace

Result<std::unique_ptr<PluginHost>> PluginHost::Load(const std::string& path, Profile profile) {
  std::lock_guard<std::recursive_mutex> lock(LoadMutex());
  std::unique_ptr<PluginHost> host(new PluginHost());
  host->profile_ = profile;
  ONNX_LIGHT_ASSIGN_OR_RETURN(host->library_, onnx_light::DynamicLibrary::Load(path));
  ONNX_LIGHT_ASSIGN_OR_RETURN(void* sym, host->library_->Symbol("RegisterCustomOps"));
  auto register_ops = reinterpret_cast<RegisterFn>(sym);

  OrtSessionOptions context;
  TakeRefusedApiVersion();
  OrtStatus* status = nullptr;
  try {
    status = register_ops(&context, HostApiBase(profile));
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
      try {
        h.name = op->GetName(op);
        if (profile == Profile::kExtensions) {
          DescribeForExtensions(op, &h);
          h.type =
              h.input_types.empty() ? ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED : h.input_types[0];
        } else {
          h.type = op->GetInputType(op, 0);
          h.start_version = op->GetStartVersion ? op->GetStartVersion(op) : 1;
          h.end_version = op->GetEndVersion ? op->GetEndVersion(op) : INT_MAX;
        }
      } catch (...) {
        return Thrown(("a descriptor callback of " + domain.domain + "::" + h.name).c_str());
      }
      if (profile == Profile::kExtensions) {
        for (const HostedOp& other : host->ops_) {
          if (other.domain == h.domain && other.name == h.name &&
              other.input_types == h.input_types && other.output_types == h.output_types &&
              h.refusal.empty()) {
            h.refusal = "registered twice with the same types";
          }
        }
      }
      host->ops_.push_back(std::move(h));
    }
  }
  if (host->ops_.empty()) {
    return Status(StatusCode::kInvalidArgument,
                  "plugin registration refused: '" + host->path() + "' registered no custom ops");
  }
  return host;
}

PluginHost::~PluginHost() {
  std::lock_guard<std::recursive_mutex> lock(LoadMutex());
  ops_.clear();
  library_.reset();  // the plugin's static destructors run here, under the lock
}

Result<std::shared_ptr<onnx_light::KernelRegistry>> PluginHost::MakeRegistry() const {
  auto registry = std::make_shared<onnx_light::KernelRegistry>();
  for (const HostedOp& h : ops_) {
    onnx_light::KernelDef def;
    def.domain = h.domain;
    def.op_type = h.name;
    def.since_version = h.start_version;
    def.end_version = h.end_version;
    def.constraints = {{"T", {0}, {0}, {static_cast<DataType>(h.type)}}};
    const OrtCustomOp* op = h.op;
    def.create = [op](const KernelInfo& info) -> Result<std::unique_ptr<KernelBase>> {
      ONNX_LIGHT_ASSIGN_OR_RETURN(void* kernel, CreateKernelV2(op, Profile::kInitial, info));
      return std::unique_ptr<KernelBase>(new HostKernel(op, kernel, true, {}, nullptr));
    };
    ONNX_LIGHT_RETURN_IF_ERROR(registry->Register(std::move(def)));
  }
  return registry;
}

Result<std::shared_ptr<onnx_light::KernelRegistry>> PluginHost::MakeLayeredRegistry(
    const std::shared_ptr<const PluginHost>& host,
    std::shared_ptr<const onnx_light::KernelRegistry> parent) {
  auto registry = std::make_shared<onnx_light::KernelRegistry>(std::move(parent));
  const std::vector<DataType> all = AllTypes();
  for (const HostedOp& h : host->ops_) {
    if (h.refusal == "registered twice with the same types") continue;  // the first one runs
    onnx_light::KernelDef def;
    def.domain = h.domain;
    def.op_type = h.name;
    def.since_version = h.start_version;
    def.end_version = h.end_version;
    const std::string what = h.domain + "::" + h.name + " of '" + host->path() + "'";
    // One constraint per declared input and output; an output of no declared type takes
    // the one input of any type's.
    bool typed = true;
    int any_input = -1;
    for (size_t i = 0; i < h.input_types.size() && typed; ++i) {
      const bool any = h.input_types[i] == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
      typed = KnownType(h.input_types[i]);
      if (any) any_input = static_cast<int>(def.constraints.size());
      def.constraints.push_back(
          {"I" + std::to_string(i),
           {static_cast<int>(i)},
           {},
           any ? all : std::vector<DataType>{static_cast<DataType>(h.input_types[i])}});
    }
    for (size_t o = 0; o < h.output_types.size() && typed; ++o) {
      typed = KnownType(h.output_types[o]);
      if (h.output_types[o] == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) {
        if (any_input < 0) {
          typed = false;
        } else {
          def.constraints[static_cast<size_t>(any_input)].outputs.push_back(static_cast<int>(o));
        }
      } else {
        def.constraints.push_back({"O" + std::to_string(o),
                                   {},
                                   {static_cast<int>(o)},
                                   {static_cast<DataType>(h.output_types[o])}});
      }
    }
    if (!h.refusal.empty()) {
      // Nodes of this overload (of any types when they cannot be stated) are refused when
      // their kernel is made (a node's first run), naming the op and why. One that would shadow a
      // runnable overload is left out: its nodes then get "no kernel" with the supported list.
      if (!typed) def.constraints.clear();
      const std::string why =
          "custom op " + what + " cannot run in the extensions profile: " + h.refusal;
      def.create = [why](const KernelInfo&) -> Result<std::unique_ptr<KernelBase>> {
        return Status(StatusCode::kNotImplemented, why);
      };
      (void)registry->Register(std::move(def));
      continue;
    }
    // Inputs up to the last required one must be there; optional ones may be empty.
    auto arity = [](const std::vector<bool>& optional, int* min, int* max, uint32_t* mask) {
      *max = static_cast<int>(optional.size());
      *min = 0;
      *mask = 0;
      for (size_t i = 0; i < optional.size(); ++i) {
        if (optional[i]) {
          *mask |= 1u << i;
        } else {
          *min = static_cast<int>(i) + 1;
        }
      }
    };
    arity(h.optional_inputs, &def.arity.min_inputs, &def.arity.max_inputs,
          &def.arity.optional_inputs);
    arity(h.optional_outputs, &def.arity.min_outputs, &def.arity.max_outputs,
          &def.arity.optional_outputs);
    const OrtCustomOp* op = h.op;
    const bool v2 = h.v2;
    // The registry holds the host (and so the plugin) as long as it lives; each kernel too.
    def.create = [op, v2, host](const KernelInfo& info) -> Result<std::unique_ptr<KernelBase>> {
      void* kernel = nullptr;
      if (v2) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(kernel, CreateKernelV2(op, Profile::kExtensions, info));
      } else {
        OrtKernelInfo ki{&info};
        try {
          kernel = op->CreateKernel(op, HostApi(Profile::kExtensions), &ki);  // V1: throws
        } catch (...) {
          return Thrown("CreateKernel");
        }
        if (kernel == nullptr) {
          return Status(StatusCode::kInternal, "CreateKernel returned no kernel");
        }
      }
      std::vector<bool> named;
      for (const std::string& name : info.node().output)
        named.push_back(!name.empty());
      return std::unique_ptr<KernelBase>(new HostKernel(op, kernel, v2, std::move(named), host));
    };
    ONNX_LIGHT_RETURN_IF_ERROR(registry->Register(std::move(def)));
  }
  return registry;
}

onnx_light::Status RegisterCustomOpsLibrary(onnx_light::SessionOptions* options,
                                            const std::string& path, Profile profile) {
  ONNX_LIGHT_RETURN_IF(options == nullptr, kInvalidArgument, "null session options");
  ONNX_LIGHT_RETURN_IF(profile != Profile::kExtensions, kInvalidArgument,
                       "session-level registration uses the extensions profile; the initial "
                       "profile is CustomOpSession's (the LightOrt* C ABI)");
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::unique_ptr<PluginHost> loaded, PluginHost::Load(path, profile));
  std::shared_ptr<const PluginHost> host(std::move(loaded));
  std::shared_ptr<const onnx_light::KernelRegistry> parent =
      options->registry ? options->registry : onnx_light::KernelRegistry::BuiltinCpu();
  ONNX_LIGHT_ASSIGN_OR_RETURN(auto registry, PluginHost::MakeLayeredRegistry(host, parent));
  options->registry = std::move(registry);
  return Status::Ok();
}

}  // namespace onnx_light_ort::hosting
