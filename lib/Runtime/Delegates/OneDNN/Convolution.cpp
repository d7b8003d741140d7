//===- Convolution.cpp - convolutions and their implementation choice -----===//
//
// Prepare picks each convolution's implementation and records it; init
// recreates that one. The pick comes from a tuning record for the
// convolution's signature when one is given; else, when measuring (opt-in),
// from timing every implementation oneDNN offers (direct, and Winograd when
// allowed), each with the input in the layout oneDNN picks and in the
// layout it already has, against the delegate's own Winograd kernel,
// counting the reorders each needs; else from a fixed rule, so that the
// same graph always gives the same blob.
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <set>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace strata::runtime::onednn {

using dnnl::memory;
using tag = memory::format_tag;

/// The choice that runs the grouped kernel of `kind`.
static CompiledGraph::ConvChoice groupedChoice(const OwnGroupedKind &kind) {
  return {kind.kernel, false, false, 0, kind.name};
}

/// The grouped kernel's kinds to try, in order: the one in the layout its
/// input is placed in (`placed`; no reorder before it, and none after where
/// its readers take that layout too, as oneDNN's own choices around it
/// do), the one in the layout oneDNN would give the result (`dst`), then
/// nChw8c.
static std::vector<const OwnGroupedKind *> groupedKindsFor(const Desc &placed,
                                                           const Desc &dst) {
  std::vector<const OwnGroupedKind *> kinds;
  auto add = [&](const OwnGroupedKind *kind) {
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
      kinds.push_back(kind);
  };
  for (const Desc *desc : {&placed, &dst})
    if (*desc && desc->dims().size() == 4)
      for (const OwnGroupedKind &kind : kOwnGroupedKinds)
        if (*desc == Desc(desc->dims(), desc->data_type(), kind.layout))
          add(&kind);
  add(&kOwnGroupedKinds[0]);
  return kinds;
}

/// The grouped kernel's kind for a tuning record's implementation name, or
/// null.
static const OwnGroupedKind *groupedKindNamed(const std::string &name) {
  for (const OwnGroupedKind &kind : kOwnGroupedKinds)
    if (name == kind.name)
      return &kind;
  return nullptr;
}

/// Whether the grouped kernel replaces oneDNN's choice `first` without
/// measuring: always where oneDNN has no JIT kernel (4-channel groups run
/// as a GEMM on NCHW: 6 GFLOP/s, 7x slower), and where oneDNN's AVX2
/// kernel computes in nChw8c too (8-channel groups: 20-33 GFLOP/s, the
/// same to 2.5x slower on Zen 3; ResNeXt-50, RegNetY-400MF). Not where
/// oneDNN has an AVX-512 JIT kernel for the groups (4- and 8-channel ones
/// on Zen 5, nChw8c even among channels-last neighbours): RegNetY-400MF
/// 15.2 ms with oneDNN's, reorders around them included, 16.1 ms with the
/// own kernel in the neighbours' layout.
static bool
groupedPays(const dnnl::convolution_forward::primitive_desc &first) {
  std::string name = first.impl_info_str();
  Desc dst = first.dst_desc();
  if (name.rfind("jit", 0) != 0)
    return true;
  return name.find("avx512") == std::string::npos &&
         dst == Desc(dst.dims(), dst.data_type(), tag::aBcd8b);
}

/// The own kernel's layout for a convolution whose result oneDNN places as
/// `dst`, when the kernel has that layout.
static std::optional<WinogradLayout> ownLayoutFor(const Desc &dst) {
  Dims dims = dst.dims();
  if (dims.size() != 4 || dst.data_type() != memory::data_type::f32)
    return std::nullopt;
  for (const OwnWinogradKind &kind : kOwnWinogradKinds)
    if (dst == Desc(dims, memory::data_type::f32, tagOf(kind.layout)))
      return kind.layout;
  return std::nullopt;
}

/// The own kernel in `layout` and `tile`.
static const OwnWinogradKind &ownKind(WinogradLayout layout,
                                      WinogradTile tile) {
  for (const OwnWinogradKind &kind : kOwnWinogradKinds)
    if (kind.layout == layout && kind.tile == tile)
      return kind;
  return kOwnWinogradKinds[0];
}

/// The choice that runs the own kernel of `kind`.
static CompiledGraph::ConvChoice ownChoice(const OwnWinogradKind &kind) {
  return {kind.kernel, true, false, 0, kind.name};
}

/// The own kernel a tuning record's implementation name names.
static const OwnWinogradKind *ownKindNamed(const std::string &name) {
  for (const OwnWinogradKind &kind : kOwnWinogradKinds)
    if (name == kind.name)
      return &kind;
  return nullptr;
}

/// A trailing SiLU (swish) post-op that the delegate runs itself, in place
/// on oneDNN's result (applyPostOpsInPlace), instead of handing it to
/// oneDNN. oneDNN 2.6's AVX2 convolutions spend registers on the post-op's
/// exponential and lose their blocking. Zen 3, 1 thread: a 16 -> 96 1x1
/// convolution on 112x112 takes 0.58 ms bare and 1.94 ms with the post-op,
/// while the own pass over its 1.2 M floats takes 0.9-1.4 ms (bound by
/// memory); 24 -> 144 on 56x56 0.31 and 0.95 ms; 112 -> 672 on 14x14 0.36
/// and 0.44 ms, the pass 0.09 ms. Whole networks: EfficientNet-B0 24.4 ->
/// 21.6 ms, EfficientNet-V2-S 99.6 -> 93.1 ms. Only where the result is
/// f32 and the own vector code runs with AVX2 (measured there; AVX-512's
/// 32 registers may leave oneDNN's blocking intact).
static std::optional<WinogradPostOp>
ownTrailingSwish(const fbs::Op &op, memory::data_type dstType) {
  if (WinogradConv::isa() != WinogradIsa::Avx2 ||
      dstType != memory::data_type::f32 || !op.post_ops() ||
      op.post_ops()->size() == 0 ||
      (op.output_scales() && op.output_scales()->size() > 0))
    return std::nullopt;
  const fbs::PostOp *last = op.post_ops()->Get(op.post_ops()->size() - 1);
  if (last->is_sum() || last->eltwise() != fbs::EltwiseKind::Swish)
    return std::nullopt;
  WinogradPostOp swish;
  swish.kind = WinogradPostOp::Kind::Swish;
  swish.alpha = last->alpha();
  return swish;
}

/// Whether the own Winograd kernel pays on a 3x3 convolution with `ic`
/// input and `oc` output channels, without measuring: its transforms cost
/// in proportion to ic + oc per tile, the products it saves to ic * oc, so
/// it pays once ic * oc / (ic + oc) is large enough. Measured at 1 thread
/// against oneDNN 2.6's direct kernels (Xeon, AVX-512, channels-last;
/// `strata-run --profile`, per convolution): 16 in, 64 out (ratio 12.8)
/// loses by 20%; 32 to 128 (25.6) wins by 15%, 48 to 192 and 64 to 64-256
/// by 15-45%, 128 to 512 in by 30-50% (GoogLeNet, Inception-v3,
/// SqueezeNet, ResNet-18, VGG-11); 512 in on 7x7 ties.
///
/// In 4x4 output tiles (winogradTileFor) it does 36 products per 16
/// outputs instead of 16 per 4, and pays from half that ratio where the
/// output is at least 27x27. Measured in isolation on Zen 5 (AVX-512, 1
/// thread, channels-last) against oneDNN's brgconv: 16 to 16 on 112x112
/// (ratio 8) 251 against 284 us, 16 to 64 on 55x55 (12.8) 175 against 242,
/// 32 to 32 on 56x56 (16) 140 against 252, 64 to 64 on 28x28 112 against
/// 247; on 14x14, 16 to 64 loses (21 against 16 us), 32 to 32 ties, 64 to
/// 64 (32) wins (41 against 59).
static bool winogradPays(int64_t ic, int64_t oc, int64_t oh, int64_t ow) {
  int64_t ratio = std::min(oh, ow) >= 27 ? 12 : 24;
  return ic * oc >= ratio * (ic + oc);
}

/// The own kernel's output tile for an oh x ow result: 4x4 from 13x13 on,
/// where its tiles waste at most a fifth of their outputs on the border.
/// Against 2x2 tiles, in isolation on Zen 5 (1 thread, AVX-512 and the
/// 8-lane AVX2 build alike): 0.55-0.70 of the time from 27x27 on, 0.78-0.91
/// on 14x14 (ResNet-50's 256 channels 482 against 598 us); on 7x7 with 512
/// channels, where weights 36/16 times larger are streamed for four tiles,
/// 1.36 with AVX-512 (1.05 against 0.78 ms) and 0.91 with AVX2.
static WinogradTile winogradTileFor(int64_t oh, int64_t ow) {
  return std::min(oh, ow) >= 13 ? WinogradTile::F4x4 : WinogradTile::F2x2;
}

/// The tiles the rule would try on an ic -> oc convolution with an oh x ow
/// result, in order: 4x4 where winogradTileFor gives it and the kernel
/// pays, then 2x2 where it pays in 2x2 tiles (from ratio 24 at any size),
/// the fallback when 4x4 tiles fail the accuracy check.
static std::vector<WinogradTile> ruleTiles(int64_t ic, int64_t oc, int64_t oh,
                                           int64_t ow) {
  std::vector<WinogradTile> tiles;
  if (winogradTileFor(oh, ow) == WinogradTile::F4x4 &&
      winogradPays(ic, oc, oh, ow))
    tiles.push_back(WinogradTile::F4x4);
  if (ic * oc >= 24 * (ic + oc))
    tiles.push_back(WinogradTile::F2x2);
  return tiles;
}

static const char *tileName(WinogradTile tile) {
  return tile == WinogradTile::F4x4 ? "F(4x4,3x3)" : "F(2x2,3x3)";
}

/// Transform points per tile, against a 3x3 kernel's 9 weights.
static int64_t pointsOf(WinogradTile tile) {
  return tile == WinogradTile::F4x4 ? 36 : 16;
}

//===----------------------------------------------------------------------===//
// Where Winograd may run: accuracy check and size budget
//===----------------------------------------------------------------------===//

void GraphBuilder::noteConv(const std::string &note) {
  std::string &notes = out.convNotes_[opIndex];
  notes += (notes.empty() ? "" : "; ") + note;
}

bool GraphBuilder::winogradWithinBudget(uint32_t w, WinogradTile tile) {
  if (!WinogradConv::available() || !isConstant(w) ||
      typeOf(w) != memory::data_type::f32)
    return false;
  auto key = std::make_pair(opIndex, static_cast<int>(tile));
  auto it = winogradChecks.find(key);
  if (it == winogradChecks.end()) {
    Dims k = dimsOf(w);
    if (k.size() != 4 || k[2] != 3 || k[3] != 3 ||
        !WinogradConv::supports(k[1], k[0], 10, 10, 0))
      return false;
    Result<ByteSpan> bytes =
        named.get(graph.tensors()->Get(w)->constant_key()->str());
    size_t count = static_cast<size_t>(k[0] * k[1] * 9);
    if (!bytes.ok() || bytes->size != count * sizeof(float))
      return false;
    // A copy: the stored bytes need not be aligned for floats.
    std::vector<float> oihw(count);
    std::memcpy(oihw.data(), bytes->data, bytes->size);
    WinogradLayout layout = WinogradConv::isa() == WinogradIsa::Avx512
                                ? WinogradLayout::ChannelsLast
                                : WinogradLayout::Blocked8;
    WinogradErrors errors =
        measureWinogradErrors(k[1], k[0], oihw.data(), tile, layout);
    it = winogradChecks.emplace(key, errors).first;
    noteConv(describeWinogradErrors(tile, errors, options.winogradBudget) +
             (errors.within(options.winogradBudget) ? ", within" : ", over"));
  }
  return it->second.within(options.winogradBudget);
}

bool GraphBuilder::winogradPlanned(WinogradTile tile) const {
  auto it = winogradPlan.find(opIndex);
  if (it == winogradPlan.end())
    return false;
  return tile == WinogradTile::F2x2 ||
         tile == it->second; // 2x2 tiles take less than the planned 4x4
}

void GraphBuilder::planWinograd() {
  // The partition's constant bytes, each stored once.
  std::set<std::string> keys;
  size_t constantBytes = 0;
  for (const fbs::Tensor *t : *graph.tensors())
    if (t->constant_key() && t->constant_key()->size() &&
        keys.insert(t->constant_key()->str()).second)
      if (Result<ByteSpan> bytes = named.get(t->constant_key()->str());
          bytes.ok())
        constantBytes += bytes->size;
  struct Candidate {
    size_t op;
    int64_t pixels;    ///< of the result: the products saved per weight
    size_t plainBytes; ///< of the weights
    std::vector<WinogradTile> tiles; ///< within the accuracy budget
    uint32_t weights;
  };
  std::vector<Candidate> candidates;
  for (opIndex = 0; opIndex < graph.ops()->size(); ++opIndex) {
    const fbs::Op &op = *graph.ops()->Get(opIndex);
    if (op.kind() != fbs::OpKind::Convolution || op.exact() || !op.inputs() ||
        op.inputs()->size() < 2 || !op.outputs() || op.outputs()->size() != 1)
      continue;
    uint32_t src = op.inputs()->Get(0), w = op.inputs()->Get(1),
             dst = op.outputs()->Get(0);
    int bias = op.inputs()->size() > 2 ? int(op.inputs()->Get(2)) : -1;
    size_t tensorCount = graph.tensors()->size();
    if (src >= tensorCount || w >= tensorCount || dst >= tensorCount ||
        bias >= int(tensorCount) || !isConstant(w) ||
        !ownWinograd(op, src, w, dst, bias, WinogradLayout::ChannelsLast,
                     WinogradTile::F2x2))
      continue;
    Dims k = dimsOf(w), d = dimsOf(dst);
    std::vector<WinogradTile> tiles = ruleTiles(k[1], k[0], d[2], d[3]);
    if (tiles.empty()) {
      noteConv("direct: Winograd does not pay here (ic * oc / (ic + oc) = " +
               std::to_string(k[1] * k[0] / (k[1] + k[0])) +
               "; the rule wants 12 from 27x27 results, else 24)");
      continue;
    }
    Candidate c{opIndex,
                d[2] * d[3],
                static_cast<size_t>(k[0] * k[1] * 9) * sizeof(float),
                {},
                w};
    for (WinogradTile tile : tiles)
      if (winogradWithinBudget(w, tile))
        c.tiles.push_back(tile);
    if (c.tiles.empty())
      noteConv("direct: no Winograd tile within the accuracy budget");
    else
      candidates.push_back(std::move(c));
  }
  // The size budget goes to the convolutions with the largest results
  // first: the products a transformed weight saves grow with the pixels
  // it is applied to, its bytes do not.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate &a, const Candidate &b) {
                     return a.pixels > b.pixels;
                   });
  // The transformed weights are stored in the program (F(2x2,3x3) 16/9
  // and F(4x4,3x3) 36/9 times the plain ones): by default they may add 7%
  // of the constants, so that the program stays within 1.1x of the model
  // (oneDNN's padded weight layouts take some of the rest). Transforming
  // them at init instead would cost more than init may take
  // (docs/delegation.md).
  double budget =
      options.winogradSizeShare * static_cast<double>(constantBytes);
  std::vector<const Candidate *> atInit;
  for (const Candidate &c : candidates) {
    opIndex = c.op;
    bool placed = false;
    for (WinogradTile tile : c.tiles) {
      double extra = static_cast<double>(c.plainBytes) *
                     static_cast<double>(pointsOf(tile) - 9) / 9.0;
      if (extra <= budget) {
        budget -= extra;
        winogradPlan[c.op] = tile;
        placed = true;
        break;
      }
    }
    if (!placed)
      atInit.push_back(&c);
  }
  // Past the size budget, the transform runs at init on the plain weights
  // the program stores anyway, in 2x2 tiles (the cheaper transform, within
  // the accuracy budget wherever 4x4 is), for layers whose plain weights
  // take at most winogradInitLayerBytes and whose result has at least
  // kInitMinPixels pixels. At init the transform, with the fresh pages of
  // its copy and result, runs at about 350 MB of plain weights a second
  // (SqueezeNet's four expand layers, 1.1 MB: load + init again 0.9 to
  // 4.0 ms) where such a layer saves about 3% of a small CNN's inference;
  // the saving grows with the pixels the weights are applied to, the init
  // cost does not: a decoder's wide results (M-LSD 512-tiny's 64x64 to
  // 128x128: init unchanged, 14 ms, the JIT code of the oneDNN primitives
  // it replaces costing as much; docs/delegation.md).
  constexpr int64_t kInitMinPixels = 64 * 64;
  for (const Candidate *c : atInit) {
    opIndex = c->op;
    // (A layer the rule gave 4x4 tiles has its 2x2 check made here.)
    bool twoByTwo = std::find(c->tiles.begin(), c->tiles.end(),
                              WinogradTile::F2x2) != c->tiles.end() ||
                    winogradWithinBudget(c->weights, WinogradTile::F2x2);
    bool wide = c->pixels >= kInitMinPixels;
    if (twoByTwo && wide &&
        static_cast<double>(c->plainBytes) <= options.winogradInitLayerBytes) {
      winogradPlan[c->op] = WinogradTile::F2x2;
      winogradAtInit.insert(c->op);
    } else {
      noteConv("direct: its transformed weights are over the program's size "
               "budget" +
               std::string(!twoByTwo ? ""
                           : !wide   ? ", its result too small to transform "
                                       "them at init"
                                     : ", its plain ones over the init budget"));
    }
  }
  opIndex = 0;
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

