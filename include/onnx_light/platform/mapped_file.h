// A read-only memory-mapped file (RAII: unmapped and closed on destruction).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "onnx_light/core/status.h"

namespace onnx_light {

class MappedFile {
 public:
  // Maps the whole file read-only. An empty file gives size() == 0 and a non-null data().
  static Result<std::shared_ptr<const MappedFile>> Open(const std::string& path);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const void* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }
  const std::string& path() const noexcept { return path_; }

 private:
  MappedFile() = default;
  void* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::string path_;
};

// Drops the pages wholly inside [p, p + n) from memory when they belong to a file this
// process mapped with MappedFile (read-only, private: a later read maps them in again
// from the file, unchanged). For bytes that were copied elsewhere (a misaligned
// initializer copied to aligned memory), so that the copy and the mapped bytes are not
// both resident. Anything else (heap bytes, a model given as a buffer) is left alone.
void ReleaseMappedPages(const void* p, size_t n);
// Whether [p, p + n) lies in a file this process mapped with MappedFile (so that
// ReleaseMappedPages gives its pages back).
bool InMappedFile(const void* p, size_t n);

// Reads a whole file into memory (for callers that prefer a copy to a mapping).
Result<std::string> ReadFileToString(const std::string& path);

}  // namespace onnx_light
