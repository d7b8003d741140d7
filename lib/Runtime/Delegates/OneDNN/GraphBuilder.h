//===- GraphBuilder.h - a blob's ops as oneDNN steps ------------*- C++ -*-===//
//
// GraphBuilder is CompiledGraph's builder, private to the delegate. Each op
// kind has its build function in the file of its family:
//
//   GraphBuilder.cpp   tensors, placements, steps, the op loop, scratch plan
//                      (8-bit nchw <-> nhwc reorders: ByteTranspose.cpp)
//   Weights.cpp        constants and weights packed into the chosen layout
//   Convolution.cpp    convolutions: oneDNN's implementations, timed
//   WinogradStep.cpp   the delegate's own Winograd kernel as a step
//   MatMul.cpp         matmul (Gemm, MatMul, attention's products)
//   Elementwise.cpp    eltwise, binary, softmax
//   BroadcastBinary.cpp  the own kernel for broadcasts oneDNN runs on its
//                      reference implementation
//   Pooling.cpp        max/average pooling, reduce mean
//   Normalization.cpp  layer normalization
//   Recurrent.cpp      RNN, GRU and LSTM layers
//   DataMovement.cpp   transpose, slice, reshape, concat, int8 reorders
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_DELEGATES_ONEDNN_GRAPHBUILDER_H
#define STRATA_RUNTIME_DELEGATES_ONEDNN_GRAPHBUILDER_H

#include "BlockedPool.h"
#include "Graph.h"
#include "GroupedConv.h"
#include "Winograd.h"
#include "WinogradCheck.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace strata::runtime::onednn {

namespace fbs = strata::onednn::fb;
using Desc = dnnl::memory::desc;
using Dims = dnnl::memory::dims;

//===----------------------------------------------------------------------===//
// Layouts and attributes
//===----------------------------------------------------------------------===//

/// The row-major layout of `dims`.
Desc plainDesc(const Dims &dims,
               dnnl::memory::data_type type = dnnl::memory::data_type::f32);
