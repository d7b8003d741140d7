//===- StagePass.h - pipeline stages that call into a library ---*- C++ -*-===//
//
// The compile pipeline's stages that drive a library (the pattern engine,
// calibration, the partitioner, a check) are StagePasses around its call;
// StageRecorder's marker passes time the stages and count ops for
// --report. Internal to lib/Pipelines.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_PIPELINES_STAGEPASS_H
#define STRATA_LIB_PIPELINES_STAGEPASS_H

#include "Edge/IR/EdgeOps.h"
#include "Exec/IR/ExecOps.h"
#include "HL/IR/HLOps.h"
#include "strata/Pipelines/CompileOptions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>
#include <functional>
#include <memory>

namespace strata {

/// A pipeline stage that calls into a library: the pattern engine,
/// calibration, the partitioner, a check. Fails the pipeline when `run`
/// does (its diagnostics already emitted).
class StagePass
    : public mlir::PassWrapper<StagePass, mlir::OperationPass<mlir::ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StagePass)
  using Run = std::function<mlir::LogicalResult(mlir::ModuleOp)>;
  /// A stage that runs pipelines on nested ops, through the runner it is
  /// given (this pass's runPipeline: a dynamic pipeline of the stage).
  using NestedPipelineRunner = llvm::function_ref<mlir::LogicalResult(
      mlir::OpPassManager &, mlir::Operation *)>;
  using RunNested =
      std::function<mlir::LogicalResult(mlir::ModuleOp, NestedPipelineRunner)>;

  StagePass(llvm::StringRef argument, llvm::StringRef description,
            RunNested run)
      : argument(argument.str()), description(description.str()),
        run(std::move(run)) {}
  StagePass(llvm::StringRef argument, llvm::StringRef description, Run run)
      : StagePass(argument, description,
                  [run = std::move(run)](mlir::ModuleOp module,
                                         NestedPipelineRunner) {
                    return run(module);
                  }) {}

  llvm::StringRef getArgument() const override { return argument; }
  llvm::StringRef getDescription() const override { return description; }
  llvm::StringRef getName() const override { return argument; }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    // Calibration compiles and runs programs of the module's copies.
    registry.insert<hl::HLDialect, edge::EdgeDialect, exec::ExecDialect,
                    mlir::func::FuncDialect, mlir::arith::ArithDialect,
                    mlir::tensor::TensorDialect,
                    mlir::quant::QuantizationDialect>();
  }
  void runOnOperation() override {
    auto runNested = [this](mlir::OpPassManager &pm, mlir::Operation *op) {
      return runPipeline(pm, op);
    };
    if (failed(run(getOperation(), runNested)))
      signalPassFailure();
  }

private:
  std::string argument, description;
  RunNested run;
};

inline void addStage(mlir::OpPassManager &pm, llvm::StringRef argument,
                     llvm::StringRef description, StagePass::Run run) {
  pm.addPass(
      std::make_unique<StagePass>(argument, description, std::move(run)));
}
inline void addStage(mlir::OpPassManager &pm, llvm::StringRef argument,
                     llvm::StringRef description, StagePass::RunNested run) {
  pm.addPass(
      std::make_unique<StagePass>(argument, description, std::move(run)));
}

/// Records the pipeline's stages into a CompileReport: `begin` before a
/// stage's passes, `end` after them (the stage's time, and op counts under
/// `counts` when given).
class StageRecorder {
public:
  StageRecorder(mlir::OpPassManager &pm, CompileReport *report)
      : pm(pm), report(report),
        start(std::make_shared<std::chrono::steady_clock::time_point>()) {}

  // The markers are passes whether or not there is a report, so that both
  // drivers run one pipeline: nested function passes of two stages never
  // merge into one per-function pipeline.
  void begin() {
    addStage(pm, "strata-report-begin", "Starts timing a stage",
             [report = report, start = start](mlir::ModuleOp) {
               if (report)
                 *start = std::chrono::steady_clock::now();
               return mlir::success();
             });
  }
  void end(llvm::StringRef name, llvm::StringRef counts = "") {
    addStage(pm, "strata-report-end", "Records a stage's time and op counts",
             [report = report, start = start, name = name.str(),
              counts = counts.str()](mlir::ModuleOp module) {
               if (!report)
                 return mlir::success();
               std::chrono::duration<double, std::milli> elapsed =
                   std::chrono::steady_clock::now() - *start;
               report->stages.push_back({name, elapsed.count()});
               if (!counts.empty())
                 report->countOps(module, counts);
               return mlir::success();
             });
  }
  /// Op counts alone, outside a timed stage.
  void count(llvm::StringRef counts) {
    addStage(pm, "strata-report-counts", "Records op counts",
             [report = report, counts = counts.str()](mlir::ModuleOp module) {
               if (report)
                 report->countOps(module, counts);
               return mlir::success();
             });
  }

private:
  mlir::OpPassManager &pm;
  CompileReport *report;
  std::shared_ptr<std::chrono::steady_clock::time_point> start;
};

} // namespace strata

#endif // STRATA_LIB_PIPELINES_STAGEPASS_H
