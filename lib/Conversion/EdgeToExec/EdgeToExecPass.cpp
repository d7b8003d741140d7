//===- EdgeToExecPass.cpp - the convert-edge-to-exec pass -----------------===//
//
// Builds the exec.program skeleton (one method per function, inputs bound by
// exec.input), converts the edge ops with a dialect conversion from tensors
// to memrefs, folds the conversion casts away with upstream's
// reconcile-unrealized-casts, and finally gives every returned value a
// buffer of its own.
//
//===----------------------------------------------------------------------===//
#include "strata/Conversion/Passes.h"
#include "strata/Delegation/Delegation.h"
#include "strata/Support/Locations.h"
#include "strata/Support/StateNames.h"

#include "Edge/IR/EdgeAttributes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/PassManager.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTEDGETOEXEC
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

/// tensor<...> -> memref<...> with the same shape (dynamic extents stay
/// dynamic: their buffers take extents, docs/dynamic-shapes.md) and element
/// type; a `!quant.uniform` element becomes its storage integer (`i8` signed,
/// `ui8` unsigned): scales and zero points are kernel operands by then.
static Type toBuffer(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return Type();
  Type element = tensor.getElementType();
  if (auto quantized = dyn_cast<quant::QuantizedType>(element))
    element = IntegerType::get(
        type.getContext(), quantized.getStorageTypeIntegralWidth(),
        quantized.isSigned() ? IntegerType::Signless : IntegerType::Unsigned);
  return MemRefType::get(tensor.getShape(), element);
}

Value strata::createConversionCast(OpBuilder &builder, Location loc, Type type,
                                   Value value) {
  return builder.create<UnrealizedConversionCastOp>(loc, type, value)
      .getResult(0);
}

/// Moves `func`'s body into a new exec.method at the end of `program`.
static LogicalResult buildMethod(func::FuncOp func, exec::ProgramOp program) {
  if (func.isExternal())
    return func.emitOpError("has no body to lower");
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("must have a single block to lower to exec");
  FunctionType type = func.getFunctionType();
  SmallVector<Type> inputs, results;
  for (Type t : type.getInputs())
    inputs.push_back(toBuffer(t));
  for (Type t : type.getResults())
    results.push_back(toBuffer(t));
  if (llvm::is_contained(inputs, Type()) || llvm::is_contained(results, Type()))
    return func.emitOpError("signature must hold ranked tensors, got ") << type;

  OpBuilder builder(func.getContext());
  builder.setInsertionPointToEnd(&program.getBody().front());
  // The model's names of the inputs and outputs (hl.name), where every one
  // has one.
  auto names = [&](unsigned count,
                   function_ref<StringAttr(unsigned)> nameOf) -> ArrayAttr {
    SmallVector<Attribute> list;
    for (unsigned i = 0; i < count; ++i) {
      StringAttr name = nameOf(i);
      if (!name)
        return nullptr;
      list.push_back(name);
    }
    return builder.getArrayAttr(list);
  };
  auto method = builder.create<exec::MethodOp>(
      func.getLoc(), func.getSymName(),
      builder.getFunctionType(inputs, results), /*arena_sizes=*/nullptr,
      names(func.getNumArguments(),
            [&](unsigned i) {
              return func.getArgAttrOfType<StringAttr>(i, "hl.name");
            }),
      names(func.getNumResults(),
            [&](unsigned i) {
              return func.getResultAttrOfType<StringAttr>(i, "hl.name");
            }),
      /*state_bindings=*/nullptr);
  // The stored layouts of the states' inputs and outputs, for bindStates.
  if (auto layouts =
          func->getAttrOfType<DictionaryAttr>(kStatePermutationsAttr))
    method->setAttr(kStatePermutationsAttr, layouts);
  Block *body = &method.getBody().emplaceBlock();
  builder.setInsertionPointToStart(body);

  // Dynamic input extents: one exec.dim_symbol per bounded symbol the
  // arguments name (hl.dim_params, bounds in hl.dim_bounds).
  auto bounds = func->getAttrOfType<DictionaryAttr>("hl.dim_bounds");
  llvm::StringMap<Value> symbols;
  Block &source = func.getBody().front();
  for (auto [index, arg] : llvm::enumerate(source.getArguments())) {
    auto bufferType = cast<MemRefType>(inputs[index]);
    SmallVector<Value> extents;
    auto params = func.getArgAttrOfType<ArrayAttr>(index, "hl.dim_params");
    for (int64_t d = 0; d < bufferType.getRank(); ++d) {
      if (!bufferType.isDynamicDim(d))
        continue;
      auto name = params && d < static_cast<int64_t>(params.size())
                      ? dyn_cast<StringAttr>(params[d])
                      : StringAttr();
      auto range =
          name && bounds
              ? dyn_cast_or_null<DenseI64ArrayAttr>(bounds.get(name.getValue()))
              : DenseI64ArrayAttr();
      if (!range || range.size() != 2)
        return func.emitOpError("argument ")
               << index << " dimension " << d
               << " is dynamic without a bound (strata-compile "
                  "--input-shape NAME=LO..HI)";
      Value &symbol = symbols[name.getValue()];
      if (!symbol)
        symbol = builder.create<exec::DimSymbolOp>(
            arg.getLoc(), name.getValue(), range[0], range[1]);
      extents.push_back(symbol);
    }
    auto input = builder.create<exec::InputOp>(
        arg.getLoc(), inputs[index], builder.getI64IntegerAttr(index), extents,
        /*memory_id=*/nullptr, /*offset=*/nullptr);
    arg.replaceAllUsesWith(
        createConversionCast(builder, arg.getLoc(), arg.getType(), input));
  }
  body->getOperations().splice(body->end(), source.getOperations());
  auto ret = cast<func::ReturnOp>(body->getTerminator());
  builder.setInsertionPoint(ret);
  SmallVector<Value> outputs;
  for (auto [value, resultType] : llvm::zip(ret.getOperands(), results))
    outputs.push_back(
        createConversionCast(builder, ret.getLoc(), resultType, value));
  builder.create<exec::ReturnOp>(ret.getLoc(), outputs);
  ret.erase();
  func.erase();
  return success();
}