/// Writes the lines of [data, data + bytes) back and drops them from every
/// cache level (x86; elsewhere a no-op).
static void evict(const void *data, size_t bytes) {
#if defined(__x86_64__)
  const char *p = static_cast<const char *>(data);
  for (size_t i = 0; i < bytes; i += 64)
    _mm_clflush(p + i);
  _mm_mfence();
#else
  (void)data, (void)bytes;
#endif
}

/// Best of three timed runs of `run` after one warm-up, in seconds;
/// `before` runs untimed before each.
template <typename Run, typename Before>
double GraphBuilder::bestTime(Run run, Before before) {
  double best = 1e30;
  for (int i = 0; i < 4; ++i) {
    before();
    auto start = std::chrono::steady_clock::now();
    run();
    out.stream_.wait();
    std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    if (i)
      best = std::min(best, took.count());
  }
  return best;
}

double GraphBuilder::timeOf(const dnnl::convolution_forward::primitive_desc &pd,
                            bool coldWeights) {
  std::unordered_map<int, memory> args;
  for (auto [arg, desc] : {std::pair{DNNL_ARG_SRC, pd.src_desc()},
                           {DNNL_ARG_WEIGHTS, pd.weights_desc()},
                           {DNNL_ARG_BIAS, pd.bias_desc()},
                           {DNNL_ARG_DST, pd.dst_desc()},
                           {DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc()}}) {
    memory m(desc, out.engine_);
    if (desc.get_size())
      std::memset(m.get_data_handle(), 0, desc.get_size());
    args[arg] = m;
  }
  dnnl::convolution_forward conv(pd);
  memory weights = args[DNNL_ARG_WEIGHTS];
  return bestTime([&] { conv.execute(out.stream_, args); },
                  [&] {
                    if (coldWeights)
                      evict(weights.get_data_handle(),
                            pd.weights_desc().get_size());
                  });
}

