//===- CompileOptions.h - one compilation's options and report --*- C++ -*-===//
//
// What a compilation is asked to do (CompileOptions) and what it measured
// (CompileReport), shared by the pipelines (lib/Pipelines), calibration
// (lib/Calibration, which compiles the programs it observes through the
// lowering stages) and the driver (lib/Compiler).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_PIPELINES_COMPILEOPTIONS_H
#define STRATA_PIPELINES_COMPILEOPTIONS_H

#include "Exec/Transforms/Passes.h"
#include "strata/Calibration/Calibrate.h"
#include "strata/Delegation/Delegation.h"
#include "strata/Emit/ProgramEmitter.h"
#include "strata/Import/ONNXImporter.h"
#include "strata/Patterns/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace strata {

/// What the driver writes.
enum class EmitKind {
  /// The imported hl module, as MLIR text.
  MLIRHL,
  /// After legalization to edge, as MLIR text.
  MLIREdge,
  /// The planned exec program, as MLIR text.
  MLIRExec,
  /// The .strata program buffer.
  Program,
  /// The transformed (and, with quantize, calibrated) model as ONNX, with
  /// explicit QuantizeLinear / DequantizeLinear (include/strata/Export).
  ONNXQDQ,
  /// The transformation plan as JSON (TransformationPlan::toJSON): the
  /// pipeline stops after planning, applying nothing.
  Plan,
  /// The hl module after the backend's patterns, before quantization.
  MLIRHLTransformed,
  /// The edge module after the delegates partitioned it (each claimed group
  /// outlined behind an edge.delegate_call), before any preprocess
  /// compiles a partition: the report says where each op would run, with
  /// the cost model's estimates.
  MLIRPartitioned,
};

/// Parses "mlir-hl", "mlir-hl-transformed", "mlir-partitioned",
/// "mlir-edge", "mlir-exec", "program", "onnx-qdq" or "plan".
std::optional<EmitKind> parseEmitKind(llvm::StringRef text);
/// The names parseEmitKind takes, for messages: "program, plan, ...".
llvm::StringRef emitKindNames();

/// Options of one compilation.
struct CompileOptions {
  ImportOptions import;
  EmitKind emit = EmitKind::Program;
  /// Byte alignment of planned buffers.
  int64_t bufferAlignment = 64;
  /// Layout of the program file.
  EmitOptions emitOptions;
  /// Name of the exec.program.
  std::string programName = "program";
  /// Values the methods carry from one call to the next: "IN=OUT" pairs
  /// or "past-present" (exec::bindStates).
  std::vector<std::string> statePairs;
  /// The states are laid out (strata-edge-state-layout) but bound later:
  /// one method of a program of several, bound over all methods at the end.
  bool deferStateBinding = false;
  /// Store each state growing along one axis with that axis first and
  /// append to it in place (strata-edge-state-layout).
  bool stateInPlace = true;
  /// Put before every delegate partition's name ("decode."): a method of a
  /// program of several keeps its delegates apart from the others'.
  std::string partitionPrefix;
  /// Print the IR after every pass (to stderr).
  bool printIRAfterAll = false;
  /// The backend patterns run on hl before lowering (none: the model is
  /// lowered as imported).
  std::vector<PatternDescriptor> patterns;
  /// A plan JSON whose apply flags are taken, and where the plan is written.
  std::string planIn, planOut;
  /// Apply flags taken from memory, as a plan file holds them (after
  /// planIn's).
  std::optional<llvm::json::Value> planFlags;
  /// The backends whose delegates take the ops they support, in priority
  /// order: each partitions what the earlier ones left (empty: every op
  /// runs on the portable kernels).
  std::vector<const Backend *> delegateBackends;
  /// Their compile specs (--backend-option), by backend name.
  std::map<std::string, CompileSpecs> compileSpecs;
  /// Fail when an op falls back to the portable kernels (every claimed
  /// group is then delegated, whatever the cost model says).
  bool requireDelegated = false;
  /// Let the cost model keep groups that are cheaper on the portable
  /// kernels off the delegate (--partition-cost).
  bool partitionCost = true;
  /// A calibration file to price them with instead of the backend's own
  /// (--partition-calibration; scripts/calibrate-partitioner.sh writes one).
  std::string partitionCalibrationFile;
  /// The kernels and delegates the target runtime has (none: unchecked);
  /// a program needing anything else is refused at compile time.
  std::optional<std::set<std::string>> targetKernels;
  /// Quantize (the patterns must include the backend's quantized ones):
  /// QDQ insertion with these options, then calibration.
  struct Quantize {
    /// strata-insert-qdq's options.
    std::string activations = "symmetric";
    std::vector<std::string> skipNodes, skipOps;
    int64_t minWeightElements = 0;
    /// SmoothQuant's migration strength, at the sites the smooth patterns
    /// tagged (none without smooth patterns).
    double smoothAlpha = 0.5;
    /// Bias correction after calibration (correctBiases).
    bool biasCorrection = false;
    /// Power-of-two scales everywhere: normalizations folded into the
    /// convolutions first, scales rounded up, biases snapped to int32.
    bool powerOfTwoScales = false;
    /// Measure each quantized tensor's cost at the output
    /// (measureSensitivity), last.
    bool sensitivity = false;
    /// Automatic mixed precision (chooseMixedPrecision), after bias
    /// correction, when it has a target.
    MixedPrecisionOptions mixedPrecision;
    CalibrationOptions calibration;
  };
  std::optional<Quantize> quantize;
  /// Weight-only quantization of the matmuls' constant weights
  /// (strata-edge-quantize-weights), right after lowering to edge.
  struct QuantizeWeights {
    /// 4 or 8.
    int64_t bits = 4;
    int64_t groupSize = 32;
    /// NODE=BITS overrides.
    std::vector<std::string> nodeBits;
    /// 8: activations quantized to int8 dynamically (0: f32).
    int64_t activationBits = 0;
  };
  std::optional<QuantizeWeights> quantizeWeights;
  /// Each matmul's width chosen for an output SQNR (chooseWeightPrecision),
  /// before lowering; needs quantizeWeights (its width is the narrowest).
  std::optional<WeightPrecisionOptions> weightPrecision;
  /// A debug build (--bisect): after lowering to edge, the value each ONNX
  /// node computes becomes an extra output of the main function
  /// (exposeIntermediates), before delegates claim anything.
  struct Expose {
    /// Node names in the reference's topological order: an op computing
    /// several nodes (a fusion) is taken as the output of the latest of
    /// them. Empty: the order in which the module first names them.
    std::vector<std::string> nodeOrder;
  };
  std::optional<Expose> expose;
};

