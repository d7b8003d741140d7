//===- EdgeDiscardableAttrs.cpp - the edge.* attributes' verifier ---------===//
//
// Checks every `edge.*` discardable attribute (Edge/IR/EdgeAttributes.h): its
// kind, and whether the op it stands on may carry it. The delegation stage
// writes most of them; a hand-written or damaged module that misplaces one
// is refused here, with the attribute named, before a later stage reads it.
//
//===----------------------------------------------------------------------===//
#include "Edge/IR/EdgeAttributes.h"
#include "Edge/IR/EdgeOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace strata::edge;

namespace {

/// Whether every value of `dict` is an `Value` attribute.
template <typename Value> bool allValuesAre(DictionaryAttr dict) {
  return llvm::all_of(
      dict, [](NamedAttribute entry) { return isa<Value>(entry.getValue()); });
}

bool isStringArray(Attribute attr) {
  auto array = dyn_cast<ArrayAttr>(attr);
  return array && llvm::all_of(array, llvm::IsaPred<StringAttr>);
}

/// The checks of the attributes a backend's preprocess step leaves on a
/// delegated declaration.
LogicalResult verifyPreprocessProduct(Operation *op, StringRef name,
                                      Attribute value) {
  auto fail = [&](StringRef what) {
    return op->emitOpError("attribute '") << name << "' " << what;
  };
  if (!isa<FunctionOpInterface>(op) || !op->hasAttr(kDelegateAttrName))
    return fail("stands only on a function delegated with '")
           << kDelegateAttrName << "'";
  if (name == kProcessedAttrName)
    return isa<ElementsAttr>(value) ? success()
                                    : fail("must hold the blob's bytes");
  if (name == kScratchAttrName) {
    auto bytes = dyn_cast<IntegerAttr>(value);
    return bytes && !bytes.getValue().isNegative()
               ? success()
               : fail("must be a non-negative integer");
  }
  auto dict = dyn_cast<DictionaryAttr>(value);
  if (name == kNamedDataAttrName)
    return dict && allValuesAre<ElementsAttr>(dict)
               ? success()
               : fail("must map each key to its bytes");
  if (name == kCompileSpecsAttrName)
    return dict && allValuesAre<StringAttr>(dict)
               ? success()
               : fail("must map each spec to a string");
  if (name == kDebugHandlesAttrName)
    return dict && llvm::all_of(dict,
                                [](NamedAttribute entry) {
                                  return isStringArray(entry.getValue());
                                })
               ? success()
               : fail("must map each handle to its node names");
  llvm_unreachable("verifyOperationAttribute checked the name");
}

} // namespace

LogicalResult EdgeDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  auto fail = [&](StringRef what) {
    return op->emitOpError("attribute '") << name << "' " << what;
  };
  if (name == kBackendAttrName || name == kDelegateAttrName) {
    auto backend = dyn_cast<StringAttr>(value);
    if (!backend || backend.getValue().empty())
      return fail("must name a backend");
    bool onFunction = isa<FunctionOpInterface>(op);
    if (name == kDelegateAttrName && !onFunction)
      return fail("stands only on a function");
    if (name == kBackendAttrName && onFunction)
      return fail("stands on the ops a backend claimed, not on a function");
    return success();
  }
  if (name == kExactSumsAttrName) {
    if (!isa<UnitAttr>(value))
      return fail("must be a unit attribute");
    return isa<Conv2DOp>(op) ? success()
                             : fail("stands only on an edge.conv2d");
  }
  if (name == kMaxTripsAttrName) {
    if (!isa<FunctionOpInterface>(op))
      return fail("stands only on a function");
    auto dict = dyn_cast<DictionaryAttr>(value);
    bool valid =
        dict && llvm::all_of(dict, [](NamedAttribute entry) {
          auto trips = dyn_cast<IntegerAttr>(entry.getValue());
          return trips && trips.getType().isInteger(64) && trips.getInt() > 0;
        });
    return valid ? success()
                 : fail("must map each loop's node to a positive i64");
  }
  if (name == kExtentSlotsAttrName) {
    auto perValue = dyn_cast<ArrayAttr>(value);
    if (!perValue || !llvm::all_of(perValue, llvm::IsaPred<DenseI64ArrayAttr>))
      return fail("must hold an i64 array per result or argument");
    size_t expected = isa<FunctionOpInterface>(op)
                          ? cast<FunctionOpInterface>(op).getNumArguments()
                          : op->getNumResults();
    return perValue.size() == expected
               ? success()
               : fail("must hold one array per result or argument");
  }
  if (name == kExtentBoundsAttrName) {
    if (!isa<FunctionOpInterface>(op) || !op->hasAttr(kDelegateAttrName))
      return fail("stands only on a function delegated with '")
             << kDelegateAttrName << "'";
    return isa<DenseI64ArrayAttr>(value) ? success()
                                         : fail("must be an i64 array");
  }
  if (!llvm::is_contained({kProcessedAttrName, kScratchAttrName,
                           kNamedDataAttrName, kCompileSpecsAttrName,
                           kDebugHandlesAttrName},
                          name))
    return fail("is not an edge attribute");
  return verifyPreprocessProduct(op, name, value);
}
