//===- DataLoader.cpp - buffer, file and mmap loaders ---------------------===//
#include "strata/Runtime/DataLoader.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata::runtime {

DataLoader::~DataLoader() = default;

Error DataLoader::checkRange(size_t offset, size_t size) const {
  if (offset > this->size() || size > this->size() - offset)
    return Error(ErrorCode::InvalidProgram,
                 name() + ": bytes [" + std::to_string(offset) + ", +" +
                     std::to_string(size) + ") lie outside the " +
                     std::to_string(this->size()) + "-byte program");
  return Error::success();
}

//===----------------------------------------------------------------------===//
// BufferDataLoader
//===----------------------------------------------------------------------===//

BufferDataLoader::BufferDataLoader(const void *data, size_t size,
                                   std::string name)
    : data_(static_cast<const uint8_t *>(data)), size_(size),
      name_(std::move(name)) {}

Result<ByteSpan> BufferDataLoader::load(size_t offset, size_t size) {
  STRATA_RETURN_IF_ERROR(checkRange(offset, size));
  return ByteSpan{data_ + offset, size};
}

//===----------------------------------------------------------------------===//
// FileDataLoader
//===----------------------------------------------------------------------===//

static Error ioError(const std::string &path, const char *what) {
  return Error(ErrorCode::IOError, path + ": " + what + ": " +
                                       std::strerror(errno));
}

static Result<std::pair<int, size_t>> openForReading(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ioError(path, "cannot open");
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Error error = ioError(path, "cannot stat");
    ::close(fd);
    return error;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(ErrorCode::IOError, path + ": not a regular file");
  }
  return std::make_pair(fd, static_cast<size_t>(st.st_size));
}

FileDataLoader::FileDataLoader(int fd, size_t size, std::string path,
                               size_t alignment)
    : fd_(fd), size_(size), path_(std::move(path)), alignment_(alignment) {}

Result<std::unique_ptr<FileDataLoader>>
FileDataLoader::open(const std::string &path, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 ||
      alignment < sizeof(void *))
    return Error(ErrorCode::InvalidArgument,
                 "alignment " + std::to_string(alignment) +
                     " is not a power of two of at least pointer size");
  STRATA_ASSIGN_OR_RETURN(auto opened, openForReading(path));
  return std::unique_ptr<FileDataLoader>(
      new FileDataLoader(opened.first, opened.second, path, alignment));
}

FileDataLoader::~FileDataLoader() {
  for (void *chunk : chunks_)
    std::free(chunk);
  ::close(fd_);
}

Result<ByteSpan> FileDataLoader::load(size_t offset, size_t size) {
  STRATA_RETURN_IF_ERROR(checkRange(offset, size));
  void *chunk = nullptr;
  if (::posix_memalign(&chunk, alignment_, size ? size : 1) != 0)
    return Error(ErrorCode::OutOfMemory,
                 path_ + ": cannot allocate " + std::to_string(size) +
                     " bytes");
  chunks_.push_back(chunk);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd_, static_cast<uint8_t *>(chunk) + done,
                        size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return ioError(path_, "cannot read");
    done += static_cast<size_t>(n);
  }
  return ByteSpan{static_cast<const uint8_t *>(chunk), size};
}

//===----------------------------------------------------------------------===//
// MmapDataLoader
//===----------------------------------------------------------------------===//

Result<std::unique_ptr<MmapDataLoader>>
MmapDataLoader::open(const std::string &path) {
  STRATA_ASSIGN_OR_RETURN(auto opened, openForReading(path));
  auto [fd, size] = opened;
  const uint8_t *base = nullptr;
  if (size > 0) {
    void *mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      Error error = ioError(path, "cannot mmap");
      ::close(fd);
      return error;
    }
    base = static_cast<const uint8_t *>(mapping);
  }
  ::close(fd);
  return std::unique_ptr<MmapDataLoader>(new MmapDataLoader(base, size, path));
}

MmapDataLoader::~MmapDataLoader() {
  if (base_)
    ::munmap(const_cast<uint8_t *>(base_), size_);
}

Result<ByteSpan> MmapDataLoader::load(size_t offset, size_t size) {
  STRATA_RETURN_IF_ERROR(checkRange(offset, size));
  return ByteSpan{base_ + offset, size};
}

} // namespace strata::runtime