/// One value a debug build exposes (CompileOptions::expose).
struct ExposedValue {
  /// The ONNX node whose output it is, and the result of that node.
  std::string node;
  unsigned result = 0;
  /// Every node the op computing it carries (more than one after a fusion).
  std::vector<std::string> nodes;
  /// The edge op computing it, e.g. "edge.conv2d".
  std::string op;
  /// The program output holding it.
  unsigned output = 0;
  /// Set for int8 values: the host dequantizes (q - zeroPoint) * scale.
  std::optional<std::pair<double, int64_t>> quantization;
};

/// The options of the untransformed reference `--verify` and `--bisect`
/// compare with: `options` without backend patterns, plan, delegates,
/// target kernel set, quantization (of activations or of weights) or
/// exposed intermediates.
CompileOptions referenceOptions(CompileOptions options);

/// Figures of one compilation, for --report.
struct CompileReport {
  struct Stage {
    std::string name;
    double milliseconds = 0;
  };
  struct MethodPlan {
    std::string method;
    exec::MemoryPlanSummary summary;
  };
  std::string model;
  /// What the importer changed to accept the model as ONNX Runtime does
  /// (nodes sorted, a newer opset normalised, ...).
  std::vector<std::string> importNotes;
  std::vector<Stage> stages;
  /// After each stage: dialect namespace -> number of ops.
  std::map<std::string, std::map<std::string, int64_t>> opCounts;
  std::vector<MethodPlan> memoryPlans;
  /// Size of the artifact written, in bytes.
  uint64_t outputBytes = 0;
  /// What the backend patterns did, when any ran.
  std::optional<TransformReport> transform;
  /// The transformation plan (TransformationPlan::toJSON), when the
  /// compilation stopped after planning (EmitKind::Plan).
  std::optional<llvm::json::Value> plan;
  /// Where each op runs, when a delegate backend partitioned the model.
  std::optional<DelegationReport> delegation;
  /// What the delegates' preprocess decided inside their partitions
  /// ("partition: op N [nodes]: winograd F(2x2,3x3); ..."), in order.
  std::vector<std::string> backendNotes;
  /// Scales and SQNR of each quantized tensor, when quantizing.
  std::optional<QuantizationReport> quantization;
  std::optional<WeightPrecisionReport> weightPrecision;
  /// The intermediates of a debug build, in program order.
  std::vector<ExposedValue> exposed;

  /// Records the number of ops per dialect in `module` as `stage`'s.
  void countOps(mlir::ModuleOp module, llvm::StringRef stage);
  llvm::json::Value toJSON() const;
};

/// Lowers an imported hl module to a planned exec program in place, recording
/// stage timings and the memory plan in `report`.
mlir::LogicalResult lowerToExec(mlir::ModuleOp module,
                                const CompileOptions &options,
                                CompileReport &report, EmitKind stopAfter);

/// Makes the value of every ONNX node an extra output of `module`'s main
/// function (see CompileOptions::Expose) and lists them in `exposed`.
mlir::LogicalResult exposeIntermediates(mlir::ModuleOp module,
                                        const CompileOptions::Expose &options,
                                        std::vector<ExposedValue> &exposed);

/// Registers the dialects the driver needs on `context`.
void loadCompilerDialects(mlir::MLIRContext &context);

} // namespace strata

#endif // STRATA_PIPELINES_COMPILEOPTIONS_H