/// `desc`'s layout in oneDNN's notation: dimensions as letters from the
/// outermost, upper case where blocked, then the inner blocks ("abcd" is
/// NCHW, "acdb" NHWC, "aBcd16b" nChw16c); "any", "wino" or "opaque" for
/// the other kinds.
std::string layoutName(const Desc &desc);
/// Whether `desc` is row-major.
bool isPlain(const Desc &desc);
/// Whether `view` (unpadded) finds every element at the byte `have` keeps it
/// at, within `have`'s bytes: a reader wanting `view` can read `have`'s
/// buffer as it is (a [1, C, 1, 1] tensor blocked by channels is row-major).
/// Checked along every axis (a blocked layout's offset is a sum of one term
/// per dimension); tensors of over 64Ki elements are not read so.
bool sameBytes(const Desc &have, const Desc &view);
/// Whether oneDNN implementation `name` is one of its reference kernels
/// ("ref:any", "gemm:ref", ...), the slow fallbacks.
inline bool isReference(const std::string &name) {
  return name.rfind("ref", 0) == 0 || name.find(":ref") != std::string::npos;
}
/// The oneDNN element type of a blob element type.
dnnl::memory::data_type dataTypeOf(fbs::DataType type);
/// `desc`'s layout with another element type.
Desc withType(const Desc &desc, dnnl::memory::data_type type);
/// `dims` with leading 1s up to `rank` (numpy-style broadcasting).
Dims padTo(Dims dims, size_t rank);
/// The oneDNN layout of the delegate's Winograd kernel's tensors.
inline dnnl::memory::format_tag tagOf(WinogradLayout layout) {
  switch (layout) {
  case WinogradLayout::Blocked16:
    return dnnl::memory::format_tag::aBcd16b;
  case WinogradLayout::Blocked8:
    return dnnl::memory::format_tag::aBcd8b;
  case WinogradLayout::ChannelsLast:
    break;
  }
  return dnnl::memory::format_tag::acdb;
}
/// The delegate's own Winograd kernel in each of its layouts and tiles: the
/// kernel prepare records, the implementation name tuning records give it
/// (the first two predate the AVX2 kernels and keep their names), and how
/// dumps describe it.
struct OwnWinogradKind {
  WinogradLayout layout;
  WinogradTile tile;
  fbs::ConvKernel kernel;
  const char *name;
  const char *description;
};
inline constexpr OwnWinogradKind kOwnWinogradKinds[] = {
    {WinogradLayout::Blocked16, WinogradTile::F2x2,
     fbs::ConvKernel::WinogradF2x2, "strata:winograd_f2x2:avx512",
     "strata:winograd_f2x2"},
    {WinogradLayout::ChannelsLast, WinogradTile::F2x2,
     fbs::ConvKernel::WinogradF2x2ChannelsLast,
     "strata:winograd_f2x2_nhwc:avx512",
     "strata:winograd_f2x2 (channels-last)"},
    {WinogradLayout::Blocked8, WinogradTile::F2x2,
     fbs::ConvKernel::WinogradF2x2Blocked8, "strata:winograd_f2x2_8c",
     "strata:winograd_f2x2 (nChw8c)"},
    {WinogradLayout::Blocked16, WinogradTile::F4x4,
     fbs::ConvKernel::WinogradF4x4, "strata:winograd_f4x4_16c",
     "strata:winograd_f4x4"},
    {WinogradLayout::ChannelsLast, WinogradTile::F4x4,
     fbs::ConvKernel::WinogradF4x4ChannelsLast, "strata:winograd_f4x4_nhwc",
     "strata:winograd_f4x4 (channels-last)"},
    {WinogradLayout::Blocked8, WinogradTile::F4x4,
     fbs::ConvKernel::WinogradF4x4Blocked8, "strata:winograd_f4x4_8c",
     "strata:winograd_f4x4 (nChw8c)"},
};
/// The Winograd kernel's kind for a recorded kernel, or null.
inline const OwnWinogradKind *ownWinogradKindOf(fbs::ConvKernel kernel) {
  for (const OwnWinogradKind &kind : kOwnWinogradKinds)
    if (kind.kernel == kernel)
      return &kind;
  return nullptr;
}
/// The delegate's grouped kernel in each of its layouts: the kernel
/// prepare records, the oneDNN layout of its input and output, its name in
/// profiles, dumps and tuning records, and the layout's name in dumps.
struct OwnGroupedKind {
  fbs::ConvKernel kernel;
  dnnl::memory::format_tag layout;
  const char *name;
  const char *layoutName;
};
inline constexpr OwnGroupedKind kOwnGroupedKinds[] = {
    {fbs::ConvKernel::GroupedBlocked8, dnnl::memory::format_tag::aBcd8b,
     "strata:grouped_8c", "nChw8c"},
    {fbs::ConvKernel::GroupedBlocked16, dnnl::memory::format_tag::aBcd16b,
     "strata:grouped_16c", "nChw16c"},
    {fbs::ConvKernel::GroupedChannelsLast, dnnl::memory::format_tag::acdb,
     "strata:grouped_nhwc", "channels-last"},
};
/// The grouped kernel's kind for a recorded kernel, or null.
inline const OwnGroupedKind *groupedKindOf(fbs::ConvKernel kernel) {
  for (const OwnGroupedKind &kind : kOwnGroupedKinds)
    if (kind.kernel == kernel)
      return &kind;
  return nullptr;
}
/// `value` rounded up to a multiple of `alignment`.
uint64_t alignUp(uint64_t value, uint64_t alignment);
/// The first `n` values of `v`, `fallback` where it has fewer.
Dims longs(const flatbuffers::Vector<int64_t> *v, size_t n, int64_t fallback);
dnnl::algorithm eltwiseAlgorithm(fbs::EltwiseKind kind);
dnnl::algorithm binaryAlgorithm(fbs::BinaryKind kind);
/// Attributes with a user scratchpad (the one in working memory).
dnnl::primitive_attr userScratchpadAttr();
/// An inference elementwise op of `kind` over `desc` (its source and
/// result), with a user scratchpad.
dnnl::eltwise_forward::primitive_desc
eltwiseInference(fbs::EltwiseKind kind, float alpha, float beta,
                 const Desc &desc, const dnnl::engine &engine);
/// `pd` moved on to its `index`-th implementation (or its last one).
void seekImpl(dnnl::primitive_desc &pd, int index);

