//===- WinogradKernelTest.cpp - the oneDNN delegate's own Winograd kernel -===//
//
// The F(2x2,3x3) and F(4x4,3x3) kernels against a direct convolution written
// out here in double precision (odd sizes, a 16-wide weight panel, every
// post-op, both layouts, tile rows in blocks run by one thread or spread over
// two), and the delegate running a blob whose convolution names that kernel,
// with values worked out by hand; the in-place post-op pass against the same
// functions in double precision.
//
//===----------------------------------------------------------------------===//
#include "OneDNNTestSupport.h"
#include "Winograd.h"

#include "strata/Runtime/Delegates/OneDNN.h"
#include "strata/Runtime/Delegates/Schema/onednn_graph_generated.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace strata::runtime;
using strata::runtime::onednn::WinogradConv;
using strata::runtime::onednn::WinogradLayout;
using strata::runtime::onednn::WinogradPostOp;
using strata::runtime::onednn::WinogradTile;
using strata::runtime::testing::floats;
using strata::runtime::testing::MapData;
namespace fbs = strata::onednn::fb;

namespace {

/// Index of (c, y, x) in a C x H x W image in `layout`: nChw16c, nChw8c
/// or nhwc.
size_t indexIn(WinogradLayout layout, int64_t c, int64_t y, int64_t x,
               int64_t channels, int64_t h, int64_t w) {
  if (layout == WinogradLayout::ChannelsLast)
    return static_cast<size_t>((y * w + x) * channels + c);
  int64_t block = layout == WinogradLayout::Blocked8 ? 8 : 16;
  return static_cast<size_t>(((c / block) * h * w + y * w + x) * block +
                             c % block);
}

const char *nameOf(WinogradLayout layout) {
  switch (layout) {
  case WinogradLayout::Blocked16:
    return "nChw16c";
  case WinogradLayout::Blocked8:
    return "nChw8c";
  case WinogradLayout::ChannelsLast:
    break;
  }
  return "nhwc";
}

struct Case {
  int64_t ic, oc, h, w;
  std::vector<WinogradPostOp> postOps;
  int64_t pad = 1; ///< On every side; the output is h + 2 pad - 2 high.
};

TEST(WinogradKernelTest, MatchesDirectConvolution) {
  if (!WinogradConv::available())
    GTEST_SKIP() << "this CPU lacks AVX2 with FMA";
  WinogradPostOp relu;
  relu.slope = 0;
  WinogradPostOp leaky;
  leaky.slope = 0.1f;
  WinogradPostOp clip;
  clip.slope = 1;
  clip.low = -0.5f;
  clip.high = 0.75f;
  WinogradPostOp sum;
  sum.kind = WinogradPostOp::Kind::Sum;
  sum.scale = 0.5f;
  WinogradPostOp silu; // EfficientNet's
  silu.kind = WinogradPostOp::Kind::Swish;
  WinogradPostOp swish;
  swish.kind = WinogradPostOp::Kind::Swish;
  swish.alpha = 1.702f;
  WinogradPostOp hardSwish; // MobileNet-v3's
  hardSwish.kind = WinogradPostOp::Kind::HardSwish;
  std::vector<Case> cases = {
      {16, 16, 1, 1, {}},            // one tile, mostly padding
      {32, 48, 5, 7, {relu}},        // odd sizes; a 16-wide last panel
      {48, 32, 9, 9, {leaky, clip}}, // slope, then clip
      {64, 64, 14, 14, {sum, relu}}, // residual block: sum then ReLU
      {128, 32, 6, 3, {clip, sum}},  // sum after an activation
      {16, 32, 41, 37, {sum, relu}}, // tile rows in blocks of 6: 6, 6, 6, 3
      {16, 16, 3, 3, {}, 0},         // unpadded: one output pixel
      {32, 48, 9, 8, {relu}, 0},     // unpadded: 7x6 output, odd rows
      {16, 32, 41, 38, {sum, relu}, 0}, // unpadded, tile rows in blocks
      {48, 64, 11, 13, {silu}},         // SiLU
      {32, 16, 6, 6, {sum, swish}},     // sum, then a scaled swish
      {16, 48, 7, 5, {hardSwish}, 0},   // hard swish
      {128, 144, 20, 20, {sum, relu}},  // 1.2 MB of weights, yet in blocks
  };
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  for (WinogradTile tile : {WinogradTile::F2x2, WinogradTile::F4x4})
    for (int threads : {1, 2})
      for (WinogradLayout layout :
           {WinogradLayout::Blocked16, WinogradLayout::ChannelsLast,
            WinogradLayout::Blocked8})
        for (const Case &c : cases) {
          SCOPED_TRACE(
              std::string(tile == WinogradTile::F4x4 ? "F(4x4,3x3), "
                                                     : "F(2x2,3x3), ") +
              std::to_string(threads) + " threads, " +
              std::string(nameOf(layout)) + " ic " + std::to_string(c.ic) +
              " oc " + std::to_string(c.oc) + " " + std::to_string(c.h) + "x" +
              std::to_string(c.w) + " pad " + std::to_string(c.pad));
          int64_t oh = c.h + 2 * c.pad - 2, ow = c.w + 2 * c.pad - 2;
          std::vector<float> x(c.ic * c.h * c.w), k(c.oc * c.ic * 9), b(c.oc),
              prior(c.oc * oh * ow);
          for (float &v : x)
            v = normal(rng);
          for (float &v : k)
            v = normal(rng) / std::sqrt(9.f * c.ic);
          for (float &v : b)
            v = normal(rng) * 0.1f;
          for (float &v : prior)
            v = normal(rng);
          std::vector<float> xb(x.size()), dst(prior.size());
          for (int64_t ch = 0; ch < c.ic; ++ch)
            for (int64_t y = 0; y < c.h; ++y)
              for (int64_t xx = 0; xx < c.w; ++xx)
                xb[indexIn(layout, ch, y, xx, c.ic, c.h, c.w)] =
                    x[(ch * c.h + y) * c.w + xx];
          for (int64_t o = 0; o < c.oc; ++o)
            for (int64_t y = 0; y < oh; ++y)
              for (int64_t xx = 0; xx < ow; ++xx)
                dst[indexIn(layout, o, y, xx, c.oc, oh, ow)] =
                    prior[(o * oh + y) * ow + xx];

          ASSERT_TRUE(WinogradConv::supports(c.ic, c.oc, c.h, c.w, c.pad));
          WinogradConv conv(c.ic, c.oc, c.h, c.w, layout, c.postOps, threads,
                            c.pad, tile);
          std::vector<float> packed(conv.packedBytes() / sizeof(float));
          conv.packWeights(k.data(), packed.data());
          std::vector<uint8_t> scratch(conv.scratchBytes());
          conv.run(xb.data(), packed.data(), b.data(), dst.data(),
                   scratch.data());

          double err = 0, norm = 0;
          for (int64_t o = 0; o < c.oc; ++o)
            for (int64_t y = 0; y < oh; ++y)
              for (int64_t xx = 0; xx < ow; ++xx) {
                double v = b[o];
                for (int64_t i = 0; i < c.ic; ++i)
                  for (int64_t ky = 0; ky < 3; ++ky)
                    for (int64_t kx = 0; kx < 3; ++kx) {
                      int64_t yy = y + ky - c.pad, xi = xx + kx - c.pad;
                      if (yy >= 0 && yy < c.h && xi >= 0 && xi < c.w)
                        v += double(x[(i * c.h + yy) * c.w + xi]) *
                             k[((o * c.ic + i) * 3 + ky) * 3 + kx];
                    }
                for (const WinogradPostOp &p : c.postOps) {
                  switch (p.kind) {
                  case WinogradPostOp::Kind::Sum:
                    v += p.scale * prior[(o * oh + y) * ow + xx];
                    break;
                  case WinogradPostOp::Kind::Swish:
                    v /= 1 + std::exp(-double(p.alpha) * v);
                    break;
                  case WinogradPostOp::Kind::HardSwish:
                    v *= std::clamp(v / 6 + 0.5, 0.0, 1.0);
                    break;
                  case WinogradPostOp::Kind::Clip:
                    v = std::min<double>(
                        std::max<double>(std::max(v, v * p.slope), p.low),
                        p.high);
                    break;
                  }
                }
                double got = dst[indexIn(layout, o, y, xx, c.oc, oh, ow)];
                ASSERT_NEAR(got, v, 1e-4 + 1e-4 * std::abs(v))
                    << "channel " << o << " at (" << y << ", " << xx << ")";
                err += (got - v) * (got - v);
                norm += v * v;
              }
          EXPECT_LT(std::sqrt(err / norm), 1e-5);
        }
}

// Tile rows go in blocks (all three phases per block, the weights re-read
// by each) where that costs less than taking the transformed input and
// products of the whole image out to memory and back.
TEST(WinogradKernelTest, BlocksTileRowsWhereReReadingWeightsPays) {
  struct Geometry {
    int64_t ic, oc, size;
    bool blocked;
  };
  for (Geometry g : {
           Geometry{64, 64, 56, true},    // 256 KB of weights: always
           Geometry{128, 144, 20, true},  // 1.2 MB read by 5 blocks
           Geometry{256, 256, 56, true},  // 4 MB read by 28 blocks
           Geometry{512, 512, 14, false}, // 16 MB read by 7 blocks
           Geometry{64, 64, 6, false},    // 9 tiles: one block anyway
       }) {
    SCOPED_TRACE(std::to_string(g.ic) + " -> " + std::to_string(g.oc) +
                 " on " + std::to_string(g.size) + "x" +
                 std::to_string(g.size));
    WinogradConv conv(g.ic, g.oc, g.size, g.size, WinogradLayout::Blocked8,
                      {});
    EXPECT_EQ(conv.tileRowsPerBlock() < conv.tileRows(), g.blocked);
    EXPECT_GE(conv.tileRowsPerBlock(), 1);
  }
}

// The weights come back from their transformed form (a CPU without AVX2
// runs oneDNN's convolution from them), on any CPU.
// The in-place post-op pass the delegate runs after oneDNN's convolutions
// (a trailing SiLU): every length from empty to past two 16-float vectors
// (whole vectors and a part one), alpha 1 and 1.702, inputs out to +-100
// where the exponential saturates, and a run long enough to split over
// OpenMP threads; against x / (1 + exp(-alpha x)) in double precision.
TEST(WinogradKernelTest, PostOpsInPlaceComputeSiLU) {
  if (!WinogradConv::available())
    GTEST_SKIP() << "this CPU lacks AVX2 with FMA";
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> wide(-100.f, 100.f), narrow(-6.f, 6.f);
  std::vector<size_t> counts;
  for (size_t n = 0; n <= 37; ++n)
    counts.push_back(n);
  counts.push_back(3 * 65536 + 5);
  for (float alpha : {1.f, 1.702f})
    for (size_t count : counts) {
      std::vector<float> x(count);
      for (size_t i = 0; i < count; ++i)
        x[i] = i % 4 == 0 ? wide(rng) : narrow(rng);
      std::vector<float> y = x;
      WinogradPostOp swish;
      swish.kind = WinogradPostOp::Kind::Swish;
      swish.alpha = alpha;
      strata::runtime::onednn::applyPostOpsInPlace(y.data(), count, {swish});
      for (size_t i = 0; i < count; ++i) {
        double want = x[i] / (1.0 + std::exp(-double(alpha) * x[i]));
        ASSERT_NEAR(y[i], want, 1e-6 * std::max(1.0, std::fabs(want)))
            << "x " << x[i] << ", alpha " << alpha << ", " << count
            << " floats, at " << i;
      }
    }
}

TEST(WinogradKernelTest, UnpacksWhatItPacked) {
  for (WinogradTile tile : {WinogradTile::F2x2, WinogradTile::F4x4})
    for (auto [ic, oc] : {std::pair<int64_t, int64_t>{16, 48}, {64, 32}}) {
      WinogradConv conv(ic, oc, 1, 1, WinogradLayout::ChannelsLast, {}, 1, 1,
                        tile);
      std::mt19937 rng(11);
      std::normal_distribution<float> normal;
      std::vector<float> k(oc * ic * 9), back(k.size(), 0.f);
      for (float &v : k)
        v = normal(rng);
      std::vector<float> packed(conv.packedBytes() / sizeof(float));
      conv.packWeights(k.data(), packed.data());
      conv.unpackWeights(packed.data(), back.data());
      for (size_t i = 0; i < k.size(); ++i)
        ASSERT_NEAR(back[i], k[i], 1e-6 * (std::abs(k[i]) + 1))
            << "weight " << i;
    }
}

TEST(WinogradKernelTest, RefusesWhatItCannotRun) {
  EXPECT_FALSE(WinogradConv::supports(24, 16, 7, 7)); // channels % 16
  EXPECT_FALSE(WinogradConv::supports(16, 8, 7, 7));
  EXPECT_FALSE(WinogradConv::supports(16, 16, 0, 7));
  EXPECT_TRUE(WinogradConv::supports(16, 32, 1, 1));
  EXPECT_FALSE(WinogradConv::supports(16, 16, 2, 5, 0)); // no output row
  EXPECT_TRUE(WinogradConv::supports(16, 16, 3, 3, 0));
  EXPECT_FALSE(WinogradConv::supports(16, 16, 7, 7, 2));
}

void addTensor(fbs::GraphT &g, std::vector<int64_t> dims,
               std::string key = "") {
  auto t = std::make_unique<fbs::TensorT>();
  t->dims = std::move(dims);
  t->constant_key = std::move(key);
  g.tensors.push_back(std::move(t));
}

/// A 3x3, padding 1 convolution set to the delegate's Winograd kernel, as
/// prepare would record it.
std::unique_ptr<fbs::OpT> winogradConv(std::vector<uint32_t> inputs,
                                       uint32_t output) {
  auto conv = std::make_unique<fbs::OpT>();
  conv->kind = fbs::OpKind::Convolution;
  conv->inputs = std::move(inputs);
  conv->outputs = {output};
  conv->strides = {1, 1};
  conv->dilations = {1, 1};
  conv->pads_begin = {1, 1};
  conv->pads_end = {1, 1};
  conv->conv_kernel = fbs::ConvKernel::WinogradF2x2;
  return conv;
}

std::vector<uint8_t> finished(const fbs::GraphT &g) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fbs::Graph::Pack(fbb, &g), fbs::GraphIdentifier());
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

