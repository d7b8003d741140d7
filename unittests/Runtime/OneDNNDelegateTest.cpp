//===- OneDNNDelegateTest.cpp - the oneDNN delegate's lifecycle -----------===//
//
// Prepare (compile time) -> init -> execute -> destroy on a hand-written
// graph, expected values worked out by hand; the layout check at init (a
// blob packed for another CPU); bad blobs; the config.
//
//===----------------------------------------------------------------------===//
#include "OneDNNGraphSupport.h"
#include "OneDNNTestSupport.h"

#include "strata/Runtime/Delegates/OneDNN.h"
#include "strata/Runtime/Delegates/Schema/onednn_graph_generated.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>

using namespace strata::runtime;
using strata::runtime::onednn::PreparedGraph;
using strata::runtime::onednn::prepareGraph;
using strata::runtime::onednn::PrepareOptions;
namespace fbs = strata::onednn::fb;
using strata::runtime::testing::floats;
using strata::runtime::testing::MapData;
using strata::runtime::testing::tensor;

namespace {

/// x[1,3,8,8] -> conv(w = 0.25, b = -2, 3x3, 8 channels) -> relu -> y, plus
/// z = y + x-independent residual r (another input) via a binary add.
struct ConvGraph {
  std::vector<uint8_t> blob;
  MapData constants;
  ConvGraph() {
    fbs::GraphT g;
    g.tensors.push_back(tensor({1, 3, 8, 8}));      // 0 x
    g.tensors.push_back(tensor({8, 3, 3, 3}, "w")); // 1 w
    g.tensors.push_back(tensor({8}, "b"));          // 2 b
    g.tensors.push_back(tensor({1, 8, 6, 6}));      // 3 y
    g.tensors.push_back(tensor({1, 8, 6, 6}));      // 4 r
    g.tensors.push_back(tensor({1, 8, 6, 6}));      // 5 z
    auto conv = std::make_unique<fbs::OpT>();
    conv->kind = fbs::OpKind::Convolution;
    conv->inputs = {0, 1, 2};
    conv->outputs = {3};
    conv->strides = {1, 1};
    conv->dilations = {1, 1};
    conv->pads_begin = {0, 0};
    conv->pads_end = {0, 0};
    auto relu = std::make_unique<fbs::PostOpT>();
    relu->eltwise = fbs::EltwiseKind::Relu;
    conv->post_ops.push_back(std::move(relu));
    g.ops.push_back(std::move(conv));
    auto add = std::make_unique<fbs::OpT>();
    add->kind = fbs::OpKind::Binary;
    add->binary = fbs::BinaryKind::Add;
    add->inputs = {3, 4};
    add->outputs = {5};
    g.ops.push_back(std::move(add));
    g.inputs = {0, 4};
    g.outputs = {5};
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(fbs::Graph::Pack(fbb, &g), fbs::GraphIdentifier());
    blob.assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
    constants.bytes["w"] = floats(8 * 3 * 3 * 3, 0.25f);
    constants.bytes["b"] = floats(8, -2.f);
  }
};

struct Buffers {
  std::vector<float> x = std::vector<float>(3 * 8 * 8, 1.f);
  std::vector<float> r = std::vector<float>(8 * 6 * 6, 0.5f);
  std::vector<float> z = std::vector<float>(8 * 6 * 6, -1.f);
  std::vector<uint8_t> scratch;
  std::vector<TensorView> ins() {
    return {{DType::F32, {1, 3, 8, 8}, x.data()},
            {DType::F32, {1, 8, 6, 6}, r.data()}};
  }
  std::vector<TensorView> outs(uint64_t scratchBytes) {
    scratch.assign(scratchBytes + 64, 0);
    std::vector<TensorView> o{{DType::F32, {1, 8, 6, 6}, z.data()}};
    if (scratchBytes)
      o.push_back(
          {DType::U8, {static_cast<int64_t>(scratchBytes)}, scratch.data()});
    return o;
  }
};

Result<PreparedGraph> prepare(const ConvGraph &g, bool keepPlain = false) {
  PrepareOptions options;
  options.keepPlainWeights = keepPlain;
  return prepareGraph({g.blob.data(), g.blob.size()}, g.constants, options);
}

TEST(OneDNNDelegateTest, PrepareInitExecuteDestroy) {
  Backend &backend = onednn::getBackend();
  ASSERT_TRUE(backend.isAvailable());
  EXPECT_EQ(backend.name(), "onednn");
  ConvGraph g;
  Result<PreparedGraph> prepared = prepare(g);
  ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
  // The weights are stored packed only; the bias plain.
  EXPECT_EQ(prepared->namedData.count("w"), 0u);
  EXPECT_EQ(prepared->namedData.count("w.packed"), 1u);
  EXPECT_EQ(prepared->namedData.count("b"), 1u);

  MapData named;
  named.bytes = prepared->namedData;
  Result<DelegateHandle *> handle = backend.init(
      {prepared->blob.data(), prepared->blob.size()}, Params(), named);
  ASSERT_TRUE(handle.ok()) << handle.error().toString();
  Buffers io;
  Error error =
      backend.execute(*handle, io.ins(), io.outs(prepared->scratchBytes));
  ASSERT_TRUE(error.ok()) << error.toString();
  // relu(27 * 1 * 0.25 - 2) + 0.5 = 4.75 + 0.5.
  for (float v : io.z)
    ASSERT_FLOAT_EQ(v, 5.25f);
  // Executes again on new inputs: relu(27 * -1 * 0.25 - 2) + 0.5 = 0.5.
  std::fill(io.x.begin(), io.x.end(), -1.f);
  error = backend.execute(*handle, io.ins(), io.outs(prepared->scratchBytes));
  ASSERT_TRUE(error.ok()) << error.toString();
  for (float v : io.z)
    ASSERT_FLOAT_EQ(v, 0.5f);
  backend.destroy(*handle);
}

TEST(OneDNNDelegateTest, ExecuteRejectsWrongShapes) {
  Backend &backend = onednn::getBackend();
  ConvGraph g;
  Result<PreparedGraph> prepared = prepare(g);
  ASSERT_TRUE(prepared.ok());
  MapData named;
  named.bytes = prepared->namedData;
  Result<DelegateHandle *> handle = backend.init(
      {prepared->blob.data(), prepared->blob.size()}, Params(), named);
  ASSERT_TRUE(handle.ok());
  Buffers io;
  std::vector<TensorView> ins = io.ins();
  ins[0].shape = {1, 3, 8, 9};
  Error error = backend.execute(*handle, ins, io.outs(prepared->scratchBytes));
  EXPECT_FALSE(error.ok());
  EXPECT_NE(error.message().find("input 0 is f32[1, 3, 8, 9]"),
            std::string::npos)
      << error.message();
  error = backend.execute(*handle, io.ins(), io.outs(0));
  if (prepared->scratchBytes) {
    EXPECT_FALSE(error.ok());
  }
  backend.destroy(*handle);
}

/// The delegate side of the runtime's thread-safety contract: handles
/// initialised from one blob and one named-data map (what the methods of
/// one program share) execute concurrently on eight threads, each on its
/// own buffers, with the single-threaded results. Not run under
/// ThreadSanitizer: oneDNN runs on libgomp, whose synchronisation TSan
/// does not see without an instrumented OpenMP runtime.
TEST(OneDNNDelegateTest, HandlesOfOneBlobExecuteConcurrently) {
  constexpr int kThreads = 8, kRuns = 8;
  Backend &backend = onednn::getBackend();
  ConvGraph g;
  Result<PreparedGraph> prepared = prepare(g);
  ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
  MapData named;
  named.bytes = prepared->namedData;
  ByteSpan blob{prepared->blob.data(), prepared->blob.size()};
  uint64_t scratch = prepared->scratchBytes;
  auto fill = [](Buffers &io, int thread, int run) {
    for (size_t i = 0; i < io.x.size(); ++i)
      io.x[i] = static_cast<float>((thread * 31 + run * 7 + i) % 13) - 6.f;
    for (size_t i = 0; i < io.r.size(); ++i)
      io.r[i] = static_cast<float>((thread + run + i) % 5) * 0.5f;
  };

  std::vector<std::vector<std::vector<float>>> expected(
      kThreads, std::vector<std::vector<float>>(kRuns));
  {
    Result<DelegateHandle *> handle = backend.init(blob, Params(), named);
    ASSERT_TRUE(handle.ok()) << handle.error().toString();
    Buffers io;
    for (int t = 0; t < kThreads; ++t)
      for (int r = 0; r < kRuns; ++r) {
        fill(io, t, r);
        Error error = backend.execute(*handle, io.ins(), io.outs(scratch));
        ASSERT_TRUE(error.ok()) << error.toString();
        expected[t][r] = io.z;
      }
    backend.destroy(*handle);
  }
  ASSERT_NE(expected[0][0], expected[1][0]);

  std::vector<std::string> failures(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Result<DelegateHandle *> handle = backend.init(blob, Params(), named);
      ++ready;
      if (!handle.ok()) {
        failures[t] = "init: " + handle.error().toString();
        return;
      }
      while (ready.load() < kThreads)
        std::this_thread::yield();
      Buffers io;
      for (int r = 0; r < kRuns && failures[t].empty(); ++r) {
        fill(io, t, r);
        Error error = backend.execute(*handle, io.ins(), io.outs(scratch));
        if (!error.ok())
          failures[t] = "run " + std::to_string(r) + ": " + error.toString();
        else if (io.z != expected[t][r])
          failures[t] = "run " + std::to_string(r) +
                        ": outputs differ from the single-threaded run";
      }
      backend.destroy(*handle);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
}

TEST(OneDNNDelegateTest, BadBlobsFailAtInit) {
  Backend &backend = onednn::getBackend();
  MapData none;
  std::vector<uint8_t> junk(64, 0xab);
  Result<DelegateHandle *> handle =
      backend.init({junk.data(), junk.size()}, Params(), none);
  ASSERT_FALSE(handle.ok());
  EXPECT_NE(handle.error().message().find("identifier 'SDNN'"),
            std::string::npos);

  ConvGraph g;
  Result<PreparedGraph> prepared = prepare(g);
  ASSERT_TRUE(prepared.ok());
  std::vector<uint8_t> truncated(prepared->blob.begin(),
                                 prepared->blob.begin() +
                                     prepared->blob.size() / 2);
  handle = backend.init({truncated.data(), truncated.size()}, Params(), none);
  ASSERT_FALSE(handle.ok());
  // Named data missing: the key is named.
  handle = backend.init({prepared->blob.data(), prepared->blob.size()},
                        Params(), none);
  ASSERT_FALSE(handle.ok());
  EXPECT_NE(handle.error().message().find("w.packed"), std::string::npos)
      << handle.error().message();
}

/// ConvGraph with its batch an extent slot (slot 0, bound 4): the form a
/// partition with dynamic extents takes (docs/delegation.md, "Dynamic
/// extents").
std::vector<uint8_t> withBatchSlot(const std::vector<uint8_t> &blob) {
  fbs::GraphT g;
  fbs::GetGraph(blob.data())->UnPackTo(&g);
  for (size_t i : {0, 3, 4, 5}) {
    g.tensors[i]->dims[0] = 4;
    g.tensors[i]->dim_slots = {0, -1, -1, -1};
  }
  g.extent_bounds = {4};
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fbs::Graph::Pack(fbb, &g), fbs::GraphIdentifier());
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

/// A graph with extent slots runs at every batch the calls pass, within
/// and across the shapes its cache keeps (two here: batches come back
/// after being dropped), with the values a float loop gives; a call
/// without extents, with the wrong count or with an extent of 0 is an
/// error, never a run at some other shape.
TEST(OneDNNDelegateTest, ExtentSlotsRunEveryBatchThroughTheShapeCache) {
  Backend &backend = onednn::getBackend();
  ConvGraph g;
  g.blob = withBatchSlot(g.blob);
  Result<PreparedGraph> prepared = prepare(g);
  ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
  MapData named;
  named.bytes = prepared->namedData;
  ASSERT_TRUE(backend.config().set("shape_cache", "2").ok());
  Result<DelegateHandle *> handle = backend.init(
      {prepared->blob.data(), prepared->blob.size()}, Params(), named);
  ASSERT_TRUE(backend.config().set("shape_cache", "8").ok());
  ASSERT_TRUE(handle.ok()) << handle.error().toString();
  std::vector<uint8_t> scratch(prepared->scratchBytes + 64);
  for (int64_t batch : {1, 3, 4, 2, 1, 3, 1}) {
    // Image n is all (n + 1); the residual 0.5.
    std::vector<float> x, r(batch * 8 * 6 * 6, 0.5f),
        z(batch * 8 * 6 * 6, -7.f);
    for (int64_t n = 0; n < batch; ++n)
      x.insert(x.end(), 3 * 8 * 8, static_cast<float>(n + 1));
    std::vector<TensorView> ins{{DType::F32, {batch, 3, 8, 8}, x.data()},
                                {DType::F32, {batch, 8, 6, 6}, r.data()}};
    std::vector<TensorView> outs{{DType::F32, {batch, 8, 6, 6}, z.data()}};
    if (prepared->scratchBytes)
      outs.push_back({DType::U8,
                      {static_cast<int64_t>(prepared->scratchBytes)},
                      scratch.data()});
    Error error = backend.executeDynamic(*handle, ins, outs, {batch});
    ASSERT_TRUE(error.ok()) << "batch " << batch << ": " << error.toString();
    for (int64_t n = 0; n < batch; ++n) {
      double want = std::max(27.0 * (n + 1) * 0.25 - 2.0, 0.0) + 0.5;
      for (int64_t i = 0; i < 8 * 6 * 6; ++i)
        ASSERT_FLOAT_EQ(z[n * 8 * 6 * 6 + i], static_cast<float>(want))
            << "batch " << batch << " image " << n;
    }
    if (batch == 2) {
      // The shape the call's buffers have must be the extents': a call
      // naming batch 3 with batch-2 buffers is refused.
      error = backend.executeDynamic(*handle, ins, outs, {3});
      EXPECT_FALSE(error.ok());
      EXPECT_FALSE(backend.execute(*handle, ins, outs).ok());
      error = backend.executeDynamic(*handle, ins, outs, {2, 2});
      ASSERT_FALSE(error.ok());
      EXPECT_NE(error.message().find("2 extents, the graph has 1"),
                std::string::npos)
          << error.message();
      error = backend.executeDynamic(*handle, ins, outs, {0});
      ASSERT_FALSE(error.ok());
      EXPECT_NE(error.message().find("extent slot 0 is 0"), std::string::npos)
          << error.message();
    }
  }
  backend.destroy(*handle);
}

/// Rewrites the recorded packed layout, as if packed on another CPU.
std::vector<uint8_t> packedElsewhere(const std::vector<uint8_t> &blob) {
  fbs::GraphT g;
  fbs::GetGraph(blob.data())->UnPackTo(&g);
  for (auto &t : g.tensors)
    if (!t->packed_desc.empty())
      std::fill(t->packed_desc.begin() + 8, t->packed_desc.end(), 0x5a);
  g.isa = "avx2";
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fbs::Graph::Pack(fbb, &g), fbs::GraphIdentifier());
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

TEST(OneDNNDelegateTest, OtherCpuLayoutFailsOrRepacksByOption) {
  Backend &backend = onednn::getBackend();
  BackendConfig &config = backend.config();
  ConvGraph g;
  for (bool keepPlain : {false, true}) {
    Result<PreparedGraph> prepared = prepare(g, keepPlain);
    ASSERT_TRUE(prepared.ok());
    std::vector<uint8_t> blob = packedElsewhere(prepared->blob);
    MapData named;
    named.bytes = prepared->namedData;
    ASSERT_TRUE(config.set("repack_on_isa_mismatch", "false").ok());
    Result<DelegateHandle *> handle =
        backend.init({blob.data(), blob.size()}, Params(), named);
    ASSERT_FALSE(handle.ok());
    EXPECT_NE(handle.error().message().find("packed for avx2"),
              std::string::npos)
        << handle.error().message();

    ASSERT_TRUE(config.set("repack_on_isa_mismatch", "true").ok());
    handle = backend.init({blob.data(), blob.size()}, Params(), named);
    if (!keepPlain) {
      ASSERT_FALSE(handle.ok());
      EXPECT_NE(handle.error().message().find("keep_plain_weights"),
                std::string::npos);
      continue;
    }
    ASSERT_TRUE(handle.ok()) << handle.error().toString();
    Buffers io;
    ASSERT_TRUE(
        backend.execute(*handle, io.ins(), io.outs(prepared->scratchBytes))
            .ok());
    for (float v : io.z)
      ASSERT_FLOAT_EQ(v, 5.25f);
    backend.destroy(*handle);
  }
  ASSERT_TRUE(config.set("repack_on_isa_mismatch", "false").ok());
}

TEST(OneDNNDelegateTest, ConfigDescribesItselfAndRoundTrips) {
  BackendConfig &config = onednn::getBackend().config();
  EXPECT_NE(config.describe().find("threads"), std::string::npos);
  EXPECT_NE(config.describe().find("repack_on_isa_mismatch"),
            std::string::npos);
  ASSERT_TRUE(config.set("threads", "2").ok());
  std::string json = config.toJson();
  ASSERT_TRUE(config.set("threads", "1").ok());
  ASSERT_TRUE(config.fromJson(json).ok());
  EXPECT_EQ(*config.get("threads"), "2");
  EXPECT_FALSE(config.set("threads", "\"many\"").ok());
  ASSERT_TRUE(config.set("threads", "1").ok());
}

TEST(OneDNNDelegateTest, RegistersByExplicitCall) {
  BackendRegistry registry;
  EXPECT_EQ(registry.lookup("onednn"), nullptr);
  ASSERT_TRUE(onednn::registerBackend(registry).ok());
  EXPECT_EQ(registry.lookup("onednn"), &onednn::getBackend());
  EXPECT_FALSE(onednn::registerBackend(registry).ok());
}

} // namespace
