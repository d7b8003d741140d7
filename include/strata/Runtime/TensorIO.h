//===- TensorIO.h - ONNX TensorProto (.pb) and NumPy (.npy) files -*- C++ -*-===//
//
// Tensor files for strata-run and the tests, kept out of the runtime core
// (library StrataRuntimeIO). TensorProto is decoded and encoded with a small
// protobuf wire-format reader/writer: no protobuf library is needed.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_TENSORIO_H
#define STRATA_RUNTIME_TENSORIO_H

#include "strata/Runtime/Error.h"
#include "strata/Runtime/Tensor.h"

#include <string>
#include <vector>

namespace strata::runtime {

/// A tensor that owns its bytes.
struct OwnedTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  /// A view of the bytes (valid while this tensor lives and is not resized).
  TensorView view() {
    return TensorView{dtype, shape, bytes.empty() ? nullptr : bytes.data()};
  }
};

/// Decodes an ONNX TensorProto; `where` names the source in errors.
Result<OwnedTensor> parseTensorProto(const std::string &bytes,
                                     const std::string &where);
/// Encodes `tensor` as an ONNX TensorProto (raw_data form).
std::string serializeTensorProto(const TensorView &tensor,
                                 const std::string &name);

/// The header of a .npy file: element type, shape and where the data
/// starts (so that callers can map a large file and read it in slices).
struct NpyLayout {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  size_t dataOffset = 0;
};
/// Parses and checks the header of the .npy bytes [data, data + size): the
/// data that follows must hold exactly the shape.
Result<NpyLayout> parseNpyHeader(const char *data, size_t size,
                                 const std::string &where);

/// Decodes a .npy file (little-endian, C order).
Result<OwnedTensor> parseNpy(const std::string &bytes,
                             const std::string &where);
/// Encodes `tensor` as a version 1.0 .npy file.
std::string serializeNpy(const TensorView &tensor);

/// Reads a whole file; fails naming the path.
Result<std::string> readFile(const std::string &path);
/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// then rename, so readers never see a partial file.
Error writeFileAtomic(const std::string &path, const std::string &bytes);
/// Reads a .npy (by its magic) or else a TensorProto file.
Result<OwnedTensor> readTensorFile(const std::string &path);

} // namespace strata::runtime

#endif // STRATA_RUNTIME_TENSORIO_H