/// Outputs must be buffers the method owns, one per output: a returned
/// input, constant or repeated buffer is copied into a fresh allocation.
static void giveOutputsOwnBuffers(exec::MethodOp method) {
  auto ret = cast<exec::ReturnOp>(method.getBody().back().getTerminator());
  OpBuilder builder(ret);
  llvm::SmallPtrSet<Value, 4> seen;
  for (OpOperand &operand : ret->getOpOperands()) {
    Value value = operand.get();
    bool owned = value.getDefiningOp<exec::AllocOp>() != nullptr;
    if (owned && seen.insert(value).second)
      continue;
    SmallVector<Value> extents;
    if (auto placed = value.getDefiningOp<exec::PlacedBufferOpInterface>())
      llvm::append_range(extents, placed.getDynamicSizes());
    auto alloc = builder.create<exec::AllocOp>(ret.getLoc(), value.getType(),
                                               extents, nullptr, nullptr);
    builder.create<exec::MoveOp>(ret.getLoc(), value, alloc);
    operand.set(alloc);
  }
}

namespace {

struct ConvertEdgeToExecPass
    : public strata::impl::ConvertEdgeToExecBase<ConvertEdgeToExecPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs, delegates;
    for (auto func : module.getOps<func::FuncOp>())
      (func->hasAttr(delegation::kDelegateAttr) ? delegates : funcs)
          .push_back(func);
    if (funcs.empty())
      return;
    // Fused post-op chains (strata-edge-fuse) exist inside delegated
    // partitions only: no portable kernel runs them. Refused before anything
    // moves, naming the op.
    for (func::FuncOp func : funcs) {
      WalkResult fused = func.walk([](Operation *op) {
        if (!op->hasAttr("post_ops"))
          return WalkResult::advance();
        op->emitOpError("carries a fused post-op chain, which only a "
                        "delegate runs");
        return WalkResult::interrupt();
      });
      if (fused.wasInterrupted())
        return signalPassFailure();
    }
    // Each run-time loop's bound, from its function's `edge.max_trips`
    // (the functions go once their bodies move into methods).
    DenseMap<Operation *, int64_t> loopBounds;
    for (func::FuncOp func : funcs) {
      auto bounds =
          func->getAttrOfType<DictionaryAttr>(edge::kMaxTripsAttrName);
      if (!bounds)
        continue;
      func.walk([&](scf::WhileOp loop) {
        if (auto trips = bounds.getAs<IntegerAttr>(getNodeName(loop.getLoc())))
          loopBounds[loop] = trips.getInt();
      });
    }
    OpBuilder builder(module.getContext());
    builder.setInsertionPointToEnd(module.getBody());
    auto program =
        builder.create<exec::ProgramOp>(module.getLoc(), programName);
    program.getBody().emplaceBlock();
    for (func::FuncOp func : delegates)
      if (failed(buildDelegate(func, program)))
        return signalPassFailure();
    for (func::FuncOp func : funcs)
      if (failed(buildMethod(func, program)))
        return signalPassFailure();