/// A convolution's or pooling's window over H and W; dilations in oneDNN's
/// form (0 for adjacent taps, where ONNX says 1).
struct Window {
  Dims strides, kernel, dilations, padsBegin, padsEnd;
};
Window windowOf(const fbs::Op &op);

/// Argument `arg` of a kernel step as floats, or null where the step has
/// none.
inline float *floatsOf(const std::unordered_map<int, dnnl::memory> &args,
                       int arg) {
  auto it = args.find(arg);
  return it == args.end() ? nullptr
                          : static_cast<float *>(it->second.get_data_handle());
}

/// `first()`, or `second()` when oneDNN rejects what `first` asks for.
template <typename First, typename Second>
auto orElse(First first, Second second) -> decltype(first()) {
  try {
    return first();
  } catch (const dnnl::error &) {
    return second();
  }
}

/// A tensor's placement: its layout and the buffer holding it.
struct Placement {
  Desc desc;
  int buffer = -1;
};

//===----------------------------------------------------------------------===//
// GraphBuilder
//===----------------------------------------------------------------------===//

class GraphBuilder {
public:
  GraphBuilder(const fbs::Graph &graph, const NamedDataMap &named,
               const CompiledGraph::BuildOptions &options, CompiledGraph &out)
      : graph(graph), named(named), options(options), out(out) {}

  Error build();

private:
  using Buffer = CompiledGraph::Buffer;
  using Args = std::initializer_list<std::pair<int, int>>;

  // The graph and the op loop (GraphBuilder.cpp).
  /// Reads the graph's inputs and outputs and checks every tensor's rank
  /// and dimensions.
  Error readGraphInterface();
  /// Counts each tensor's readers (ops' inputs, sum post-ops, the caller
  /// reading an output) into remainingUses.
  void countUses();
  /// Places the graph's inputs in the caller's buffers and records the
  /// dims and types of the inputs and outputs.
  void placeInputs();
  /// Records each op's kind and ONNX node names (profiles, dumps).
  void recordOpNames();
  /// Builds the steps of op `opIndex` through its family's build function.
  Error buildOp(const fbs::Op &op);
  /// Copies the outputs no op wrote in place into the caller's buffers.
  Error copyUnwrittenOutputs();

  // Operands (GraphBuilder.cpp).
  Error fail(const std::string &message) const {
    return Error(ErrorCode::InvalidArgument,
                 "op " + std::to_string(opIndex) + ": " + message);
  }
  Result<uint32_t> tensorAt(const flatbuffers::Vector<uint32_t> *list, size_t i,
                            const char *field) const;
  /// The op's leading inputs (into `ins`, in order) and its result.
  Error operands(const fbs::Op &op, std::initializer_list<uint32_t *> ins,
                 uint32_t &dst) const;
  /// A two-input op's operands and result, with both operands' dims padded
  /// with leading 1s to the result's rank.
  struct PaddedOperands {
    uint32_t a = 0, b = 0, dst = 0;
    Dims aDims, bDims, dstDims;
  };
  Result<PaddedOperands> paddedOperands(const fbs::Op &op) const {
    PaddedOperands p;
    STRATA_RETURN_IF_ERROR(operands(op, {&p.a, &p.b}, p.dst));
    p.dstDims = dimsOf(p.dst);
    p.aDims = padTo(dimsOf(p.a), p.dstDims.size());
    p.bDims = padTo(dimsOf(p.b), p.dstDims.size());
    return p;
  }
  /// Input `i` of `op` when it has one (a bias), else -1.
  Result<int> optionalInput(const fbs::Op &op, size_t i) const;
  Dims dimsOf(uint32_t tensor) const;
  /// The element count of `tensor`'s dims.
  int64_t numElementsOf(uint32_t tensor) const {
    int64_t n = 1;
    for (int64_t d : dimsOf(tensor))
      n *= d;
    return n;
  }
  dnnl::memory::data_type typeOf(uint32_t tensor) const {
    return dataTypeOf(graph.tensors()->Get(tensor)->dtype());
  }
  /// The tensor's row-major layout.
  Desc plainOf(uint32_t tensor) const {
    return plainDesc(dimsOf(tensor), typeOf(tensor));
  }
  bool isOutput(uint32_t tensor) const {
    return std::find(outputs.begin(), outputs.end(), tensor) != outputs.end();
  }
  bool isConstant(uint32_t tensor) const {
    const fbs::Tensor *t = graph.tensors()->Get(tensor);
    return t->constant_key() && t->constant_key()->size();
  }

