//===- ConstantBytes.h - a partition's constants for a delegate -*- C++ -*-===//
//
// The bytes a delegate backend's graph writer stores as named data, served
// by key to the runtime half's compile-time step (oneDNN's prepare,
// XNNPACK's check) exactly as the program will serve them at init.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_BACKENDS_COMMON_CONSTANTBYTES_H
#define STRATA_LIB_BACKENDS_COMMON_CONSTANTBYTES_H

#include "strata/Runtime/Backend.h"

#include <map>
#include <string>
#include <vector>

namespace strata::backends {

class ConstantBytes final : public runtime::NamedDataMap {
public:
  /// Named-data key -> bytes.
  std::map<std::string, std::vector<uint8_t>> bytes;
  runtime::Result<runtime::ByteSpan>
  get(const std::string &key) const override {
    auto it = bytes.find(key);
    if (it == bytes.end())
      return runtime::Error(runtime::ErrorCode::NotFound,
                            "no constant '" + key + "'");
    return runtime::ByteSpan{it->second.data(), it->second.size()};
  }
};

} // namespace strata::backends

#endif // STRATA_LIB_BACKENDS_COMMON_CONSTANTBYTES_H
