//===- Bisect.h - the first ONNX node whose value diverges ------*- C++ -*-===//
//
// strata-compile --verify --bisect: when a compiled program's outputs are
// off, find where. Two debug builds expose the value of every ONNX node
// (CompileOptions::Expose): the reference (the untransformed model on the
// portable kernels) and the program as compiled, patterns, quantization and
// delegates included. Both run on the same inputs; their values are
// compared node by node in the reference's topological order, and the first
// node out of tolerance is named with statistics of both values. Float
// programs are judged by rel-L2, int8 programs by SQNR.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_COMPILER_BISECT_H
#define STRATA_COMPILER_BISECT_H

#include "strata/Compiler/Compiler.h"
#include "strata/Compiler/ModelGraph.h"
#include "strata/Runtime/TensorIO.h"

#include "llvm/Support/raw_ostream.h"

namespace strata {

struct BisectOptions {
  /// A float program's node diverges above this rel-L2. Looser than the
  /// end-to-end check's 1e-5: one node's value carries the summation-order
  /// noise of its own layer, relative to its own norm (up to 8e-5 on a
  /// correct wide_resnet50_2), while a wrong rewrite is off by far more.
  double maxRelL2 = 1e-3;
  /// A quantized program's node diverges below this SQNR, in dB.
  double minSQNR = 20;
};

/// Mean, standard deviation and range of a value's finite elements, and
/// how many are not finite (attention masks hold infinities).
struct ValueStatistics {
  double mean = 0, stddev = 0, min = 0, max = 0;
  int64_t nonFinite = 0;
};

struct BisectReport {
  struct Node {
    /// The ONNX node and which of its results.
    std::string node;
    unsigned result = 0;
    /// Its ONNX op type, e.g. "Conv".
    std::string opType;
    /// The edge op computing it in the reference and in the program.
    std::string referenceOp, compiledOp;
    /// The other nodes the program's op computes (a fusion), if any.
    std::vector<std::string> fusedWith;
    /// "portable", or the backend and partition running it.
    std::string placement;
    /// "compared"; "fused" when the program has no value of its own for
    /// it (computed inside another node's op); "shape" when the program's
    /// value has another shape.
    std::string status = "compared";
    double relL2 = 0, maxAbs = 0;
    /// Signal to quantization-noise ratio of the program's value against
    /// the reference's, in dB (infinite when equal).
    double sqnr = 0;
    ValueStatistics reference, compiled;
    bool diverged = false;
  };
  /// Judged by SQNR (an int8 program) or else by rel-L2.
  bool quantized = false;
  double threshold = 0;
  std::vector<Node> nodes;
  /// Index in `nodes` of the first that diverges.
  std::optional<size_t> first;

  void print(llvm::raw_ostream &os) const;
  llvm::json::Value toJSON() const;
};

/// Builds both debug builds of the model at `modelPath` (the program with
/// `options`) and compares them on `inputs`, in the order of `graph` (the
/// model's readModelGraph).
mlir::FailureOr<BisectReport>
bisect(llvm::StringRef modelPath, llvm::ArrayRef<ModelGraphNode> graph,
       const CompileOptions &options,
       mlir::MLIRContext &context,
       const std::vector<runtime::OwnedTensor> &inputs,
       const BisectOptions &bisectOptions);

} // namespace strata

#endif // STRATA_COMPILER_BISECT_H