  // Buffers, memory objects and steps (GraphBuilder.cpp).
  int addBuffer(BufferKind kind, size_t bytes, void *data = nullptr,
                size_t index = 0);
  int addMem(const Desc &desc, int buffer);
  /// Appends `step` reading and writing `args` (DNNL_ARG_* -> mem), with a
  /// share of the scratchpad of `scratchpad`'s size.
  void addStep(CompiledGraph::Step step, Args args, const Desc &scratchpad);
  void addStep(dnnl::primitive primitive, Args args,
               const dnnl::primitive_desc_base &pd) {
    CompiledGraph::Step step;
    step.primitive = std::move(primitive);
    addStep(std::move(step), args, pd.scratchpad_desc());
  }
  /// A step running one of the delegate's own kernels, called `name` in
  /// profiles, with `scratch` bytes of the shared scratchpad.
  void addKernelStep(std::string name, CompiledGraph::Kernel kernel, Args args,
                     size_t scratch);
  /// One image of an own convolution kernel: input, packed weights, bias
  /// (null when none), output, scratchpad.
  using OwnConvImage = std::function<void(const float *, const float *,
                                          const float *, float *, void *)>;
  /// The step of an own convolution kernel called `name`: `src` taken and
  /// `dst` placed (over `sumInput`'s buffer where that is >= 0) in `layout`,
  /// weights in memory `weightsMem`, `image` run on each image of the batch
  /// (`inFloats` and `outFloats` apart), `scratchBytes` of scratchpad.
  Error addOwnConvStep(std::string name, uint32_t src, uint32_t dst,
                       int sumInput, dnnl::memory::format_tag layout,
                       int weightsMem, size_t inFloats, size_t outFloats,
                       size_t scratchBytes, OwnConvImage image);
  /// Adds an argument to the last step.
  void addArgs(int arg, int mem);
  void touch(int buffer, int step);
  /// A reorder step from buffer `from` in layout `fromDesc` into buffer `to`
  /// in layout `toDesc`.
  void addReorder(const Desc &fromDesc, int from, const Desc &toDesc, int to,
                  const dnnl::primitive_attr &attr = dnnl::primitive_attr());
  /// A step of one input and one output: `primitive` reads `srcMem` and
  /// writes op result `dst`, defined in layout `dstDesc`.
  void addUnaryStep(dnnl::primitive primitive,
                    const dnnl::primitive_desc_base &pd, int srcMem,
                    uint32_t dst, const Desc &dstDesc);
  /// Binds `bias` (-1: none), row-major seen with `dims`, as the last
  /// step's bias.
  Error addBias(int bias, const Dims &dims);

