//===- MethodThreadsTest.cpp - methods of one program on many threads -----===//
//
// The thread-safety contract of docs/runtime.md: one Program (and the
// bytes its loader serves) shared by eight threads, each loading and
// executing its own Method on its own inputs. Each thread's outputs must
// equal, bit for bit, those of a single-threaded run on the same inputs.
// scripts/check-sanitizers.sh runs it under ThreadSanitizer, which fails on
// any data race between the threads, however rarely it changes a result.
//
//===----------------------------------------------------------------------===//
#include "TestProgramBuilder.h"

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Program.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

constexpr int kThreads = 8;
constexpr int kRunsPerThread = 12;

/// x[1,3,16,16] -> conv2d 3x3 (8 channels) -> + y[1,8,16,16] -> relu ->
/// max_pool2d 2x2 -> reshape -> matmul [512,10] -> softmax; outputs the
/// softmax and the pooled map. Two inputs, two outputs, constants shared by
/// every method, and a conv2d that uses the per-method im2col scratch.
std::vector<uint8_t> buildNetwork() {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {1, 3, 16, 16});
  int y = b.addInput(DType::F32, {1, 8, 16, 16});
  std::vector<float> w(8 * 3 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.125f;
  int wc = b.addConstant(DType::F32, {8, 3, 3, 3}, w.data(), "conv.weight");
  std::vector<float> bias(8);
  for (size_t i = 0; i < bias.size(); ++i)
    bias[i] = 0.25f * static_cast<float>(i) - 1.f;
  int bc = b.addConstant(DType::F32, {8}, bias.data(), "conv.bias");
  int c = b.addBuffer(DType::F32, {1, 8, 16, 16});
  b.addKernel("conv2d", {x, wc, bc}, {c},
              windowParams("conv2d", {intsParam("pads", {1, 1, 1, 1})}));
  int a = b.addBuffer(DType::F32, {1, 8, 16, 16});
  b.addKernel("add", {c, y}, {a});
  int r = b.addBuffer(DType::F32, {1, 8, 16, 16});
  b.addKernel("relu", {a}, {r});
  int p = b.addBuffer(DType::F32, {1, 8, 8, 8});
  b.addKernel("max_pool2d", {r}, {p},
              windowParams("max_pool2d", {intsParam("kernel", {2, 2}),
                                          intsParam("strides", {2, 2})}));
  int f = b.addBuffer(DType::F32, {1, 512});
  b.addKernel("reshape", {p}, {f});
  std::vector<float> m(512 * 10);
  for (size_t i = 0; i < m.size(); ++i)
    m[i] = static_cast<float>(static_cast<int>(i % 11) - 5) * 0.01f;
  int mc = b.addConstant(DType::F32, {512, 10}, m.data(), "fc.weight");
  int l = b.addBuffer(DType::F32, {1, 10});
  b.addKernel("matmul", {f, mc}, {l});
  int s = b.addBuffer(DType::F32, {1, 10});
  b.addKernel("softmax", {l}, {s}, {intParam("axis", 1)});
  b.setOutputs({s, p});
  return b.build();
}

/// Deterministic inputs of run `run` of thread `thread`, different for each.
struct Inputs {
  std::vector<float> x = std::vector<float>(3 * 16 * 16);
  std::vector<float> y = std::vector<float>(8 * 16 * 16);
  Inputs(int thread, int run) {
    uint32_t state = 2654435761u * static_cast<uint32_t>(thread * 1000 + run + 1);
    auto next = [&] {
      state = state * 1664525u + 1013904223u;
      return static_cast<float>(state >> 8) / static_cast<float>(1u << 24) -
             0.5f;
    };
    for (float &v : x)
      v = next();
    for (float &v : y)
      v = next();
  }
};

/// The outputs of one execution, as bytes.
using Outputs = std::vector<std::vector<uint8_t>>;

/// Sets the inputs, executes and copies the outputs; errors as text.
std::string runOnce(Method &method, const Inputs &in, Outputs &out) {
  if (Error e = method.setInput(
          0, TensorView{DType::F32, {1, 3, 16, 16},
                        const_cast<float *>(in.x.data())}))
    return e.toString();
  if (Error e = method.setInput(
          1, TensorView{DType::F32, {1, 8, 16, 16},
                        const_cast<float *>(in.y.data())}))
    return e.toString();
  if (Error e = method.execute())
    return e.toString();
  out.clear();
  for (size_t i = 0; i < method.outputCount(); ++i) {
    Result<TensorView> view = method.output(i);
    if (!view.ok())
      return view.error().toString();
    const auto *bytes = static_cast<const uint8_t *>(view->data);
    out.emplace_back(bytes, bytes + view->nbytes());
  }
  return "";
}

TEST(MethodThreadsTest, MethodsOfOneProgramRunConcurrently) {
  std::vector<uint8_t> bytes = buildNetwork();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader, Verification::Full);
  ASSERT_TRUE(program.ok()) << program.error().toString();

  // The single-threaded reference, every (thread, run) on one method.
  std::vector<std::vector<Outputs>> expected(kThreads,
                                             std::vector<Outputs>(kRunsPerThread));
  {
    Result<Method> method = program->loadMethod(program->methodName(0));
    ASSERT_TRUE(method.ok()) << method.error().toString();
    for (int t = 0; t < kThreads; ++t)
      for (int r = 0; r < kRunsPerThread; ++r) {
        std::string error = runOnce(*method, Inputs(t, r), expected[t][r]);
        ASSERT_EQ(error, "");
      }
  }
  // Different inputs give different outputs: a thread reading another's
  // arena would show.
  ASSERT_NE(expected[0][0], expected[1][0]);

  // Each thread loads its own method (concurrently with the others), waits
  // until all have, then executes its runs.
  std::vector<std::string> failures(kThreads);
  std::atomic<int> loaded{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Result<Method> method = program->loadMethod(program->methodName(0));
      ++loaded;
      if (!method.ok()) {
        failures[t] = "loadMethod: " + method.error().toString();
        return;
      }
      while (loaded.load() < kThreads)
        std::this_thread::yield();
      Outputs got;
      for (int r = 0; r < kRunsPerThread; ++r) {
        std::string error = runOnce(*method, Inputs(t, r), got);
        if (!error.empty()) {
          failures[t] = "run " + std::to_string(r) + ": " + error;
          return;
        }
        if (got != expected[t][r]) {
          failures[t] = "run " + std::to_string(r) +
                        ": outputs differ from the single-threaded run";
          return;
        }
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
}

} // namespace
