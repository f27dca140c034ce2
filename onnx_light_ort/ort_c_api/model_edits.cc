// Model edits that ORT's session options ask for before a session is made: free-dimension
// overrides, initializers the program supplies (AddInitializer, AddExternalInitializers)
// and external data given in memory.
#include "onnx_light/runtime/tensor_proto.h"
#include "onnx_light_ort/ort_c_api/objects.h"

namespace onnx_light_ort::c_api {
namespace {

using onnx_light::Status;
using onnx_light::StatusCode;
namespace onnx = onnx_light::onnx;

// AddFreeDimensionOverride(ByName): the graph inputs' symbolic dimensions named (or
// denoted) so become fixed before the session is made, as ORT's free-dimension pass.
// ORT's shape inference then carries the fixed size to the outputs; here a graph output's
// dimension of the same name is fixed the same way.
void OverrideDims(const OrtSessionOptions& options, onnx::ModelProto* model) {
  if (options.dim_by_name.empty() && options.dim_by_denotation.empty()) return;
  onnx::GraphProto* graph = model->graph.mutable_get();
  std::vector<onnx::ValueInfoProto*> infos;
  for (onnx::ValueInfoProto& v : graph->input)
    infos.push_back(&v);
  for (onnx::ValueInfoProto& v : graph->output)
    infos.push_back(&v);
  // A dimension fixed by its denotation fixes its name too (for the outputs that share it).
  std::vector<std::pair<std::string, int64_t>> by_name = options.dim_by_name;
  for (onnx::ValueInfoProto* info : infos) {
    onnx::ValueInfoProto& input = *info;
    if (!input.type->tensor_type.has()) continue;
    onnx::TypeProto_Tensor* tensor = input.type.mutable_get()->tensor_type.mutable_get();
    for (onnx::TensorShapeProto_Dimension& dim : tensor->shape.mutable_get()->dim) {
      if (dim.dim_value.has()) continue;
      for (const auto& [name, value] : by_name) {
        if (dim.dim_param.has() && dim.dim_param.get() == name) dim.dim_value.set(value);
      }
      for (const auto& [denotation, value] : options.dim_by_denotation) {
        if (dim.denotation.has() && dim.denotation.get() == denotation) {
          dim.dim_value.set(value);
          if (dim.dim_param.has()) by_name.emplace_back(dim.dim_param.get(), value);
        }
      }
      if (dim.dim_value.has()) dim.dim_param.clear();
    }
  }
}

// A program's tensor as an initializer. Numbers are viewed, not copied: the proto's bytes
// keep a reference to the tensor's storage, as for a memory-mapped data file.
onnx_light::Result<onnx::TensorProto> ProtoOf(const std::string& name,
                                              const onnx_light::Tensor& tensor) {
  if (tensor.dtype() == onnx_light::DataType::kString) {
    return onnx_light::TensorToProto(tensor, name);
  }
  auto keep = std::make_shared<onnx_light::Tensor>(tensor);
  onnx::TensorProto proto;
  proto.name.set(name);
  proto.data_type.set(static_cast<int32_t>(tensor.dtype()));
  proto.dims = tensor.shape().dims();
  proto.raw_data.set(onnx::Bytes(keep->raw_data(), keep->byte_size(), keep));
  return proto;
}

onnx::TensorProto* FindInitializer(onnx::GraphProto* graph, const std::string& name) {
  for (onnx::TensorProto& t : graph->initializer) {
    if (t.name.get() == name) return &t;
  }
  return nullptr;
}

// AddExternalInitializers: the program's tensors replace initializers whose data is
// external (ORT's rule: any other is refused).
Status ReplaceExternalInitializers(const OrtSessionOptions& options, onnx::ModelProto* model) {
  onnx::GraphProto* graph = model->graph.mutable_get();
  for (const auto& [name, tensor] : options.external_initializers) {
    onnx::TensorProto* target = FindInitializer(graph, name);
    if (target == nullptr) {
      return Status(StatusCode::kNotFound,
                    "AddExternalInitializers: the model has no initializer '" + name + "'");
    }
    if (target->data_location.get() != 1) {
      return Status(
          StatusCode::kFailedPrecondition,
          "Trying to replace non-external initializer with external data ('" + name + "')");
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(*target, ProtoOf(name, tensor));
  }
  return Status::Ok();
}

// AddInitializer: the program's tensors replace the model's initializers of those names,
// or join them.
Status ReplaceInitializers(const OrtSessionOptions& options, onnx::ModelProto* model) {
  onnx::GraphProto* graph = model->graph.mutable_get();
  for (const auto& [name, tensor] : options.initializers) {
    ONNX_LIGHT_ASSIGN_OR_RETURN(onnx::TensorProto proto, ProtoOf(name, tensor));
    if (onnx::TensorProto* target = FindInitializer(graph, name)) {
      *target = std::move(proto);
    } else {
      graph->initializer.push_back(std::move(proto));
    }
  }
  return Status::Ok();
}

// AddExternalInitializersFromFilesInMemory: initializers whose data lies in an external
// file take it from the program's buffer of that name (viewed, not copied).
Status ExternalFromMemory(const OrtSessionOptions& options, onnx::ModelProto* model) {
  if (options.external_files.empty()) return Status::Ok();
  for (onnx::TensorProto& t : model->graph.mutable_get()->initializer) {
    if (t.data_location.get() != 1) continue;  // TensorProto.EXTERNAL
    std::string location;
    int64_t offset = 0, length = -1;
    for (const onnx::StringStringEntryProto& e : t.external_data) {
      if (e.key.get() == "location") location = e.value.get();
      if (e.key.get() == "offset") offset = std::stoll(e.value.get());
      if (e.key.get() == "length") length = std::stoll(e.value.get());
    }
    const std::shared_ptr<const std::string>* file = nullptr;
    for (const auto& [name, data] : options.external_files) {
      if (name == location) file = &data;
    }
    if (file == nullptr) continue;  // read from disk afterwards (LoadExternalData)
    const auto size = static_cast<int64_t>((*file)->size());
    if (length < 0) length = size - offset;
    if (offset < 0 || offset > size || length > size - offset) {
      return Status(StatusCode::kInvalidModel, "initializer '" + t.name.get() +
                                                   "': offset and length lie outside '" + location +
                                                   "' (" + std::to_string(size) + " bytes)");
    }
    t.raw_data.set(onnx::Bytes((*file)->data() + offset, static_cast<size_t>(length), *file));
    t.external_data.clear();
    t.data_location.set(0);
  }
  return Status::Ok();
}

}  // namespace

Status EditModel(const OrtSessionOptions& options, const std::string& base_dir,
                 onnx::ModelProto* model) {
  OverrideDims(options, model);
  ONNX_LIGHT_RETURN_IF_ERROR(ReplaceExternalInitializers(options, model));
  ONNX_LIGHT_RETURN_IF_ERROR(ExternalFromMemory(options, model));
  ONNX_LIGHT_RETURN_IF_ERROR(ReplaceInitializers(options, model));
  // External data neither replaced nor given in memory: read from `base_dir` (the model's
  // folder; the working folder for bytes).
  if (options.edits_external_data()) {
    ONNX_LIGHT_RETURN_IF_ERROR(onnx::LoadExternalData(model, base_dir));
  }
  return Status::Ok();
}

}  // namespace onnx_light_ort::c_api
