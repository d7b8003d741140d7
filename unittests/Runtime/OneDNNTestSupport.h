//===- OneDNNTestSupport.h - the oneDNN delegate tests' helpers -*- C++ -*-===//
#ifndef STRATA_UNITTESTS_RUNTIME_ONEDNNTESTSUPPORT_H
#define STRATA_UNITTESTS_RUNTIME_ONEDNNTESTSUPPORT_H

#include "strata/Runtime/Backend.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace strata::runtime::testing {

/// Named data held in memory.
class MapData final : public NamedDataMap {
public:
  std::map<std::string, std::vector<uint8_t>> bytes;
  Result<ByteSpan> get(const std::string &key) const override {
    auto it = bytes.find(key);
    if (it == bytes.end())
      return Error(ErrorCode::NotFound, "no named data '" + key + "'");
    return ByteSpan{it->second.data(), it->second.size()};
  }
};

/// The bytes of `n` floats equal to `value`.
inline std::vector<uint8_t> floats(size_t n, float value) {
  std::vector<uint8_t> bytes(n * sizeof(float));
  for (size_t i = 0; i < n; ++i)
    std::memcpy(bytes.data() + i * sizeof(float), &value, sizeof(float));
  return bytes;
}

} // namespace strata::runtime::testing

#endif // STRATA_UNITTESTS_RUNTIME_ONEDNNTESTSUPPORT_H
