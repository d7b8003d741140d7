//===- GraphWriter.h - a partition as an XNNPACK subgraph, op by op -*- C++
//-*-===//
//
// The XNNPACK partition writer: the shared delegate-writer state
// (Common/DelegateWriter.h) plus XNNPACK's layouts (4-d values NHWC,
// filters OHWI or 1HWO, fully connected weights [N, K]) and its tensors
// (f32, qs8 with a scale and zero point). Each edge op is written by the
// function its kind maps to, registered per op family: WriteLinear.cpp
// (convolutions, fully connected) and WriteElementwise.cpp (the rest).
// strata-edge-fuse has put the fusions into the IR before: a relu or clip
// post-op is the node's output clamp, a matmul's `add` post-op its bias,
// edge.activation (hardswish) one node.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_BACKENDS_XNNPACK_GRAPHWRITER_H
#define STRATA_LIB_BACKENDS_XNNPACK_GRAPHWRITER_H

#include "XNNPACKBackend.h"

#include "Common/DelegateWriter.h"
#include "Edge/IR/EdgeOps.h"
#include "strata/Runtime/Delegates/Schema/xnnpack_graph_generated.h"

namespace strata::xnnpack {

namespace fbs = strata::xnnpack::fb;
using mlir::ArrayRef;

/// The blob's resize flags: XNNPACK's XNN_FLAG_TENSORFLOW_LEGACY_MODE
/// and XNN_FLAG_ALIGN_CORNERS, which the runtime passes on (and checks
/// with static_asserts); the compiler does not include xnnpack.h.
constexpr uint32_t kResizeAsymmetric = 0x4;
constexpr uint32_t kResizeAlignCorners = 0x8;

using backends::shapeOf;

/// The dims XNNPACK sees: NCHW -> NHWC for 4-d values.
inline std::vector<int64_t> xnnDims(ArrayRef<int64_t> shape) {
  if (shape.size() != 4)
    return {shape.begin(), shape.end()};
  return {shape[0], shape[2], shape[3], shape[1]};
}

/// `values` of NCHW `shape` in NHWC order (others as they are).
inline std::vector<float> toXnnOrder(std::vector<float> values,
                                     ArrayRef<int64_t> shape) {
  if (shape.size() != 4)
    return values;
  int64_t n = shape[0], c = shape[1], hw = shape[2] * shape[3];
  std::vector<float> out(values.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t p = 0; p < hw; ++p)
        out[(b * hw + p) * c + k] = values[(b * c + k) * hw + p];
  return out;
}

/// A convolution's filter as XNNPACK takes it: OIHW becomes OHWI, or 1HWO
/// for a depthwise one (group = input channels, one per group).
struct FilterLayout {
  FilterLayout(ArrayRef<int64_t> input, ArrayRef<int64_t> weight,
               int64_t groups)
      : groups(groups), outC(weight[0]), groupIn(weight[1]), kh(weight[2]),
        kw(weight[3]), inC(input[1]),
        depthwise(groups > 1 && groups == input[1] && weight[1] == 1) {}
  /// Where OIHW element (o, i, y, x) goes.
  size_t at(int64_t o, int64_t i, int64_t y, int64_t x) const {
    return depthwise ? (y * kw + x) * outC + o
                     : ((o * kh + y) * kw + x) * groupIn + i;
  }
  std::vector<int64_t> dims() const {
    return depthwise ? std::vector<int64_t>{1, kh, kw, outC}
                     : std::vector<int64_t>{outC, kh, kw, groupIn};
  }
  /// The node's kind, window and group sizes; edge pads are top, left,
  /// bottom, right, XNNPACK's top, right, bottom, left.
  void describe(fbs::NodeT &node, ArrayRef<int64_t> pads,
                ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) const {
    auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
    node.pads = {u32(pads[0]), u32(pads[3]), u32(pads[2]), u32(pads[1])};
    node.kernel = {u32(kh), u32(kw)};
    node.strides = {u32(strides[0]), u32(strides[1])};
    node.dilations = {u32(dilations[0]), u32(dilations[1])};
    node.groups = depthwise ? 1 : u32(groups);
    node.group_input_channels = depthwise ? inC : groupIn;
    // Depthwise: the depth multiplier.
    node.group_output_channels = depthwise ? outC / inC : outC / groups;
  }
  fbs::NodeKind kind() const {
    return depthwise ? fbs::NodeKind::DepthwiseConvolution
                     : fbs::NodeKind::Convolution;
  }
  int64_t groups, outC, groupIn, kh, kw, inC;
  bool depthwise;
};

class GraphWriter;
using WriteTable = backends::WriteTable<GraphWriter>;

class GraphWriter : public backends::DelegateWriter<fbs::GraphT, fbs::NodeT> {
public:
  using DelegateWriter::DelegateWriter;
  /// Writes the partition: inputs, every op through the dispatch table,
  /// outputs.
  mlir::LogicalResult write();

  /// The tensor of a value written by a node (or a partition input).
  uint32_t defineTensor(mlir::Value value);
  /// The tensor of a value already written, or of a constant (stored in
  /// XNNPACK's order on first use).
  mlir::FailureOr<uint32_t> tensor(mlir::Value value);
  /// A new tensor of XNNPACK `dims` that a node writes and another reads
  /// (not a value of the partition: a step inside one edge op's nodes). A
  /// dynamic leading extent is the batch of `batchOf` (its slot, at its
  /// bound).
  uint32_t intermediateTensor(std::vector<int64_t> dims,
                              mlir::Value batchOf = {}) {
    auto t = std::make_unique<fbs::TensorT>();
    if (batchOf && !dims.empty() && mlir::ShapedType::isDynamic(dims[0])) {
      llvm::ArrayRef<int64_t> slots = slotsOf(batchOf);
      if (!slots.empty() && slots[0] >= 0) {
        t->dim_slots.assign(dims.size(), -1);
        t->dim_slots[0] = static_cast<int32_t>(slots[0]);
        dims[0] = extentBounds()[slots[0]];
      }
    }
    t->dims = std::move(dims);
    return appendTensor(std::move(t));
  }
  /// A new constant tensor of XNNPACK `dims` holding `values`.
  uint32_t constantTensor(ArrayRef<int64_t> dims, ArrayRef<float> values);
  /// A new constant tensor of `bytes` of type `type` (per-channel scales
  /// along `channelDim` for the qc types).
  uint32_t constantTensor(ArrayRef<int64_t> dims, std::vector<uint8_t> bytes,
                          fbs::DataType type,
                          ArrayRef<float> channelScales = {},
                          uint32_t channelDim = 0);
  /// A new node of `kind` computing `op`, its output unclamped.
  fbs::NodeT &addNode(fbs::NodeKind kind, mlir::Operation *op);
  /// Narrows `node`'s output clamp by `op`'s relu or clip post-op.
  void clampByPostOps(fbs::NodeT &node, mlir::Operation *op);
  /// Writes `node`'s inputs, then its output: `op`'s result, clamped by its
  /// post-ops.
  mlir::LogicalResult finish(fbs::NodeT &node, mlir::ValueRange inputs,
                             mlir::Operation *op);

  /// An 8-bit value had no quantization to be found (reported).
  bool unknownQuantization = false;
};

/// The scale and zero point of constant scalars.
std::optional<std::pair<float, int32_t>> scaleAndZero(mlir::Value scale,
                                                      mlir::Value zeroPoint);

/// The write functions of each op family.
void addLinearWriters(WriteTable &table);
void addElementwiseWriters(WriteTable &table);

} // namespace strata::xnnpack

#endif // STRATA_LIB_BACKENDS_XNNPACK_GRAPHWRITER_H
