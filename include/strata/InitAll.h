//===- InitAll.h - register every Strata dialect and pass -------*- C++ -*-===//
//
// The one place that knows every dialect, pass and pipeline of Strata; the
// tools call these and nothing else (as CIRCT's and torch-mlir's InitAll do).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_INITALL_H
#define STRATA_INITALL_H

#include "Edge/IR/EdgeOps.h"
#include "Edge/Transforms/Passes.h"
#include "Exec/IR/ExecOps.h"
#include "Exec/Transforms/Passes.h"
#include "HL/IR/HLOps.h"
#include "HL/Transforms/Passes.h"
#include "strata/Backends/Passes.h"
#include "strata/Conversion/Passes.h"
#include "strata/Delegation/Delegation.h"
#include "strata/Emit/ProgramEmitter.h"
#include "strata/Import/ONNXImporter.h"
#include "strata/Pipelines/CompilePipeline.h"
#include "strata/Pipelines/Pipelines.h"
#include "strata/Quantization/Quantization.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace strata {

/// Adds Strata's dialects and the upstream ones its IR uses.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<hl::HLDialect, edge::EdgeDialect, exec::ExecDialect>();
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::tensor::TensorDialect, mlir::quant::QuantizationDialect,
                  mlir::affine::AffineDialect, mlir::scf::SCFDialect>();
  // Bounds of dynamic extents (exec memory planning at the bound).
  mlir::affine::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::arith::registerValueBoundsOpInterfaceExternalModels(registry);
}

/// Registers Strata's passes and named pipelines, plus the upstream generic
/// transforms (canonicalize, cse, inline, ...) pipelines are built from.
inline void registerAllPasses() {
  mlir::registerTransformsPasses();
  hl::registerHLPasses();
  edge::registerEdgePasses();
  exec::registerExecPasses();
  registerConversionPasses();
  registerBackendsPasses();
  registerDelegationPasses();
  registerQuantizationPasses();
  registerPipelines();
  registerCompilePipeline();
}

/// Registers Strata's translations (ONNX import, program emission) with
/// mlir-translate's registry.
inline void registerAllTranslations() {
  registerONNXImportTranslation();
  registerProgramEmitTranslation();
}

} // namespace strata

#endif // STRATA_INITALL_H
