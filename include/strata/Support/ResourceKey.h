//===- ResourceKey.h - dense_resource keys that parse back ------*- C++ -*-===//
//
// A dense_resource blob's key is printed bare in MLIR text, so it must be an
// identifier MLIR's parser reads back: names taken from ONNX ("/enc/w",
// "onnx::Conv_538") are mapped onto [A-Za-z0-9_.]. MLIR makes colliding
// keys unique.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_SUPPORT_RESOURCEKEY_H
#define STRATA_SUPPORT_RESOURCEKEY_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace strata {

/// `name` as a resource key: every character outside [A-Za-z0-9_.] becomes
/// '_', a leading digit gets a '_' before it; `fallback` for an empty name.
inline std::string resourceKey(llvm::StringRef name,
                               llvm::StringRef fallback = "blob") {
  std::string key = name.empty() ? fallback.str() : name.str();
  for (char &c : key)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  if (llvm::isDigit(key.front()))
    key.insert(key.begin(), '_');
  return key;
}

} // namespace strata

#endif // STRATA_SUPPORT_RESOURCEKEY_H