  // Placements (GraphBuilder.cpp).
  /// The tensor's placement in its original layout.
  Result<Placement> placement(uint32_t tensor);
  /// The tensor in layout `want` (reordered into a new buffer if needed).
  Result<Placement> as(uint32_t tensor, const Desc &want);
  /// The tensor, row-major, viewed with `dims` (same element count).
  Result<Placement> plainView(uint32_t tensor, const Dims &dims);
  /// Where op result `tensor` goes when its layout is `desc`: the caller's
  /// output buffer when the tensor is a graph output in plain layout, else
  /// working memory.
  Placement define(uint32_t tensor, const Desc &desc);
  void defineView(uint32_t tensor, const Placement &placement) {
    placements[tensor] = {placement};
    bufferTensors[placement.buffer].push_back(tensor);
  }
  /// Where an op's result `dst` goes in layout `desc`: in place over the
  /// tensor a sum post-op accumulates (`sumInput`, or -1), else define().
  Result<Placement> resultOf(uint32_t dst, int sumInput, const Desc &desc);
  /// A buffer the op may write in place over `tensor` (its last reader).
  Result<Placement> inPlace(uint32_t tensor, const Desc &want);
  /// Whether the op being built, `tensor`'s last reader, may write over
  /// `buffer`, which holds it: a working-memory buffer that no other
  /// reader still needs and that shares no bytes with a concatenation.
  bool mayOverwrite(uint32_t tensor, int buffer) const;
  /// The attributes of a primitive running `op`: a user scratchpad and
  /// the op's post-ops but the last `leaveOut` (which the caller runs
  /// itself), binary ones on a result of rank `dstRank` (0: the op's
  /// result's); `sumInput` receives the tensor a sum post-op accumulates,
  /// or -1.
  Result<dnnl::primitive_attr> attrOf(const fbs::Op &op, int *sumInput,
                                      size_t leaveOut = 0, size_t dstRank = 0);
  /// The row-major layout a binary post-op of `op` reads tensor `input` in:
  /// its dims with leading 1s up to the rank of the primitive's result
  /// (`dstRank`; 0: the op's result's rank).
  Desc postOpInputDesc(const fbs::Op &op, uint32_t input,
                       size_t dstRank = 0) const;
  /// Binds the tensors `op`'s binary post-ops read to the last step.
  Error addPostOpInputs(const fbs::Op &op, size_t dstRank = 0);
  /// Whether `op`'s primitive reads arguments beyond its operands at run
  /// time (a source zero point, binary post-op inputs): it cannot be timed
  /// on scratch memory alone.
  static bool readsRunTimeArgs(const fbs::Op &op);
  /// Sets `op`'s output scales (int8) on `attr`: one, or one per each of
  /// `channels` along dimension `axis` (`what` names them in errors).
  Error setOutputScales(const fbs::Op &op, int64_t channels, int axis,
                        const char *what, dnnl::primitive_attr &attr) const;
  void planScratch();
  /// The buffer that holds `buffer`'s bytes (itself unless it is a part of
  /// a concatenation's result), and where in it they start.
  std::pair<int, uint64_t> holderOf(int buffer) const;
  /// Whether `buffer` holds parts or is one (no op writes over it in place).
  bool sharesBytes(int buffer) const;
  /// Concatenates `srcs` (read through `srcMems`) along `axis` into the
  /// result's layout `dstDesc` at `dstBuffer` by one oneDNN reorder per part
  /// into its sub-memory of the result. False (and nothing added) where a
  /// part cannot be written so.
  bool concatByReorders(const std::vector<uint32_t> &srcs,
                        const std::vector<int> &srcMems, const Desc &dstDesc,
                        int dstBuffer, int64_t axis);
  /// Makes the parts of a concatenation of `partBytes` into `dst` (one
  /// image, contiguous ranges) the bytes of `dst` where it can: a part that
  /// is a whole scratch buffer, or a run of parts that is exactly the parts
  /// of an earlier result. Returns which parts need no copy.
  std::vector<bool> concatInPlace(const std::vector<int> &partBuffers,
                                  const std::vector<size_t> &partBytes,
                                  int dst);

  // Weights (Weights.cpp).
  /// Weights of a convolution or matmul in the layout the primitive picked;
  /// the constant's bytes are row-major over `plain`, or laid out as
  /// `plainTag` says where one is given (a deconvolution's ONNX weights,
  /// iohw over oneDNN's {OC, IC, KH, KW}).
  Result<int>
  weights(uint32_t tensor, const Desc &want, const Dims &plain,
          dnnl::memory::format_tag plainTag = dnnl::memory::format_tag::undef);
  /// Packs the plain bytes of a constant into its packed bytes.
  using Packer = std::function<std::vector<uint8_t>(ByteSpan plain)>;
  /// The buffer of constant `tensor` packed by `pack` into `packedDesc`:
  /// at prepare packed from the plain bytes (`plainBytes` of them) and
  /// recorded for storage; at init the stored bytes when they were
  /// recorded in that layout, else (with `reorderStored`) the stored bytes
  /// reordered from their recorded oneDNN layout, else packed again from
  /// the plain copy when repacking is allowed. `mismatch` and
  /// `noPlainCopy` say why not. `atInit`: never stored packed; the plain
  /// constant is kept and packed at every init.
  Result<int> packedConstant(uint32_t tensor, const Desc &packedDesc,
                             size_t plainBytes, const Packer &pack,
                             bool reorderStored, const std::string &mismatch,
                             const std::string &noPlainCopy,
                             bool atInit = false);
  /// The stored packed bytes of weight `t` as a constant buffer when they
  /// were recorded in layout `want`; -1 when not.
  Result<int> storedPacked(const fbs::Tensor &t, const Desc &want);
  /// The stored packed bytes of weight `t` reordered into `want` when they
  /// were recorded in another blocked oneDNN layout of the same dims and
  /// type (another thread count or CPU can make oneDNN pick an
  /// implementation that wants another layout); -1 when they cannot be.
  Result<int> reorderedStored(const fbs::Tensor &t, const Desc &want);
  /// The stored packed bytes of weight `t`, checked to fill `layout`.
  Result<ByteSpan> storedBytes(const fbs::Tensor &t, const Desc &layout);
  /// `data` in layout `from` reordered into `to`, in a buffer the compiled
  /// graph owns; throws dnnl::error when oneDNN has no such reorder.
  int ownedReorder(const Desc &from, const void *data, const Desc &to);