double GraphBuilder::timeOf(const WinogradConv &conv) {
  std::vector<float> src(conv.inputFloats()), dst(conv.outputFloats()),
      packed(conv.packedBytes() / sizeof(float)), bias(conv.outputChannels());
  std::vector<uint8_t> scratch(conv.scratchBytes());
  return bestTime(
      [&] {
        conv.run(src.data(), packed.data(), bias.data(), dst.data(),
                 scratch.data());
      },
      [&] { evict(packed.data(), conv.packedBytes()); });
}

double GraphBuilder::timeOf(const GroupedConv &conv) {
  std::vector<float> src(conv.inputFloats()), dst(conv.outputFloats()),
      packed(conv.weightBytes() / sizeof(float)),
      bias(static_cast<size_t>(conv.shape().channels));
  return bestTime(
      [&] { conv.run(src.data(), packed.data(), bias.data(), dst.data()); },
      [] {});
}

double GraphBuilder::reorderTime(const Desc &from, const Desc &to) {
  if (from == to)
    return 0;
  memory a(from, out.engine_), b(to, out.engine_);
  std::memset(a.get_data_handle(), 0, from.get_size());
  dnnl::reorder reorder(a, b);
  return bestTime([&] { reorder.execute(out.stream_, a, b); });
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// Appends `dims` as "AxBxC" to `os`.
static void appendDims(std::string &os, const Dims &dims) {
  for (size_t i = 0; i < dims.size(); ++i)
    os += (i ? "x" : "") + std::to_string(dims[i]);
}

std::string GraphBuilder::convSignature(const Dims &srcDims, const Dims &wDims,
                                        const Dims &dstDims, uint32_t src,
                                        uint32_t w, uint32_t dst,
                                        int64_t groups, const Window &window,
                                        const dnnl::primitive_attr &attr,
                                        int sumInput, const Desc &placed) {
  std::string s = "conv src=";
  appendDims(s, srcDims);
  s += " w=";
  appendDims(s, wDims);
  s += " dst=";
  appendDims(s, dstDims);
  s += " types=" + std::to_string(int(typeOf(src))) + "," +
       std::to_string(int(typeOf(w))) + "," + std::to_string(int(typeOf(dst)));
  s += " groups=" + std::to_string(groups) + " strides=";
  appendDims(s, window.strides);
  s += " dilations=";
  appendDims(s, window.dilations);
  s += " pads=";
  appendDims(s, window.padsBegin);
  s += ",";
  appendDims(s, window.padsEnd);
  s += " post-ops=";
  dnnl::post_ops postOps = attr.get_post_ops();
  for (int i = 0; i < postOps.len(); ++i)
    s += (i ? "," : "") + std::to_string(int(postOps.kind(i)));
  s += std::string(" sum=") + (sumInput >= 0 ? "1" : "0");
  // The input's layout as placed: its descriptor's bytes, hashed (FNV-1a).
  uint64_t hash = 1469598103934665603ull;
  if (placed)
    for (uint8_t byte : descBytes(placed))
      hash = (hash ^ byte) * 1099511628211ull;
  s += " placed=" + std::to_string(hash);
  s += std::string(" winograd=") + (graph.winograd() ? "1" : "0");
  s += " threads=" + std::to_string(options.threads) + " isa=" + hostISA() +
       " onednn=" + std::to_string(dnnl_version()->major) + "." +
       std::to_string(dnnl_version()->minor) + "." +
       std::to_string(dnnl_version()->patch);
  return s;
}

CompiledGraph::ConvChoice GraphBuilder::ruleChoice(const fbs::Op &op,
                                                   uint32_t src, uint32_t w,
                                                   uint32_t dst, int bias,
                                                   const Desc &placed,
                                                   const MakeConv &make) {
  dnnl::convolution_forward::primitive_desc first = make(false, false, 0);
  CompiledGraph::ConvChoice choice{fbs::ConvKernel::OneDNN, false, false, 0,
                                   first.impl_info_str()};
  // Reading the input as its producer left it saves a reorder, when the
  // same implementation takes that layout.
  if (placed && !(first.src_desc() == placed)) {
    try {
      dnnl::convolution_forward::primitive_desc asPlaced = make(false, true, 0);
      if (asPlaced.impl_info_str() == choice.name)
        choice.srcAsPlaced = true;
    } catch (const dnnl::error &) {
    }
  }
  // The own Winograd kernel where its rule says it pays (winogradPays),
  // in the layout oneDNN would give the result, so that its readers see
  // the layout they would have seen, in the tile winogradTileFor gives.
  // The tile the plan allows (planWinograd: the rule, the accuracy check
  // and the size budget).
  if (graph.winograd() && !op.exact()) {
    std::optional<WinogradLayout> layout = ownLayoutFor(first.dst_desc());
    auto planned = winogradPlan.find(opIndex);
    if (planned != winogradPlan.end()) {
      if (layout &&
          ownWinograd(op, src, w, dst, bias, *layout, planned->second)) {
        choice = ownChoice(ownKind(*layout, planned->second));
        noteConv(std::string("winograd ") + tileName(planned->second) +
                 (winogradAtInit.count(opIndex)
                      ? ", its weights transformed at init (over the "
                        "program's size budget)"
                      : ""));
      } else {
        noteConv("direct: oneDNN's choice leaves the result in a layout "
                 "the own kernel lacks");
      }
    }
  }
  if (GroupedConv::available() && groupedPays(first))
    for (const OwnGroupedKind *kind : groupedKindsFor(placed, first.dst_desc()))
      if (ownGrouped(op, src, w, dst, bias, *kind))
        return groupedChoice(*kind);
  return choice;
}

CompiledGraph::ConvChoice
GraphBuilder::measureConvolution(const fbs::Op &op, uint32_t src, uint32_t w,
                                 uint32_t dst, int bias, int sumInput,
                                 const Desc &placed, const MakeConv &make) {
  // A candidate's time plus the reorders of the input and of the residual
  // into the layouts it reads.
  auto withReorders = [&](double t, const Desc &srcDesc, const Desc &dstDesc) {
    if (!placements[src].empty())
      t += reorderTime(placements[src].front().desc, srcDesc);
    if (sumInput >= 0 && !placements[sumInput].empty())
      t += reorderTime(placements[sumInput].front().desc, dstDesc);
    return t;
  };
  CompiledGraph::ConvChoice best;
  double bestTime = 1e30, bestConvTime = 0; // with and without reorders
  std::vector<bool> algorithms{false};
  // oneDNN's Winograd (F(4x4,3x3)) where this layer's check of 4x4 tiles
  // passes (the own kernel's transform stands in for oneDNN's).
  if (graph.winograd() && op.groups() == 1 && !op.exact() &&
      winogradPlanned(WinogradTile::F4x4))
    algorithms.push_back(true);
  std::vector<bool> srcChoices{false};
  if (placed)
    srcChoices.push_back(true);
  for (bool winograd : algorithms)
    for (bool srcAsPlaced : srcChoices) {
      dnnl::convolution_forward::primitive_desc candidate;
      try {
        candidate = make(winograd, srcAsPlaced, 0);
      } catch (const dnnl::error &) {
        continue;
      }
      int index = 0;
      do {
        std::string name = candidate.impl_info_str();
        if (!isReference(name)) {
          double conv = timeOf(candidate);
          double t =
              withReorders(conv, candidate.src_desc(), candidate.dst_desc());
          if (t < bestTime) {
            bestTime = t, bestConvTime = conv;
            best = {fbs::ConvKernel::OneDNN, winograd, srcAsPlaced, index,
                    name};
          }
        }
        ++index;
      } while (index < 8 && candidate.next_impl());
    }
  if (best.name.empty())
    return best;
  dnnl::convolution_forward::primitive_desc oneDNN =
      make(best.winograd, best.srcAsPlaced, best.index);
  // The grouped kernel in the first layout groupedKindsFor gives (the
  // input's as placed, else that of oneDNN's choice's result, else
  // nChw8c), with the reorders into it.
  if (GroupedConv::available() && op.groups() > 1) {
    for (const OwnGroupedKind *kind :
         groupedKindsFor(placed, oneDNN.dst_desc()))
      if (std::optional<GroupedConv> grouped =
              ownGrouped(op, src, w, dst, bias, *kind)) {
        double t = withReorders(
            timeOf(*grouped),
            Desc(dimsOf(src), memory::data_type::f32, kind->layout),
            Desc(dimsOf(dst), memory::data_type::f32, kind->layout));
        if (t < bestTime)
          return groupedChoice(*kind);
        break;
      }
  }
  // The delegate's own Winograd kernel competes on the same terms, in the
  // layout oneDNN's choice gives the result: the timings see this
  // convolution alone, not what another layout costs its readers (a concat
  // in nChw16c is several times slower than in nhwc).
  if (!graph.winograd() || op.exact())
    return best;
  std::optional<WinogradLayout> layout = ownLayoutFor(oneDNN.dst_desc());
  if (!layout)
    return best;
  bool cold = false;
  for (WinogradTile tile : {WinogradTile::F2x2, WinogradTile::F4x4}) {
    std::optional<WinogradConv> own =
        ownWinograd(op, src, w, dst, bias, *layout, tile);
    if (!own || !winogradPlanned(tile))
      continue;
    // Head to head with the weights out of the cache, as in a whole network
    // whose weights exceed the last-level cache: the warm timings above
    // hide the cost of streaming them.
    if (!cold) {
      bestTime += timeOf(oneDNN, /*coldWeights=*/true) - bestConvTime;
      cold = true;
    }
    double t = withReorders(
        timeOf(*own), Desc(dimsOf(src), memory::data_type::f32, tagOf(*layout)),
        Desc(dimsOf(dst), memory::data_type::f32, tagOf(*layout)));
    if (t < bestTime) {
      bestTime = t;
      best = ownChoice(ownKind(*layout, tile));
    }
  }
  return best;
}

Result<int> GraphBuilder::sourceZeroPoint(uint32_t tensor) {
  STRATA_ASSIGN_OR_RETURN(Placement in, placement(tensor));
  bool isSigned = typeOf(tensor) == memory::data_type::s8;
  int zeroPointMem = addMem(plainOf(tensor), in.buffer);
  int wideMem = addMem(plainDesc({1}, memory::data_type::s32),
                       addBuffer(BufferKind::Scratch, sizeof(int32_t)));
  addKernelStep(
      "strata:zero_point",
      [isSigned](const std::unordered_map<int, memory> &args) {
        const void *from = args.at(DNNL_ARG_SRC).get_data_handle();
        *static_cast<int32_t *>(args.at(DNNL_ARG_DST).get_data_handle()) =
            isSigned ? *static_cast<const int8_t *>(from)
                     : *static_cast<const uint8_t *>(from);
      },
      {{DNNL_ARG_SRC, zeroPointMem}, {DNNL_ARG_DST, wideMem}}, 0);
  return wideMem;
}

/// A convolution's operands and attributes, and the layouts its primitive
/// descriptors are made with (make()), the same at prepare and at init.
struct GraphBuilder::ConvSetup {
  ConvSetup(const fbs::Op &op, const dnnl::engine &engine)
      : op(op), engine(engine) {}
  ConvSetup(const ConvSetup &) = delete;
  ConvSetup &operator=(const ConvSetup &) = delete;

  /// Sets the layouts of the input and the result: nChw16c where
  /// `blockedNow`, else left to oneDNN; a graph output's result row-major
  /// where it goes (unless a sum post-op accumulates into it).
  void setLayouts(bool blockedNow) {
    blocked = blockedNow;
    openTag = blocked ? tag::aBcd16b : tag::any;
    srcAny = Desc(srcDims, srcType,
                  blocked && srcDims[1] > 4 ? tag::aBcd16b : tag::any);
    dstAny = Desc(dstDims, dstType,
                  dstIsOutput && sumInput < 0 ? tag::abcd : openTag);
  }

  /// The primitive descriptor: Winograd or direct, the input as placed or
  /// in oneDNN's pick, moved on to its `impl`-th implementation.
  dnnl::convolution_forward::primitive_desc make(bool winograd,
                                                 bool srcAsPlaced, int impl) {
    auto build = [&](const Desc &dstDesc) {
      const dnnl::convolution_forward::desc &d = descs.emplace_back(
          dnnl::prop_kind::forward_inference,
          winograd ? dnnl::algorithm::convolution_winograd
                   : dnnl::algorithm::convolution_direct,
          srcAsPlaced && placed ? placed : srcAny, wAny, biasDesc, dstDesc,
          window.strides, window.dilations, window.padsBegin, window.padsEnd);
      return dnnl::convolution_forward::primitive_desc(d, attr, engine);
    };
    bool openDst = dstAny.data.format_kind == dnnl_format_kind_any;
    if (srcAsPlaced && placedChannelsLast && openDst && !winograd) {
      std::optional<dnnl::convolution_forward::primitive_desc> open;
      try {
        open = build(dstAny);
      } catch (const dnnl::error &) {
      }
      if (!open || isReference(open->impl_info_str()))
        open = build(channelsLastDst);
      seekImpl(*open, impl);
      return *open;
    }
    dnnl::convolution_forward::primitive_desc pd = build(dstAny);
    seekImpl(pd, impl);
    return pd;
  }

  /// make() as the choosers take it.
  MakeConv maker() {
    return [this](bool winograd, bool srcAsPlaced, int impl) {
      return make(winograd, srcAsPlaced, impl);
    };
  }

  const fbs::Op &op;
  const dnnl::engine &engine;
  uint32_t src = 0, w = 0, dst = 0;
  int bias = -1;
  Dims srcDims, wDims, dstDims;
  /// The weights' dims as oneDNN sees them: {G, OC/G, IC/G, KH, KW} for a
  /// grouped convolution.
  Dims wPlain;
  dnnl::memory::data_type srcType = memory::data_type::undef,
                          dstType = memory::data_type::undef;
  bool dstIsOutput = false;
  int64_t groups = 1;
  Window window;
  /// The tensor a sum post-op accumulates into, or -1.
  int sumInput = -1;
  /// The 8-bit input's zero point tensor, or -1.
  int zeroPoint = -1;
  std::optional<WinogradPostOp> ownSwish;
  dnnl::primitive_attr attr;
  // int8: s8/u8 input and weights, s8/u8/f32 result, output scales. In a
  // channel-blocked graph, f32 activations are nChw16c (a stem's input of
  // at most four channels is read as it is).
  bool blocked = false;
  tag openTag = tag::any;
  Desc srcAny, dstAny, wAny, biasDesc;
  // The layout the input already has (its producer's, or row-major for a
  // graph input), which oneDNN might not pick itself: reading it as it is
  // saves a reorder (a stem with three channels, a direct convolution
  // after Winograd ones in nChw16c).
  Desc placed;
  // oneDNN 2.x's primitive descriptors keep a pointer to the op
  // descriptor they were made from and read it again on next_impl(): the
  // op descriptors live here, as long as every primitive descriptor.
  std::deque<dnnl::convolution_forward::desc> descs;
  // Read as placed, the result goes where oneDNN puts it; when oneDNN has
  // only its reference kernel for a channels-last input with the result's
  // layout left open (grouped convolutions in 2.6), the result is
  // channels-last too, which its JIT kernels take.
  Desc channelsLastDst;
  bool placedChannelsLast = false;
};

Error GraphBuilder::setUpConvolution(ConvSetup &conv) {
  const fbs::Op &op = conv.op;
  STRATA_RETURN_IF_ERROR(operands(op, {&conv.src, &conv.w}, conv.dst));
  STRATA_ASSIGN_OR_RETURN(conv.bias, optionalInput(op, 2));
  uint32_t src = conv.src, dst = conv.dst;
  conv.srcDims = dimsOf(src);
  conv.wDims = dimsOf(conv.w);
  conv.dstDims = dimsOf(dst);
  const Dims &wDims = conv.wDims;
  if (conv.srcDims.size() != 4 || wDims.size() != 4 || conv.dstDims.size() != 4)
    return fail("convolution needs 4-D tensors");
  conv.groups = op.groups();
  if (conv.groups < 1 || wDims[0] % conv.groups)
    return fail("bad group count");
  conv.wPlain = wDims;
  if (conv.groups > 1)
    conv.wPlain = {conv.groups, wDims[0] / conv.groups, wDims[1], wDims[2],
                   wDims[3]};
  conv.window = windowOf(op);
  conv.srcType = typeOf(src);
  conv.dstType = typeOf(dst);
  conv.dstIsOutput = isOutput(dst);
  conv.ownSwish = ownTrailingSwish(op, conv.dstType);
  STRATA_ASSIGN_OR_RETURN(conv.attr,
                          attrOf(op, &conv.sumInput, conv.ownSwish ? 1 : 0));
  int zeroPoint = conv.zeroPoint = op.src_zero_point();
  if (zeroPoint >= 0) {
    if (static_cast<size_t>(zeroPoint) >= placements.size() ||
        numElementsOf(zeroPoint) != 1 || typeOf(zeroPoint) != conv.srcType ||
        conv.srcType == memory::data_type::f32)
      return fail("the source zero point (tensor " + std::to_string(zeroPoint) +
                  ") must be one value of the 8-bit input's type");
    conv.attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  }
  conv.setLayouts(channelBlocked && conv.srcType == memory::data_type::f32 &&
                  conv.dstType == memory::data_type::f32);
  conv.wAny = Desc(conv.wPlain, typeOf(conv.w), tag::any);
  STRATA_RETURN_IF_ERROR(
      setOutputScales(op, wDims[0], 1, "output channel", conv.attr));
  conv.biasDesc = conv.bias >= 0 ? plainDesc({wDims[0]}) : Desc();
  if (!placements[src].empty())
    conv.placed = placements[src].front().desc;
  conv.channelsLastDst = Desc(conv.dstDims, conv.dstType, tag::acdb);
  conv.placedChannelsLast =
      conv.placed &&
      conv.placed == Desc(conv.srcDims, conv.placed.data_type(), tag::acdb);
  settleConvLayouts(conv);
  return Error::success();
}

void GraphBuilder::settleConvLayouts(ConvSetup &conv) {
  // In a channel-blocked graph, a convolution oneDNN has only its
  // reference kernel for in nChw16c (a dense one over 8 channels, padded
  // to a block) takes the layouts oneDNN picks instead.
  if (conv.blocked) {
    bool referenceOnly = true;
    try {
      referenceOnly = isReference(conv.make(false, false, 0).impl_info_str());
    } catch (const dnnl::error &) {
    }
    if (referenceOnly)
      conv.setLayouts(false);
  }
  // A result the graph returns is written row-major where it goes, unless
  // oneDNN has only a slow kernel for that: its reference one (int8 into
  // nchw, 200x slower) or, for anything but a 1x1 convolution without
  // element-wise post-ops, its im2col + sgemm one (gemm:jit: 10-25x slower
  // than the direct kernels on depthwise and dilated convolutions, and it
  // applies post-ops such as SiLU element by element). Then the result is
  // computed in the layout oneDNN picks and the final copy reorders it.
  // Decided the same way at prepare and at init.
  if (conv.dstIsOutput && conv.sumInput < 0) {
    bool slowInPlace = true;
    try {
      std::string name = conv.make(false, false, 0).impl_info_str();
      const Dims &wDims = conv.wDims;
      bool pointwise = wDims[2] == 1 && wDims[3] == 1 && conv.groups == 1 &&
                       !(conv.op.post_ops() && conv.op.post_ops()->size() > 0);
      slowInPlace = isReference(name) ||
                    (name.find("gemm") != std::string::npos && !pointwise);
    } catch (const dnnl::error &) {
    }
    if (slowInPlace)
      conv.dstAny = Desc(conv.dstDims, conv.dstType, conv.openTag);
  }
}

std::optional<CompiledGraph::ConvChoice>
GraphBuilder::recordedConvChoice(const std::string &signature) {
  if (!options.tuning)
    return std::nullopt;
  auto record = options.tuning->find(signature);
  if (record == options.tuning->end())
    return std::nullopt;
  const TunedConvolution &r = record->second;
  const OwnWinogradKind *named = ownKindNamed(r.impl);
  std::optional<CompiledGraph::ConvChoice> best;
  if (r.ownWinograd)
    best = ownChoice(
        named ? *named
              : ownKind(WinogradLayout::Blocked16, WinogradTile::F2x2));
  else if (const OwnGroupedKind *kind = groupedKindNamed(r.impl))
    best = groupedChoice(*kind);
  else
    best = {fbs::ConvKernel::OneDNN, r.winograd, r.srcAsPlaced, r.index,
            r.impl};
  ++out.tunedFromRecords_;
  return best;
}

CompiledGraph::ConvChoice GraphBuilder::preparedConvChoice(ConvSetup &conv) {
  const fbs::Op &op = conv.op;
  std::string signature = convSignature(
      conv.srcDims, conv.wDims, conv.dstDims, conv.src, conv.w, conv.dst,
      conv.groups, conv.window, conv.attr, conv.sumInput, conv.placed);
  if (conv.blocked)
    signature += " activations=nChw16c";
  std::optional<CompiledGraph::ConvChoice> best = recordedConvChoice(signature);
  // A record is per signature, not per weights: a Winograd it names must
  // pass this layer's accuracy check too, else the rule decides.
  if (best) {
    const OwnWinogradKind *kind = ownWinogradKindOf(best->kernel);
    if ((kind && !winogradPlanned(kind->tile)) ||
        (!kind && best->winograd && !winogradPlanned(WinogradTile::F4x4))) {
      noteConv("the tuning record's Winograd is over this layer's accuracy "
               "or the program's size budget");
      best.reset();
    }
  }
  if (!best && options.measure && !readsRunTimeArgs(op)) {
    best = measureConvolution(op, conv.src, conv.w, conv.dst, conv.bias,
                              conv.sumInput, conv.placed, conv.maker());
    ++out.tunedByMeasuring_;
    if (options.tuning)
      (*options.tuning)[signature] = {
          ownWinogradKindOf(best->kernel) != nullptr, best->winograd,
          best->srcAsPlaced, best->index, best->name};
  }
  if (!best)
    best = ruleChoice(op, conv.src, conv.w, conv.dst, conv.bias, conv.placed,
                      conv.maker());
  return *best;
}

Error GraphBuilder::prepareConvolution(ConvSetup &conv) {
  const fbs::Op &op = conv.op;
  CompiledGraph::ConvChoice best = preparedConvChoice(conv);
  if (const OwnWinogradKind *kind = ownWinogradKindOf(best.kernel)) {
    std::optional<WinogradConv> own = ownWinograd(
        op, conv.src, conv.w, conv.dst, conv.bias, kind->layout, kind->tile);
    if (!own)
      return fail("a tuning record asks for the delegate's Winograd "
                  "kernel, which does not apply to this convolution");
    best.weightsAtInit = winogradAtInit.count(opIndex) > 0;
    out.convChoices_[opIndex] = best;
    return buildOwnWinograd(*own, conv.src, conv.w, conv.bias, conv.dst,
                            conv.sumInput, best.weightsAtInit);
  }
  if (const OwnGroupedKind *kind = groupedKindOf(best.kernel)) {
    std::optional<GroupedConv> own =
        ownGrouped(op, conv.src, conv.w, conv.dst, conv.bias, *kind);
    if (!own || !GroupedConv::available())
      return fail("a tuning record asks for the delegate's grouped kernel, "
                  "which does not apply to this convolution or CPU");
    out.convChoices_[opIndex] = best;
    return buildOwnGrouped(*own, *kind, conv.src, conv.w, conv.bias, conv.dst);
  }
  dnnl::convolution_forward::primitive_desc pd;
  try {
    pd = conv.make(best.winograd, best.srcAsPlaced, best.index);
  } catch (const dnnl::error &) {
    return fail("oneDNN has no implementation for the recorded choice "
                "(tuning record of another oneDNN build?)");
  }
  if (pd.impl_info_str() != best.name)
    return fail("the tuning record names implementation '" + best.name +
                "' and oneDNN gives '" + pd.impl_info_str() +
                "' here; measure again (--tune)");
  out.convChoices_[opIndex] = best;
  return addConvolutionSteps(conv, pd);
}

Error GraphBuilder::initConvolution(ConvSetup &conv) {
  const fbs::Op &op = conv.op;
  if (const OwnWinogradKind *winograd = ownWinogradKindOf(op.conv_kernel())) {
    if (std::optional<WinogradConv> own =
            ownWinograd(op, conv.src, conv.w, conv.dst, conv.bias,
                        winograd->layout, winograd->tile))
      return buildOwnWinograd(*own, conv.src, conv.w, conv.bias, conv.dst,
                              conv.sumInput, op.winograd_weights_at_init());
    if (WinogradConv::available())
      return fail("the delegate's Winograd kernel does not apply to this "
                  "convolution");
    // This CPU lacks AVX2: oneDNN's own choice, on the plain weights the
    // program stores for the transform at init.
    if (op.winograd_weights_at_init())
      return addConvolutionSteps(conv, conv.make(false, false, 0));
    // This CPU lacks AVX2 (or oneDNN is held below it): oneDNN's own
    // choice, its weights recovered from the transformed ones.
    dnnl::convolution_forward::primitive_desc pd = conv.make(false, false, 0);
    WinogradConv recoverFrom(conv.wDims[1], conv.wDims[0], 1, 1,
                             winograd->layout, std::vector<WinogradPostOp>(), 1,
                             1, winograd->tile);
    return addConvolutionSteps(conv, pd, &recoverFrom);
  }
  if (const OwnGroupedKind *kind = groupedKindOf(op.conv_kernel())) {
    std::optional<GroupedConv> own =
        ownGrouped(op, conv.src, conv.w, conv.dst, conv.bias, *kind);
    if (!own)
      return fail("the delegate's grouped kernel does not apply to this "
                  "convolution");
    if (GroupedConv::available())
      return buildOwnGrouped(*own, *kind, conv.src, conv.w, conv.bias,
                             conv.dst);
    // This CPU lacks AVX2 (or oneDNN is held below it): oneDNN's own
    // choice, its weights unpacked.
    return addConvolutionSteps(conv, conv.make(false, false, 0), nullptr,
                               &*own);
  }
  dnnl::convolution_forward::primitive_desc pd =
      conv.make(op.winograd(), op.src_as_placed(), op.impl_index());
  // Another CPU or library may list other implementations: fall back to
  // oneDNN's first choice (the weights' layout check follows).
  if (op.impl() && pd.impl_info_str() != op.impl()->str())
    pd = conv.make(op.winograd(), op.src_as_placed(), 0);
  return addConvolutionSteps(conv, pd);
}

Error GraphBuilder::addConvolutionSteps(
    ConvSetup &conv, const dnnl::convolution_forward::primitive_desc &pd,
    const WinogradConv *fromWinograd, const GroupedConv *fromGrouped) {
  STRATA_ASSIGN_OR_RETURN(Placement in, as(conv.src, pd.src_desc()));
  int srcMem = addMem(pd.src_desc(), in.buffer);
  // At init of a convolution prepared for the own kernel on a CPU that
  // cannot run it, `fromWinograd` or `fromGrouped` is the kernel whose
  // packing the stored weights have.
  STRATA_ASSIGN_OR_RETURN(
      int wMem,
      fromWinograd
          ? weightsFromWinograd(conv.w, pd.weights_desc(), *fromWinograd)
      : fromGrouped ? weightsFromGrouped(conv.w, pd.weights_desc(), conv.wPlain,
                                         *fromGrouped)
                    : weights(conv.w, pd.weights_desc(), conv.wPlain));
  STRATA_ASSIGN_OR_RETURN(Placement outP,
                          resultOf(conv.dst, conv.sumInput, pd.dst_desc()));
  int dstMem = addMem(pd.dst_desc(), outP.buffer);
  STRATA_ASSIGN_OR_RETURN(
      int zeroPointMem,
      conv.zeroPoint >= 0
          ? sourceZeroPoint(static_cast<uint32_t>(conv.zeroPoint))
          : Result<int>(-1));
  addStep(dnnl::convolution_forward(pd),
          {{DNNL_ARG_SRC, srcMem},
           {DNNL_ARG_WEIGHTS, wMem},
           {DNNL_ARG_DST, dstMem}},
          pd);
  STRATA_RETURN_IF_ERROR(addBias(conv.bias, {conv.wDims[0]}));
  if (zeroPointMem >= 0)
    addArgs(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zeroPointMem);
  STRATA_RETURN_IF_ERROR(addPostOpInputs(conv.op));
  if (conv.ownSwish) {
    size_t count = pd.dst_desc().get_size() / sizeof(float);
    std::vector<WinogradPostOp> postOps{*conv.ownSwish};
    addKernelStep(
        "strata:swish",
        [count, postOps](const std::unordered_map<int, memory> &args) {
          applyPostOpsInPlace(floatsOf(args, DNNL_ARG_DST), count, postOps);
        },
        {{DNNL_ARG_DST, dstMem}}, 0);
  }
  return Error::success();
}

Error GraphBuilder::buildConvolution(const fbs::Op &op) {
  // The op descriptors and layouts live here, as long as every primitive
  // descriptor made from them.
  ConvSetup conv(op, out.engine_);
  STRATA_RETURN_IF_ERROR(setUpConvolution(conv));
  if (options.mode == CompiledGraph::Mode::Prepare)
    return prepareConvolution(conv);
  return initConvolution(conv);
}

} // namespace strata::runtime::onednn
