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
BENCHMARK(BM_Matmul)
    ->Args({64, 512, 512})
    ->Args({1, 512, 1000})
    ->Args({256, 256, 256})
    ->Unit(benchmark::kMillisecond);

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
  runProgram(state, b.build(), 2.0 * oc * out * out * (c / group) * k * k);
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

/// A decode step's product: m rows by a [k, n] weight stored in groups of
/// 32 at `bits` (weight_quantized_matmul's tiled layout, random words),
/// with f32 or (activation_bits 8) dynamically quantized int8 rows. The
/// weight's 4 MiB (4-bit, k 2048 x n 4096) overflow L2, as a decoder's do.
void BM_WeightQuantizedMatmul(benchmark::State &state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2),
          bits = state.range(3), activationBits = state.range(4);
  int64_t group = 32, tiles = (n + 31) / 32, perWord = 32 / bits,
          blocks = (k + perWord - 1) / perWord,
          groups = (k + group - 1) / group;
  TestProgramBuilder b;
  int a = b.addInput(DType::F32, {m, k});
  std::vector<uint8_t> words(tiles * blocks * 128);
  uint32_t seed = 12345;
  for (uint8_t &word : words)
    word = static_cast<uint8_t>((seed = seed * 1103515245u + 12345u) >> 24);
  std::vector<float> scales(tiles * groups * 32, 0.01f);
  std::vector<uint8_t> zeros(tiles * groups * 32, 1u << (bits - 1));
  int w = b.addConstant(DType::U8, {tiles, blocks, 128}, words.data());
  int s = b.addConstant(DType::F32, {tiles, groups, 32}, scales.data());
  int z = b.addConstant(DType::U8, {tiles, groups, 32}, zeros.data());
  int y = b.addBuffer(DType::F32, {m, n});
  std::vector<Param> params = {intParam("bits", bits),
                               intParam("group_size", group)};
  if (activationBits)
    params.push_back(intParam("activation_bits", activationBits));
  b.addKernel("weight_quantized_matmul", {a, w, s, z}, {y}, params);
  b.setOutputs({y});
  runProgram(state, b.build(), 2.0 * m * n * k);
}
// m, k, n, bits, activation bits
BENCHMARK(BM_WeightQuantizedMatmul)
    ->Args({1, 512, 2048, 4, 0})
    ->Args({1, 2048, 4096, 4, 0})
    ->Args({1, 2048, 4096, 4, 8})
    ->Args({1, 8192, 8192, 4, 8})
    ->Args({1, 8192, 8192, 4, 0})
    ->Args({1, 2048, 4096, 8, 0})
    ->Args({4, 2048, 4096, 4, 0})
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
