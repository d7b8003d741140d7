//===- HLVision.td - hl detection and sampling operations -*- tablegen -*-===//
//
// NonMaxSuppression, RoiAlign, GridSample, MaxUnpool, plus Unique and Det.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_VISION
#define STRATA_HL_VISION

include "HL/IR/HLBase.td"

def HL_NonMaxSuppressionOp : HL_Op<"non_max_suppression", [Pure]> {
  let summary = "Select boxes by score and overlap (ONNX NonMaxSuppression)";
  let description = [{
    Absent `max_output_boxes_per_class` and `iou_threshold` are materialised
    with ONNX's defaults (0 and 0.0) at import; `score_threshold` stays
    optional. The result lists `[batch, class, box]` index triples.

    ```mlir
    %i = hl.non_max_suppression %b, %s, %m, %iou
        : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<?x3xi64>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$boxes, HL_FloatTensor:$scores,
                       HL_I64Tensor:$max_output_boxes_per_class,
                       HL_FloatTensor:$iou_threshold,
                       Optional<HL_FloatTensor>:$score_threshold,
                       DefaultValuedAttr<I64Attr, "0">:$center_point_box);
  let results = (outs 2DTensorOf<[I64]>:$selected_indices);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_RoiAlignOp : HL_Op<"roi_align", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Region-of-interest align pooling (ONNX RoiAlign)";
  let description = [{
    ```mlir
    %y = hl.roi_align %x, %rois, %idx {output_height = 5 : i64, output_width = 5 : i64}
        : (tensor<1x1x10x10xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x5x5xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input, HL_FloatTensor:$rois,
                       1DTensorOf<[I64]>:$batch_indices,
                       DefaultValuedStrAttr<StrAttr, "half_pixel">:$coordinate_transformation_mode,
                       DefaultValuedStrAttr<StrAttr, "avg">:$mode,
                       DefaultValuedAttr<I64Attr, "1">:$output_height,
                       DefaultValuedAttr<I64Attr, "1">:$output_width,
                       DefaultValuedAttr<I64Attr, "0">:$sampling_ratio,
                       DefaultValuedAttr<F32Attr, "1.0f">:$spatial_scale);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_GridSampleOp : HL_Op<"grid_sample", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Sample an image at grid coordinates (ONNX GridSample)";
  let description = [{
    ```mlir
    %y = hl.grid_sample %x, %g {mode = "bilinear"}
        : (tensor<1x1x4x4xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, HL_FloatTensor:$grid,
                       DefaultValuedAttr<I64Attr, "0">:$align_corners,
                       DefaultValuedStrAttr<StrAttr, "bilinear">:$mode,
                       DefaultValuedStrAttr<StrAttr, "zeros">:$padding_mode);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_MaxUnpoolOp : HL_Op<"max_unpool", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Partial inverse of max pooling (ONNX MaxUnpool)";
  let description = [{
    ```mlir
    %y = hl.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$input, HL_I64Tensor:$indices,
                       Optional<HL_I64Tensor>:$output_shape,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_UniqueOp : HL_Op<"unique", [Pure,
    AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Unique elements or slices (ONNX Unique)";
  let description = [{
    All four results exist in hl (values, first indices, inverse indices,
    counts); the importer binds those the node lists.

    ```mlir
    %y, %i, %inv, %c = hl.unique %x {sorted = 1 : i64}
        : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
    ```
  }];
  let arguments = (ins HL_Tensor:$input, OptionalAttr<I64Attr>:$axis,
                       DefaultValuedAttr<I64Attr, "1">:$sorted);
  let results = (outs HL_Tensor:$output, 1DTensorOf<[I64]>:$indices,
                      1DTensorOf<[I64]>:$inverse_indices,
                      1DTensorOf<[I64]>:$counts);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_DetOp : HL_Op<"det", [Pure, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Determinant of square matrices (ONNX Det)";
  let description = [{
    Input `[*, M, M]`, result `[*]`.

    ```mlir
    %d = hl.det %x : (tensor<2x3x3xf32>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // STRATA_HL_VISION
