//===- HLToEdgePass.cpp - the convert-hl-to-edge pass ---------------------===//
//
// A partial conversion with hl illegal and edge legal; the patterns live in
// one file per op family.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"
#include "strata/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/MapVector.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTHLTOEDGE
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

void strata::populateHLToEdgeTypeConversions(TypeConverter &typeConverter) {
  // Types outside tensors (none today) are left alone; a tensor converts to
  // itself when ranked (edge's dynamic dimensions are bounded ones, which
  // checkStaticShapes admits only where a dynamic lowering exists).
  typeConverter.addConversion([](Type type) { return type; });
  typeConverter.addConversion([](TensorType type) -> std::optional<Type> {
    if (!isa<RankedTensorType>(type))
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
  hl_to_edge::populateShapeValuePatterns(typeConverter, patterns);
  hl_to_edge::populateReductionPatterns(typeConverter, patterns);
  hl_to_edge::populateNormalizationPatterns(typeConverter, patterns);
  hl_to_edge::populateMathPatterns(typeConverter, patterns);
  hl_to_edge::populateLogicPatterns(typeConverter, patterns);
  hl_to_edge::populateIndexingPatterns(typeConverter, patterns);
  hl_to_edge::populateIndexOperandPatterns(typeConverter, patterns);
  hl_to_edge::populateRecurrentPatterns(typeConverter, patterns);
  hl_to_edge::populateSignalPatterns(typeConverter, patterns);
  hl_to_edge::populateControlFlowPatterns(typeConverter, patterns);
  hl_to_edge::populateLoopPatterns(typeConverter, patterns);
  hl_to_edge::populateQuantizationPatterns(typeConverter, patterns);
  hl_to_edge::populateIntegerLinearPatterns(typeConverter, patterns);
  hl_to_edge::populateBlockQuantizedLinearPatterns(typeConverter, patterns);
  hl_to_edge::populateScaledIntegerLinearPatterns(typeConverter, patterns);
  hl_to_edge::populateEinsumPatterns(typeConverter, patterns);
  hl_to_edge::populateResizePatterns(typeConverter, patterns);
  hl_to_edge::populateGridSamplePatterns(typeConverter, patterns);
  hl_to_edge::populateVisionPatterns(typeConverter, patterns);
  hl_to_edge::populateValueDependentPatterns(typeConverter, patterns);
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
    auto range =
        name ? dyn_cast_or_null<DenseI64ArrayAttr>(bounds.get(name.getValue()))
             : DenseI64ArrayAttr();
    if (!range || range.size() != 2)
      continue;
    text += (text.empty() ? "" : ", ") + name.getValue().str() + ": " +
            std::to_string(range[0]) + ".." + std::to_string(range[1]);
  }
  return text;
}

bool isDynamicType(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && !shaped.hasStaticShape();
}

/// hl ops whose lowering takes bounded dynamic dimensions: the edge ops they
/// become reify their result shapes (docs/dynamic-shapes.md, step 2).
bool hasDynamicLowering(Operation *op) {
  // Windows take a dynamic batch: their spatial extents stay static.
  if (isa<hl::ConvOp, hl::ConvTransposeOp, hl::MaxPoolOp, hl::AveragePoolOp,
          hl::GlobalAveragePoolOp, hl::GlobalMaxPoolOp>(op))
    return op->getNumOperands() > 0 && op->getNumResults() > 0 &&
           hl_to_edge::getStaticButBatchType(op->getOperand(0)) &&
           hl_to_edge::getStaticButBatchType(op->getResult(0));
  // Recurrent layers take a dynamic batch (in their fused form: the
  // lowering refuses the others): X and the states open at the batch axis
  // of the layer's layout only.
  if (isa<hl::RNNOp, hl::GRUOp, hl::LSTMOp>(op)) {
    auto layout = op->getAttrOfType<IntegerAttr>("layout");
    int64_t batchAxis = layout && layout.getInt() == 1 ? 0 : 1;
    return llvm::all_of(op->getOperands(), [&](Value v) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      return type && (type.hasStaticShape() ||
                      hl_to_edge::isRecurrentBatchOpen(type, batchAxis));
    });
  }
  // Resize with constant scales that leave the dynamic extents as they are.
  if (auto resize = dyn_cast<hl::ResizeOp>(op)) {
    auto input = dyn_cast<RankedTensorType>(resize.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(resize.getOutput().getType());
    std::optional<SmallVector<double>> scales =
        resize.getScales() ? hl_to_edge::getConstantFloats(resize.getScales())
                           : std::nullopt;
    if (!input || !result || !scales || resize.getAxes() ||
        static_cast<int64_t>(scales->size()) != input.getRank() ||
        result.getRank() != input.getRank())
      return false;
    for (int64_t d = 0; d < input.getRank(); ++d)
      if ((input.isDynamicDim(d) || result.isDynamicDim(d)) &&
          ((*scales)[d] != 1.0 || input.getDimSize(d) != result.getDimSize(d)))
        return false;
    return true;
  }
  // A run-time If whose branches differ in shape (ControlFlow.cpp).
  if (isa<hl::IfOp, hl::YieldOp>(op))
    return true;
  // Index tuples of a static length (NonZero's, transposed); splits into
  // static sizes; a ConstantOfShape of extents its lowering follows.
  if (auto gather = dyn_cast<hl::GatherNDOp>(op)) {
    auto indices = dyn_cast<RankedTensorType>(gather.getIndices().getType());
    return isa<RankedTensorType>(gather.getData().getType()) && indices &&
           indices.getRank() >= 1 &&
           !indices.isDynamicDim(indices.getRank() - 1);
  }
  if (isa<hl::SplitOp, hl::ConstantOfShapeOp>(op))
    return isa<RankedTensorType>(op->getOperand(0).getType());
  // Shapes read at run time; ranges whose length is a computed extent.
  if (isa<hl::ShapeOp>(op))
    return isa<RankedTensorType>(op->getOperand(0).getType());
  if (isa<hl::RangeOp>(op))
    return true;
  // Results sized by the data, of operands with bounded extents (Unique
  // takes static inputs only).
  if (hl_to_edge::isValueDependent(op))
    return !isa<hl::UniqueOp>(op);
  // Slices with constant starts, axes and steps (the ends may be computed
  // extents; the lowering names what it cannot derive).
  if (auto slice = dyn_cast<hl::SliceOp>(op))
    return llvm::all_of(
        ValueRange{slice.getStarts(), slice.getAxes(), slice.getSteps()},
        [](Value v) { return !v || hl_to_edge::getConstantInts(v); });
  // Pads extend dynamic extents by constants.
  if (auto pad = dyn_cast<hl::PadOp>(op))
    return hl_to_edge::getConstantInts(pad.getPads()).has_value() &&
           isa<RankedTensorType>(pad.getOutput().getType());
  // Reductions with constant axes.
  if (isa<hl::ReduceSumOp, hl::ReduceMeanOp, hl::ReduceMaxOp, hl::ReduceMinOp,
          hl::ReduceProdOp, hl::ReduceL1Op, hl::ReduceL2Op,
          hl::ReduceSumSquareOp, hl::ReduceLogSumOp>(op))
    return op->getNumOperands() < 2 ||
           hl_to_edge::getConstantInts(op->getOperand(1)).has_value();
  // Elementwise ops (their edge forms reify like their operands), matrix
  // products, normalizations, reshapes and data movement with a shape rule.
  return isa<
      // Unary.
      hl::ReluOp, hl::IdentityOp, hl::AbsOp, hl::NegOp, hl::SignOp, hl::NotOp,
      hl::ExpOp, hl::LogOp, hl::SqrtOp, hl::ReciprocalOp, hl::SigmoidOp,
      hl::TanhOp, hl::CeilOp, hl::FloorOp, hl::RoundOp, hl::ErfOp, hl::SinOp,
      hl::CosOp, hl::TanOp, hl::AsinOp, hl::AcosOp, hl::AtanOp, hl::SinhOp,
      hl::CoshOp, hl::AsinhOp, hl::AcoshOp, hl::AtanhOp, hl::SoftsignOp,
      hl::SoftplusOp, hl::HardSwishOp, hl::LeakyReluOp, hl::EluOp, hl::CeluOp,
      hl::SeluOp, hl::HardSigmoidOp, hl::ShrinkOp, hl::CastOp, hl::ClipOp,
      hl::WhereOp,
      // Binary.
      hl::AddOp, hl::SubOp, hl::MulOp, hl::DivOp, hl::MaxOp, hl::MinOp,
      hl::AndOp, hl::OrOp, hl::XorOp, hl::PowOp, hl::PReluOp, hl::EqualOp,
      hl::ModOp, hl::BitwiseAndOp, hl::BitwiseOrOp, hl::BitwiseXorOp,
      hl::LessOp, hl::LessOrEqualOp, hl::GreaterOp, hl::GreaterOrEqualOp,
      // Linear algebra and normalization.
      hl::MatMulOp, hl::GemmOp, hl::SoftmaxOp, hl::BatchNormalizationOp,
      hl::LayerNormalizationOp,
      // Shapes and data movement.
      hl::FlattenOp, hl::ReshapeOp, hl::SqueezeOp, hl::UnsqueezeOp,
      hl::TransposeOp, hl::ConcatOp, hl::GatherOp, func::ReturnOp>(op);
}

/// Reports where dynamic shapes start, and where they cannot go yet: edge
/// takes bounded dynamic dimensions (function arguments with --input-shape
/// ranges) through the ops with a dynamic lowering only. A dynamic argument
/// without a bound asks for --input-shape; an op whose operands are all
/// static but whose result is not is a root (its shape could not be
/// derived); an op without a dynamic lowering is named with the bounds.
LogicalResult checkStaticShapes(ModuleOp module) {
  bool ok = true;
  // An op where shapes stopped being static was named: the ops reading it
  // are not reported again.
  bool rootReported = false;
  module.walk([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op))
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isDynamicType(type) && boundedDims(func, i).empty()) {
          func.emitError("argument has dynamic type ")
              << type
              << "; edge needs static or bounded shapes: fix the model's "
                 "input shapes or bound them (strata-compile --input-shape "
                 "NAME=DIMS, e.g. x=batch:1..8x3x224x224)";
          ok = false;
        }
    if (llvm::any_of(op->getOperandTypes(), isDynamicType)) {
      if (hasDynamicLowering(op) || isa<func::FuncOp>(op))
        return;
      // The function's bounded symbols, for the message.
      auto func = op->getParentOfType<func::FuncOp>();
      auto symbols = func ? func->getAttrOfType<DictionaryAttr>("hl.dim_bounds")
                          : DictionaryAttr();
      // Without bounds, a dynamic argument or the op where shapes stopped
      // being static is reported already; a value-dependent extent needs
      // no bound.
      if (!symbols &&
          (rootReported ||
           (func && llvm::any_of(func.getArgumentTypes(), isDynamicType))))
        return;
      std::string bounds;
      for (NamedAttribute symbol :
           symbols ? symbols.getValue() : ArrayRef<NamedAttribute>()) {
        auto range = dyn_cast<DenseI64ArrayAttr>(symbol.getValue());
        if (range && range.size() == 2)
          bounds += (bounds.empty() ? "" : ", ") +
                    symbol.getName().getValue().str() + ": " +
                    std::to_string(range[0]) + ".." + std::to_string(range[1]);
      }
      op->emitError("'")
          << op->getName() << "' has operands with dynamic dimensions ("
          << (bounds.empty() ? "value-dependent extents" : bounds)
          << "): dynamic dimensions reach elementwise ops, matrix products, "
             "normalizations, reductions, reshapes, Transpose, Concat, Gather "
             "and (with a dynamic batch only) convolutions, pooling and "
             "recurrent layers so far "
             "(docs/dynamic-shapes.md); compile for one shape with "
             "--input-shape NAME=DIMS";
      ok = false;
      return;
    }
    // A Range whose length or a Slice whose end is a computed extent
    // (bounded dynamic shapes): its lowering derives the extent or names
    // what it cannot.
    if (isa<hl::RangeOp, hl::SliceOp>(op) &&
        op->getParentOfType<func::FuncOp>() &&
        op->getParentOfType<func::FuncOp>()->hasAttr("hl.dim_bounds"))
      return;
    // A Range of no static length: its lowering derives the length, takes
    // the user's bound, or says to give one.
    if (isa<hl::RangeOp>(op) && hl_to_edge::getGivenExtentBound(op))
      return;
    if (isa<hl::RangeOp>(op) && isDynamicType(op->getResult(0).getType())) {
      op->emitError("a Range whose length depends on the data (its limit is "
                    "read at run time) needs a bound: strata-compile "
                    "--max-extent NODE=N");
      ok = false;
      rootReported = true;
      return;
    }
    // Results sized by the data: their lowerings bound them; so are the
    // results of a run-time If whose branches differ in shape. A
    // ConstantOfShape's lowering follows its shape operand to extents or
    // says it cannot.
    if (hl_to_edge::isValueDependent(op) ||
        isa<hl::IfOp, hl::LoopOp, hl::ConstantOfShapeOp>(op))
      return;
    for (Value result : op->getResults())
      if (isDynamicType(result.getType())) {
        op->emitError("result has dynamic type ")
            << result.getType()
            << " although its operands are static: its shape depends on "
               "values known only at run time, or this form of the op has "
               "no static shape rule; edge needs static shapes";
        ok = false;
        rootReported = true;
        break;
      }
  });
  return success(ok);
}

