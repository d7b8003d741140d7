//===- XNNPACKDelegateTest.cpp - the XNNPACK delegate's lifecycle ---------===//
//
// check (compile time) -> init -> execute -> destroy on hand-written blobs,
// expected values worked out by hand: an NCHW input through an NHWC
// convolution and back, a quantize/dequantize round trip; bad blobs and
// wrong inputs fail with errors; handles run concurrently; the config.
//
//===----------------------------------------------------------------------===//
#include "OneDNNTestSupport.h"
#include "Subgraph.h"

#include "strata/Runtime/Delegates/Schema/xnnpack_graph_generated.h"
#include "strata/Runtime/Delegates/XNNPACK.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <thread>

using namespace strata::runtime;
namespace fbs = strata::xnnpack::fb;
using strata::runtime::testing::floats;
using strata::runtime::testing::MapData;

namespace {

std::unique_ptr<fbs::TensorT> tensor(std::vector<int64_t> dims,
                                     std::string key = "", bool nchw = false) {
  auto t = std::make_unique<fbs::TensorT>();
  t->dims = std::move(dims);
  t->constant_key = std::move(key);
  t->nchw = nchw;
  return t;
}

std::vector<uint8_t> pack(fbs::GraphT &g) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fbs::Graph::Pack(fbb, &g), fbs::GraphIdentifier());
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

/// x[1,3,8,8] (NCHW outside) -> conv 3x3, 8 channels, weights 0.25, bias
/// -2, ReLU as the clamp -> y[1,8,6,6] (NCHW outside).
struct ConvGraph {
  fbs::GraphT graph;
  MapData constants;
  ConvGraph() {
    graph.tensors.push_back(tensor({1, 8, 8, 3}, "", true)); // 0 x (NHWC)
    graph.tensors.push_back(tensor({8, 3, 3, 3}, "w"));      // 1 w (OHWI)
    graph.tensors.push_back(tensor({8}, "b"));               // 2 b
    graph.tensors.push_back(tensor({1, 6, 6, 8}, "", true)); // 3 y (NHWC)
    auto conv = std::make_unique<fbs::NodeT>();
    conv->kind = fbs::NodeKind::Convolution;
    conv->inputs = {0, 1, 2};
    conv->outputs = {3};
    conv->pads = {0, 0, 0, 0};
    conv->kernel = {3, 3};
    conv->strides = {1, 1};
    conv->dilations = {1, 1};
    conv->groups = 1;
    conv->group_input_channels = 3;
    conv->group_output_channels = 8;
    conv->output_min = 0;
    conv->node_names = {"conv"};
    graph.nodes.push_back(std::move(conv));
    graph.inputs = {0};
    graph.outputs = {3};
    constants.bytes["w"] = floats(8 * 27, 0.25f);
    constants.bytes["b"] = floats(8, -2.f);
  }
  std::vector<uint8_t> blob() { return pack(graph); }
};

/// x[0, c, h, w] = h: each output pixel of row oh sums 27 inputs of rows
/// oh..oh+2, 0.25 * 9 * (3 oh + 3) - 2 = 6.75 oh + 4.75, in every channel.
std::vector<float> rowsInput() {
  std::vector<float> x(3 * 8 * 8);
  for (int c = 0; c < 3; ++c)
    for (int h = 0; h < 8; ++h)
      for (int w = 0; w < 8; ++w)
        x[(c * 8 + h) * 8 + w] = static_cast<float>(h);
  return x;
}

Error run(Backend &backend, DelegateHandle *handle, std::vector<float> &x,
          std::vector<float> &y) {
  return backend.execute(handle, {TensorView{DType::F32, {1, 3, 8, 8}, x.data()}},
                         {TensorView{DType::F32, {1, 8, 6, 6}, y.data()}});
}

void expectRows(const std::vector<float> &y) {
  for (int o = 0; o < 8; ++o)
    for (int oh = 0; oh < 6; ++oh)
      for (int ow = 0; ow < 6; ++ow)
        ASSERT_FLOAT_EQ(y[(o * 6 + oh) * 6 + ow], 6.75f * oh + 4.75f)
            << "channel " << o << " row " << oh << " column " << ow;
}

/// Tests that run graphs on the delegate: skipped where XNNPACK does not
/// initialise.
class XNNPACKDelegateTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!backend.isAvailable())
      GTEST_SKIP() << "XNNPACK does not initialise here";
  }

  Backend &backend = xnnpack::getBackend();
};

