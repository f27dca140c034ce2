#include "onnx_light/platform/dynamic_library.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace onnx_light {

Result<std::unique_ptr<DynamicLibrary>> DynamicLibrary::Load(const std::string& path) {
  if (path.empty()) return Status(StatusCode::kInvalidArgument, "empty library path");
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    return Status(errno == ENOENT ? StatusCode::kNotFound : StatusCode::kIoError,
                  "cannot resolve library path '" + path + "': " + std::strerror(errno));
  }
  struct stat st {};
  if (::stat(resolved, &st) != 0 || !S_ISREG(st.st_mode)) {
    return Status(StatusCode::kInvalidArgument,
                  "library path '" + path + "' is not a regular file");
  }
  ::dlerror();
  void* handle = ::dlopen(resolved, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = ::dlerror();
    return Status(StatusCode::kInvalidArgument,
                  std::string("cannot load '") + resolved + "': " + (err ? err : "unknown error"));
  }
  return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(handle, resolved));
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

Result<void*> DynamicLibrary::Symbol(const char* name) const {
  ::dlerror();
  void* sym = ::dlsym(handle_, name);
  const char* err = ::dlerror();
  if (err != nullptr || sym == nullptr) {
    return Status(StatusCode::kNotFound,
                  "'" + path_ + "' does not export " + name + (err ? std::string(": ") + err : ""));
  }
  return sym;
}

}  // namespace onnx_light
