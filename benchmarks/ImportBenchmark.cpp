//===- ImportBenchmark.cpp - ONNX import speed and memory -----------------===//
//
// Imports ../shared/models/resnet18_bn/model.onnx (47 MB) into a fresh
// context per iteration. Reports wall time and the peak resident-set growth
// of the import (VmHWM after minus VmRSS before, with the high-water mark
// reset through /proc/self/clear_refs), against the budget of issue 3:
// under 1 s and under 2x the file size. An iteration over budget is marked
// as an error.
//
//===----------------------------------------------------------------------===//
#include "strata/Import/ONNXImporter.h"
#include "strata/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <fstream>
#include <string>

namespace {

/// A field of /proc/self/status in kB (VmRSS, VmHWM), or -1.
long statusKB(const std::string &field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0)
      return std::stol(line.substr(field.size() + 1));
  return -1;
}

/// Resets VmHWM to the current RSS (Linux >= 4.0).
void resetPeak() { std::ofstream("/proc/self/clear_refs") << "5"; }

void importModel(benchmark::State &state, const std::string &name) {
  std::string path = STRATA_SHARED_DIR "/models/" + name + "/model.onnx";
  uint64_t fileSize = 0;
  if (llvm::sys::fs::file_size(path, fileSize)) {
    state.SkipWithError(("missing " + path).c_str());
    return;
  }
  mlir::DialectRegistry registry;
  strata::registerAllDialects(registry);
  double worstExtra = 0, worstSeconds = 0;
  for (auto _ : state) {
    resetPeak();
    long before = statusKB("VmRSS");
    auto start = std::chrono::steady_clock::now();
    {
      mlir::MLIRContext context(registry);
      mlir::OwningOpRef<mlir::ModuleOp> module =
          strata::importONNXFile(path, &context);
      if (!module) {
        state.SkipWithError("import failed");
        return;
      }
      benchmark::DoNotOptimize(module.get());
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    double extra = (statusKB("VmHWM") - before) * 1024.0;
    worstExtra = std::max(worstExtra, extra);
    worstSeconds = std::max(worstSeconds, seconds);
  }
  state.counters["file_MB"] = fileSize / 1e6;
  state.counters["peak_extra_MB"] = worstExtra / 1e6;
  state.counters["extra_over_file"] = worstExtra / fileSize;
  state.counters["worst_s"] = worstSeconds;
  if (worstSeconds >= 1.0 || worstExtra >= 2.0 * fileSize)
    state.SkipWithError("over budget: needs < 1 s and < 2x file size");
}

void BM_ImportResNet18BN(benchmark::State &state) {
  importModel(state, "resnet18_bn");
}
void BM_ImportTransformerEncoder(benchmark::State &state) {
  importModel(state, "transformer_encoder");
}

} // namespace

BENCHMARK(BM_ImportResNet18BN)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_ImportTransformerEncoder)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_MAIN();
