//===- KernelBench.cpp - portable kernel throughput -----------------------===//
//
// GFLOP/s of the blocked GEMM and of conv2d (im2col + GEMM, depthwise
// direct) on ResNet/MobileNet-like shapes, measured through the public
// runtime API (a one-kernel program per case).
//
//===----------------------------------------------------------------------===//
#include "../../unittests/Runtime/TestProgramBuilder.h"

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Program.h"

#include <benchmark/benchmark.h>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

/// Runs a prepared one-kernel method in the benchmark loop.
void runProgram(benchmark::State &state, const std::vector<uint8_t> &bytes,
                double flops) {
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader);
  if (!program.ok()) {
    state.SkipWithError(program.error().toString().c_str());
    return;
  }
  Result<Method> method = program->loadMethod("forward");
  if (!method.ok()) {
    state.SkipWithError(method.error().toString().c_str());
    return;
  }
  for (auto _ : state) {
    Error error = method->execute();
    benchmark::DoNotOptimize(error);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * 1e-9 * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_Matmul(benchmark::State &state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  TestProgramBuilder b;
  int a = b.addInput(DType::F32, {m, k});
  std::vector<float> w(k * n, 0.01f);
  int c = b.addConstant(DType::F32, {k, n}, w.data());
  int y = b.addBuffer(DType::F32, {m, n});
  b.addKernel("matmul", {a, c}, {y});
  b.setOutputs({y});
  runProgram(state, b.build(), 2.0 * m * n * k);
}
BENCHMARK(BM_Matmul)->Args({64, 512, 512})->Args({1, 512, 1000})
    ->Args({256, 256, 256})->Unit(benchmark::kMillisecond);

void BM_Conv2d(benchmark::State &state) {
  int64_t c = state.range(0), hw = state.range(1), oc = state.range(2),
          k = state.range(3), stride = state.range(4), group = state.range(5);
  int64_t pad = k / 2, out = (hw + 2 * pad - k) / stride + 1;
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {1, c, hw, hw});
  std::vector<float> w(oc * (c / group) * k * k, 0.01f);
  int wc = b.addConstant(DType::F32, {oc, c / group, k, k}, w.data());
  int y = b.addBuffer(DType::F32, {1, oc, out, out});
  b.addKernel("conv2d", {x, wc}, {y},
              windowParams("conv2d", {intsParam("strides", {stride, stride}),
                                      intsParam("pads", {pad, pad, pad, pad}),
                                      intParam("group", group)}));
  b.setOutputs({y});
  runProgram(state, b.build(),
             2.0 * oc * out * out * (c / group) * k * k);
}
// c, hw, oc, k, stride, group
BENCHMARK(BM_Conv2d)
    ->Args({64, 56, 64, 3, 1, 1})   // ResNet-18 layer1
    ->Args({3, 224, 64, 7, 2, 1})   // ResNet-18 stem
    ->Args({256, 14, 256, 3, 1, 1}) // ResNet-18 layer3
    ->Args({96, 56, 96, 3, 1, 96})  // MobileNetV2 depthwise
    ->Args({32, 112, 16, 1, 1, 1})  // MobileNetV2 pointwise
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
