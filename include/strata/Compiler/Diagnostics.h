//===- Diagnostics.h - diagnostics that name the ONNX node ------*- C++ -*-===//
#ifndef STRATA_COMPILER_DIAGNOSTICS_H
#define STRATA_COMPILER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

namespace strata {

/// Prints each diagnostic as `FILE: error: node 'NAME': MESSAGE`, the form
/// a deployment engineer can act on; the "see current operation" notes
/// (whole-op dumps) are printed only when `verbose`.
class NodeDiagnosticHandler : public mlir::ScopedDiagnosticHandler {
public:
  NodeDiagnosticHandler(mlir::MLIRContext *context, llvm::raw_ostream &os,
                        bool verbose = false);

private:
  void print(mlir::Diagnostic &diagnostic, bool isNote);

  llvm::raw_ostream &os;
  bool verbose;
};

} // namespace strata

#endif // STRATA_COMPILER_DIAGNOSTICS_H
