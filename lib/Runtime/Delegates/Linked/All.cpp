//===- All.cpp - the full runtime's delegates: oneDNN and XNNPACK ---------===//
#include "strata/Runtime/Delegates/Linked.h"
#include "strata/Runtime/Delegates/OneDNN.h"
#include "strata/Runtime/Delegates/XNNPACK.h"

namespace strata::runtime {

Error registerLinkedDelegates(BackendRegistry &registry) {
  STRATA_RETURN_IF_ERROR(onednn::registerBackend(registry));
  return xnnpack::registerBackend(registry);
}

} // namespace strata::runtime
