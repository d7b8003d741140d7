//===- XNNPACKOnly.cpp - a runtime with the XNNPACK delegate alone --------===//
#include "strata/Runtime/Delegates/Linked.h"
#include "strata/Runtime/Delegates/XNNPACK.h"

namespace strata::runtime {

Error registerLinkedDelegates(BackendRegistry &registry) {
  return xnnpack::registerBackend(registry);
}

} // namespace strata::runtime