/// x[1,16,5,5] -> conv 3x3 pad 1 (w = 0.25, b = -2) + r (sum post-op) ->
/// relu -> z, the convolution set to the delegate's Winograd kernel as
/// prepare would record it, but without the transformed weights.
std::vector<uint8_t> ownKernelBlob() {
  fbs::GraphT g;
  addTensor(g, {1, 16, 5, 5});       // 0 x
  addTensor(g, {16, 16, 3, 3}, "w"); // 1 w
  addTensor(g, {16}, "b");           // 2 b
  addTensor(g, {1, 16, 5, 5});       // 3 r
  addTensor(g, {1, 16, 5, 5});       // 4 z
  auto conv = winogradConv({0, 1, 2}, 4);
  auto sum = std::make_unique<fbs::PostOpT>();
  sum->is_sum = true;
  sum->sum_input = 3;
  conv->post_ops.push_back(std::move(sum));
  auto relu = std::make_unique<fbs::PostOpT>();
  relu->eltwise = fbs::EltwiseKind::Relu;
  conv->post_ops.push_back(std::move(relu));
  g.ops.push_back(std::move(conv));
  g.inputs = {0, 3};
  g.outputs = {4};
  g.winograd = true;
  return finished(g);
}

/// Runs `blob` on x = 1, r = 0.5 and checks z: 16 channels x (taps inside
/// the image) x 0.25 - 2 + 0.5, through ReLU: 34.5 inside, 22.5 on an edge,
/// 14.5 in a corner.
void expectResidualBlock(Backend &backend, DelegateHandle *handle,
                         uint64_t scratchBytes) {
  std::vector<float> x(16 * 25, 1.f), r(16 * 25, 0.5f), z(16 * 25, -7.f);
  std::vector<uint8_t> scratch(scratchBytes + 64);
  std::vector<TensorView> outs{{DType::F32, {1, 16, 5, 5}, z.data()}};
  if (scratchBytes)
    outs.push_back(
        {DType::U8, {static_cast<int64_t>(scratchBytes)}, scratch.data()});
  Error error = backend.execute(handle,
                                {{DType::F32, {1, 16, 5, 5}, x.data()},
                                 {DType::F32, {1, 16, 5, 5}, r.data()}},
                                outs);
  ASSERT_TRUE(error.ok()) << error.toString();
  for (int64_t c = 0; c < 16; ++c)
    for (int64_t y = 0; y < 5; ++y)
      for (int64_t xx = 0; xx < 5; ++xx) {
        int taps = (y == 0 || y == 4 ? 2 : 3) * (xx == 0 || xx == 4 ? 2 : 3);
        ASSERT_FLOAT_EQ(z[(c * 5 + y) * 5 + xx], taps * 16 * 0.25f - 1.5f)
            << "channel " << c << " at (" << y << ", " << xx << ")";
      }
}

