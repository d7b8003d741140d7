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

/// One method of a program of several: its name, the ONNX model it is
/// compiled from and that model's import options (shapes, bounds, frozen
/// inputs).
struct MethodSource {
  std::string name;
  std::string modelPath;
  ImportOptions import;
};

/// Compiles each of `methods` with `options` (but its own import options)
/// into one program of several methods that share their weights: a
/// constant equal in type and bytes to another method's is stored once, and
/// so are equal named data of the delegates (each method's partitions named
/// after it). `options.statePairs` are bound over all methods at the end: a
/// state one method feeds and another updates is one state. `options.emit`
/// must be program or mlir-exec.
mlir::LogicalResult compileONNXMethods(llvm::ArrayRef<MethodSource> methods,
                                       const CompileOptions &options,
                                       mlir::MLIRContext &context,
                                       std::string &artifact,
                                       CompileReport &report);

} // namespace strata

#endif // STRATA_COMPILER_COMPILER_H