  // Convolutions (Convolution.cpp, WinogradStep.cpp).
  Error buildConvolution(const fbs::Op &op);
  /// A convolution being built: its operands, attributes and the layouts
  /// its primitive descriptors are made with (Convolution.cpp).
  struct ConvSetup;
  /// Reads and checks the convolution's operands and attributes into
  /// `conv` and sets its layouts.
  Error setUpConvolution(ConvSetup &conv);
  /// Settles the layouts oneDNN would serve only with a slow kernel: a
  /// channel-blocked graph's nChw16c, a graph output's row-major result.
  void settleConvLayouts(ConvSetup &conv);
  /// At prepare: picks the implementation (tuning record, measurements or
  /// the rule), records it and builds its steps.
  Error prepareConvolution(ConvSetup &conv);
  /// The choice a tuning record for `signature` gives, if one does.
  std::optional<CompiledGraph::ConvChoice>
  recordedConvChoice(const std::string &signature);
  /// The choice prepare makes: recorded, else measured (when measuring,
  /// recorded for tuning), else the rule's.
  CompiledGraph::ConvChoice preparedConvChoice(ConvSetup &conv);
  /// At init: builds the kernel prepare recorded, or oneDNN's own choice
  /// with the stored weights recovered on a CPU that cannot run it.
  Error initConvolution(ConvSetup &conv);
  /// The steps of oneDNN's convolution `pd`: its input, weights (recovered
  /// from `fromWinograd`'s or `fromGrouped`'s packing where one is given),
  /// result, zero point, bias and post-op inputs, then the own SiLU.
  Error addConvolutionSteps(ConvSetup &conv,
                            const dnnl::convolution_forward::primitive_desc &pd,
                            const WinogradConv *fromWinograd = nullptr,
                            const GroupedConv *fromGrouped = nullptr);
  /// A step widening the one-element 8-bit zero point `tensor` to the s32
  /// value oneDNN reads at run time; returns the memory holding it.
  Result<int> sourceZeroPoint(uint32_t tensor);
  // Deconvolution.cpp.
  Error buildDeconvolution(const fbs::Op &op);
  /// Makes the convolution's primitive descriptor: Winograd or direct,
  /// input as placed or oneDNN's pick, the index-th implementation.
  using MakeConv = std::function<dnnl::convolution_forward::primitive_desc(
      bool winograd, bool srcAsPlaced, int index)>;
  /// The key of a convolution's tuning record: everything its choice of
  /// implementation depends on.
  std::string convSignature(const Dims &srcDims, const Dims &wDims,
                            const Dims &dstDims, uint32_t src, uint32_t w,
                            uint32_t dst, int64_t groups, const Window &window,
                            const dnnl::primitive_attr &attr, int sumInput,
                            const Desc &placed);
  /// The choice without measurements: oneDNN's first implementation (the
  /// input as placed when that one takes it); with Winograd allowed, the
  /// own kernel on wide 3x3 convolutions.
  CompiledGraph::ConvChoice ruleChoice(const fbs::Op &op, uint32_t src,
                                       uint32_t w, uint32_t dst, int bias,
                                       const Desc &placed,
                                       const MakeConv &make);
  /// The fastest candidate, timed on scratch memory with the reorders it
  /// needs counted.
  CompiledGraph::ConvChoice measureConvolution(const fbs::Op &op, uint32_t src,
                                               uint32_t w, uint32_t dst,
                                               int bias, int sumInput,
                                               const Desc &placed,
                                               const MakeConv &make);
  /// The delegate's Winograd kernel for this convolution, when it applies
  /// (geometry, types, post-ops) and the CPU runs it, on tensors in
  /// `layout`, in output tiles of `tile`.
  std::optional<WinogradConv> ownWinograd(const fbs::Op &op, uint32_t src,
                                          uint32_t w, uint32_t dst, int bias,
                                          WinogradLayout layout,
                                          WinogradTile tile) const;
  /// Prepare, before any op is built: the Winograd tile each convolution
  /// may use (winogradPlan), where the rule says the kernel pays, its
  /// accuracy check passes and the transformed weights fit the size
  /// budget (Convolution.cpp); the reasons noted for the report.
  void planWinograd();
  /// Prepare: whether `tile` passes the accuracy check on weight `w`
  /// (measured once per op and tile, noted).
  bool winogradWithinBudget(uint32_t w, WinogradTile tile);
  /// Whether the plan lets op opIndex use `tile` (or, for oneDNN's
  /// Winograd, 4x4 tiles).
  bool winogradPlanned(WinogradTile tile) const;
  /// Adds `note` to this op's line in the compile report.
  void noteConv(const std::string &note);
  /// Best time of the own kernel on scratch memory, in seconds, its
  /// weights evicted from the caches before each run.
  double timeOf(const WinogradConv &conv);
  /// Weight `w` for oneDNN's convolution in layout `want`, from the bytes
  /// `conv` transformed at prepare (a CPU that cannot run the own kernel);
  /// from the plain copy with repack_on_isa_mismatch when none are stored.
  Result<int> weightsFromWinograd(uint32_t w, const Desc &want,
                                  const WinogradConv &conv);
  /// Builds the step of the own kernel; `weightsAtInit`: its weights are
  /// transformed from the plain constant at init, not stored transformed.
  Error buildOwnWinograd(const WinogradConv &conv, uint32_t src, uint32_t w,
                         int bias, uint32_t dst, int sumInput,
                         bool weightsAtInit);
  /// Constant weight `w` for one of the delegate's own convolution
  /// kernels: `packedBytes` made from its `plainBytes` by `pack` at
  /// prepare and stored; at init bound in place, or packed again from the
  /// plain copy when allowed. `what` names the packed weights in errors
  /// ("the grouped kernel's packed weights"). `atInit`: packed at every
  /// init from the plain constant, never stored packed.
  Result<int>
  ownKernelWeights(uint32_t w, size_t packedBytes, size_t plainBytes,
                   const std::function<void(const float *, float *)> &pack,
                   const std::string &what, bool atInit = false);
  /// Weight `w` (`plainDims`) for oneDNN's convolution in layout `want`,
  /// from the `packedBytes` an own kernel packed at prepare, put back by
  /// `unpack` (a CPU that cannot run that kernel); from the plain copy with
  /// repack_on_isa_mismatch when none are stored. `what` names the packed
  /// weights in errors.
  Result<int> weightsFromOwnKernel(
      uint32_t w, const Desc &want, const Dims &plainDims, size_t packedBytes,
      const std::function<void(const float *, float *)> &unpack,
      const std::string &what);
  /// The delegate's kernel for 4- and 8-channel groups, when it applies
  /// (geometry, types, post-ops); nChw8c in and out.
  std::optional<GroupedConv> ownGrouped(const fbs::Op &op, uint32_t src,
                                        uint32_t w, uint32_t dst, int bias,
                                        const OwnGroupedKind &kind) const;
  /// Best time of the grouped kernel on scratch memory, in seconds.
  double timeOf(const GroupedConv &conv);
  /// Weight `w` (`plainDims`, grouped) for oneDNN's convolution in layout
  /// `want`, from the bytes `conv` packed at prepare (a CPU that cannot
  /// run the own kernel).
  Result<int> weightsFromGrouped(uint32_t w, const Desc &want,
                                 const Dims &plainDims,
                                 const GroupedConv &conv);
  /// Builds the step of the grouped kernel.
  Error buildOwnGrouped(const GroupedConv &conv, const OwnGroupedKind &kind,
                        uint32_t src, uint32_t w, int bias, uint32_t dst);
  /// Best time of a few runs of a convolution on scratch memory, in
  /// seconds; `coldWeights`: the weights are evicted from the caches
  /// before each run.
  double timeOf(const dnnl::convolution_forward::primitive_desc &pd,
                bool coldWeights = false);
  template <typename Run, typename Before>
  double bestTime(Run run, Before before);
  template <typename Run> double bestTime(Run run) {
    return bestTime(run, [] {});
  }
  /// Best of a few reorders from `from` to `to`, in seconds (0 when equal).
  double reorderTime(const Desc &from, const Desc &to);