    TypeConverter typeConverter;
    typeConverter.addConversion([](Type type) { return type; });
    typeConverter.addConversion(
        [](RankedTensorType type) -> std::optional<Type> {
          Type buffer = toBuffer(type);
          return buffer ? std::optional<Type>(buffer) : std::nullopt;
        });
    auto materialize = [](OpBuilder &builder, Type type, ValueRange inputs,
                          Location loc) -> std::optional<Value> {
      if (inputs.size() != 1)
        return std::nullopt;
      return createConversionCast(builder, loc, type, inputs.front());
    };
    typeConverter.addSourceMaterialization(materialize);
    typeConverter.addTargetMaterialization(materialize);

    // A run-time If whose branches only pass on values defined before it
    // was canonicalized into a select of whole tensors: it is an If again,
    // each branch yielding its value.
    module.walk([](arith::SelectOp select) {
      if (!isa<RankedTensorType>(select.getType()) ||
          !select.getCondition().getType().isInteger(1))
        return;
      OpBuilder builder(select);
      auto conditional = builder.create<scf::IfOp>(
          select.getLoc(), select.getType(), select.getCondition(),
          /*withElseRegion=*/true);
      for (auto [region, value] :
           {std::pair(&conditional.getThenRegion(), select.getTrueValue()),
            std::pair(&conditional.getElseRegion(), select.getFalseValue())}) {
        builder.setInsertionPointToEnd(&region->front());
        builder.create<scf::YieldOp>(select.getLoc(), value);
      }
      select.replaceAllUsesWith(conditional.getResult(0));
      select.erase();
    });
    // Ops after a run-time If wait for it: they read its results, whose
    // buffers exist once its branches are converted (Conditionals.cpp).
    // Ops after a run-time loop, and its regions' ops, wait for it to
    // become blocks of the method (Loops.cpp).
    llvm::DenseSet<Operation *> deferred;
    ConversionTarget target(getContext());
    target.addLegalDialect<exec::ExecDialect>();
    target.addDynamicallyLegalDialect<edge::EdgeDialect>(
        [&](Operation *op) { return deferred.contains(op); });
    target.addLegalOp<UnrealizedConversionCastOp>();
    // Extents: tensor.dim becomes the buffer's extent; affine arithmetic
    // on extents stays (the emitter makes it the shape program).
    target.addLegalDialect<affine::AffineDialect, arith::ArithDialect>();
    target.addDynamicallyLegalOp<tensor::DimOp>(
        [&](Operation *op) { return deferred.contains(op); });
    RewritePatternSet patterns(&getContext());
    populateEdgeToExecPatterns(typeConverter, patterns);
    populateDelegateCallPatterns(typeConverter, patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // One round per level of run-time control flow: convert what no If
    // or loop precedes, then lower the Ifs whose branches are converted
    // and the loops that are reached.
    while (true) {
      deferred.clear();
      SmallVector<Operation *> ready;
      program.walk([&](Block *block) {
        bool after = false;
        for (Operation &op : *block) {
          if (after) {
            op.walk([&](Operation *nested) { deferred.insert(nested); });
            continue;
          }
          if (!isa<scf::IfOp, scf::WhileOp>(op))
            continue;
          after = true;
          if (isa<exec::MethodOp>(op.getParentOp()))
            ready.push_back(&op);
          if (isa<scf::WhileOp>(op))
            op.walk([&](Operation *nested) {
              if (nested != &op)
                deferred.insert(nested);
            });
        }
      });
      if (failed(applyPartialConversion(program, target, frozen)))
        return signalPassFailure();
      bool progress = false;
      for (Operation *op : ready) {
        if (auto loop = dyn_cast<scf::WhileOp>(op)) {
          auto bound = loopBounds.find(loop);
          if (failed(lowerLoop(loop, bound == loopBounds.end()
                                         ? std::nullopt
                                         : std::optional(bound->second))))
            return signalPassFailure();
          progress = true;
          continue;
        }
        // An If's branches must be converted: no If or loop inside them
        // came first.
        if (op->walk([&](Operation *nested) {
                return deferred.contains(nested) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
              }).wasInterrupted())
          continue;
        if (failed(lowerConditional(cast<scf::IfOp>(op))))
          return signalPassFailure();
        progress = true;
      }
      if (ready.empty())
        break;
      if (!progress) {
        ready.front()->emitOpError(
            "could not be lowered: run-time control flow nested in an If's "
            "branch before other ops");
        return signalPassFailure();
      }
    }

    OpPassManager cleanup(ModuleOp::getOperationName());
    cleanup.addPass(createReconcileUnrealizedCastsPass());
    if (failed(runPipeline(cleanup, module)))
      return signalPassFailure();
    for (auto method : program.getBody().getOps<exec::MethodOp>()) {
      updateLoopBuffersInPlace(method);
      giveOutputsOwnBuffers(method);
    }
  }
};

} // namespace
