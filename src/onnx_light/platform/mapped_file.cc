#include "onnx_light/platform/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

namespace onnx_light {
namespace {

Status IoError(const std::string& what, const std::string& path, int err) {
  return Status(err == ENOENT ? StatusCode::kNotFound : StatusCode::kIoError,
                what + " '" + path + "': " + std::strerror(err));
}

// Closes a descriptor on every path out of a function.
class FdGuard {
 public:
  explicit FdGuard(int fd) : fd_(fd) {}
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  ~FdGuard() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// The address ranges of the live mappings, for ReleaseMappedPages.
std::mutex& MappingsMutex() {
  static std::mutex mu;
  return mu;
}
std::map<uintptr_t, size_t>& Mappings() {
  static std::map<uintptr_t, size_t> ranges;  // start -> size
  return ranges;
}

}  // namespace

bool InMappedFile(const void* p, size_t n) {
  const auto start = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(MappingsMutex());
  const std::map<uintptr_t, size_t>& ranges = Mappings();
  auto it = ranges.upper_bound(start);
  if (n == 0 || it == ranges.begin()) return false;
  --it;
  return start >= it->first && start + n <= it->first + it->second;
}

void ReleaseMappedPages(const void* p, size_t n) {
  const auto start = reinterpret_cast<uintptr_t>(p);
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t lo = (start + page - 1) / page * page, hi = (start + n) / page * page;
  if (n == 0 || hi <= lo) return;
  std::lock_guard<std::mutex> lock(MappingsMutex());
  const std::map<uintptr_t, size_t>& ranges = Mappings();
  auto it = ranges.upper_bound(start);
  if (it == ranges.begin()) return;
  --it;
  if (start < it->first || start + n > it->first + it->second) return;  // not ours
  ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);       // advice: errors harmless
}

Result<std::shared_ptr<const MappedFile>> MappedFile::Open(const std::string& path) {
  FdGuard fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return IoError("cannot open", path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return IoError("cannot stat", path, errno);
  if (!S_ISREG(st.st_mode)) {
    return Status(StatusCode::kInvalidArgument, "'" + path + "' is not a regular file");
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  file->size_ = static_cast<size_t>(st.st_size);
  if (file->size_ == 0) {
    static const char kEmpty = 0;
    file->data_ = const_cast<char*>(&kEmpty);
    return std::shared_ptr<const MappedFile>(std::move(file));
  }
  void* p = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (p == MAP_FAILED) {
    return Status(errno == ENOMEM ? StatusCode::kResourceExhausted : StatusCode::kIoError,
                  "cannot map '" + path + "': " + std::strerror(errno));
  }
  file->data_ = p;
  file->mapped_ = true;
  {
    std::lock_guard<std::mutex> lock(MappingsMutex());
    Mappings()[reinterpret_cast<uintptr_t>(p)] = file->size_;
  }
  return std::shared_ptr<const MappedFile>(std::move(file));
}

MappedFile::~MappedFile() {
  if (!mapped_) return;
  {
    std::lock_guard<std::mutex> lock(MappingsMutex());
    Mappings().erase(reinterpret_cast<uintptr_t>(data_));
  }
  ::munmap(data_, size_);
}

Result<std::string> ReadFileToString(const std::string& path) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::Open(path));
  return std::string(static_cast<const char*>(file->data()), file->size());
}

}  // namespace onnx_light