TEST(WinogradKernelTest, DelegateRunsTheKernelNamedInTheBlob) {
  if (!WinogradConv::available())
    GTEST_SKIP() << "this CPU lacks AVX2 with FMA";
  Backend &backend = onednn::getBackend();
  BackendConfig &config = backend.config();
  std::vector<uint8_t> blob = ownKernelBlob();
  MapData named;
  named.bytes["w"] = floats(16 * 16 * 9, 0.25f);
  named.bytes["b"] = floats(16, -2.f);
  // No transformed weights: refused unless transforming at init is allowed.
  ASSERT_TRUE(config.set("repack_on_isa_mismatch", "false").ok());
  Result<DelegateHandle *> handle =
      backend.init({blob.data(), blob.size()}, Params(), named);
  ASSERT_FALSE(handle.ok());
  EXPECT_NE(handle.error().message().find("Winograd kernel"), std::string::npos)
      << handle.error().message();
  ASSERT_TRUE(config.set("repack_on_isa_mismatch", "true").ok());
  handle = backend.init({blob.data(), blob.size()}, Params(), named);
  ASSERT_TRUE(handle.ok()) << handle.error().toString();
  // The kernel's working memory is the delegate's own here (the blob
  // records none).
  expectResidualBlock(backend, *handle, 0);
  backend.destroy(*handle);
  ASSERT_TRUE(config.set("repack_on_isa_mismatch", "false").ok());

  // Prepared with Winograd allowed, whichever kernel measures fastest.
  onednn::PrepareOptions options;
  options.winograd = true;
  Result<onednn::PreparedGraph> prepared =
      onednn::prepareGraph({blob.data(), blob.size()}, named, options);
  ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
  MapData packed;
  packed.bytes = prepared->namedData;
  handle = backend.init({prepared->blob.data(), prepared->blob.size()},
                        Params(), packed);
  ASSERT_TRUE(handle.ok()) << handle.error().toString();
  expectResidualBlock(backend, *handle, prepared->scratchBytes);
  backend.destroy(*handle);
}

