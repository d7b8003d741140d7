//===- ElementsBytes.cpp - an elements attribute as a byte buffer ---------===//
#include "strata/Support/ElementsBytes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace strata {

uint64_t elementStorageBytes(Type type) {
  return type.isInteger(1) ? 1 : (type.getIntOrFloatBitWidth() + 7) / 8;
}

FailureOr<std::string> getElementsBytes(ElementsAttr value,
                                        std::string &error) {
  auto type = cast<ShapedType>(value.getType());
  Type elementType = type.getElementType();
  if (!elementType.isIntOrFloat()) {
    error = "elements of a type without a byte layout";
    return failure();
  }
  uint64_t elementBytes = elementStorageBytes(elementType);
  uint64_t count = type.getNumElements();
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value)) {
    if (elementType.isInteger(1)) {
      std::string bytes;
      for (bool b : dense.getValues<bool>())
        bytes.push_back(b ? 1 : 0);
      return bytes;
    }
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      std::string bytes;
      bytes.reserve(count * elementBytes);
      for (uint64_t i = 0; i < count; ++i)
        bytes.append(raw.data(), elementBytes);
      return bytes;
    }
    return std::string(raw.data(), raw.size());
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) {
      error = "dense resource has no data";
      return failure();
    }
    ArrayRef<char> raw = blob->getData();
    if (raw.size() != count * elementBytes) {
      error = "dense resource holds " + std::to_string(raw.size()) +
              " bytes, its type needs " + std::to_string(count * elementBytes);
      return failure();
    }
    return std::string(raw.data(), raw.size());
  }
  error = "unsupported constant attribute kind (expected dense or "
          "dense_resource elements)";
  return failure();
}

} // namespace strata
