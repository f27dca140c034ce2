#include "onnx_light/onnx/model_io.h"

#include <limits.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "onnx_light/platform/mapped_file.h"

namespace onnx_light::onnx {
namespace {

std::string DirName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Result<std::string> RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) {
    return Status(errno == ENOENT ? StatusCode::kNotFound : StatusCode::kIoError,
                  "cannot resolve '" + path + "': " + std::strerror(errno));
  }
  return std::string(buf);
}

Result<uint64_t> ParseUnsigned(const std::string& text, const char* what,
                               const std::string& tensor) {
  if (text.empty() || text.size() > 20 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return Status(StatusCode::kInvalidModel, "tensor '" + tensor + "': external data " + what +
                                                 " '" + text + "' is not a nonnegative integer");
  }
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) {
    return Status(StatusCode::kInvalidModel,
                  "tensor '" + tensor + "': external data " + what + " '" + text + "' overflows");
  }
  return static_cast<uint64_t>(v);
}

void ForEachTensorInGraph(GraphProto& graph, const std::function<void(TensorProto&)>& fn);

void ForEachTensorInSparse(SparseTensorProto& sparse, const std::function<void(TensorProto&)>& fn) {
  if (sparse.values.has()) fn(*sparse.values.mutable_get());
  if (sparse.indices.has()) fn(*sparse.indices.mutable_get());
}

void ForEachTensorInNodes(Repeated<NodeProto>& nodes, const std::function<void(TensorProto&)>& fn) {
  for (NodeProto& node : nodes) {
    for (AttributeProto& attr : node.attribute) {
      if (attr.t.has()) fn(*attr.t.mutable_get());
      for (TensorProto& t : attr.tensors)
        fn(t);
      if (attr.sparse_tensor.has()) ForEachTensorInSparse(*attr.sparse_tensor.mutable_get(), fn);
      for (SparseTensorProto& s : attr.sparse_tensors)
        ForEachTensorInSparse(s, fn);
      if (attr.g.has()) ForEachTensorInGraph(*attr.g.mutable_get(), fn);
      for (GraphProto& g : attr.graphs)
        ForEachTensorInGraph(g, fn);
    }
  }
}

void ForEachTensorInGraph(GraphProto& graph, const std::function<void(TensorProto&)>& fn) {
  for (TensorProto& t : graph.initializer)
    fn(t);
  for (SparseTensorProto& s : graph.sparse_initializer)
    ForEachTensorInSparse(s, fn);
  ForEachTensorInNodes(graph.node, fn);
}

// Writes to a FILE* through a large buffer; remembers the first error.
class FileSink final : public WireSink {
 public:
  explicit FileSink(std::FILE* f) : f_(f) {}
  void Append(const void* data, size_t size) override {
    if (ok_ && std::fwrite(data, 1, size, f_) != size) ok_ = false;
  }
  bool ok() const { return ok_; }

 private:
  std::FILE* f_;
  bool ok_ = true;
};

}  // namespace

void ForEachTensor(ModelProto* model, const std::function<void(TensorProto&)>& fn) {
  if (model->graph.has()) ForEachTensorInGraph(*model->graph.mutable_get(), fn);
  for (FunctionProto& f : model->functions)
    ForEachTensorInNodes(f.node, fn);
  for (TrainingInfoProto& t : model->training_info) {
    if (t.initialization.has()) ForEachTensorInGraph(*t.initialization.mutable_get(), fn);
    if (t.algorithm.has()) ForEachTensorInGraph(*t.algorithm.mutable_get(), fn);
  }
}

Status ParseFile(const MessageDescriptor& descriptor, void* message, const std::string& path,
                 const ParseOptions& options, bool map_file) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::Open(path));
  if (file->size() > options.max_bytes) {
    return Status(StatusCode::kOutOfRange, "'" + path + "' has " + std::to_string(file->size()) +
                                               " bytes, over the limit of " +
                                               std::to_string(options.max_bytes));
  }
  std::shared_ptr<const void> owner;
  const void* data = file->data();
  if (map_file) {
    owner = file;
  }
  WireReader in(static_cast<const uint8_t*>(data), file->size());
  ParseState state{&options, owner, 0, {}};
  Status s = ParseMessage(descriptor, message, in, state);
  if (s.ok()) return s;
  std::string where = descriptor.name;
  if (!state.error_path.empty()) {
    where += (state.error_path[0] == '[' ? "" : ".") + state.error_path;
  }
  return Status(s.code(), path + ": " + where + ": " + s.message());
}

Result<ModelProto> LoadModel(const std::string& path, const LoadOptions& options) {
  ModelProto model;
  ONNX_LIGHT_RETURN_IF_ERROR(
      ParseFile(ModelProto::descriptor(), &model, path, options.parse, options.map_file));
  if (options.load_external_data) {
    ONNX_LIGHT_RETURN_IF_ERROR(LoadExternalData(&model, DirName(path)));
  }
  return model;
}

