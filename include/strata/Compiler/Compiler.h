//===- Compiler.h - the ONNX -> .strata compilation driver ------*- C++ -*-===//
//
// Imports a model, runs the compile pipeline on it
// (strata/Pipelines/CompilePipeline.h), times the import and the emission
// and writes the artifact, so that strata-compile, the conformance runner,
// --verify, --bisect and tests share one driver.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_COMPILER_COMPILER_H
#define STRATA_COMPILER_COMPILER_H

#include "strata/Pipelines/CompileOptions.h"

namespace strata {

/// Compiles the ONNX model at `modelPath` into the artifact `options.emit`
/// asks for. Errors are reported as diagnostics on `context`.
mlir::LogicalResult compileONNXFile(llvm::StringRef modelPath,
                                    const CompileOptions &options,
                                    mlir::MLIRContext &context,
                                    std::string &artifact,
                                    CompileReport &report);

} // namespace strata

#endif // STRATA_COMPILER_COMPILER_H
