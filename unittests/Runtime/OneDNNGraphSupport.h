//===- OneDNNGraphSupport.h - building oneDNN delegate graphs -*- C++ -*-===//
//
// Helpers for tests that write a delegate graph (onednn_graph.fbs) by hand;
// kept apart from OneDNNTestSupport.h, which the XNNPACK tests include too
// and which must not need the oneDNN schema.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_UNITTESTS_RUNTIME_ONEDNNGRAPHSUPPORT_H
#define STRATA_UNITTESTS_RUNTIME_ONEDNNGRAPHSUPPORT_H

#include "strata/Runtime/Delegates/Schema/onednn_graph_generated.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata::runtime::testing {

/// A graph tensor of these dims; a non-empty key makes it a constant read
/// from the program's named data under that key.
inline std::unique_ptr<strata::onednn::fb::TensorT>
tensor(std::vector<int64_t> dims, std::string key = "") {
  auto t = std::make_unique<strata::onednn::fb::TensorT>();
  t->dims = std::move(dims);
  t->constant_key = std::move(key);
  return t;
}

} // namespace strata::runtime::testing

#endif // STRATA_UNITTESTS_RUNTIME_ONEDNNGRAPHSUPPORT_H
