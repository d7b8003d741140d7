//===- XNNPACKBackend.h - the xnnpack backend's compile half ----*- C++ -*-===//
//
// Which edge ops the XNNPACK delegate runs (Support.cpp) and how a partition
// becomes its blob (Preprocess.cpp); the runtime half is
// lib/Runtime/Delegates/XNNPACK.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_BACKENDS_XNNPACK_XNNPACKBACKEND_H
#define STRATA_LIB_BACKENDS_XNNPACK_XNNPACKBACKEND_H

#include "strata/Backends/Backend.h"

namespace strata::xnnpack {

/// Whether the XNNPACK delegate runs `op`: f32 tensors of static shape
/// (rank 1 to 6), and per op a form XNNPACK's subgraph API has, with 4-d
/// values held NHWC (so no op that reads a 4-d value's dims in NCHW order
/// other than convolution, pooling, softmax over channels and element-wise
/// ops).
bool supportsOp(mlir::Operation *op);

/// Writes an outlined partition as the delegate's blob
/// (xnnpack_graph.fbs), its constants as named data in XNNPACK's layouts,
/// and checks that XNNPACK creates its runtime.
mlir::FailureOr<PreprocessResult> preprocess(mlir::func::FuncOp func,
                                             const CompileSpecs &specs);

/// What the delegate runs fused (strata-edge-fuse's options): a relu or
/// clip as the output clamp of a convolution, fully connected, pooling or
/// add/sub/mul/div node, a matmul's bias row, and hardswish as one node
/// where its input has no other reader, standing where its last op stood.
inline constexpr const char *kFusions =
    "anchors=conv2d,conv_transpose2d,matmul,max_pool2d,avg_pool2d,"
    "reduce_mean,add,sub,mul,div activations=relu,clip fusions=matmul-bias "
    "chains=hardswish chain-position=last exclusive-chains=true";

} // namespace strata::xnnpack

#endif // STRATA_LIB_BACKENDS_XNNPACK_XNNPACKBACKEND_H
