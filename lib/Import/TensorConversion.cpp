//===- TensorConversion.cpp - ONNX types and tensors to MLIR --------------===//
//
// Weights become `dense_resource` blobs: the blob takes ownership of the
// protobuf's raw_data string (no copy); typed-field data is copied once.
// Small tensors stay inline `dense<...>` so that folders can read them.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include "strata/Support/ResourceKey.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;

namespace strata::importer {

Type convertElementType(int32_t onnxType, MLIRContext *context) {
  Builder b(context);
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getIntegerType(32);
  case onnx::TensorProto::INT64:
    return b.getIntegerType(64);
  case onnx::TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case onnx::TensorProto::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case onnx::TensorProto::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

Type convertType(const onnx::TypeProto &type, MLIRContext *context,
                 SmallVectorImpl<std::string> *dimParams) {
  if (!type.has_tensor_type())
    return {};
  const onnx::TypeProto::Tensor &tensor = type.tensor_type();
  Type element = convertElementType(tensor.elem_type(), context);
  if (!element)
    return {};
  if (!tensor.has_shape())
    return UnrankedTensorType::get(element);
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    bool isStatic = dim.has_dim_value() && dim.dim_value() >= 0;
    shape.push_back(isStatic ? dim.dim_value() : ShapedType::kDynamic);
    if (dimParams)
      dimParams->push_back(dim.has_dim_param() ? dim.dim_param() : "");
  }
  return RankedTensorType::get(shape, element);
}

std::optional<int64_t> getCheckedElementCount(ArrayRef<int64_t> shape,
                                              int64_t elementBytes,
                                              int64_t maxBytes) {
  int64_t count = 1;
  for (int64_t extent : shape) {
    if (extent < 0)
      return std::nullopt;
    if (extent == 0)
      return 0;
  }
  for (int64_t extent : shape) {
    if (count > maxBytes / extent)
      return std::nullopt;
    count *= extent;
  }
  if (count > maxBytes / std::max<int64_t>(elementBytes, 1))
    return std::nullopt;
  return count;
}

/// Byte width of one element as stored in raw_data (bool: 1 byte).
static int64_t storageBytes(Type element) {
  if (element.isInteger(1))
    return 1;
  return (element.getIntOrFloatBitWidth() + 7) / 8;
}

/// Copies typed-field data of `tensor` into `bytes` in raw_data layout.
static LogicalResult typedFieldBytes(const onnx::TensorProto &tensor,
                                     Type element, int64_t count,
                                     std::string &bytes) {
  int64_t width = storageBytes(element);
  char *out = nullptr;
  auto store = [&](auto field) -> LogicalResult {
    // Checked before allocating: the declared shape is not the data.
    if (field.size() != count)
      return failure();
    bytes.resize(count * width);
    out = bytes.data();
    for (int64_t i = 0; i < count; ++i) {
      auto v = field.Get(i);
      // Little-endian: the low `width` bytes of the field value.
      std::memcpy(out + i * width, &v, width);
    }
    return success();
  };
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    return store(tensor.float_data());
  case onnx::TensorProto::DOUBLE:
    return store(tensor.double_data());
  case onnx::TensorProto::INT64:
    return store(tensor.int64_data());
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return store(tensor.uint64_data());
  default:
    return store(tensor.int32_data());
  }
}

/// Reads the external data of `tensor` (location, offset, length) relative
/// to `baseDir` into `bytes`.
static LogicalResult readExternalData(const onnx::TensorProto &tensor,
                                      Location loc, StringRef baseDir,
                                      std::string &bytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if ((entry.key() == "offset" &&
              StringRef(entry.value()).getAsInteger(10, offset)) ||
             (entry.key() == "length" &&
              StringRef(entry.value()).getAsInteger(10, length)))
      return emitError(loc) << "tensor '" << tensor.name() << "': bad "
                            << entry.key() << " '" << entry.value() << "'";
  }
  if (location.empty() || llvm::sys::path::is_absolute(location) ||
      StringRef(location).contains(".."))
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': external data location '" << location
                          << "' must be a relative path inside the model's "
                             "directory";
  SmallString<256> path(baseDir);
  llvm::sys::path::append(path, location);
  uint64_t fileSize = 0;
  if (llvm::sys::fs::file_size(path, fileSize) || offset < 0 ||
      static_cast<uint64_t>(offset) > fileSize)
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': cannot read external data '" << path << "'";
  if (length < 0)
    length = fileSize - offset;
  auto buffer = llvm::MemoryBuffer::getFileSlice(path, length, offset);
  if (!buffer)
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': cannot read external data '" << path
                          << "': " << buffer.getError().message();
  bytes.assign((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
  return success();
}

FailureOr<ElementsAttr> convertTensor(onnx::TensorProto &tensor, Location loc,
                                      const TensorOptions &options) {
  MLIRContext *context = loc.getContext();
  Type element = convertElementType(tensor.data_type(), context);
  if (!element)
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' has an unsupported element type ("
                          << tensor.data_type() << ")";
  if (tensor.has_segment())
    return emitError(loc) << "tensor '" << tensor.name()
                          << "': segmented tensors are not supported";
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' has a negative dimension";
  int64_t width = storageBytes(element);
  std::optional<int64_t> count =
      getCheckedElementCount(shape, width, options.maxTensorBytes);
  if (!count)
    return emitError(loc) << "tensor '" << tensor.name() << "' declares "
                          << "more than " << options.maxTensorBytes
                          << " bytes of data";
  auto type = RankedTensorType::get(shape, element);

  // Gather the bytes: raw_data (moved), external data, or typed fields.
  std::string owned;
  std::string *bytes = nullptr;
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    if (failed(readExternalData(tensor, loc, options.baseDir, owned)))
      return failure();
    bytes = &owned;
  } else if (tensor.has_raw_data()) {
    bytes = tensor.mutable_raw_data();
  } else {
    if (failed(typedFieldBytes(tensor, element, *count, owned)))
      return emitError(loc) << "tensor '" << tensor.name() << "' holds "
                            << "a wrong number of elements for shape ["
                            << shape.size() << "-D, " << *count << " elements]";
    bytes = &owned;
  }
  if (static_cast<int64_t>(bytes->size()) != *count * width)
    return emitError(loc) << "tensor '" << tensor.name() << "' has "
                          << bytes->size() << " bytes of data, expected "
                          << *count * width;

  if (element.isInteger(1)) {
    SmallVector<bool> values(bytes->begin(), bytes->end());
    return ElementsAttr(DenseElementsAttr::get(type, values));
  }
  if (*count * width < options.resourceThresholdBytes || *count == 0)
    return ElementsAttr(DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(bytes->data(), bytes->size())));

  // Large: hand the string to a blob that frees it. std::string storage is
  // malloc'ed, so aligned to at least 16 bytes.
  auto *storage = new std::string(std::move(*bytes));
  bytes->clear();
  bytes->shrink_to_fit();
  AsmResourceBlob blob(
      ArrayRef<char>(storage->data(), storage->size()), alignof(max_align_t),
      [storage](void *, size_t, size_t) { delete storage; },
      /*dataIsMutable=*/true);
  std::string key = resourceKey(tensor.name(), "onnx_tensor");
  return ElementsAttr(
      DenseResourceElementsAttr::get(type, key, std::move(blob)));
}

} // namespace strata::importer
