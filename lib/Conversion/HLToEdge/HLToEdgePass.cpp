//===- HLToEdgePass.cpp - the convert-hl-to-edge pass ---------------------===//
//
// A partial conversion with hl illegal and edge legal; the patterns live in
// one file per op family.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"
#include "strata/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"

#include "llvm/ADT/MapVector.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTHLTOEDGE
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

void strata::populateHLToEdgeTypeConversions(TypeConverter &typeConverter) {
  // Types outside tensors (none today) are left alone; a tensor converts to
  // itself only when its shape is static, which the edge contract requires.
  typeConverter.addConversion([](Type type) { return type; });
  typeConverter.addConversion([](TensorType type) -> std::optional<Type> {
    if (!type.hasStaticShape())
      return Type();
    return type;
  });
}

void strata::populateHLToEdgePatterns(TypeConverter &typeConverter,
                                      RewritePatternSet &patterns) {
  hl_to_edge::populateLinearPatterns(typeConverter, patterns);
  hl_to_edge::populateElementwisePatterns(typeConverter, patterns);
  hl_to_edge::populatePoolingPatterns(typeConverter, patterns);
  hl_to_edge::populateShapePatterns(typeConverter, patterns);
  hl_to_edge::populateReductionPatterns(typeConverter, patterns);
  hl_to_edge::populateNormalizationPatterns(typeConverter, patterns);
  hl_to_edge::populateMathPatterns(typeConverter, patterns);
  hl_to_edge::populateLogicPatterns(typeConverter, patterns);
  hl_to_edge::populateIndexingPatterns(typeConverter, patterns);
  hl_to_edge::populateIndexOperandPatterns(typeConverter, patterns);
  hl_to_edge::populateRecurrentPatterns(typeConverter, patterns);
  hl_to_edge::populateSignalPatterns(typeConverter, patterns);
  hl_to_edge::populateControlFlowPatterns(typeConverter, patterns);
  hl_to_edge::populateQuantizationPatterns(typeConverter, patterns);
  hl_to_edge::populateIntegerLinearPatterns(typeConverter, patterns);
  hl_to_edge::populateScaledIntegerLinearPatterns(typeConverter, patterns);
  hl_to_edge::populateEinsumPatterns(typeConverter, patterns);
  hl_to_edge::populateResizePatterns(typeConverter, patterns);
  hl_to_edge::populateGridSamplePatterns(typeConverter, patterns);
  hl_to_edge::populateVisionPatterns(typeConverter, patterns);
  hl_to_edge::populateFusedPatterns(typeConverter, patterns);
}

namespace {

/// "batch: 1..8, seq: 8..512": the bounded symbols argument `index` of
/// `func` names (hl.dim_params, bounded in hl.dim_bounds), or empty.
std::string boundedDims(func::FuncOp func, unsigned index) {
  auto bounds = func->getAttrOfType<DictionaryAttr>("hl.dim_bounds");
  auto params = func.getArgAttrOfType<ArrayAttr>(index, "hl.dim_params");
  if (!bounds || !params)
    return "";
  std::string text;
  for (Attribute param : params) {
    auto name = dyn_cast<StringAttr>(param);
    auto range = name ? dyn_cast_or_null<DenseI64ArrayAttr>(
                            bounds.get(name.getValue()))
                      : DenseI64ArrayAttr();
    if (!range || range.size() != 2)
      continue;
    text += (text.empty() ? "" : ", ") + name.getValue().str() + ": " +
            std::to_string(range[0]) + ".." + std::to_string(range[1]);
  }
  return text;
}

/// Reports where dynamic shapes start: edge needs static shapes, and saying
/// so up front (with a fix that applies) beats a bare legalization failure.
/// A dynamic function argument asks for --input-shape; an op whose operands
/// are all static but whose result is not is a root (its shape could not be
/// derived); ops downstream of either are not reported again.
LogicalResult checkStaticShapes(ModuleOp module) {
  bool ok = true;
  auto isDynamic = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && !shaped.hasStaticShape();
  };
  module.walk([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op))
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isDynamic(type)) {
          std::string bounded = boundedDims(func, i);
          auto name = func.getArgAttrOfType<StringAttr>(i, "hl.name");
          if (!bounded.empty())
            func.emitError("input '")
                << (name ? name.getValue() : StringRef("?")) << "' (argument "
                << i << ") has bounded dynamic dimensions (" << bounded
                << "): programs with dynamic dimensions are not built yet "
                   "(docs/dynamic-shapes.md); compile for one shape with "
                   "--input-shape NAME=DIMS";
          else
            func.emitError("argument has dynamic type ")
                << type
                << "; edge needs static shapes: fix the model's input shapes "
                   "(strata-compile --input-shape NAME=DIMS)";
          ok = false;
        }
    if (llvm::any_of(op->getOperandTypes(), isDynamic))
      return;
    for (Value result : op->getResults())
      if (isDynamic(result.getType())) {
        op->emitError("result has dynamic type ")
            << result.getType()
            << " although its operands are static: its shape depends on "
               "values known only at run time, or this form of the op has "
               "no static shape rule; edge needs static shapes";
        ok = false;
        break;
      }
  });
  return success(ok);
}