  // The other op families.
  Error buildMatMul(const fbs::Op &op);
  Error buildPool(const fbs::Op &op);
  /// A step of the delegate's own pooling from memory `srcMem` into op
  /// result `dst`, defined in layout `dstDesc`.
  void addOwnPool(const BlockedPool &pool, int srcMem, uint32_t dst,
                  const Desc &dstDesc);
  Error buildReduceMean(const fbs::Op &op);
  Error buildLayerNorm(const fbs::Op &op);
  // Recurrent.cpp.
  /// A whole RNN, GRU or LSTM layer on oneDNN's primitive for its cell.
  Error buildRecurrent(const fbs::Op &op);
  /// Constant `tensor` (a recurrent layer's weights or biases) packed by
  /// `pack` into `packed` at prepare, as memory.
  Result<int>
  recurrentConstant(uint32_t tensor, const Desc &packed,
                    const std::function<void(const float *, float *)> &pack);
  Error buildEltwise(const fbs::Op &op);
  Error buildBinary(const fbs::Op &op);
  Error buildScaleShift(const fbs::Op &op);
  Error buildSoftmax(const fbs::Op &op);
  /// A softmax or log-softmax over `axis` of `in` (src's placement): in
  /// that layout, or with the axis innermost where oneDNN has only its
  /// reference code for the other.
  template <typename Primitive>
  Error addSoftmaxStep(uint32_t src, uint32_t dst, int axis, Placement in);
  Error buildTranspose(const fbs::Op &op);
  Error buildSlice(const fbs::Op &op);
  /// Copies `view` of `src`, read in layout `layout`, into op result `dst`
  /// in layout `dstDesc` (transpose and slice).
  Error copyView(uint32_t src, const Desc &layout, const Desc &view,
                 uint32_t dst, const Desc &dstDesc);
  Error buildReshape(const fbs::Op &op);
  Error buildConcat(const fbs::Op &op);
  Error buildReorder(const fbs::Op &op);
  // Resize.cpp.
  Error buildResize(const fbs::Op &op);