TEST_F(XNNPACKDelegateTest, CheckInitExecuteDestroy) {
  ConvGraph graph;
  std::vector<uint8_t> blob = graph.blob();
  ASSERT_TRUE(xnnpack::checkGraph({blob.data(), blob.size()}, graph.constants)
                  .ok());
  Result<DelegateHandle *> handle =
      backend.init({blob.data(), blob.size()}, Params(), graph.constants);
  ASSERT_TRUE(handle.ok()) << handle.error().toString();
  std::vector<float> x = rowsInput(), y(8 * 36, -1.f);
  ASSERT_TRUE(run(backend, *handle, x, y).ok());
  expectRows(y);
  // Again, with the input changed: execute reads it anew.
  std::fill(x.begin(), x.end(), 1.f);
  ASSERT_TRUE(run(backend, *handle, x, y).ok());
  EXPECT_FLOAT_EQ(y[0], 27 * 0.25f - 2);
  backend.destroy(*handle);
  EXPECT_NE(xnnpack::describeGraph({blob.data(), blob.size()})
                .find("node 0 Convolution -> 1x6x6x8 clamp [0.000000, inf]  "
                      "[conv]"),
            std::string::npos);
}

TEST_F(XNNPACKDelegateTest, ExecuteRejectsWrongInputs) {
  ConvGraph graph;
  std::vector<uint8_t> blob = graph.blob();
  Result<DelegateHandle *> handle =
      backend.init({blob.data(), blob.size()}, Params(), graph.constants);
  ASSERT_TRUE(handle.ok());
  std::vector<float> x(3 * 64), y(8 * 36);
  // NHWC dims are the blob's, not the caller's.
  Error e = backend.execute(*handle,
                            {TensorView{DType::F32, {1, 8, 8, 3}, x.data()}},
                            {TensorView{DType::F32, {1, 8, 6, 6}, y.data()}});
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  e = backend.execute(*handle, {TensorView{DType::I8, {1, 3, 8, 8}, x.data()}},
                      {TensorView{DType::F32, {1, 8, 6, 6}, y.data()}});
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  e = backend.execute(*handle, {}, {TensorView{DType::F32, {1, 8, 6, 6},
                                               y.data()}});
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(e.message().find("takes 1 inputs and 1 outputs"),
            std::string::npos);
  backend.destroy(*handle);
}

TEST_F(XNNPACKDelegateTest, BadBlobsFailAtInit) {
  auto initFails = [&](std::vector<uint8_t> blob, const MapData &constants,
                       const std::string &says) {
    Result<DelegateHandle *> handle =
        backend.init({blob.data(), blob.size()}, Params(), constants);
    ASSERT_FALSE(handle.ok()) << says;
    EXPECT_NE(handle.error().message().find(says), std::string::npos)
        << handle.error().message();
  };
  ConvGraph good;
  std::vector<uint8_t> blob = good.blob();
  initFails({}, good.constants, "not an XNNPACK graph");
  initFails(std::vector<uint8_t>(blob.begin(), blob.begin() + blob.size() / 2),
            good.constants, "does not verify");
  std::vector<uint8_t> other = blob;
  other[4] = 'X'; // the identifier
  initFails(other, good.constants, "identifier 'SXNN'");
  {
    ConvGraph g;
    g.graph.nodes[0]->inputs[1] = 99;
    initFails(g.blob(), g.constants, "tensor index 99 out of range");
  }
  {
    ConvGraph g;
    g.constants.bytes.erase("w");
    initFails(g.blob(), g.constants, "'w'");
  }
  {
    ConvGraph g;
    g.constants.bytes["b"] = floats(7, 0.f);
    initFails(g.blob(), g.constants, "constant 'b' has 28 bytes");
  }
  {
    ConvGraph g;
    g.graph.nodes[0]->kind = static_cast<fbs::NodeKind>(200);
    initFails(g.blob(), g.constants, "unknown node kind");
  }
  {
    ConvGraph g;
    g.graph.nodes[0]->group_input_channels = 5; // not the input's 3
    initFails(g.blob(), g.constants,
              "node 0 (Convolution: conv): input [1, 8, 8, 3] and filter "
              "[8, 3, 3, 3] do not match the node's groups and channels");
  }
  {
    ConvGraph g; // an output larger than the window gives
    g.graph.tensors[3]->dims = {1, 7, 7, 8};
    initFails(g.blob(), g.constants, "output [1, 7, 7, 8], the window gives "
                                     "[1, 6, 6, 8]");
  }
  {
    ConvGraph g; // a node that writes a constant
    g.graph.nodes[0]->outputs = {1};
    initFails(g.blob(), g.constants, "writes tensor 1, a constant");
  }
  {
    ConvGraph g;
    g.graph.outputs = {0};
    initFails(g.blob(), g.constants, "bad or repeated tensor");
  }
}

