// Loading and saving ONNX files: memory-mapped, zero-copy, with checked external data.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "onnx_light/core/status.h"
#include "onnx_light/onnx/message.h"
#include "onnx_light/onnx/onnx.h"

namespace onnx_light::onnx {

struct LoadOptions {
  ParseOptions parse;
  // Resolve tensors with data_location = EXTERNAL against the model's folder, as
  // onnx.load does: their raw_data then views the mapped data file, data_location becomes
  // DEFAULT and external_data is cleared.
  bool load_external_data = true;
  // Map the file and let raw_data view it (no copy). With false the file is read into
  // memory that the model owns.
  bool map_file = true;
};

// Parses any message from a file (e.g. a TensorProto .pb). Errors name the path.
Status ParseFile(const MessageDescriptor& descriptor, void* message, const std::string& path,
                 const ParseOptions& options = {}, bool map_file = true);

template <typename M>
Result<M> LoadMessage(const std::string& path, const ParseOptions& options = {}) {
  M message;
  ONNX_LIGHT_RETURN_IF_ERROR(ParseFile(M::descriptor(), &message, path, options));
  return message;
}

Result<ModelProto> LoadModel(const std::string& path, const LoadOptions& options = {});

// Parses serialized bytes. Without `owner` the payloads are copied; with it they view the
// buffer, which `owner` must keep alive.
Result<ModelProto> LoadModelFromBytes(const void* data, size_t size,
                                      const ParseOptions& options = {},
                                      std::shared_ptr<const void> owner = nullptr);

// Resolves every external tensor of the model (graphs, subgraphs, attributes, functions,
// training graphs) against `base_dir`. Refused: absolute locations, `..` components,
// paths that resolve (through symlinks) outside `base_dir`, offsets or lengths past the end
// of the file, malformed offset/length values. Each data file is mapped once.
Status LoadExternalData(ModelProto* model, const std::string& base_dir);

// Calls `fn` on every TensorProto that the model holds (initializers, sparse tensors,
// attribute tensors, in subgraphs, functions and training graphs too).
void ForEachTensor(ModelProto* model, const std::function<void(TensorProto&)>& fn);

// Writes the message to `path` (streamed, so outputs over 2 GiB work).
Status SaveMessage(const MessageDescriptor& descriptor, const void* message,
                   const std::string& path);
inline Status SaveModel(const ModelProto& model, const std::string& path) {
  return SaveMessage(ModelProto::descriptor(), &model, path);
}

}  // namespace onnx_light::onnx