/// Reports windowed ops over more than two spatial dimensions up front: edge
/// has 1-d and 2-d convolutions and poolings only, and the conversion's own
/// message ("failed to legalize") would not say why. Video networks' 3-d
/// convolutions are the usual case.
LogicalResult checkWindowRanks(ModuleOp module) {
  SmallVector<Operation *> unsupported;
  module.walk([&](Operation *op) {
    if (!isa<hl::ConvOp, hl::ConvTransposeOp, hl::MaxPoolOp, hl::AveragePoolOp>(
            op) ||
        op->getNumOperands() == 0)
      return;
    auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (type && type.getRank() > 4)
      unsupported.push_back(op);
  });
  if (unsupported.empty())
    return success();
  // The first one, with a count: a video network has dozens.
  auto type =
      cast<RankedTensorType>(unsupported.front()->getOperand(0).getType());
  InFlightDiagnostic diag = unsupported.front()->emitError("a window over ")
                            << type.getRank() - 2
                            << " spatial dimensions (input " << type
                            << ") is not supported: edge has 1-d and 2-d "
                               "convolutions and poolings (3-d ones, as in "
                               "video networks, are not implemented)";
  if (unsupported.size() > 1)
    diag << "; " << unsupported.size() - 1 << " more such op(s) follow";
  return failure();
}

/// Reports, all at once, the ops that no pattern converts at all (a
/// ScatterND): the conversion would stop at the first with a bare "failed
/// to legalize". Ops with a pattern that declines this instance still get
/// the conversion's own message.
LogicalResult checkLoweringsExist(ModuleOp module,
                                  RewritePatternSet &patterns) {
  llvm::DenseSet<OperationName> covered;
  for (const std::unique_ptr<RewritePattern> &pattern :
       patterns.getNativePatterns()) {
    std::optional<OperationName> root = pattern->getRootKind();
    if (!root)
      return success(); // A pattern for any op: nothing can be said here.
    covered.insert(*root);
  }
  SmallVector<Operation *> uncovered;
  llvm::MapVector<OperationName, unsigned> counts;
  module.walk([&](Operation *op) {
    // Terminators (hl.yield) go with the op whose region they end.
    if (!isa<hl::HLDialect>(op->getDialect()) ||
        op->hasTrait<OpTrait::IsTerminator>() ||
        covered.contains(op->getName()))
      return;
    if (counts[op->getName()]++ == 0)
      uncovered.push_back(op);
  });
  if (uncovered.empty())
    return success();
  InFlightDiagnostic diag =
      uncovered.front()->emitError("'")
      << uncovered.front()->getName()
      << "' has no lowering to edge: Strata does not support this op yet "
         "(docs/conformance.md lists what it supports)";
  if (counts.size() > 1 || counts.front().second > 1) {
    diag << "; ops without a lowering in this model:";
    for (auto [name, count] : counts)
      diag << " " << name << " (" << count << ")";
  }
  return failure();
}

struct ConvertHLToEdgePass
    : public strata::impl::ConvertHLToEdgeBase<ConvertHLToEdgePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    if (failed(checkStaticShapes(getOperation())) ||
        failed(checkWindowRanks(getOperation())))
      return signalPassFailure();
    TypeConverter typeConverter;
    populateHLToEdgeTypeConversions(typeConverter);

    ConversionTarget target(*context);
    target.addLegalDialect<edge::EdgeDialect>();
    target.addIllegalDialect<hl::HLDialect, mlir::quant::QuantizationDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return typeConverter.isSignatureLegal(op.getFunctionType());
    });

    RewritePatternSet patterns(context);
    populateHLToEdgePatterns(typeConverter, patterns);
    if (failed(checkLoweringsExist(getOperation(), patterns)))
      return signalPassFailure();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
