//===- ToBackend.cpp - outlined partitions through their preprocess step --===//
//
// The body of each outlined partition is first fused as its backend
// declares (strata-edge-fuse with BackendHooks::fusions), then handed to
// the backend's preprocess step; the function keeps only its signature and
// the products, as attributes that the edge-to-exec lowering turns into an
// exec.delegate.
//
//===----------------------------------------------------------------------===//
#include "strata/Delegation/Delegation.h"

#include "Extents.h"

#include "Edge/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"

#include <set>

using namespace mlir;

namespace strata {

static DenseElementsAttr bytesAttr(MLIRContext *context,
                                   ArrayRef<uint8_t> bytes) {
  auto type = RankedTensorType::get(
      {static_cast<int64_t>(bytes.size())},
      IntegerType::get(context, 8, IntegerType::Unsigned));
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(bytes.data()),
                           bytes.size()));
}

FailureOr<CompileSpecs> parseCompileSpecs(ArrayRef<std::string> items,
                                          std::string &error) {
  CompileSpecs specs;
  for (const std::string &item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      error = "compile spec '" + item + "' is not key=value";
      return failure();
    }
    specs[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return specs;
}

/// Runs strata-edge-fuse with the backend's fusion options on `func`, as a
/// dynamic pipeline of the calling pass.
static LogicalResult fuse(func::FuncOp func, const Backend &backend,
                          NestedPipelineRunner runPipeline) {
  const std::string &options = backend.getHooks().fusions;
  if (options.empty())
    return success();
  std::unique_ptr<Pass> pass = edge::createEdgeFuse();
  if (failed(pass->initializeOptions(options, [&](const Twine &message) {
        return func.emitError("backend '")
               << backend.getName() << "' fusions: " << message;
      })))
    return failure();
  OpPassManager pm(func::FuncOp::getOperationName());
  pm.addPass(std::move(pass));
  return runPipeline(pm, func);
}

LogicalResult toBackend(ModuleOp module, const Backend &backend,
                        const CompileSpecs &specs,
                        NestedPipelineRunner runPipeline,
                        std::vector<std::string> *notes) {
  const BackendHooks &hooks = backend.getHooks();
  CompileSpecs full;
  std::set<std::string> compileTimeOnly;
  for (const CompileSpecInfo &info : hooks.compileSpecs) {
    full[info.name] = info.defaultValue;
    if (info.compileTimeOnly)
      compileTimeOnly.insert(info.name);
  }
  for (const auto &[key, value] : specs) {
    if (!full.count(key)) {
      std::string known;
      for (const CompileSpecInfo &info : hooks.compileSpecs)
        known += (known.empty() ? "" : ", ") + info.name;
      return module.emitError("backend '")
             << backend.getName() << "' has no compile spec '" << key
             << "' (known: " << (known.empty() ? "none" : known) << ")";
    }
    full[key] = value;
  }
  MLIRContext *context = module.getContext();
  Builder builder(context);
  // Each outlined partition's call (one each).
  llvm::StringMap<SmallVector<edge::DelegateCallOp, 1>> callsOf;
  module.walk([&](edge::DelegateCallOp call) {
    callsOf[call.getCallee()].push_back(call);
  });
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    auto target = func->getAttrOfType<StringAttr>(delegation::kDelegateAttr);
    if (!target || target.getValue() != backend.getName() || func.isExternal())
      continue;
    if (!hooks.preprocess)
      return func.emitError("backend '")
             << backend.getName() << "' has no preprocess step";
    if (failed(fuse(func, backend, runPipeline)))
      return failure();
    // Dynamic extents become slots the call passes (Extents.h).
    SmallVector<edge::DelegateCallOp, 1> calls =
        callsOf.lookup(func.getSymName());
    FailureOr<delegation::PartitionExtents> extents =
        delegation::PartitionExtents();
    if (calls.size() == 1)
      extents = delegation::assignExtentSlots(func, calls.front());
    if (failed(extents))
      return failure();
    FailureOr<PreprocessResult> result = hooks.preprocess(func, full);
    if (failed(result))
      return failure();
    if (notes)
      for (const std::string &note : result->notes)
        notes->push_back(func.getSymName().str() + ": " + note);
    func.getBody().getBlocks().clear();
    if (calls.size() == 1)
      delegation::passExtentSlots(func, calls.front(), *extents);
    func->setAttr(delegation::kProcessedAttr,
                  bytesAttr(context, result->processedBytes));
    SmallVector<NamedAttribute> named, handles, specAttrs;
    for (const auto &[key, bytes] : result->namedData)
      named.push_back(builder.getNamedAttr(key, bytesAttr(context, bytes)));
    for (const auto &[key, nodes] : result->debugHandles)
      handles.push_back(builder.getNamedAttr(
          key, builder.getStrArrayAttr(llvm::map_to_vector(
                   nodes, [](const std::string &s) { return StringRef(s); }))));
    for (const auto &[key, value] : full)
      if (!compileTimeOnly.count(key))
        specAttrs.push_back(
            builder.getNamedAttr(key, builder.getStringAttr(value)));
    func->setAttr(delegation::kNamedDataAttr, builder.getDictionaryAttr(named));
    func->setAttr(delegation::kDebugHandlesAttr,
                  builder.getDictionaryAttr(handles));
    func->setAttr(delegation::kCompileSpecsAttr,
                  builder.getDictionaryAttr(specAttrs));
    func->setAttr(
        delegation::kScratchAttr,
        builder.getI64IntegerAttr(static_cast<int64_t>(result->scratchBytes)));
  }
  return success();
}

} // namespace strata
