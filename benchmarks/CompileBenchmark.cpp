//===- CompileBenchmark.cpp - compile time of the benchmark models --------===//
//
// Compiles a model (default: resnet18_bn of the benchmark models that
// scripts/make-benchmark-models.sh generates into build/models) from ONNX to
// program bytes, no calibration, and reports the time of each stage as
// counters (milliseconds per compile). Run:
//   build/bin/strata-compile-benchmark [--model PATH] [--benchmark_*]
//
//===----------------------------------------------------------------------===//
#include "strata/Compiler/Compiler.h"

#include "mlir/IR/Diagnostics.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <map>

static std::string modelPath =
    STRATA_BENCHMARK_MODELS_DIR "/resnet18_bn/model.onnx";

static void BM_Compile(benchmark::State &state) {
  std::map<std::string, double> stageTotals;
  uint64_t bytes = 0;
  for (auto _ : state) {
    mlir::MLIRContext context;
    strata::loadCompilerDialects(context);
    strata::CompileOptions options;
    strata::CompileReport report;
    std::string artifact;
    if (mlir::failed(strata::compileONNXFile(modelPath, options, context,
                                             artifact, report))) {
      state.SkipWithError(("compiling " + modelPath + " failed").c_str());
      return;
    }
    for (const auto &stage : report.stages)
      stageTotals[stage.name] += stage.milliseconds;
    bytes = artifact.size();
  }
  for (const auto &[stage, total] : stageTotals)
    state.counters[stage + "_ms"] = total / state.iterations();
  state.counters["program_bytes"] = bytes;
}
BENCHMARK(BM_Compile)->Unit(benchmark::kMillisecond)->Iterations(3);

int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--model"))
      modelPath = argv[i + 1];
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