/// After the conversion: every edge op with a dynamic dimension can state
/// its result shape at run time (what the lowering to exec needs); a
/// lowering that built another op there (a reshape, a transpose) is named.
LogicalResult checkDynamicLowerings(ModuleOp module) {
  WalkResult walk = module.walk([](Operation *op) {
    if (!isa<edge::EdgeDialect>(op->getDialect()) ||
        isa<ReifyRankedShapedTypeOpInterface,
            edge::ValueDependentExtentOpInterface>(op))
      return WalkResult::advance();
    // Static results need no rule (edge.shape_of of a dynamic value; the
    // kernels read their operands' extents at run time).
    if (llvm::none_of(op->getResultTypes(), isDynamicType))
      return WalkResult::advance();
    op->emitError("'") << op->getName()
                       << "' with dynamic dimensions has no run-time shape "
                          "rule yet (docs/dynamic-shapes.md); compile for "
                          "one shape with --input-shape NAME=DIMS";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
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
    // Dynamic extents: tensor.dim of edge values and affine arithmetic on
    // them (a reshape's sizes), resolved to buffer extents by edge->exec.
    target.addLegalOp<tensor::DimOp>();
    target.addLegalDialect<affine::AffineDialect, arith::ArithDialect>();
    // A run-time If whose branches yield different shapes: scf.if on the
    // condition's element, branches yielding the results' types.
    target.addLegalOp<scf::IfOp, scf::YieldOp, tensor::ExtractOp,
                      tensor::CastOp>();
    // A run-time Loop: scf.while over its carried values (Loop.cpp).
    target.addLegalOp<scf::WhileOp, scf::ConditionOp>();
    target.addIllegalDialect<hl::HLDialect, mlir::quant::QuantizationDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return typeConverter.isSignatureLegal(op.getFunctionType());
    });

    RewritePatternSet patterns(context);
    populateHLToEdgePatterns(typeConverter, patterns);
    if (failed(checkLoweringsExist(getOperation(), patterns)))
      return signalPassFailure();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))) ||
        failed(checkDynamicLowerings(getOperation())))
      signalPassFailure();
  }
};

} // namespace
