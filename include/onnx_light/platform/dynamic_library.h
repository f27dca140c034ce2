// The platform loader: a shared library loaded from an explicit, resolved path.
#pragma once

#include <memory>
#include <string>

#include "onnx_light/core/status.h"

namespace onnx_light {

class DynamicLibrary {
 public:
  // Resolves `path` (symlinks, relative parts) to an absolute path of a regular file and
  // loads exactly that file, with RTLD_NOW | RTLD_LOCAL: never a search path, never a
  // name looked up elsewhere. An empty path, a missing file, a directory or a load error
  // is a status.
  static Result<std::unique_ptr<DynamicLibrary>> Load(const std::string& path);

  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();  // unloads

  // The address of an exported symbol, or an error naming it.
  Result<void*> Symbol(const char* name) const;
  const std::string& path() const noexcept { return path_; }

 private:
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_;
  std::string path_;
};

}  // namespace onnx_light
