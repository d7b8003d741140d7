//===- GraphWriter.h - a partition as a oneDNN graph, op by op --*- C++ -*-===//
//
// The oneDNN partition writer: the shared delegate-writer state
// (Common/DelegateWriter.h) plus the oneDNN tensors (f32, s8, u8) and the
// post-op translation. Each edge op is written by the function its kind
// maps to, registered per op family: WriteLinear.cpp (convolutions,
// matmuls), WriteElementwise.cpp (element-wise, pooling, normalization,
// data movement) and WriteQuantized.cpp (int8). strata-edge-fuse has put
// every fusion into the IR before: a write function reads its op's
// `post_ops` and never looks at the op's users.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_BACKENDS_ONEDNN_GRAPHWRITER_H
#define STRATA_LIB_BACKENDS_ONEDNN_GRAPHWRITER_H

#include "OneDNNBackend.h"

#include "Common/DelegateWriter.h"
#include "Edge/IR/EdgePostOps.h"
#include "strata/Runtime/Delegates/Schema/onednn_graph_generated.h"

namespace strata::onednn {

namespace fbs = strata::onednn::fb;

class GraphWriter;
using WriteTable = backends::WriteTable<GraphWriter>;

class GraphWriter : public backends::DelegateWriter<fbs::GraphT, fbs::OpT> {
public:
  using DelegateWriter::DelegateWriter;
  /// Writes the partition: inputs, every op through the dispatch table,
  /// outputs.
  mlir::LogicalResult write();

  /// The tensor of a value already written, or of a constant (written on
  /// first use).
  mlir::FailureOr<uint32_t> tensor(mlir::Value value);
  /// The tensors of `values`, in order.
  mlir::FailureOr<std::vector<uint32_t>> tensorsOf(mlir::ValueRange values);
  /// A new tensor for `value`, written by the op being written.
  uint32_t newTensor(mlir::Value value);
  /// A new f32 constant tensor holding `values`.
  uint32_t constantTensor(llvm::ArrayRef<int64_t> dims,
                          llvm::ArrayRef<float> values);
  /// A new s8 constant tensor holding `values`.
  uint32_t int8ConstantTensor(llvm::ArrayRef<int64_t> dims,
                              llvm::ArrayRef<int8_t> values);
  /// A new op of `kind` computing `op`.
  fbs::OpT &addOp(fbs::OpKind kind, mlir::Operation *op) {
    fbs::OpT &out = addNode(graph.ops, op);
    out.kind = kind;
    return out;
  }
  /// Appends `op`'s post-op steps to `out`: eltwise post-ops for the
  /// activations, a sum post-op reading the next of `sumInputs` for each
  /// `sum` step, a linear one by 1 / scale for `quantize` (the op then
  /// writes s8, rounded and saturated as the reorder it replaces would).
  /// `add` steps are the caller's (a bias or shift input).
  void appendPostOps(fbs::OpT &out, mlir::Operation *op,
                     llvm::ArrayRef<uint32_t> sumInputs = {});

  /// s8 values known non-negative (a quantized conv or matmul clamped at
  /// zero writes them, or a max pooling of one) whose every reader takes
  /// u8: their bytes are the same in u8, and oneDNN 2.6 has faster int8
  /// kernels for u8 sources (brgconv and brdgmm_dw instead of jit_int8; no
  /// s8 compensation). See UnsignedValues.cpp.
  llvm::DenseSet<mlir::Value> unsignedValues;
};

/// An eltwise post-op or op parameters: oneDNN's function of an activation
/// kind, and its alpha (swish's sigmoid scale).
fbs::EltwiseKind eltwiseKindOf(edge::PostOpKind kind);
float eltwiseAlphaOf(edge::PostOpKind kind);
/// The eltwise post-op of an activation (gelu_erf, swish, hardswish).
std::unique_ptr<fbs::PostOpT> activationPostOp(edge::PostOpKind kind);
/// An eltwise post-op computing alpha * x.
std::unique_ptr<fbs::PostOpT> linearPostOp(float alpha);

/// `values` as a vector.
inline std::vector<int64_t> vec(llvm::ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

/// Strides, dilations, pads and groups of a (float or int8) convolution.
template <typename ConvOp> void setConvGeometry(fbs::OpT &out, ConvOp conv) {
  llvm::ArrayRef<int64_t> pads = conv.getPads();
  out.strides = vec(conv.getStrides());
  out.dilations = vec(conv.getDilations());
  out.pads_begin = {pads[0], pads[1]};
  out.pads_end = {pads[2], pads[3]};
  out.groups = conv.getGroup();
}

/// Finds the s8 values of `writer`'s partition that oneDNN may read as u8.
void findUnsignedValues(GraphWriter &writer);

/// The write functions of each op family.
void addLinearWriters(WriteTable &table);
void addElementwiseWriters(WriteTable &table);
void addQuantizedWriters(WriteTable &table);

} // namespace strata::onednn

#endif // STRATA_LIB_BACKENDS_ONEDNN_GRAPHWRITER_H
