//===- EdgeReduction.td - reductions and top-k -------------*- tablegen -*-===//
//
// Reductions over sorted, unique, non-negative axes, arg-reductions and
// top-k indices.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_REDUCTION
#define STRATA_EDGE_REDUCTION

include "Edge/IR/EdgeBase.td"

defvar Edge_ReifyReductionDefinition = [{
  ::mlir::LogicalResult $cppClass::reifyResultShapes(::mlir::OpBuilder &builder,
      ::mlir::ReifiedRankedShapedTypeDims &shapes) {
    return ::strata::edge::detail::reifyReduction(*this, builder, getAxes(),
                                                  getKeepDims(), shapes);
  }
}];

def Edge_ReduceMeanOp : Edge_Op<"reduce_mean",
    [Pure, Edge_KernelOpInterface, InferTypeOpAdaptorWithIsCompatible,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let extraClassDefinition = Edge_ReifyReductionDefinition;
  let summary = "Mean over a set of axes";
  let description = [{
    `axes` is sorted, unique and non-negative. With `keep_dims` the reduced
    extents become 1, otherwise they are dropped. Global average pooling is
    `reduce_mean` over the spatial axes with `keep_dims`.

    Input and result share the element type, except in a delegated
    partition, where a fused post-op chain (strata-edge-fuse,
    EdgePostOps.td) may read 8-bit integers, scale them (`linear`) and
    `quantize` the mean into an 8-bit result (an int8 global average
    pooling).

    ```mlir
    %y = edge.reduce_mean %x {axes = array<i64: 2, 3>, keep_dims = true}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, DenseI64ArrayAttr:$axes,
                       BoolAttr:$keep_dims,
                       OptionalAttr<Edge_PostOpArrayAttr>:$post_ops);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::llvm::ArrayRef<int64_t>":$axes, "bool":$keep_dims), [{
      build($_builder, $_state, output, input, axes, keep_dims,
            ::mlir::ArrayAttr());
    }]>,
    OpBuilder<(ins "::mlir::Value":$input,
                   "::llvm::ArrayRef<int64_t>":$axes, "bool":$keep_dims), [{
      build($_builder, $_state, input, axes, keep_dims,
            ::mlir::ArrayAttr());
    }]>,
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::mlir::DenseI64ArrayAttr":$axes,
                   "::mlir::BoolAttr":$keep_dims), [{
      build($_builder, $_state, output, input, axes, keep_dims,
            ::mlir::ArrayAttr());
    }]>,
    OpBuilder<(ins "::mlir::Value":$input,
                   "::mlir::DenseI64ArrayAttr":$axes,
                   "::mlir::BoolAttr":$keep_dims), [{
      build($_builder, $_state, input, axes, keep_dims,
            ::mlir::ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
}

/// Reduction over sorted, unique, non-negative `axes`; shares reduce_mean's
/// result type inference.
class Edge_ReduceOp<string mnemonic, string what>
    : Edge_Op<mnemonic, [Pure, Edge_KernelOpInterface,
                         SameOperandsAndResultElementType,
                         InferTypeOpAdaptor,
        DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let extraClassDefinition = Edge_ReifyReductionDefinition;
  let summary = what # " over a set of axes";
  let description = !strconcat(
      "`axes` is sorted, unique and non-negative. With `keep_dims` the ",
      "reduced extents become 1, otherwise they are dropped.\n\n```mlir\n",
      "%y = edge.", mnemonic, " %x {axes = array<i64: 1>, keep_dims = true}\n",
      "    : (tensor<2x3xf32>) -> tensor<2x1xf32>\n```");
  let arguments = (ins Edge_Tensor:$input, DenseI64ArrayAttr:$axes,
                       BoolAttr:$keep_dims);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Edge_ReduceSumOp : Edge_ReduceOp<"reduce_sum", "Sum">;

def Edge_ReduceMaxOp : Edge_ReduceOp<"reduce_max", "Maximum">;

def Edge_ReduceMinOp : Edge_ReduceOp<"reduce_min", "Minimum">;

def Edge_ReduceProdOp : Edge_ReduceOp<"reduce_prod", "Product">;

/// Index of the extreme element along one axis.
class Edge_ArgReduceOp<string mnemonic, string what>
    : Edge_Op<mnemonic, [Pure, Edge_KernelOpInterface, InferTypeOpAdaptor]> {
  let summary = "Index (i64) of the " # what # " along one axis";
  let description = !strconcat(
      "`axis` is non-negative; with `keep_dims` the axis becomes 1, otherwise ",
      "it is dropped. Ties pick the first index, or the last with ",
      "`select_last_index`.\n\n```mlir\n",
      "%i = edge.", mnemonic, " %x {axis = 1 : i64, keep_dims = true, ",
      "select_last_index = false}\n",
      "    : (tensor<2x3xf32>) -> tensor<2x1xi64>\n```");
  let arguments = (ins Edge_Tensor:$input, I64Attr:$axis, BoolAttr:$keep_dims,
                       BoolAttr:$select_last_index);
  let results = (outs Edge_IndexTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ArgMaxOp : Edge_ArgReduceOp<"arg_max", "maximum">;

def Edge_ArgMinOp : Edge_ArgReduceOp<"arg_min", "minimum">;

def Edge_ArgTopKOp : Edge_Op<"arg_top_k", [Pure, Edge_KernelOpInterface,
    DeclareOpInterfaceMethods<Edge_ValueDependentExtentOpInterface,
        ["deriveExtentBound", "getGivenBound", "isValueDependentDim",
         "reifyOtherExtents"]>]> {
  let summary = "Indices (i64) of the k largest or smallest elements along an axis";
  let description = [{
    The result has the input's shape with extent `k` along `axis`; its
    entries are sorted by value (descending with `largest`, else ascending),
    equal values by index. The values themselves are a `gather_elements`
    of these indices (ONNX TopK is the pair). `k` is the result's extent,
    or, given as a one-element operand read at run time, a value-dependent
    extent (`?`) bounded by the axis' extent (at its bound, when the input
    has dynamic extents).

    ```mlir
    %i = edge.arg_top_k %x {axis = 1 : i64, largest = true}
        : (tensor<3x4xf32>) -> tensor<3x2xi64>
    %j = edge.arg_top_k %x, %k {axis = 1 : i64, largest = true}
        : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x?xi64>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Optional<Edge_IndexTensor>:$k,
                       I64Attr:$axis, BoolAttr:$largest);
  let results = (outs Edge_IndexTensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "int64_t":$axis, "bool":$largest), [{
      build($_builder, $_state, output, input, ::mlir::Value(), axis, largest);
    }]>
  ];
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // STRATA_EDGE_REDUCTION
