//===- Linked.h - the delegates a runtime build links ------------*- C++
//-*-===//
//
// One function, implemented once per runtime flavour: the full runtime
// (StrataLinkedDelegates: oneDNN and XNNPACK) and the XNNPACK-only one
// (StrataLinkedDelegatesXNNPACK, for targets without oneDNN). The tools
// call it instead of naming delegates, so that the same driver builds
// either flavour.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_LINKED_H
#define STRATA_RUNTIME_DELEGATES_LINKED_H

#include "strata/Runtime/Backend.h"

namespace strata::runtime {

/// Registers every delegate this build links in `registry`.
Error registerLinkedDelegates(BackendRegistry &registry);

} // namespace strata::runtime

#endif // STRATA_RUNTIME_DELEGATES_LINKED_H