Result<ModelProto> LoadModelFromBytes(const void* data, size_t size, const ParseOptions& options,
                                      std::shared_ptr<const void> owner) {
  ModelProto model;
  ONNX_LIGHT_RETURN_IF_ERROR(ParseFromBytes(&model, data, size, options, std::move(owner)));
  return model;
}

Status LoadExternalData(ModelProto* model, const std::string& base_dir) {
  Result<std::string> base = RealPath(base_dir);
  std::map<std::string, std::shared_ptr<const MappedFile>> files;
  Status status;
  ForEachTensor(model, [&](TensorProto& tensor) {
    if (!status.ok() ||
        tensor.data_location.get() != static_cast<int32_t>(DataLocation::kExternal)) {
      return;
    }
    const std::string& name = tensor.name.get();
    std::string location;
    std::string offset_text;
    std::string length_text;
    bool has_offset = false;
    bool has_length = false;
    for (const StringStringEntryProto& e : tensor.external_data) {
      if (e.key.get() == "location") location = e.value.get();
      if (e.key.get() == "offset") offset_text = e.value.get(), has_offset = true;
      if (e.key.get() == "length") length_text = e.value.get(), has_length = true;
    }
    auto fail = [&](StatusCode code, const std::string& msg) {
      status = Status(code, "tensor '" + name + "': " + msg);
    };
    if (location.empty()) return fail(StatusCode::kInvalidModel, "external data has no location");
    if (location.find('\0') != std::string::npos) {
      return fail(StatusCode::kInvalidModel, "external data location contains a NUL byte");
    }
    if (location[0] == '/') {
      return fail(StatusCode::kInvalidModel, "external data location '" + location +
                                                 "' is absolute; it must be relative "
                                                 "to the model's folder");
    }
    size_t start = 0;
    while (start <= location.size()) {
      size_t end = location.find('/', start);
      if (end == std::string::npos) end = location.size();
      if (location.compare(start, end - start, "..") == 0 && end - start == 2) {
        return fail(StatusCode::kInvalidModel,
                    "external data location '" + location + "' escapes the model's folder");
      }
      start = end + 1;
    }
    if (!base.ok()) {
      status = base.status();
      return;
    }
    Result<std::string> real = RealPath(base_dir + "/" + location);
    if (!real.ok()) return fail(real.status().code(), real.status().message());
    if (real->compare(0, base->size() + 1, *base + "/") != 0) {
      return fail(StatusCode::kInvalidModel, "external data location '" + location +
                                                 "' resolves to '" + *real +
                                                 "', outside the model's folder '" + *base + "'");
    }
    auto it = files.find(*real);
    if (it == files.end()) {
      Result<std::shared_ptr<const MappedFile>> file = MappedFile::Open(*real);
      if (!file.ok()) return fail(file.status().code(), file.status().message());
      it = files.emplace(*real, *file).first;
    }
    const MappedFile& file = *it->second;
    uint64_t offset = 0;
    if (has_offset) {
      Result<uint64_t> r = ParseUnsigned(offset_text, "offset", name);
      if (!r.ok()) return fail(r.status().code(), r.status().message());
      offset = *r;
    }
    if (offset > file.size()) {
      return fail(StatusCode::kInvalidModel, "external data offset " + std::to_string(offset) +
                                                 " is past the end of '" + location + "' (" +
                                                 std::to_string(file.size()) + " bytes)");
    }
    uint64_t length = file.size() - offset;
    if (has_length) {
      Result<uint64_t> r = ParseUnsigned(length_text, "length", name);
      if (!r.ok()) return fail(r.status().code(), r.status().message());
      if (*r > length) {
        return fail(StatusCode::kInvalidModel, "external data range [" + std::to_string(offset) +
                                                   ", " + std::to_string(offset) + "+" +
                                                   std::to_string(*r) + ") is past the end of '" +
                                                   location + "' (" + std::to_string(file.size()) +
                                                   " bytes)");
      }
      length = *r;
    }
    tensor.raw_data = Bytes(static_cast<const char*>(file.data()) + offset,
                            static_cast<size_t>(length), it->second);
    tensor.data_location = static_cast<int32_t>(DataLocation::kDefault);
    tensor.external_data.clear();
  });
  return status;
}

Status SaveMessage(const MessageDescriptor& descriptor, const void* message,
                   const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return Status(StatusCode::kIoError, "cannot create '" + path + "': " + std::strerror(errno));
  }
  std::vector<char> buffer(size_t{1} << 20);
  std::setvbuf(f, buffer.data(), _IOFBF, buffer.size());
  MessageByteSize(descriptor, message);
  FileSink sink(f);
  WireWriter out(&sink);
  WriteMessage(descriptor, message, out);
  const bool closed = std::fclose(f) == 0;
  if (!sink.ok() || !closed) {
    return Status(StatusCode::kIoError, "cannot write '" + path + "': " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace onnx_light::onnx
