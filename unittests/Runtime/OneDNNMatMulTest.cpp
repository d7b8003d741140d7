//===- OneDNNMatMulTest.cpp - the oneDNN delegate's matrix products -------===//
//
// A product with constant weights whose rows are a multiple of 64 floats
// long: where oneDNN keeps such weights row-major, prepare pads each row
// (the sgemm's packing otherwise reads rows that share L1 sets), and the
// result still equals a double-precision product worked out here.
//
//===----------------------------------------------------------------------===//
#include "OneDNNGraphSupport.h"
#include "OneDNNTestSupport.h"

#include "strata/Runtime/Delegates/OneDNN.h"
#include "strata/Runtime/Delegates/Schema/onednn_graph_generated.h"

#include <dnnl.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace strata::runtime;
namespace fbs = strata::onednn::fb;
using strata::runtime::testing::MapData;
using strata::runtime::testing::tensor;

namespace {

constexpr int64_t kRows = 40, kDepth = 96, kColumns = 128;

/// y[40,128] = x[40,96] * w[96,128], w constant.
std::vector<uint8_t> matMulBlob() {
  fbs::GraphT g;
  g.tensors.push_back(tensor({kRows, kDepth}));         // 0 x
  g.tensors.push_back(tensor({kDepth, kColumns}, "w")); // 1 w
  g.tensors.push_back(tensor({kRows, kColumns}));       // 2 y
  auto mm = std::make_unique<fbs::OpT>();
  mm->kind = fbs::OpKind::MatMul;
  mm->inputs = {0, 1};
  mm->outputs = {2};
  g.ops.push_back(std::move(mm));
  g.inputs = {0};
  g.outputs = {2};
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fbs::Graph::Pack(fbb, &g), fbs::GraphIdentifier());
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

TEST(OneDNNMatMulTest, RowMajorWeightsArePaddedAndExact) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  std::vector<float> x(kRows * kDepth), w(kDepth * kColumns);
  for (float &v : x)
    v = normal(rng);
  for (float &v : w)
    v = normal(rng);
  MapData constants;
  constants.bytes["w"].resize(w.size() * sizeof(float));
  std::memcpy(constants.bytes["w"].data(), w.data(),
              constants.bytes["w"].size());
  std::vector<uint8_t> blob = matMulBlob();
  Result<onednn::PreparedGraph> prepared = onednn::prepareGraph(
      {blob.data(), blob.size()}, constants, onednn::PrepareOptions());
  ASSERT_TRUE(prepared.ok()) << prepared.error().toString();

  // The layout prepare recorded for the weights: blocked (AVX-512's brgemm)
  // or row-major with padded rows, never rows 128 floats apart.
  const fbs::Graph *graph = fbs::GetGraph(prepared->blob.data());
  const fbs::Tensor *weights = graph->tensors()->Get(1);
  ASSERT_TRUE(weights->packed_desc());
  ASSERT_EQ(weights->packed_desc()->size(), sizeof(dnnl_memory_desc_t));
  dnnl_memory_desc_t desc;
  std::memcpy(&desc, weights->packed_desc()->data(), sizeof(desc));
  ASSERT_EQ(desc.format_kind, dnnl_blocked);
  if (desc.format_desc.blocking.inner_nblks == 0 &&
      desc.format_desc.blocking.strides[1] == 1) {
    EXPECT_EQ(desc.format_desc.blocking.strides[0], kColumns + 16);
    EXPECT_EQ(prepared->namedData.at("w.packed").size(),
              sizeof(float) * kDepth * (kColumns + 16));
  }

  Backend &backend = onednn::getBackend();
  MapData named;
  named.bytes = prepared->namedData;
  Result<DelegateHandle *> handle = backend.init(
      {prepared->blob.data(), prepared->blob.size()}, Params(), named);
  ASSERT_TRUE(handle.ok()) << handle.error().toString();
  std::vector<float> y(kRows * kColumns, -1.f);
  std::vector<uint8_t> scratch(prepared->scratchBytes + 64);
  std::vector<TensorView> outs{{DType::F32, {kRows, kColumns}, y.data()}};
  if (prepared->scratchBytes)
    outs.push_back({DType::U8,
                    {static_cast<int64_t>(prepared->scratchBytes)},
                    scratch.data()});
  Error error =
      backend.execute(*handle, {{DType::F32, {kRows, kDepth}, x.data()}}, outs);
  ASSERT_TRUE(error.ok()) << error.toString();
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kColumns; ++c) {
      double expected = 0;
      for (int64_t k = 0; k < kDepth; ++k)
        expected += double(x[r * kDepth + k]) * w[k * kColumns + c];
      ASSERT_NEAR(y[r * kColumns + c], expected,
                  1e-4 * (1 + std::abs(expected)))
          << "at (" << r << ", " << c << ")";
    }
  backend.destroy(*handle);
}

} // namespace