/// Two convolutions on the Winograd kernel (nChw16c results) concatenated
/// along channels and put through ReLU: the concat of whole channel blocks
/// is a copy of contiguous ranges. x = 1; the first convolution (w = 0.25,
/// b = -2) gives 4 * taps - 2, the second (w = 0.5, b = 1) 8 * taps + 1.
TEST(WinogradKernelTest, ConcatOfChannelBlocks) {
  if (!WinogradConv::available())
    GTEST_SKIP() << "this CPU lacks AVX2 with FMA";
  fbs::GraphT g;
  addTensor(g, {1, 16, 5, 5});        // 0 x
  addTensor(g, {16, 16, 3, 3}, "w1"); // 1
  addTensor(g, {16}, "b1");           // 2
  addTensor(g, {32, 16, 3, 3}, "w2"); // 3
  addTensor(g, {32}, "b2");           // 4
  addTensor(g, {1, 16, 5, 5});        // 5 first
  addTensor(g, {1, 32, 5, 5});        // 6 second
  addTensor(g, {1, 48, 5, 5});        // 7 concat
  addTensor(g, {1, 48, 5, 5});        // 8 relu
  g.ops.push_back(winogradConv({0, 1, 2}, 5));
  g.ops.push_back(winogradConv({0, 3, 4}, 6));
  auto concat = std::make_unique<fbs::OpT>();
  concat->kind = fbs::OpKind::Concat;
  concat->axis = 1;
  concat->inputs = {5, 6};
  concat->outputs = {7};
  g.ops.push_back(std::move(concat));
  auto relu = std::make_unique<fbs::OpT>();
  relu->kind = fbs::OpKind::Eltwise;
  relu->eltwise = fbs::EltwiseKind::Relu;
  relu->inputs = {7};
  relu->outputs = {8};
  g.ops.push_back(std::move(relu));
  g.inputs = {0};
  g.outputs = {8};
  std::vector<uint8_t> blob = finished(g);
  MapData named;
  named.bytes["w1"] = floats(16 * 16 * 9, 0.25f);
  named.bytes["b1"] = floats(16, -2.f);
  named.bytes["w2"] = floats(32 * 16 * 9, 0.5f);
  named.bytes["b2"] = floats(32, 1.f);
  Backend &backend = onednn::getBackend();
  ASSERT_TRUE(backend.config().set("repack_on_isa_mismatch", "true").ok());
  Result<DelegateHandle *> handle =
      backend.init({blob.data(), blob.size()}, Params(), named);
  ASSERT_TRUE(backend.config().set("repack_on_isa_mismatch", "false").ok());
  ASSERT_TRUE(handle.ok()) << handle.error().toString();
  std::vector<float> x(16 * 25, 1.f), z(48 * 25, -7.f);
  Error error =
      backend.execute(*handle, {{DType::F32, {1, 16, 5, 5}, x.data()}},
                      {{DType::F32, {1, 48, 5, 5}, z.data()}});
  ASSERT_TRUE(error.ok()) << error.toString();
  for (int64_t c = 0; c < 48; ++c)
    for (int64_t y = 0; y < 5; ++y)
      for (int64_t xx = 0; xx < 5; ++xx) {
        int taps = (y == 0 || y == 4 ? 2 : 3) * (xx == 0 || xx == 4 ? 2 : 3);
        float want = c < 16 ? 4.f * taps - 2.f : 8.f * taps + 1.f;
        ASSERT_FLOAT_EQ(z[(c * 5 + y) * 5 + xx], want)
            << "channel " << c << " at (" << y << ", " << xx << ")";
      }
  backend.destroy(*handle);
}

} // namespace
