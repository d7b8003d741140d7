//===- DataLoader.h - where program bytes come from ---------------*- C++ -*-===//
//
// One interface over a file read into memory, a memory-mapped file and a
// caller's buffer (ExecuTorch's DataLoader). Program::load asks for byte
// ranges; the loader decides whether that copies (FileDataLoader) or not
// (MmapDataLoader, BufferDataLoader).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DATALOADER_H
#define STRATA_RUNTIME_DATALOADER_H

#include "strata/Runtime/Error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata::runtime {

/// A read-only byte range that stays valid while its DataLoader lives.
struct ByteSpan {
  const uint8_t *data = nullptr;
  size_t size = 0;
};

/// Supplies byte ranges of a program.
class DataLoader {
public:
  virtual ~DataLoader();
  /// Total size of the program in bytes.
  virtual size_t size() const = 0;
  /// Returns bytes [offset, offset + size). Fails when the range is not
  /// inside the source. The bytes stay valid until the loader is destroyed.
  virtual Result<ByteSpan> load(size_t offset, size_t size) = 0;
  /// A name for messages (the file path, or "<memory>").
  virtual const std::string &name() const = 0;

protected:
  /// Checks that [offset, offset + size) lies inside `size()`.
  Error checkRange(size_t offset, size_t size) const;
};

/// Serves a caller-owned buffer without copying; the buffer must outlive it.
class BufferDataLoader final : public DataLoader {
public:
  BufferDataLoader(const void *data, size_t size,
                   std::string name = "<memory>");
  size_t size() const override { return size_; }
  Result<ByteSpan> load(size_t offset, size_t size) override;
  const std::string &name() const override { return name_; }

private:
  const uint8_t *data_;
  size_t size_;
  std::string name_;
};

/// Reads each requested range of a file into memory it owns (aligned to
/// `alignment` bytes). Works where mmap does not; copies.
class FileDataLoader final : public DataLoader {
public:
  /// Opens `path`; fails naming the path when it cannot be opened.
  static Result<std::unique_ptr<FileDataLoader>> open(const std::string &path,
                                                      size_t alignment = 64);
  ~FileDataLoader() override;
  size_t size() const override { return size_; }
  Result<ByteSpan> load(size_t offset, size_t size) override;
  const std::string &name() const override { return path_; }

private:
  FileDataLoader(int fd, size_t size, std::string path, size_t alignment);
  int fd_;
  size_t size_;
  std::string path_;
  size_t alignment_;
  std::vector<void *> chunks_;
};

/// Maps a whole file read-only; every range is a pointer into the mapping,
/// so constant segments are never copied.
class MmapDataLoader final : public DataLoader {
public:
  /// Maps `path`; fails naming the path when it cannot be opened or mapped.
  static Result<std::unique_ptr<MmapDataLoader>> open(const std::string &path);
  ~MmapDataLoader() override;
  size_t size() const override { return size_; }
  Result<ByteSpan> load(size_t offset, size_t size) override;
  const std::string &name() const override { return path_; }
  /// Start of the mapping (for tests that check no copy was made).
  const uint8_t *mappingBegin() const { return base_; }

private:
  MmapDataLoader(const uint8_t *base, size_t size, std::string path)
      : base_(base), size_(size), path_(std::move(path)) {}
  const uint8_t *base_;
  size_t size_;
  std::string path_;
};

} // namespace strata::runtime

#endif // STRATA_RUNTIME_DATALOADER_H
