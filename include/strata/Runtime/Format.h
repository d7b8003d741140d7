//===- Format.h - the .strata file header and format constants --*- C++ -*-===//
//
// Shared by the emitter (compiler side) and the loader (runtime side); it
// includes nothing of MLIR or LLVM. See docs/program-format.md.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_FORMAT_H
#define STRATA_RUNTIME_FORMAT_H

#include <cstdint>
#include <cstring>

namespace strata::runtime {

/// Version of the flatbuffer contents (Program.version). Bump when a change
/// cannot be ignored by an older runtime.
constexpr uint32_t kProgramVersion = 1;
/// The version of a program with states (Program.states): a version-1
/// runtime would run its methods without carrying them. Stateless programs
/// stay version 1.
constexpr uint32_t kStatefulProgramVersion = 2;

/// The eight bytes every .strata file starts with.
constexpr char kFileMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'P', 'B'};

/// Version of the FileHeader layout below.
constexpr uint32_t kFileHeaderVersion = 1;

/// The fixed-size prefix of a .strata file (64 bytes, little-endian). It says
/// where the flatbuffer is and where the segment data starts, which the
/// flatbuffer itself cannot (its size is unknown until it is built).
struct FileHeader {
  char magic[8];
  uint32_t headerSize;    ///< sizeof(FileHeader) = 64.
  uint32_t headerVersion; ///< kFileHeaderVersion.
  uint64_t flatbufferOffset;
  uint64_t flatbufferSize;
  uint64_t segmentBaseOffset; ///< Segment.offset counts from here.
  uint64_t segmentDataSize;   ///< Bytes from segmentBaseOffset to the end.
  uint64_t segmentAlignment;  ///< Alignment the segments were written with.
  uint64_t reserved;
};
static_assert(sizeof(FileHeader) == 64, "FileHeader must be 64 bytes");

/// Rounds `value` up to a multiple of `alignment` (a power of two).
constexpr uint64_t alignTo(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

} // namespace strata::runtime

#endif // STRATA_RUNTIME_FORMAT_H
