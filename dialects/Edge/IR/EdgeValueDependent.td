//===- EdgeValueDependent.td - results sized by the data ---*- tablegen -*-===//
//
// Ops whose results have one extent known only once the data is read
// (docs/dynamic-shapes.md, step 3). Memory is planned at the most the
// operands can give at their bounds, or at the smaller `max_extent` the
// user gave (strata-compile --max-extent NODE=N); the kernel fails a call
// whose count would exceed it.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_VALUE_DEPENDENT
#define STRATA_EDGE_VALUE_DEPENDENT

include "Edge/IR/EdgeBase.td"
include "Edge/IR/EdgeInterfaces.td"

class Edge_ValueDependentOp<string mnemonic, list<Trait> traits = []>
    : Edge_Op<mnemonic, !listconcat(traits, [Pure, Edge_KernelOpInterface,
        DeclareOpInterfaceMethods<Edge_ValueDependentExtentOpInterface,
            ["deriveExtentBound", "isValueDependentDim",
             "reifyOtherExtents"]>])> {
  let hasVerifier = 1;
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Edge_NonZeroOp : Edge_ValueDependentOp<"non_zero"> {
  let summary = "Indices of the non-zero elements (ONNX NonZero)";
  let description = [{
    `[rank, count]` i64 coordinates of the non-zero elements in row-major
    order; `count` is at most the input's element count (at its bounds),
    or `max_extent` when given.

    ```mlir
    %y = edge.non_zero %x {max_extent = 12 : i64}
        : (tensor<3x4xi1>) -> tensor<2x?xi64>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, OptionalAttr<I64Attr>:$max_extent);
  let results = (outs Edge_IndexTensor:$output);
}

def Edge_CompressOp : Edge_ValueDependentOp<"compress",
    [AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Slices selected by a boolean condition (ONNX Compress)";
  let description = [{
    The slices along `axis` whose `condition` entry is true (without an
    axis, the flattened elements); a condition shorter than the axis drops
    the slices past its end. The selected extent is at most the
    condition's length, or `max_extent` when given. Other extents follow
    the input's.

    ```mlir
    %y = edge.compress %x, %c {axis = 0 : i64, max_extent = 3 : i64}
        : (tensor<3x2xf32>, tensor<3xi1>) -> tensor<?x2xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_BoolTensor:$condition,
                       OptionalAttr<I64Attr>:$axis, OptionalAttr<I64Attr>:$max_extent);
  let results = (outs Edge_Tensor:$output);
}

def Edge_UniqueOp : Edge_ValueDependentOp<"unique",
    [AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Distinct elements or slices (ONNX Unique)";
  let description = [{
    The distinct elements (or slices along `axis`), sorted or in order of
    first occurrence; each one's first index, every input element's (or
    slice's) position in the result, and each one's count. The distinct
    count is at most the number of elements (or slices), or `max_extent`
    when given. The input is static.

    ```mlir
    %y, %i, %inv, %c = edge.unique %x {max_extent = 6 : i64, sorted = 1 : i64}
        : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, OptionalAttr<I64Attr>:$axis,
                       I64Attr:$sorted, OptionalAttr<I64Attr>:$max_extent);
  let results = (outs Edge_Tensor:$output, Edge_IndexTensor:$indices,
                      Edge_IndexTensor:$inverse_indices,
                      Edge_IndexTensor:$counts);
}

def Edge_NonMaxSuppressionOp : Edge_ValueDependentOp<"non_max_suppression"> {
  let summary = "Boxes selected by score and overlap (ONNX NonMaxSuppression)";
  let description = [{
    Per batch and class, the boxes in decreasing score (above
    `score_threshold` when given), each kept unless it overlaps a kept box
    by more than `iou_threshold` (intersection over union), at most
    `max_output_boxes_per_class` of them: `[count, 3]` (batch, class, box)
    triples, `count` at most batches x classes x min(that count when it is
    a constant, boxes), or `max_extent` when given.

    ```mlir
    %i = edge.non_max_suppression %boxes, %scores, %max, %iou
        {center_point_box = 0 : i64, max_extent = 6 : i64}
        : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>)
        -> tensor<?x3xi64>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$boxes, Edge_F32Tensor:$scores,
                       Edge_IndexTensor:$max_output_boxes_per_class,
                       Edge_F32Tensor:$iou_threshold,
                       Optional<Edge_F32Tensor>:$score_threshold,
                       I64Attr:$center_point_box, OptionalAttr<I64Attr>:$max_extent);
  let results = (outs Edge_IndexTensor:$selected_indices);
}

#endif // STRATA_EDGE_VALUE_DEPENDENT