TEST_F(XNNPACKDelegateTest, QuantizeDequantizeRoundTrip) {
  fbs::GraphT g;
  g.tensors.push_back(tensor({4}));
  g.tensors.push_back(tensor({4}));
  g.tensors.back()->dtype = fbs::DataType::QS8;
  g.tensors.back()->scale = 0.5f;
  g.tensors.push_back(tensor({4}));
  for (auto [in, out] : {std::pair{0u, 1u}, std::pair{1u, 2u}}) {
    auto node = std::make_unique<fbs::NodeT>();
    node->kind = fbs::NodeKind::Convert;
    node->inputs = {in};
    node->outputs = {out};
    g.nodes.push_back(std::move(node));
  }
  g.inputs = {0};
  g.outputs = {2};
  std::vector<uint8_t> blob = pack(g);
  MapData none;
  Result<DelegateHandle *> handle =
      backend.init({blob.data(), blob.size()}, Params(), none);
  ASSERT_TRUE(handle.ok()) << handle.error().toString();
  // round(x / 0.5) saturated to [-128, 127], times 0.5.
  std::vector<float> x{0.2f, 0.74f, -3.3f, 100.f}, y(4);
  ASSERT_TRUE(backend
                  .execute(*handle, {TensorView{DType::F32, {4}, x.data()}},
                           {TensorView{DType::F32, {4}, y.data()}})
                  .ok());
  EXPECT_EQ(y, (std::vector<float>{0.f, 0.5f, -3.5f, 63.5f}));
  backend.destroy(*handle);
}

TEST_F(XNNPACKDelegateTest, HandlesOfOneBlobExecuteConcurrently) {
  ConvGraph graph;
  std::vector<uint8_t> blob = graph.blob();
  std::vector<DelegateHandle *> handles;
  for (int i = 0; i < 2; ++i) {
    Result<DelegateHandle *> h =
        backend.init({blob.data(), blob.size()}, Params(), graph.constants);
    ASSERT_TRUE(h.ok());
    handles.push_back(*h);
  }
  std::vector<std::thread> threads;
  std::vector<int> failures(2, 0);
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      std::vector<float> x = rowsInput(), y(8 * 36);
      for (int i = 0; i < 50; ++i) {
        if (!run(backend, handles[t], x, y).ok() ||
            y[6 * 5] != 6.75f * 5 + 4.75f)
          ++failures[t];
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures, (std::vector<int>{0, 0}));
  for (DelegateHandle *h : handles)
    backend.destroy(h);
}

// Every partition of one thread count shares one pool: pools of their own
// leave their workers spinning against each other between partitions.
TEST(XNNPACKThreadsTest, PartitionsShareOneThreadPool) {
  Result<xnnpack::ThreadPool> one = xnnpack::sharedThreadPool(1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->get(), nullptr);
  Result<xnnpack::ThreadPool> a = xnnpack::sharedThreadPool(2);
  Result<xnnpack::ThreadPool> b = xnnpack::sharedThreadPool(2);
  Result<xnnpack::ThreadPool> c = xnnpack::sharedThreadPool(3);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_NE(a->get(), nullptr);
  EXPECT_EQ(a->get(), b->get());
  EXPECT_NE(a->get(), c->get());
}

TEST(XNNPACKThreadsTest, ThreadsOptionAndRegistration) {
  Backend &backend = xnnpack::getBackend();
  EXPECT_EQ(backend.name(), "xnnpack");
  ASSERT_NE(backend.config().get("threads"), nullptr);
  EXPECT_TRUE(backend.config().set("threads", "2").ok());
  if (backend.isAvailable()) {
    ConvGraph graph;
    std::vector<uint8_t> blob = graph.blob();
    Result<DelegateHandle *> handle =
        backend.init({blob.data(), blob.size()}, Params(), graph.constants);
    ASSERT_TRUE(handle.ok());
    std::vector<float> x = rowsInput(), y(8 * 36);
    ASSERT_TRUE(run(backend, *handle, x, y).ok());
    expectRows(y);
    backend.destroy(*handle);
  }
  EXPECT_TRUE(backend.config().set("threads", "1").ok());
  BackendRegistry registry;
  ASSERT_TRUE(xnnpack::registerBackend(registry).ok());
  EXPECT_EQ(registry.lookup("xnnpack"), &backend);
  EXPECT_FALSE(xnnpack::registerBackend(registry).ok());
}

} // namespace