  static constexpr int kScratchpadBuffer = -2;

  const fbs::Graph &graph;
  const NamedDataMap &named;
  CompiledGraph::BuildOptions options;
  CompiledGraph &out;
  size_t opIndex = 0;
  std::vector<uint32_t> inputs, outputs;
  std::vector<std::vector<Placement>> placements; ///< [0] is the original.
  std::vector<std::vector<uint32_t>> bufferTensors;
  std::vector<int> remainingUses;
  /// Graph outputs some op writes directly into the caller's buffer.
  std::vector<bool> outputWritten;
  size_t scratchpadBytes = 0;
  /// Prepare: each (op, tile)'s measured Winograd errors.
  std::map<std::pair<size_t, int>, WinogradErrors> winogradChecks;
  /// Prepare: convolution op -> the largest Winograd tile it may use.
  std::map<size_t, WinogradTile> winogradPlan;
  /// Prepare: the planned convolutions whose weights init transforms.
  std::set<size_t> winogradAtInit;
  /// f32 convolutions read and write nChw16c (the graph's
  /// activation_layout, on a CPU that runs it).
  bool channelBlocked = false;
};

} // namespace strata::runtime::onednn

#endif // STRATA_RUNTIME_DELEGATES_ONEDNN_GRAPHBUILDER_H
